"""Attacks: announcing one, its skill, rolling it (WIT-ATK, WIT-CALL, WIT-CHG-2, WIT-CRIT-2);
the defenses they meet are defenses.py's, a Charge's ground charges.py's, the damage of a
hit damage.py's."""

from __future__ import annotations

from typing import Any

from domain.dice import Ask
from domain.errors import RuleViolation
from domain.rulesystems.base import Context, with_situational
from domain.rulesystems.wits import commands as wc
from domain.rulesystems.wits import events as we
from domain.rulesystems.wits import turns
from domain.rulesystems.wits.charges import CHARGE_MODIFIER, charge_ground, metres
from domain.rulesystems.wits.damage import CRITICAL, deal_damage
from domain.rulesystems.wits.defenses import DEFENSE_NAMES, MODE_NAMES, declare_defense
from domain.rulesystems.wits.dice import test_roll, under
from domain.rulesystems.wits.skills import gm_modifiers, skill_of, weapon_of
from domain.rulesystems.wits.state import WitsAttack, round_marks_of
from domain.rulesystems.wits.stats import Weapon, WitsStats
from domain.state import ActionState, CombatantState, EncounterState

# WIT-CALL-1: the Called Shot table, a modifier to the Attack Skill
CALLED_SHOT = {
    "arm": -2,
    "leg": -2,
    "vitals": -3,
    "groin": -4,
    "head": -5,
    "hand": -6,
    "foot": -6,
    "neck": -8,
    "heart": -10,
}


# -- announcing -------------------------------------------------------------------------


def announce(ctx: Context, cmd: wc.Attack) -> None:
    """WIT-ATK-1: the attacker states his target and what he does; one action (WIT-ACT-3),
    and a Charge that still has ground to cover moves first with the other (WIT-CHG-5)."""
    state = ctx.state
    who = state.combatant(cmd.combatant)
    target = state.combatant(cmd.target)
    weapon, stats = _check_attacker(state, who, target, cmd)
    distance = metres(cmd.distance_m, cmd.distance_ft)
    ground, charge_from = charge_ground(who, target, weapon, stats, cmd.charge, distance)
    turns.check_actions(
        who, 1 + (ground > 0), "a Charge that still has to close" if ground else "an attack"
    )
    if ground > 0:
        who = _close_in(ctx, who, target, ground, charge_from)
    action = _attack_action(ctx.state, who, target, weapon, cmd, charge_from)
    attack_skill(ctx.state, who, action)  # its modifiers are checked now, not at the roll
    ctx.emit(
        we.AttackAnnounced,
        combatant=who.id,
        target=target.id,
        action=action.model_dump(),
        actions=1,
    )
    if cmd.defense is not None:
        declare_defense(ctx, ctx.state.combatants[target.id], cmd.defense, action.origin or 0)
    if cmd.roll:
        roll_attack(ctx, cmd.degree, cmd.hit)
    elif cmd.degree is not None or cmd.hit is not None:
        raise RuleViolation(
            "WIT-TEST-3", "degree and hit go with the roll (roll_attack)", field="degree"
        )


def _check_attacker(
    state: EncounterState, who: CombatantState, target: CombatantState, cmd: wc.Attack
) -> tuple[Weapon, WitsStats]:
    """May he attack him with this weapon now? His weapon and his stats."""
    if target.id == who.id:
        raise RuleViolation("WIT-ATK-1", "a combatant does not attack himself", field="target")
    turns.check_turn(state, who, cmd.out_of_order)
    stats = turns.stats_of(who)
    weapon = weapon_of(stats, cmd.weapon, who)
    if round_marks_of(who).defense in ("total", "total_single"):
        raise RuleViolation(
            "WIT-DEF-3", f"{who.name} took Total Defense: no attack this round", field="combatant"
        )
    if not weapon.ranged and stats.base_damage is None:
        raise RuleViolation(
            "WIT-DMG-6",
            f"{who.name} needs a Base Damage die (stats.base_damage) for {weapon.name}",
            field="weapon",
        )
    return weapon, stats


def _close_in(
    ctx: Context,
    who: CombatantState,
    target: CombatantState,
    ground: float,
    charge_from: float | None,
) -> CombatantState:
    """WIT-CHG-5, WIT-MOV-1: a Charge covers its ground with one action; he, moved."""
    moved = ctx.emit(
        we.Moved,
        combatant=who.id,
        metres=ground,
        actions=1,
        charge_at=target.id,
        charge_from_m=charge_from,
    )
    turns.lose_aim(ctx, who, "he moved (WIT-AIM-5)", moved)
    return ctx.state.combatants[who.id]


def _attack_action(
    state: EncounterState,
    who: CombatantState,
    target: CombatantState,
    weapon: Weapon,
    cmd: wc.Attack,
    charge_from: float | None,
) -> ActionState:
    """The attack announced, as the next event declares it."""
    position = state.version + 1
    return ActionState(
        id=f"{position}.attack",
        combatant=who.id,
        kind="attack",
        round=state.round,
        declared_round=state.round,
        cost=1,
        order=len([a for a in state.actions if a.combatant == who.id]),
        target=target.id,
        weapon=weapon.name,
        params=WitsAttack(
            called_shot=cmd.called_shot,
            charge=cmd.charge,
            charge_from_m=charge_from,
            visible=cmd.visible,
            physical=cmd.physical,
            modifiers=dict(cmd.modifiers),
            ranged=weapon.ranged,
        ).as_params(),
        origin=position,
    )


# -- rolling ----------------------------------------------------------------------------


def attack_skill(state: EncounterState, who: CombatantState, action: ActionState) -> dict[str, Any]:
    """WIT-ATK-3, WIT-TEST-2: the weapon's skill and the situation's modifiers."""
    stats = turns.stats_of(who)
    weapon = weapon_of(stats, action.weapon, who)
    attack = WitsAttack.of(action)
    parts: dict[str, int] = {}
    aim = turns.aim_of(who)
    if aim:
        parts["aiming"] = aim  # WIT-AIM-1, WIT-AIM-3
    if attack.charge:
        parts["charge"] = CHARGE_MODIFIER  # WIT-CHG-2
    if attack.called_shot:
        parts[f"called shot: {attack.called_shot}"] = CALLED_SHOT[attack.called_shot]  # WIT-CALL-1
    parts |= gm_modifiers(state, who, "ab", "act")
    parts = with_situational(parts, attack.modifiers)
    return skill_of(stats.skills[weapon.skill], weapon.skill, parts)


def _degree(
    entered: str | None, success: bool, face: int, state: EncounterState
) -> tuple[str, str]:
    """WIT-TEST-3 (Default WIT-AMB-3): higher degrees are entered, unless the encounter's
    options set the die results that reach them."""
    if entered is not None:
        return entered, "entered"
    options = turns.options_of(state)
    if success:
        if options.extraordinary_at is not None and face <= options.extraordinary_at:
            return "extraordinary", "option"
        if options.critical_at is not None and face <= options.critical_at:
            return "critical", "option"
    return ("success" if success else "failure"), "rolled"


def roll_attack(ctx: Context, degree: str | None = None, hit: bool | None = None) -> None:
    state = ctx.state
    action = turns.pending_attack(state)
    if action is None:
        raise RuleViolation("WIT-ATK-1", "no attack is announced")
    who = state.combatants[action.combatant]
    target = state.combatants[action.target or ""]
    options = turns.options_of(state)
    skill = attack_skill(state, who, action)
    roll = test_roll(
        ctx.dice,
        "attack",
        options.test_die,
        Ask(
            who.id,
            f"{who.name}'s {action.weapon} attack on {target.name}"
            f"{' (a Charge)' if WitsAttack.of(action).charge else ''}: "
            f"{under(options.test_die, skill['effective'])}",
        ),
    )
    success = roll.total <= skill["effective"]  # WIT-TEST-1
    degree, source = _degree(degree, success, roll.total, state)
    success = degree != "failure"
    rolls = {"attack": roll.to_dict()}
    outcome, defense_roll = _defense_roll(ctx, action, who, target, degree in CRITICAL)
    if defense_roll is not None:
        rolls["defense"] = defense_roll
    # WIT-ATK-4: the test succeeds and the defense, if any, fails
    computed = success and not (outcome is not None and outcome["success"])
    landed = computed if hit is None else hit
    position = ctx.emit(
        we.AttackTestRolled,
        cause=action.origin,
        combatant=who.id,
        action=action.id,
        target=target.id,
        rolls=rolls,
        skill=skill,
        success=success,
        degree=degree,
        degree_source=source,
        defense=outcome,
        hit=landed,
        overridden=landed != computed,
    )
    if landed:
        deal_damage(ctx, who, target, action, degree, position)


def _defense_roll(
    ctx: Context,
    action: ActionState,
    who: CombatantState,
    target: CombatantState,
    critical: bool,
) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """The declared defense's outcome, and its roll if it is rolled: a Critical Success
    leaves no defense but a magical one (WIT-CRIT-2, Default WIT-AMB-20)."""
    defense = WitsAttack.of(action).defense
    if defense is None:
        return None, None
    outcome = {"kind": defense.kind, "mode": defense.mode, **defense.skill}
    if critical and not defense.magical:  # WIT-CRIT-2 (Default WIT-AMB-20)
        return outcome | {"rolled": False, "success": False, "why": "WIT-CRIT-2"}, None
    die = turns.options_of(ctx.state).test_die
    d = test_roll(
        ctx.dice,
        "defense",
        die,
        Ask(
            target.id,
            f"{target.name}'s {DEFENSE_NAMES[defense.kind]} "
            f"({MODE_NAMES[defense.mode]}) against {who.name}: "
            f"{under(die, outcome['effective'])}",
        ),
    )
    rolled = {"rolled": True, "total": d.total, "success": d.total <= outcome["effective"]}
    return outcome | rolled, d.to_dict()
