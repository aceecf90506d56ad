"""What a run of events changes in the read models (a Batch), and the folded encounters it
needs for that (Encounters: the most recent ones at hand, the others loaded from the store,
a snapshot and the events after it)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from eventsourcing.application import Application

from domain.corrections import is_correction
from domain.encounter import project_encounter
from domain.fold import evolve
from domain.state import EncounterState
from infra.read_model_views import Changes
from projections.read_models import (
    add_tally,
    attacker_of,
    book_of,
    combatant_stats,
    encounter_corrections,
    encounter_row,
    new_stats,
    tally,
)


class _Attackers(dict[int, str | None]):
    """Position -> the attacker its cause chain leads to; positions seen before this process
    started are read from the store when first asked for."""

    def __init__(self, load: Callable[[int], Any]) -> None:
        super().__init__()
        self._load = load

    def __missing__(self, position: int) -> str | None:
        value = attacker_of(self._load(position), self)
        self[position] = value
        return value


@dataclass
class _Encounter:
    """One encounter as the projection last saw it."""

    state: EncounterState | None
    attackers: _Attackers
    last_activity: str = ""

    @property
    def version(self) -> int:
        return self.state.version if self.state is not None else 0


class Encounters:
    """The folded encounters the projection is working on (the most recent `size`), each
    loaded from the store (its snapshot and the events after it) when not at hand."""

    def __init__(self, source: Application[UUID], size: int = 256) -> None:
        self.source = source
        self._size = size
        self._cache: OrderedDict[UUID, _Encounter] = OrderedDict()

    def at(self, encounter_id: UUID, version: int) -> _Encounter:
        """The encounter after its event `version` (0: before its first)."""
        found = self._cache.get(encounter_id)
        if found is None or found.version != version:
            found = self._load(encounter_id, version)
            self._cache[encounter_id] = found
        self._cache.move_to_end(encounter_id)
        while len(self._cache) > self._size:
            self._cache.popitem(last=False)
        return found

    def history(self, encounter_id: UUID, until: int) -> list[Any]:
        return list(self.source.events.get(encounter_id, lte=until))

    def clear(self) -> None:
        self._cache.clear()

    def _load(self, encounter_id: UUID, version: int) -> _Encounter:
        def event_at(position: int) -> Any:
            return next(iter(self.source.events.get(encounter_id, gt=position - 1, lte=position)))

        state = None
        if version:
            aggregate = self.source.repository.get(
                encounter_id, version=version, projector_func=project_encounter
            )
            state = aggregate.state
        return _Encounter(state, _Attackers(event_at))


@dataclass
class _Touched:
    encounter: _Encounter
    stats: dict[str, dict[str, Any]] = field(default_factory=dict)  # amounts, or whole rows
    replaced: bool = False
    corrections: dict[str, int] | None = None  # the voided and corrections counts, recounted


class Batch:
    """The changes a run of events makes to the read models."""

    def __init__(self, encounters: Encounters) -> None:
        self._encounters = encounters
        self._touched: dict[UUID, _Touched] = {}

    def add(self, event: Any) -> None:
        encounter_id, position = event.originator_id, event.originator_version
        encounter = self._encounters.at(encounter_id, position - 1)
        attacker = attacker_of(event, encounter.attackers)
        encounter.attackers[position] = attacker
        encounter.state = evolve(encounter.state, event)
        encounter.last_activity = event.timestamp.isoformat()
        touched = self._touched.setdefault(encounter_id, _Touched(encounter))
        touched.encounter = encounter
        if is_correction(event):  # it changes the past: recount from the stored events
            history = self._encounters.history(encounter_id, position)
            touched.stats, touched.replaced = combatant_stats(history), True
            touched.corrections = encounter_corrections(history)
        elif type(event).__name__ == "CombatantAdded":
            touched.stats.setdefault(
                event.combatant, new_stats(event.combatant, event.name, event.side)
            )
        else:
            book = book_of(encounter.state.ruleset)
            add_tally(touched.stats, tally(event, attacker, book), encounter.state)

    def changes(self) -> Changes:
        out = Changes()
        for encounter_id, touched in self._touched.items():
            state = touched.encounter.state
            assert state is not None
            out.encounters.append(encounter_row(state, touched.encounter.last_activity))
            if touched.corrections is not None:
                out.corrected[str(encounter_id)] = touched.corrections
            rows = list(touched.stats.values())
            if touched.replaced:
                out.replaced[str(encounter_id)] = rows
            else:
                out.added.extend({"encounter_id": str(encounter_id), **r} for r in rows)
        return out
