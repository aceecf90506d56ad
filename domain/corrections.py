"""Correcting the record without erasing it: void, undo and redo.

A correction names the events it voids (its cascade: the target and every event whose
`cause` chain leads to it, computed when it is recorded) and the changes the fold must make
so the state becomes the fold of the history without the voided events. A correction that
is itself voided voids nothing. The domain receives the history as an argument (`History`:
a list of events held, or the store's, read as far back as a correction needs).

The refold starts from the latest version whose state is already right for the new voided
set (`refold_from`): the state the aggregate's own fold reached there (a snapshot and the
events after it), with the events after it folded without the voided ones.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol, runtime_checkable

from domain.errors import RuleViolation
from domain.fold import evolve, fold
from domain.state import EncounterState

CORRECTIONS = frozenset({"RollVoided", "CommandUndone", "CommandRedone"})
NEVER_CORRECTED = frozenset(
    {"EncounterCreated", "DiceSecretRevealed", "EncounterEnded", "DiceCommitted"}
)
SCANNED = 100  # corrections back from the latest that refold_from looks for a state between


def is_correction(event: Any) -> bool:
    return type(event).__name__ in CORRECTIONS


@runtime_checkable
class History(Protocol):
    """The events of an encounter up to its version, as a correction reads them: by index
    (position - 1) or slice, every correction at once, and the state after a version as the
    aggregate folded it (corrections applied by their changes)."""

    corrections: Sequence[Any]

    def __len__(self) -> int: ...

    def __getitem__(self, index: Any) -> Any: ...

    def state_at(self, version: int) -> EncounterState | None: ...


class Held:
    """A history held in memory: every event at hand."""

    def __init__(self, events: Sequence[Any]) -> None:
        self.events = list(events)
        self.corrections = [e for e in self.events if is_correction(e)]

    def __len__(self) -> int:
        return len(self.events)

    def __getitem__(self, index: Any) -> Any:
        return self.events[index]

    def state_at(self, version: int) -> EncounterState | None:
        return fold(self.events[:version])


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


def consequences(history: Sequence[Any], roots: Iterable[int], after: int = 0) -> list[int]:
    """The roots and every event whose cause chain leads to one of them, in order: read from
    the earliest root (a cause is always an earlier event), or after position `after` when
    the roots are already every consequence up to it."""
    chosen = set(roots)
    for event in history[max(min(chosen, default=len(history) + 1) - 1, after) :]:
        if event.cause is not None and event.cause in chosen:
            chosen.add(event.originator_version)
    return sorted(chosen)


def void_cascade(history: History, target: int) -> list[int]:
    """What voiding `target` voids: its consequences. An earlier void of the same target
    (voided since, or it would be refused) recorded them up to its own position, so only
    the events after it are read again."""
    earlier = [
        c for c in history.corrections if type(c).__name__ == "RollVoided" and c.target == target
    ]
    if not earlier:
        return consequences(history, [target])
    return consequences(history, earlier[-1].cascade, after=earlier[-1].originator_version)


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
    """The events of the most recent command that is not a correction and not voided, read
    back from the latest (a command's events are recorded together, one after the other)."""
    position = len(history)
    while position > 0:
        command = history[position - 1].command
        events: list[Any] = []
        while position > 0 and history[position - 1].command == command:
            events.insert(0, history[position - 1])
            position -= 1
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


def fold_without(
    history: Sequence[Any], voided: Iterable[int], state: EncounterState | None = None
) -> EncounterState:
    """The fold of the history with the voided events (and corrections) left out; onto
    `state`, the state before the history's first event (None: from the encounter's start)."""
    skip = set(voided)
    for event in history:
        if event.originator_version in skip or is_correction(event):
            if state is not None:
                state.version = event.originator_version
            continue
        state = evolve(state, event)
    assert state is not None
    return state


def refold_from(corrections: Sequence[Any], voided: dict[int, int], version: int) -> int:
    """The latest version v (0: the start) whose state, as the aggregate folded it, is the fold
    of the first v events without those `voided` (what is voided once the new correction
    counts): every event up to v that is not a correction is voided now exactly when it was
    voided as of v (by the corrections up to v). A correction's own status does not matter
    there: a fold without voided events leaves every correction out, and the state at v
    holds what the corrections up to v did. So a snapshot taken after an event that is now
    voided, or restored, is used only if it is before that event."""
    kept = [c for c in corrections if c.originator_version <= version]
    at = [c.originator_version for c in kept]
    positions = set(at)
    now = {p for p in voided if p not in positions}
    bounds = [0, *at, version + 1]
    # the versions from the k-th correction to the next, the latest first; past the last
    # SCANNED corrections, the versions before the first (each scan walks its corrections)
    for k in [*range(len(kept), max(len(kept) - SCANNED, 0), -1), 0]:
        then = {p for p in voided_by(kept[:k]) if p not in positions}
        latest = min(bounds[k + 1], min(now ^ then, default=version + 1)) - 1
        if latest >= bounds[k]:
            return latest
    return 0


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
