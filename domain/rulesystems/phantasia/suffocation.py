"""Suffocation (PHA-SUF-1..4, Default PHA-AMB-12): he holds his breath VIT turns; then a
VIT check at the start of each turn at −1, −2, …; failed: PV 0, Unconscious, a death check;
from his next turn on 5 negative damage a turn (not doubled), each with a death check."""

from __future__ import annotations

from typing import Any

from domain import events as ev
from domain.rulesystems.base import Context
from domain.rulesystems.phantasia import damage, statuses
from domain.rulesystems.phantasia import events as pe
from domain.rulesystems.phantasia.checks import roll_check
from domain.rulesystems.phantasia.reasons import said
from domain.rulesystems.phantasia.record import record_check
from domain.rulesystems.phantasia.state import StatusData
from domain.rulesystems.phantasia.turns import check_parts, stats_of
from domain.state import CombatantState


def suffocation(ctx: Context, combatant: str, cause: int) -> None:
    """At the start of his turn: one more turn without breath; already out, 5 damage
    (PHA-SUF-4); beyond his VIT, the check that keeps him conscious (PHA-SUF-2, -3)."""
    who = ctx.state.combatants[combatant]
    cond = who.conditions["suffocating"]
    data = StatusData.of(cond)
    held = data.held + 1
    breath = stats_of(who).vit
    _tick(ctx, who, cause, {"held": held})
    if data.out:
        damage.suffer(
            ctx,
            who.id,
            {"suffocation": 5, "total": 5, "not doubled": True},
            cause=cause,
            rule="PHA-SUF-4",
        )
        return
    if held <= breath:
        return
    check, checked = _breath_check(ctx, who, held, breath, cause)
    if not check["success"]:
        _out_of_breath(ctx, combatant, checked)


def _tick(ctx: Context, who: CombatantState, cause: int, data: dict[str, Any]) -> None:
    ctx.emit(
        pe.StatusTicked,
        cause=cause,
        combatant=who.id,
        status="suffocating",
        turns_before=None,
        turns_after=None,
        data=data,
    )


def _breath_check(
    ctx: Context, who: CombatantState, held: int, breath: int, cause: int
) -> tuple[dict[str, Any], int]:
    """PHA-SUF-2: the VIT check at −1 for each turn beyond his VIT, and the check recorded."""
    step = held - breath
    parts = {**check_parts(who, "vit"), "suffocation": -step}
    check = roll_check(
        ctx,
        "suffocation",
        parts,
        statuses.die_for(who, "vit"),
        by=who.id,
        says=(
            f"{who.name} has held his breath {held} turns (VIT {breath}): VIT check at "
            f"−{step} (failed: PV 0 and unconscious)",
            f"{who.name} lleva {held} turnos sin respirar (VIT {breath}): chequeo de VIT a "
            f"−{step} (si falla: PV 0 e inconsciente)",
        ),
    )
    checked = record_check(
        ctx,
        cause=cause,
        combatant=who.id,
        purpose=said("suffocation"),
        characteristic="vit",
        check=check,
        spent=None,
    )
    return check, checked


def _out_of_breath(ctx: Context, combatant: str, checked: int) -> None:
    """PHA-SUF-3: the check failed: PV 0 and Unconscious (with its death check)."""
    _tick(ctx, ctx.state.combatants[combatant], checked, {"out": True})
    who = ctx.state.combatants[combatant]
    if who.hits > 0:
        ctx.emit(
            ev.HitsAdjusted,
            cause=checked,
            combatant=who.id,
            amount=-who.hits,
            hits_before=who.hits,
            hits_after=0,
            **said("suffocation_down"),
        )
    damage.fall_unconscious(ctx, who.id, checked)
