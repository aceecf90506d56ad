"""The events a PHANTÄSIA rule records most: a check, a status applied or ended."""

from __future__ import annotations

from typing import Any

from domain import events as ev
from domain.rulesystems.base import Context
from domain.rulesystems.phantasia import statuses
from domain.rulesystems.phantasia.checks import rolls_of
from domain.rulesystems.phantasia.turns import acting


def record_check(
    ctx: Context,
    *,
    combatant: str,
    purpose: str,
    characteristic: str,
    check: dict[str, Any],
    spent: dict[str, Any] | None = None,
    cause: int | None = None,
) -> int:
    """CheckRolled, with the roll where audit, exports and statistics read it."""
    return ctx.emit(
        ev.CheckRolled,
        cause=cause,
        combatant=combatant,
        purpose=purpose,
        characteristic=characteristic,
        check=check,
        rolls=rolls_of(check),
        spent=spent,
    )


def record_status(
    ctx: Context,
    *,
    combatant: str,
    status: str,
    reason: str,
    kind: str | None = None,
    turns: int | None = None,
    data: dict[str, Any] | None = None,
    cause: int | None = None,
) -> int:
    """StatusApplied: its kind (harmful or beneficial) and the turn of his it came in
    (durations count his turns after it, PHA-STS-0) unless `data` says otherwise."""
    state = ctx.state
    who = state.combatants[combatant]
    kind = kind or status
    defaults: dict[str, Any] = {
        "kind": statuses.spec(kind)["kind"],
        "since_turn": who.marks.get("turn", 0),
    }
    now = acting(state)
    if (
        now is not None
        and now.id in who.marks.get("simultaneous", [])
        and who.marks.get("done_round") != state.round
    ):  # PHA-INIT-3 (Default PHA-AMB-8): it takes hold once his own turn is over
        defaults.update(deferred=True, since_turn=who.marks.get("turn", 0) + 1)
    return ctx.emit(
        ev.StatusApplied,
        cause=cause,
        combatant=combatant,
        status=status,
        kind=kind,
        turns=turns,
        data={**defaults, **(data or {})},
        reason=reason,
    )


def end_status(
    ctx: Context, *, combatant: str, status: str, reason: str, cause: int | None = None
) -> int:
    return ctx.emit(ev.StatusEnded, cause=cause, combatant=combatant, status=status, reason=reason)


def offensive_action_taken(ctx: Context, combatant: str, cause: int) -> None:
    """PHA-STS-9 (Default PHA-AMB-15): any offensive action ends Invisible, once it has
    resolved with the +5."""
    if ctx.state.combatants[combatant].has("invisible"):
        end_status(
            ctx,
            cause=cause,
            combatant=combatant,
            status="invisible",
            reason="an offensive action ends it (PHA-STS-9)",
        )
