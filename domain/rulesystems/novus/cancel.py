"""Cancelling declared actions, and Opportunity Attacks: what happens out of the resolution
order (NOV-CANCEL-1..5, NOV-MAR-2, NOV-MCH-8, NOV-OA-1..3, NOV-RES-3)."""

from __future__ import annotations

from typing import Any

from domain.errors import RuleViolation
from domain.rulesystems.base import Context
from domain.rulesystems.novus import actions as act
from domain.rulesystems.novus import combat, rounds
from domain.rulesystems.novus import commands as nc
from domain.rulesystems.novus import events as ne
from domain.rulesystems.novus.declared_action import declared_action
from domain.rulesystems.novus.dice import Asking, open_2d10
from domain.rulesystems.novus.initiative import gain_fate_point
from domain.rulesystems.novus.state import NovusAction, round_marks_of
from domain.state import ActionState, CombatantState, EncounterState

CANCEL_MOVE_AP = 3  # NOV-CANCEL-2: a move of at most 3 AP
OTHER_ACTION = -5  # NOV-CANCEL-2: some other action at −5
DEFENSIVE = {"dodge", "block", "counterspell", "instant_spell_action"}  # NOV-CANCEL-2 4..6
BLOCK_TN = 10  # NOV-CMV-2: Basic Block against TN 10 + the attacker's AB


def _mine_this_round(state: EncounterState, who: CombatantState) -> list[ActionState]:
    return [a for a in state.actions if a.combatant == who.id and a.round == state.round]


def cancel(ctx: Context, cmd: nc.Cancel) -> None:
    state = ctx.state
    who = state.combatant(cmd.combatant)
    if rounds.step(state) not in ("resolution", "boons", "snags"):
        raise RuleViolation("NOV-CANCEL-1", "actions are cancelled while the round resolves")
    mine = [
        a
        for a in state.actions
        if a.combatant == who.id and a.round >= state.round and a.declared_round <= state.round
    ]  # a multi-round action can be cancelled too
    pending = [a for a in mine if a.status == "pending"]
    if any(a.id.endswith(".replacement") for a in pending):  # Default NOV-AMB-15: one only
        raise RuleViolation(
            "NOV-CANCEL-2", "a replacement cannot be cancelled for another", field="combatant"
        )
    if not pending:  # NOV-CANCEL-1: only before it resolves
        raise RuleViolation(
            "NOV-CANCEL-1", f"{who.name} has no unresolved action to cancel", field="combatant"
        )
    attacked = any(a.status == "resolved" and act.CATALOGUE[a.kind].attack for a in mine)
    if attacked and cmd.replacement is not None:  # NOV-CANCEL-5, NOV-MAR-2
        raise RuleViolation(
            "NOV-CANCEL-5",
            "after the first of several attacks he may drop the rest but take no other action",
            field="replacement",
        )
    replacement: list[dict[str, Any]] = []
    if cmd.replacement is not None:
        replacement.append(_replacement(state, who, cmd.replacement, pending, ctx.first_position))
    ctx.emit(
        ne.ActionsCancelled,
        combatant=who.id,
        cancelled=[a.id for a in pending],
        replacement=replacement,
    )


def _replacement(
    state: EncounterState,
    who: CombatantState,
    spec: nc.ActionSpec,
    cancelled: list[ActionState],
    position: int,
) -> dict[str, Any]:
    """NOV-CANCEL-2..4 (Default NOV-AMB-15): exactly one replacement, at once, free of AP
    but for a move of at most 3 AP."""
    kind = act.kind_of(spec)
    stats = combat.stats_of(who)
    if kind.attack:
        act.cost_of(spec, stats)  # the weapon must suit the attack (NOV-AP-1)
    dodged = any(
        a.kind == "dodge" and a.status in ("pending", "resolved")
        for a in _mine_this_round(state, who)
    )
    if spec.defensive and (dodged or kind.kind == "dodge"):
        raise RuleViolation(
            "NOV-FDEF-2",
            "Fighting Defensively never goes with a Dodge",
            field="replacement.defensive",
        )
    cost = _replacement_cost(state, who, spec, kind, cancelled)
    budget = act.Budget(rounds.ap_budget(state, who), [cost], cost, 0)
    action = declared_action(state, who, spec, kind, cost, position, 0, 0, budget)
    facts = NovusAction.of(action)
    if kind.kind == "melee_attack":
        facts.half_ab = True  # NOV-CANCEL-2 item 1
    elif kind.kind not in DEFENSIVE and kind.kind not in ("move", "run"):
        facts.ab_mods["cancelled: other action"] = OTHER_ACTION  # NOV-CANCEL-2 item 3
    if kind.kind == "dodge" and _charged_by_someone(state, who):  # NOV-MCH-8: last moment
        facts.def_mods = {name: 2 * mod for name, mod in facts.def_mods.items()}
        facts.label = f"{kind.label}, at the last moment (doubled)"
    return action.model_copy(
        update={
            "id": f"{position}.replacement",
            "immediate": True,
            "extra": False,
            "params": facts.as_params(),
        }
    ).model_dump()


def _replacement_cost(
    state: EncounterState,
    who: CombatantState,
    spec: nc.ActionSpec,
    kind: act.ActionKind,
    cancelled: list[ActionState],
) -> int:
    """What the replacement may be, and its AP: none but for a move of at most 3 AP
    (NOV-CANCEL-2, -4, NOV-HASTE-2)."""
    if kind.kind in ("move", "run"):
        cost = act.cost_of(spec, combat.stats_of(who))
        if cost > CANCEL_MOVE_AP:
            raise RuleViolation(
                "NOV-CANCEL-2",
                f"a move after cancelling costs at most {CANCEL_MOVE_AP} AP",
                field="replacement.ap",
            )
        return cost
    if kind.attack and kind.kind != "melee_attack":
        raise RuleViolation(
            "NOV-CANCEL-2",
            "the one attack a cancel may bring is a melee attack at half AB",
            field="replacement.kind",
        )
    if kind.kind == "melee_attack":
        foes = {a.target for a in cancelled if act.CATALOGUE[a.kind].attack}
        if spec.target in foes:  # NOV-CANCEL-4
            raise RuleViolation(
                "NOV-CANCEL-4",
                "the replacement attack may not be on the foe of the cancelled melee attack",
                field="replacement.target",
            )
    elif kind.spell and any(  # NOV-HASTE-2 (Default NOV-AMB-20)
        act.CATALOGUE[a.kind].spell for a in _mine_this_round(state, who) if a.status == "resolved"
    ):
        raise RuleViolation("NOV-HASTE-2", "no more than one spell in a round", field="replacement")
    return 0


def _charged_by_someone(state: EncounterState, who: CombatantState) -> bool:
    return any(
        a.kind == "mounted_charge"
        and a.target == who.id
        and a.status == "pending"
        and a.round == state.round
        for a in state.actions
    )


def opportunity_attack(ctx: Context, cmd: nc.OpportunityAttack) -> None:
    """NOV-OA-1..3 (Default NOV-AMB-25): it uses his declared attack, as declared, on the new
    target; else it is paid the basic melee attack's AP. Refused with no attack left, no AP
    to pay, or when he cannot act. The trigger (a foe crossing his Control Zone without
    disengaging, NOV-OA-4) is the GM's call."""
    state = ctx.state
    who = state.combatant(cmd.combatant)
    if rounds.step(state) != "resolution":
        raise RuleViolation("NOV-OA-1", "an Opportunity Attack happens while the round resolves")
    mine = _mine_this_round(state, who)
    declared = next(
        (a for a in mine if a.status == "pending" and act.CATALOGUE[a.kind].attack), None
    )
    target = state.combatant(cmd.target)
    if target.id == who.id:
        raise RuleViolation("NOV-ATK-1", "a combatant does not attack himself", field="target")
    position = ctx.first_position
    if declared is not None:  # NOV-OA-2: the attack of the round, with all it carries
        attack = declared.model_copy(update={"target": target.id, "origin": position})
        ap_cost = 0
    else:
        attack, ap_cost = _paid_attack(state, who, cmd, mine, position)
    action = _as_opportunity(attack, position)
    blocked = rounds.is_blocked(state, action)
    if blocked:
        rule, reason = blocked.split(": ", 1)
        raise RuleViolation(rule, f"{who.name} cannot: {reason}", field="combatant")
    ctx.emit(
        ne.OpportunityTaken,
        combatant=who.id,
        target=target.id,
        consumed=declared.id if declared else None,
        ap_cost=ap_cost,
        action=action.model_dump(),
    )


def _paid_attack(
    state: EncounterState,
    who: CombatantState,
    cmd: nc.OpportunityAttack,
    mine: list[ActionState],
    position: int,
) -> tuple[ActionState, int]:
    """NOV-OA-3: with no declared attack, a basic melee attack paid its AP; its cost."""
    if any(act.CATALOGUE[a.kind].attack and a.status == "resolved" for a in mine):
        raise RuleViolation(
            "NOV-OA-3", f"{who.name} has no attack left this round", field="combatant"
        )
    spec = nc.ActionSpec(kind="melee_attack", target=cmd.target, weapon=cmd.weapon)
    ap_cost = act.cost_of(spec, combat.stats_of(who))
    left = rounds.ap_budget(state, who) - round_marks_of(who).ap_spent
    if ap_cost > left:
        raise RuleViolation(
            "NOV-OA-3", f"the attack costs {ap_cost} AP, {left} are left", field="combatant"
        )
    budget = act.Budget(rounds.ap_budget(state, who), [ap_cost], ap_cost, 0)
    kind = act.CATALOGUE["melee_attack"]
    return declared_action(state, who, spec, kind, ap_cost, position, 0, 0, budget), ap_cost


def _as_opportunity(attack: ActionState, position: int) -> ActionState:
    """The attack made an Opportunity Attack: at once, and named so (NOV-OA-2)."""
    facts = NovusAction.of(attack)
    facts.label = "Opportunity Attack"
    return attack.model_copy(
        update={
            "id": f"{position}.opportunity",
            "immediate": True,
            "extra": False,
            "params": facts.as_params(),
        }
    )


def block(ctx: Context, action: ActionState) -> None:
    """NOV-CMV-2 (Default NOV-AMB-14): roll AB against TN 10 + the attacker's AB, both
    counting only AB not moved to DEF (NOV-FDEF-3); success stops that attack."""
    state = ctx.state
    blocker = state.combatants[action.combatant]
    attacker = state.combatant(action.target or "")
    incoming = next(
        (
            a
            for a in rounds.queue(state)
            if a.combatant == attacker.id
            and a.target == blocker.id
            and act.CATALOGUE[a.kind].attack
        ),
        None,
    )
    stats = combat.stats_of(blocker)
    weapon = (
        None
        if blocker.has("disarmed")
        else next(  # disarmed: nothing to block with
            (w for w in stats.weapons if w.kind == "melee"), None
        )
    )
    own = {
        "block skill": weapon.skill_bonus + stats.bonuses.of(weapon.stat) if weapon else 0,
        **NovusAction.of(action).ab_mods,
        **combat.action_penalties(state, blocker, action),
    }
    shifted = combat.defense(state, blocker)["parts"].get("fighting defensively", 0)
    if shifted:  # NOV-FDEF-3: the AB moved to DEF this round is off the Block roll too
        own["fighting defensively"] = -2 * shifted
    tn = BLOCK_TN
    if incoming is not None:
        their_weapon = combat.stats_of(attacker).weapon(incoming.weapon)
        tn += sum(combat.attack_bonus(state, attacker, incoming, their_weapon, {}).values())
    against = (
        f"{attacker.name}'s attack (TN {tn})"
        if incoming is not None
        else f"{attacker.name}, who has no attack on him waiting (it cannot succeed)"
    )
    asking = Asking(
        blocker.id, f"{blocker.name}'s Block against {against}", f"{blocker.name}'s Block"
    )
    roll = open_2d10(ctx.dice, "block", own, asking)
    success = incoming is not None and roll.total >= tn
    pos = ctx.emit(
        ne.BlockRolled,
        cause=action.origin,
        combatant=blocker.id,
        action=action.id,
        attacker=attacker.id,
        blocked=incoming.id if success and incoming else None,
        rolls={"block": roll.to_dict()},
        tn=tn,
        total=roll.total,
        success=success,
    )
    gain_fate_point(ctx, blocker, roll, pos)
