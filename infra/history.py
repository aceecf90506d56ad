"""An encounter's stored events as a correction reads them (domain.corrections.History).

A correction needs every correction of the fight (for what is voided), the events from the
earliest it looks at (its target, the last command) and those after the version its refold
starts from. So the corrections are read alone, by their topics; the other events lazily,
back from the latest, a chunk at a time; and the state at a version from the latest
snapshot at or before it, with the stored events after it folded as the aggregate folds
them. Reading the whole stream, the cost of a correction on a long fight, is left to the
corrections that change the status of an early event.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID
from weakref import WeakKeyDictionary

from eventsourcing.persistence import AggregateRecorder, EventStore, Mapper, StoredEvent
from eventsourcing.postgres import PostgresAggregateRecorder
from eventsourcing.sqlite import SQLiteAggregateRecorder
from eventsourcing.utils import get_topic
from psycopg.sql import SQL

from domain import events as ev
from domain.fold import fold
from domain.state import EncounterState

CORRECTION_TOPICS = tuple(get_topic(c) for c in (ev.RollVoided, ev.CommandUndone, ev.CommandRedone))
ENCOUNTERS_KEPT = 1_000  # encounters whose corrections are kept in memory, per store
# per store (its recorder): encounter -> (the position read up to, its corrections until then);
# a stored event never changes, so only what was recorded since is read again
_SEEN: WeakKeyDictionary[AggregateRecorder, dict[UUID, tuple[int, list[Any]]]] = WeakKeyDictionary()


def corrections_of(
    recorder: AggregateRecorder, mapper: Mapper[UUID], encounter_id: UUID, version: int
) -> list[Any]:
    """Every correction of an encounter up to `version`, in order: those read before, kept,
    and those recorded since, read by their topics."""
    seen = _SEEN.setdefault(recorder, {})
    upto, kept = seen.get(encounter_id, (0, []))
    if upto < version:
        stored = stored_with_topics(recorder, encounter_id, version, CORRECTION_TOPICS, gt=upto)
        kept = [*kept, *(mapper.to_domain_event(s) for s in stored)]
        if len(seen) >= ENCOUNTERS_KEPT:
            seen.clear()
        seen[encounter_id] = (version, kept)
    return [e for e in kept if e.originator_version <= version]


class StoredHistory:
    """The events of encounter `encounter_id` up to `version`, read when first needed."""

    def __init__(
        self,
        recorder: AggregateRecorder,
        mapper: Mapper[UUID],
        events: EventStore[UUID],
        snapshots: EventStore[UUID] | None,
        encounter_id: UUID,
        version: int,
        chunk: int,
    ) -> None:
        self._events, self._snapshots = events, snapshots
        self._id, self._version, self._chunk = encounter_id, version, max(chunk, 1)
        self.corrections = corrections_of(recorder, mapper, encounter_id, version)
        self._tail: list[Any] = []  # the events from position self._first to version
        self._first = version + 1
        self._loose: dict[int, Any] = {}  # events read alone, before the tail
        self._latest: Any = None  # the latest snapshot, until a state is folded from it
        self._latest_read = False

    def __len__(self) -> int:
        return self._version

    @property
    def first_read(self) -> int:
        """The earliest position whose event has been read (version + 1: none yet)."""
        return self._first

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            start, stop, step = index.indices(self._version)
            if step != 1:
                raise ValueError("a stored history is read in order")
            if start >= stop:
                return []
            self._reach(start + 1)
            return self._tail[start + 1 - self._first : stop + 1 - self._first]
        position = (index + self._version if index < 0 else index) + 1
        if not 1 <= position <= self._version:
            raise IndexError(index)
        if position < self._first - self._chunk:  # far back (a void's target): that one alone
            if position not in self._loose:
                (self._loose[position],) = self._events.get(self._id, gt=position - 1, lte=position)
            return self._loose[position]
        self._reach(position)
        return self._tail[position - self._first]

    def _reach(self, position: int) -> None:
        """Read back to `position`; a chunk at least, since reads go on backwards."""
        if position >= self._first:
            return
        if self._tail:
            start = max(1, min(position, self._first - self._chunk))
        else:  # first from the latest snapshot: a refold most often starts after it
            latest = self._snapshot(self._version)
            start = min(position, latest.originator_version + 1 if latest else 1)
        older = list(self._events.get(self._id, gt=start - 1, lte=self._first - 1))
        self._tail[:0] = older
        self._first = start

    def state_at(self, version: int) -> EncounterState | None:
        """The state after event `version` as the aggregate folds it: from the latest
        snapshot at or before it (a fresh copy, decoded), then the events after that."""
        if version < 1:
            return None
        snapshot = self._snapshot(version)
        if snapshot is None:
            return fold(self[:version])
        self._latest = None  # its state is folded on below: never used twice
        state: EncounterState = snapshot.mutate(None).state
        return fold(self[snapshot.originator_version : version], state)

    def _snapshot(self, version: int) -> Any:
        """The latest snapshot at or before `version` (the one before the encounter's
        version kept until its state is used)."""
        if self._snapshots is None:
            return None
        if not self._latest_read:
            self._latest = self._latest_at(self._version)
            self._latest_read = True
        if self._latest is not None and self._latest.originator_version <= version:
            return self._latest
        return self._latest_at(version)

    def _latest_at(self, version: int) -> Any:
        assert self._snapshots is not None
        return next(iter(self._snapshots.get(self._id, lte=version, desc=True, limit=1)), None)


def stored_with_topics(
    recorder: AggregateRecorder,
    originator_id: UUID,
    lte: int,
    topics: Sequence[str],
    gt: int = 0,
) -> list[StoredEvent]:
    """The stored events of one originator after `gt` up to `lte` whose topic is one of
    `topics`, in order: the recorder's own query for its events, narrowed by topic (no other
    event is decoded)."""
    if isinstance(recorder, PostgresAggregateRecorder):
        statement = recorder.select_events_statement + SQL(
            " AND originator_version > %s AND originator_version <= %s"
            " AND topic = ANY(%s) ORDER BY originator_version ASC"
        )
        with recorder.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(statement, [originator_id, gt, lte, list(topics)], prepare=True)
            rows = curs.fetchall()
        return [
            StoredEvent(
                originator_id=r["originator_id"],
                originator_version=r["originator_version"],
                topic=r["topic"],
                state=bytes(r["state"]),
            )
            for r in rows
        ]
    if isinstance(recorder, SQLiteAggregateRecorder):
        marks = ",".join("?" * len(topics))
        statement = (
            f"{recorder.select_events_statement}AND originator_version>? "
            f"AND originator_version<=? AND topic IN ({marks}) ORDER BY originator_version ASC"
        )
        with recorder.datastore.transaction(commit=False) as c:
            c.execute(statement, [originator_id.hex, gt, lte, *topics])
            return [
                StoredEvent(
                    originator_id=recorder.convert_originator_id(r["originator_id"]),
                    originator_version=r["originator_version"],
                    topic=r["topic"],
                    state=r["state"],
                )
                for r in c.fetchall()
            ]
    return [  # any other recorder: its events, filtered here
        s for s in recorder.select_events(originator_id, gt=gt, lte=lte) if s.topic in topics
    ]
