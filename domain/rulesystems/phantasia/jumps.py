"""Jumps (PHA-JMP-1..4, Default PHA-AMB-29) and falls (PHA-DMG-8)."""

from __future__ import annotations

from typing import Any

from domain.rulesystems.base import Context
from domain.rulesystems.phantasia import commands as ph
from domain.rulesystems.phantasia import damage, statuses
from domain.rulesystems.phantasia.checks import roll_check
from domain.rulesystems.phantasia.points import spend_point
from domain.rulesystems.phantasia.reasons import part, said
from domain.rulesystems.phantasia.record import record_check
from domain.rulesystems.phantasia.refusals import refused
from domain.rulesystems.phantasia.state import StatusData
from domain.rulesystems.phantasia.turns import check_action, check_parts, stats_of
from domain.state import CombatantState


def jump(ctx: Context, cmd: ph.Jump) -> None:
    """PHA-JMP-1..4: FUE check; long base floor(FUE / 2) m, high floor(FUE / 4) m; −1 a
    metre beyond, +1 a metre short (Default PHA-AMB-29); failing by exactly 1, an AGI check
    to catch the edge; else he falls (PHA-DMG-8)."""
    state = ctx.state
    who = state.combatant(cmd.combatant)
    check_action(state, who, offensive=False, out_of_order=cmd.out_of_order, costs=False)
    if who.has("grabbed") and not StatusData.of(who.conditions["grabbed"]).moves_freely:
        raise refused("PHA-STS-1.grabbed-cannot-jump", field="combatant", who=who.name)
    if cmd.phantasia_point:
        spend_point(ctx, who, "auto_success", who)
    result = _jump_check(ctx, cmd, who)
    jumped = record_check(
        ctx,
        combatant=who.id,
        purpose=said(f"{cmd.kind}_jump", metres=cmd.metres),
        characteristic="fue",
        check=result,
        spent=None,
    )
    if result["success"]:
        return
    if result["face"] == result["target_number"] + 1:  # PHA-JMP-4
        caught, jumped = _catch_the_edge(ctx, who, jumped)
        if caught:
            return
    if cmd.fall_m:
        falling(ctx, who.id, cmd.fall_m, jumped)


def _jump_check(ctx: Context, cmd: ph.Jump, who: CombatantState) -> dict[str, Any]:
    """PHA-JMP-1..3: the FUE check against the base distance, −1 a metre beyond it, +1 a
    metre short (Default PHA-AMB-29)."""
    fue = stats_of(who).fue
    base = fue // 2 if cmd.kind == "long" else fue // 4
    parts = check_parts(who, "fue")
    if base != cmd.metres:
        parts[f"{cmd.metres} m against base {base} m"] = base - cmd.metres
    return roll_check(
        ctx,
        "jump",
        parts,
        statuses.die_for(who, "fue"),
        auto_success=cmd.phantasia_point,
        by=who.id,
        says=(
            f"{who.name}'s {cmd.kind} jump of {cmd.metres} m (base {base} m): FUE check",
            f"Salto {'largo' if cmd.kind == 'long' else 'alto'} de {who.name} de {cmd.metres} m "
            f"(base {base} m): chequeo de FUE",
        ),
    )


def _catch_the_edge(ctx: Context, who: CombatantState, jumped: int) -> tuple[bool, int]:
    """PHA-JMP-4: failed by exactly 1, an AGI check to catch the edge: whether he caught
    it, and the check recorded."""
    edge = roll_check(
        ctx,
        "edge",
        check_parts(who, "agi"),
        statuses.die_for(who, "agi"),
        by=who.id,
        says=(
            f"{who.name}'s jump failed by 1: AGI check to catch the edge",
            f"El salto de {who.name} falló por 1: chequeo de AGI para agarrarse al borde",
        ),
    )
    recorded = record_check(
        ctx,
        cause=jumped,
        combatant=who.id,
        purpose=said("catch_the_edge"),
        characteristic="agi",
        check=edge,
        spent=None,
    )
    return bool(edge["success"]), recorded


def fall(ctx: Context, cmd: ph.Fall) -> None:
    who = ctx.state.combatant(cmd.combatant)
    falling(ctx, who.id, cmd.metres, None)


def falling(ctx: Context, combatant: str, metres: int, cause: int | None) -> None:
    """PHA-DMG-8: metres × 3, and Prone."""
    fall, coded = part("fall", metres=metres)
    at = damage.suffer(
        ctx, combatant, {fall: metres * 3}, cause=cause, rule="PHA-DMG-8", coded={fall: coded}
    )
    damage.lie_prone(ctx, combatant, at if at is not None else cause, said("fall"))
