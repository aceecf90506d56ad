"""Aiming, moving, other actions, holding and ending a turn, knock-backs
(WIT-ACT-2, -3, WIT-MOV-1..3, WIT-ORD-3, -5, WIT-AIM-1..5, WIT-CHG-4, -5)."""

from __future__ import annotations

from domain import commands as c
from domain import events as ev
from domain.dice import Ask
from domain.errors import RuleViolation
from domain.rulesystems.base import Context, with_situational
from domain.rulesystems.wits import commands as wc
from domain.rulesystems.wits import events as we
from domain.rulesystems.wits import turns
from domain.rulesystems.wits.charges import charge_start, metres
from domain.rulesystems.wits.dice import test_roll, under
from domain.rulesystems.wits.skills import gm_modifiers, skill_of
from domain.rulesystems.wits.state import WitsAttack, round_marks_of
from domain.rulesystems.wits.stats import WitsStats
from domain.state import CombatantState

KNOCK_BACK_AFTER_CHARGE = -5  # WIT-CHG-4


def aim(ctx: Context, cmd: wc.Aim) -> None:
    """WIT-AIM-1, -3, -4: +1 to the next attack per consecutive action, up to +5."""
    who = ctx.state.combatant(cmd.combatant)
    turns.check_turn(ctx.state, who, cmd.out_of_order)
    turns.check_actions(who, 1, "aiming")
    bonus = turns.aim_of(who)
    if bonus >= turns.MAX_AIM:
        raise RuleViolation(
            "WIT-AIM-3",
            f"{who.name} has aimed {turns.MAX_AIM} actions: +{turns.MAX_AIM} is the most",
            field="combatant",
        )
    ctx.emit(we.Aimed, combatant=who.id, aim_before=bonus, aim_after=bonus + 1)


def move(ctx: Context, cmd: wc.Move) -> None:
    """WIT-MOV-1: up to half Move (rounded down) for one action; WIT-MOV-2: up to Move for
    the whole round; Default WIT-AMB-14: two half moves are the whole round too."""
    state = ctx.state
    who = state.combatant(cmd.combatant)
    turns.check_turn(state, who, cmd.out_of_order)
    distance = metres(cmd.distance_m, cmd.distance_ft)
    if distance is None:
        raise RuleViolation("WIT-MOV-1", "a move needs its distance", field="distance_m")
    cost = _move_cost(who, turns.stats_of(who), distance)
    turns.check_actions(who, cost, f"moving {distance:g} m")
    charge_from = charge_start(state, who, cmd.charge_at, cmd.charge_from_m)  # WIT-CHG-5
    position = ctx.emit(
        we.Moved,
        combatant=who.id,
        metres=distance,
        actions=cost,
        charge_at=cmd.charge_at,
        charge_from_m=charge_from,
    )
    turns.lose_aim(ctx, who, "he moved (WIT-AIM-5)", position)


def _move_cost(who: CombatantState, stats: WitsStats, distance: float) -> int:
    """The actions a move uses: one up to half Move (WIT-MOV-1), the whole round up to Move,
    with no other action that round (WIT-MOV-2)."""
    half = stats.move // 2
    if distance > stats.move:
        raise RuleViolation(
            "WIT-MOV-2",
            f"{who.name} moves at most his Move, {stats.move} m, a round",
            field="distance_m",
        )
    if distance <= half:
        return 1
    if turns.actions_used(who):  # WIT-MOV-2: he cannot act that round
        raise RuleViolation(
            "WIT-MOV-2",
            f"moving more than half his Move ({half} m) takes the whole round; "
            f"{who.name} has already used an action",
            field="distance_m",
        )
    return 2


def take_action(ctx: Context, cmd: wc.TakeAction) -> None:
    """WIT-ACT-2, WIT-ACT-3: a spell, a skill, anything that takes effort; one action unless
    the GM enters two."""
    who = ctx.state.combatant(cmd.combatant)
    turns.check_turn(ctx.state, who, cmd.out_of_order)
    turns.check_actions(who, cmd.actions, cmd.what)
    position = ctx.emit(we.ActionTaken, combatant=who.id, what=cmd.what, actions=cmd.actions)
    turns.lose_aim(ctx, who, f"he {cmd.what} (WIT-AIM-5)", position)


def hold(ctx: Context, cmd: c.Hold) -> None:
    """WIT-ORD-3: on his turn he may hold his actions and act at any later point."""
    state = ctx.state
    who = state.combatant(cmd.combatant)
    if cmd.ip is not None:
        raise RuleViolation("WIT-ORD-3", "a Wits hold names no IP", field="ip")
    if round_marks_of(who).held:
        raise RuleViolation("WIT-ORD-3", f"{who.name} already holds", field="combatant")
    turns.check_turn(state, who, out_of_order=False)
    if turns.actions_left(who) == 0:
        raise RuleViolation("WIT-ORD-3", f"{who.name} has no action left to hold")
    ctx.emit(we.TurnHeld, combatant=who.id)


def end_turn(ctx: Context, cmd: c.EndTurn) -> None:
    """WIT-ORD-5: he ends his turn; an action left serves for a defense."""
    who = ctx.state.combatant(cmd.combatant)
    turns.check_turn(ctx.state, who, cmd.out_of_order)
    ctx.emit(ev.TurnEnded, combatant=who.id, actions_left=turns.actions_left(who))


def knock_back(ctx: Context, cmd: wc.KnockBack) -> None:
    """WIT-CHG-4 (Default WIT-AMB-10): the GM rules a hit knocked its target back; he tests
    Strength to stay on his feet, at −5 if the blow was a Charge; he loses his aim."""
    state = ctx.state
    who = state.combatant(cmd.combatant)
    action = state.action(cmd.attack)
    attack = WitsAttack.of(action) if action.kind == "attack" else None
    if attack is None or action.target != who.id or not attack.hit:
        raise RuleViolation(
            "WIT-CHG-4", f"{action.id} is not a hit on {who.name} this round", field="attack"
        )
    if attack.knocked_back:
        raise RuleViolation(
            "WIT-CHG-4",
            f"{who.name} has tested Strength against {action.id} already (void it to redo)",
            field="attack",
        )
    strength = turns.stats_of(who).strength
    if strength is None:
        raise RuleViolation(
            "WIT-CHG-4", f"{who.name} needs a Strength (stats.strength) to test", field="combatant"
        )
    parts = {"charge": KNOCK_BACK_AFTER_CHARGE} if attack.charge else {}
    parts |= gm_modifiers(state, who, "act")
    skill = skill_of(strength, "strength", with_situational(parts, cmd.modifiers))
    die = turns.options_of(state).test_die
    attacker = state.combatants[action.combatant].name
    roll = test_roll(
        ctx.dice,
        "strength",
        die,
        Ask(
            who.id,
            f"{who.name}'s Strength test to stay on his feet, knocked back by {attacker}"
            f"{' (a Charge: −5)' if attack.charge else ''}: "
            f"{under(die, skill['effective'])}",
        ),
    )
    stays_up = roll.total <= skill["effective"]  # WIT-TEST-1
    position = ctx.emit(
        we.KnockBackTested,
        cause=attack.rolled_at,  # voiding the hit voids the knock-back
        combatant=who.id,
        attack=action.id,
        rolls={"strength": roll.to_dict()},
        skill=skill,
        stays_up=stays_up,
    )
    turns.lose_aim(ctx, who, "he was knocked back (WIT-AIM-5)", position)
    if not stays_up:
        ctx.apply_condition(who.id, "prone", "knocked off his feet", cause=position)
