"""Step 3: resolve the next declared action (NOV-RES-1..4, NOV-COND-1, -4, NOV-HITS-3,
NOV-RRI-1)."""

from __future__ import annotations

from domain import events as ev
from domain.errors import RuleViolation
from domain.rulesystems.base import Context, with_situational
from domain.rulesystems.novus import actions as act
from domain.rulesystems.novus import cancel, combat, rounds
from domain.rulesystems.novus import commands as nc
from domain.rulesystems.novus import events as ne
from domain.rulesystems.novus.attacks import resolve_attack, spell_attack
from domain.rulesystems.novus.dice import Asking, open_2d10
from domain.rulesystems.novus.initiative import gain_fate_point
from domain.rulesystems.novus.state import NovusAction
from domain.state import ActionState

STABILISE_TN = 25  # NOV-HITS-3


def resolve(ctx: Context, cmd: nc.Resolve) -> None:
    current = rounds.step(ctx.state)
    rounds.require_points_spent(current)
    if current != "resolution":
        raise RuleViolation("NOV-SEQ-1", f"nothing to resolve: the round is at '{current}'")
    lost = rounds.lose_blocked(ctx)
    pending = rounds.queue(ctx.state)
    if not pending:
        if lost:
            return
        raise RuleViolation("NOV-RES-1", "every declared action has resolved")
    action = pending[0]
    if cmd.action is not None and cmd.action != action.id:
        who = ctx.state.combatants[action.combatant].name
        raise RuleViolation(
            "NOV-RES-1",
            f"the next action to resolve is {action.id} ({who}), not {cmd.action}",
            field="action",
        )
    if act.CATALOGUE[action.kind].attack:
        resolve_attack(ctx, action, cmd)
    elif NovusAction.of(action).vs_def:
        spell_attack(ctx, action, cmd)
    elif action.kind == "first_aid":
        first_aid(ctx, action, cmd)
    elif action.kind == "block":
        cancel.block(ctx, action)
    else:
        _other(ctx, action)


def _other(ctx: Context, action: ActionState) -> None:
    detail = {"ap": action.cost}
    feet = NovusAction.of(action).feet
    if feet is not None:
        detail["feet"] = feet
    pos = ctx.emit(
        ev.ActionResolved,
        cause=action.origin,
        combatant=action.combatant,
        action=action.id,
        kind=action.kind,
        detail=detail,
    )
    who = ctx.state.combatants[action.combatant]
    if action.kind == "get_up" and who.has("prone"):  # NOV-COND-4
        ctx.clear_condition(who.id, "prone", "got up (2 AP)", cause=pos)
    if action.kind == "prepare_reroll":  # NOV-RRI-1 (Default NOV-AMB-30)
        ctx.apply_condition(
            who.id, rounds.REROLL, "prepared: rolls initiative again next round", cause=pos
        )


def first_aid(ctx: Context, action: ActionState, cmd: nc.Resolve) -> None:
    """Stabilise the dying at TN 25 (NOV-HITS-3), or close a wound at 15 + 3 × its rate
    (NOV-COND-1)."""
    state = ctx.state
    healer = state.combatants[action.combatant]
    patient = state.combatant(action.target or healer.id)
    wound = None
    if patient.hits <= 0 and not patient.has("stabilised"):
        purpose, tn = "stabilise", STABILISE_TN
    elif patient.wounds:
        wanted = NovusAction.of(action).wound
        wound = next((w for w in patient.wounds if w.position == wanted), patient.wounds[0])
        purpose, tn = "close wound", 15 + 3 * wound.rate
    else:
        ctx.emit(
            ev.ActionResolved,
            cause=action.origin,
            combatant=healer.id,
            action=action.id,
            kind="first_aid",
            detail={"ap": action.cost, "outcome": "nothing to treat"},
        )
        return
    computed = {
        "first aid": combat.stats_of(healer).first_aid,
        **NovusAction.of(action).ab_mods,  # e.g. −5 as a cancel's replacement
        **combat.action_penalties(state, healer, action),
    }
    mods = with_situational(computed, cmd.modifiers)
    on = "himself" if patient.id == healer.id else patient.name
    asking = Asking(
        healer.id,
        f"{healer.name}'s First Aid on {on}: {purpose} (TN {tn})",
        f"{healer.name}'s First Aid",
    )
    roll = open_2d10(ctx.dice, "first_aid", mods, asking)
    success = roll.total >= tn  # NOV-CORE-1
    pos = ctx.emit(
        ne.FirstAidRolled,
        cause=action.origin,
        combatant=healer.id,
        target=patient.id,
        action=action.id,
        purpose=purpose,
        rolls={"first_aid": roll.to_dict()},
        tn=tn,
        total=roll.total,
        success=success,
    )
    gain_fate_point(ctx, healer, roll, pos)
    if success and wound is None:
        ctx.apply_condition(patient.id, "stabilised", "First Aid", cause=pos)
    elif success:
        ctx.clear_condition(
            patient.id, "bleeding", "First Aid closed the wound", cause=pos, wound=wound.position
        )
