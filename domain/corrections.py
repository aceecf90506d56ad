"""Correcting the record without erasing it: void, undo and redo.

A correction names the events it voids (its cascade: the target and every event whose
`cause` chain leads to it, computed when it is recorded) and the changes the fold must make
so the state becomes the fold of the history without the voided events. A correction that
is itself voided voids nothing. The domain receives the history as an argument.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from domain.errors import RuleViolation
from domain.fold import evolve
from domain.state import EncounterState

CORRECTIONS = frozenset({"RollVoided", "CommandUndone", "CommandRedone"})
NEVER_CORRECTED = frozenset(
    {"EncounterCreated", "DiceSecretRevealed", "EncounterEnded", "DiceCommitted"}
)


def is_correction(event: Any) -> bool:
    return type(event).__name__ in CORRECTIONS


def voided_by(
    history: Sequence[Any], latest: tuple[int, list[int]] | None = None
) -> dict[int, int]:
    """Position of each voided event -> the correction that voids it. Walking back from the
    latest, a correction counts only if no later correction voided it. `latest` is a
    correction about to be recorded: (its position, its cascade)."""
    voided: dict[int, int] = {}
    if latest is not None:
        for position in latest[1]:
            voided.setdefault(position, latest[0])
    for event in reversed(history):
        if is_correction(event) and event.originator_version not in voided:
            for position in event.cascade:
                voided.setdefault(position, event.originator_version)
    return voided


def consequences(history: Sequence[Any], roots: Iterable[int]) -> list[int]:
    """The roots and every event whose cause chain leads to one of them, in order."""
    chosen = set(roots)
    for event in history:
        if event.cause is not None and event.cause in chosen:
            chosen.add(event.originator_version)
    return sorted(chosen)


def has_roll(event: Any) -> bool:
    return bool(getattr(event, "rolls", None))


def check_voidable(history: Sequence[Any], target: int) -> Any:
    """Only a roll, an event a roll caused, or a correction may be voided directly."""
    if not 1 <= target <= len(history):
        raise RuleViolation("VOID", f"there is no event at position {target}", field="target")
    event = history[target - 1]
    if is_correction(event):
        return event
    link = event
    while link is not None:
        if has_roll(link):
            return event
        link = history[link.cause - 1] if link.cause is not None else None
    raise RuleViolation(
        "VOID",
        f"event {target} ({type(event).__name__}) is neither a roll nor caused by one; "
        "use undo to take back a whole command",
        field="target",
    )


def last_command(history: Sequence[Any], voided: dict[int, int]) -> list[int]:
    """The events of the most recent command that is not a correction and not voided."""
    by_command: dict[int, list[Any]] = {}
    for event in history:
        by_command.setdefault(event.command, []).append(event)
    for command in sorted(by_command, reverse=True):
        events = by_command[command]
        if any(is_correction(e) for e in events):
            continue
        alive = [e.originator_version for e in events if e.originator_version not in voided]
        if not alive:
            continue
        kinds = {type(e).__name__ for e in events}
        if kinds & NEVER_CORRECTED:
            raise RuleViolation(
                "UNDO",
                f"the last command ({', '.join(sorted(kinds))}) cannot be undone",
                field="type",
            )
        return alive
    raise RuleViolation("UNDO", "there is nothing left to undo", field="type")


def last_undo(history: Sequence[Any], voided: dict[int, int]) -> int:
    for event in reversed(history):
        if type(event).__name__ == "CommandUndone" and event.originator_version not in voided:
            return event.originator_version
    raise RuleViolation("REDO", "there is no undo to redo", field="type")


def check_nothing_since(
    history: Sequence[Any], correction: int, voided: dict[int, int], rule: str
) -> None:
    """Restoring what a correction voided is refused once a command has been recorded after
    it: that command was decided without what would come back (a redo stack clears)."""
    later = [
        e.originator_version
        for e in history[correction:]
        if not is_correction(e) and e.originator_version not in voided
    ]
    if later:
        raise RuleViolation(
            rule,
            f"commands were recorded after event {correction} (from {later[0]}): undo them first",
            field="target",
        )


def fold_without(history: Sequence[Any], voided: Iterable[int]) -> EncounterState:
    """The fold of the history with the voided events (and corrections) left out."""
    skip = set(voided)
    state: EncounterState | None = None
    for event in history:
        if event.originator_version in skip or is_correction(event):
            if state is not None:
                state.version = event.originator_version
            continue
        state = evolve(state, event)
    assert state is not None
    return state


def changes(
    before: dict[str, Any], after: dict[str, Any], path: tuple[Any, ...] = ()
) -> list[dict[str, Any]]:
    """What differs between two dumps of a state: [{path, before, after}], lists whole."""
    out: list[dict[str, Any]] = []
    for key in sorted(set(before) | set(after), key=str):
        if path == () and key == "version":
            continue
        b, a = before.get(key, _MISSING), after.get(key, _MISSING)
        if b == a:
            continue
        if isinstance(b, dict) and isinstance(a, dict):
            out.extend(changes(b, a, (*path, key)))
        else:
            out.append(
                {
                    "path": [*path, key],
                    "before": None if b is _MISSING else b,
                    "after": None if a is _MISSING else a,
                    **({"removed": True} if a is _MISSING else {}),
                }
            )
    return out


_MISSING = object()
