"""The events a PHANTÄSIA rule records most: a check, a status applied or ended."""

from __future__ import annotations

from typing import Any

from domain.rulesystems.base import Context
from domain.rulesystems.phantasia import events as pe
from domain.rulesystems.phantasia import statuses
from domain.rulesystems.phantasia.checks import rolls_of
from domain.rulesystems.phantasia.reasons import Said, purpose_of, reason_of, said
from domain.rulesystems.phantasia.turns import acting
from domain.state import CombatantState, EncounterState


def record_check(
    ctx: Context,
    *,
    combatant: str,
    purpose: str | Said,
    characteristic: str,
    check: dict[str, Any],
    spent: dict[str, Any] | None = None,
    cause: int | None = None,
) -> int:
    """CheckRolled, with the roll where audit, exports and statistics read it."""
    return ctx.emit(
        pe.CheckRolled,
        cause=cause,
        combatant=combatant,
        **purpose_of(purpose),
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
    reason: str | Said,
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
        "since_turn": who.marks.turn,
    }
    if _deferred(state, who):  # PHA-INIT-3 (Default PHA-AMB-8)
        defaults.update(deferred=True, since_turn=who.marks.turn + 1)
    return ctx.emit(
        pe.StatusApplied,
        cause=cause,
        combatant=combatant,
        status=status,
        kind=kind,
        turns=turns,
        data={**defaults, **(data or {})},
        **reason_of(reason),
    )


def _deferred(state: EncounterState, who: CombatantState) -> bool:
    """PHA-INIT-3 (Default PHA-AMB-8): acting at the same time as the one whose turn it is,
    his own turn not over yet, what befalls him takes hold once his turn is over."""
    now = acting(state)
    together = who.marks.simultaneous
    return now is not None and now.id in together and who.marks.done_round != state.round


def end_status(
    ctx: Context, *, combatant: str, status: str, reason: str | Said, cause: int | None = None
) -> int:
    return ctx.emit(
        pe.StatusEnded, cause=cause, combatant=combatant, status=status, **reason_of(reason)
    )


def offensive_action_taken(ctx: Context, combatant: str, cause: int) -> None:
    """PHA-STS-9 (Default PHA-AMB-15): any offensive action ends Invisible, once it has
    resolved with the +5."""
    if ctx.state.combatants[combatant].has("invisible"):
        end_status(
            ctx,
            cause=cause,
            combatant=combatant,
            status="invisible",
            reason=said("offensive_action"),
        )
