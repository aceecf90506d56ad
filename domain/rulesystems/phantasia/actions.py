"""The other actions, one action point each (PHA-ACT-1): Move (PHA-ACT-16), Switch Weapon
(-9), Reload (-17), Use an Item (-19), Defense (-13), Stand Up (PHA-STS-19), a prepared
action (PHA-RX-2), Cast a Power (PHA-ACT-15) and any other the narrator allows.

Checks and opposed checks are in `contests`, statuses put on in `status_changes`, jumps and
falls in `jumps`, healing, PM and PHANTÄSIA points in `points`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.rulesystems.base import Context
from domain.rulesystems.phantasia import attacks, statuses
from domain.rulesystems.phantasia import commands as ph
from domain.rulesystems.phantasia import events as pe
from domain.rulesystems.phantasia.reasons import said
from domain.rulesystems.phantasia.record import end_status, offensive_action_taken
from domain.rulesystems.phantasia.refusals import refused
from domain.rulesystems.phantasia.state import StatusData
from domain.rulesystems.phantasia.stats import PhantasiaStats
from domain.rulesystems.phantasia.status_changes import add_status
from domain.rulesystems.phantasia.turns import check_action, stats_of
from domain.state import CombatantState


def act(ctx: Context, cmd: ph.Act) -> None:
    """One of the other actions: refused if he may not take it, then the action point
    spent with what it did, then its follow-up (a power's PM, Defense, standing up)."""
    state = ctx.state
    who = state.combatant(cmd.combatant)
    stats = stats_of(who)
    details = DETAILS.get(cmd.action, _other)(cmd, who, stats)
    offensive = bool(cmd.offensive) and cmd.action != "defense"
    check_action(
        state, who, offensive=offensive, reaction=cmd.reaction, out_of_order=cmd.out_of_order
    )
    done = ctx.emit(
        pe.ActionSpent,
        combatant=who.id,
        action=cmd.action,
        offensive=offensive,
        reaction=cmd.reaction,
        details={k: v for k, v in details.items() if v is not None},
    )
    _follow_up(ctx, cmd, who, stats, done)
    if offensive:
        offensive_action_taken(ctx, who.id, done)


def _follow_up(
    ctx: Context, cmd: ph.Act, who: CombatantState, stats: PhantasiaStats, done: int
) -> None:
    """What the action does once its point is spent: a power's PM paid (PHA-ACT-15), the
    Defense status (PHA-STS-6), Prone ended (PHA-STS-19)."""
    if cmd.action == "cast_power":
        power = stats.power(cmd.power or "")
        if power and power.pm_cost:
            cost = said("power_kept", power=power.name)
            attacks.pm_change(ctx, who.id, -power.pm_cost, cost, done)
    if cmd.action == "defense":
        add_status(
            ctx,
            who,
            name="defense",
            kind="defense",
            turns=None,
            data={"kind": "beneficial", "ends": "turn_start"},
            reason=said("defense_action"),
            replace=cmd.replace,
            cause=done,
        )
    elif cmd.action == "stand_up":
        end_status(ctx, cause=done, combatant=who.id, status="prone", reason=said("stands_up"))


# -- each action's refusals and details -------------------------------------------------


def _move(cmd: ph.Act, who: CombatantState, stats: PhantasiaStats) -> dict[str, Any]:
    """PHA-ACT-16: up to his MO; not while grabbed unless he moves freely (PHA-STS-1)."""
    if who.has("grabbed") and not StatusData.of(who.conditions["grabbed"]).moves_freely:
        raise refused("PHA-STS-1.grabbed-move-until", field="action", who=who.name)
    mo = stats.movement + sum(statuses.modifiers(who, "movement").values())  # overloaded: −3
    if cmd.terrain != "normal":  # Default PHA-AMB-26: halved, rounded down, min 1
        mo = max(1, mo // 2)
    mo = max(0, mo)
    metres = mo if cmd.metres is None else cmd.metres
    if metres > mo:
        raise refused(
            "PHA-ACT-16.too-far", field="metres", who=who.name, mo=mo, terrain=cmd.terrain
        )
    return {"metres": metres, "movement": mo, "terrain": cmd.terrain}


def _weapon(cmd: ph.Act, who: CombatantState, stats: PhantasiaStats) -> dict[str, Any]:
    """PHA-ACT-9, -17: a weapon he has; only a crossbow or a firearm reloads; a dropped one
    is picked up first (PHA-CRIT-5)."""
    weapon = stats.weapon(cmd.weapon or "")
    if weapon is None:
        raise refused("PHA-ACT-9.no-weapon", field="weapon", who=who.name, weapon=cmd.weapon)
    if cmd.action == "reload" and not weapon.crossbow_or_firearm:
        raise refused("PHA-ACT-17.not-reloadable", field="weapon")
    if cmd.action == "switch_weapon" and who.marks.dropped == weapon.name:
        raise refused("PHA-CRIT-5.lies-ground-pick", field="weapon", weapon=weapon.name)
    return {"weapon": weapon.name}


def _use_item(cmd: ph.Act, who: CombatantState, stats: PhantasiaStats) -> dict[str, Any]:
    """PHA-ACT-19; picking up a dropped weapon (PHA-AMB-23)."""
    details: dict[str, Any] = {"what": cmd.what}
    if cmd.weapon is not None:
        if who.marks.dropped != cmd.weapon:
            raise refused("PHA-ACT-19.not-dropped", field="weapon", who=who.name, weapon=cmd.weapon)
        details["weapon"] = cmd.weapon
    return details


def _defense(cmd: ph.Act, who: CombatantState, stats: PhantasiaStats) -> dict[str, Any]:
    """PHA-ACT-13: not after an offensive action this turn, nor twice."""
    if who.marks.offensive > 0 or who.marks.defended:
        raise refused("PHA-ACT-13.already-took-offensive", field="action", who=who.name)
    return {}


def _stand_up(cmd: ph.Act, who: CombatantState, stats: PhantasiaStats) -> dict[str, Any]:
    """PHA-STS-19: only from Prone."""
    if not who.has("prone"):
        raise refused("PHA-STS-19.not-prone", field="action", who=who.name)
    return {}


def _prepare(cmd: ph.Act, who: CombatantState, stats: PhantasiaStats) -> dict[str, Any]:
    """PHA-RX-2, -5 (Default PHA-AMB-19): one action point, and what sets it off."""
    if not cmd.trigger:
        raise refused("PHA-RX-2.prepared-action-names", field="trigger")
    return {"trigger": cmd.trigger, "what": cmd.what}


def _cast_power(cmd: ph.Act, who: CombatantState, stats: PhantasiaStats) -> dict[str, Any]:
    """PHA-ACT-15: a power he has and may cast now; beneficial magic: no AM (PHA-MAG-2)."""
    power = stats.power(cmd.power or "")
    if power is None:
        raise refused("PHA-ACT-15.no-power", field="power", who=who.name, power=cmd.power)
    attacks.check_power(who, power)
    return {
        "power": power.name,
        "sustain": cmd.sustain,
        "available_from": (who.marks.turn + power.cooldown + 1 if power.cooldown else None),
    }


def _other(cmd: ph.Act, who: CombatantState, stats: PhantasiaStats) -> dict[str, Any]:
    return {"what": cmd.what}


DETAILS: dict[str, Callable[[ph.Act, CombatantState, PhantasiaStats], dict[str, Any]]] = {
    "move": _move,
    "switch_weapon": _weapon,
    "reload": _weapon,
    "use_item": _use_item,
    "defense": _defense,
    "stand_up": _stand_up,
    "prepare": _prepare,
    "cast_power": _cast_power,
}
