"""Reads kept in memory, so that a read asked again costs a lookup and a longer log is told
on from where it stopped: the narrative logs of the encounters read lately (one per
encounter and language, the least recently read dropped past FRAYLOG_NARRATIVE_CACHE_SIZE),
and the answers last sent (bytes and ETag, by everything that decides them, the encounter's
version first; the least recently read dropped past FRAYLOG_ANSWER_CACHE_MB).

Nothing here is ever stale by construction: a kept log is told on from the store's events
after its last one, and an answer is found only under the version the store holds now (the
caller reads it each time: another process may have recorded since)."""

from __future__ import annotations

import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any
from uuid import UUID

from infra.loop_connections import AskedTogether, table_named
from projections.kept_lines import KeptLines
from projections.narrative import Lang

EventsAfter = Callable[[UUID, int], Iterable[Any]]  # an encounter's stored events after N


class PositionsHere:
    """An encounter's last position read on the calling thread's own connection to the
    SQLite file: one index row, which costs less than the hop to the thread pool that a read
    through the store's pool needs (a pool may make its caller wait; this connection is the
    thread's alone, and WAL readers never wait on a writer)."""

    def __init__(self, path: str, table: str) -> None:
        self._path = path
        self._sql = (
            f"SELECT originator_version FROM {table} WHERE originator_id = ? "
            "ORDER BY originator_version DESC LIMIT 1"
        )
        self._here = threading.local()
        self._opened: list[sqlite3.Connection] = []  # every thread's, closed by close()
        self._lock = threading.Lock()

    def last(self, encounter_id: UUID) -> int | None:
        """The last position, or None for an encounter with no event."""
        conn = getattr(self._here, "conn", None)
        if conn is None:
            uri = self._path.startswith("file:")
            conn = sqlite3.connect(self._path, timeout=0.05, uri=uri, check_same_thread=False)
            with self._lock:
                self._opened.append(conn)
            self._here.conn = conn
        try:
            row = conn.execute(self._sql, (encounter_id.hex,)).fetchone()
        except sqlite3.Error:  # the file busy, say: the caller asks through the store
            return None
        return None if row is None else int(row[0])

    def close(self) -> None:
        """Close every thread's connection (the application is closing: no read is left)."""
        with self._lock:
            opened, self._opened = self._opened, []
        for conn in opened:
            conn.close()


class PositionsAsync(AskedTogether[UUID, int]):
    """Encounters' last positions read on the event loop, on PostgreSQL (`AskedTogether`):
    the version alone from the index for each encounter asked, several encounters in one
    query. None where the read was not answered on this loop, or an encounter has no event:
    the caller reads through the store."""

    def __init__(self, url: str, schema: str, table: str) -> None:
        from psycopg import sql

        query = sql.SQL(
            "SELECT asked.id, (SELECT originator_version FROM {} WHERE originator_id = asked.id "
            "ORDER BY originator_version DESC LIMIT 1) FROM unnest(%s::uuid[]) AS asked(id)"
        ).format(table_named(schema, table))
        super().__init__(url, f"fraylog positions {schema or 'public'}", query)

    async def last(self, encounter_id: UUID) -> int | None:
        """The last position, or None: no event, another loop's connection, or an error."""
        _, last = await self.ask(encounter_id)
        return last


class KeptNarratives:
    """Narrative logs kept per (encounter, language), at most `size` of them."""

    def __init__(self, size: int, events_after: EventsAfter) -> None:
        self.size = size
        self._events_after = events_after
        self._kept: OrderedDict[tuple[UUID, str], tuple[threading.Lock, KeptLines]] = OrderedDict()
        self._lock = threading.Lock()

    def _entry(self, encounter_id: UUID, lang: Lang) -> tuple[threading.Lock, KeptLines]:
        key = (encounter_id, lang)
        with self._lock:
            entry = self._kept.get(key)
            if entry is None:
                entry = self._kept[key] = (threading.Lock(), KeptLines(lang))
            self._kept.move_to_end(key)
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)  # a reader holding it finishes with his copy
        return entry

    @contextmanager
    def told(self, encounter_id: UUID, lang: Lang) -> Iterator[KeptLines]:
        """The encounter's log told up to the last stored event, held for the caller alone
        until the block ends (its state is folded on in place)."""
        lock, kept = self._entry(encounter_id, lang)
        with lock:
            try:
                kept.extend(self._events_after(encounter_id, kept.version))
            except BaseException:
                kept.forget()  # a fold that failed half-way leaves no state to tell on from
                raise
            yield kept


class KeptAnswers:
    """Answers' bytes and ETags by key, at most `max_bytes` of bodies; an encounter's
    answers of an earlier version are dropped as soon as one of a later version is kept."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._kept: OrderedDict[Hashable, tuple[bytes, str, UUID]] = OrderedDict()
        self._of: dict[UUID, tuple[int, set[Hashable]]] = {}  # encounter -> version, keys
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> tuple[bytes, str] | None:
        with self._lock:
            found = self._kept.get(key)
            if found is None:
                return None
            self._kept.move_to_end(key)
            return found[0], found[1]

    def put(self, encounter_id: UUID, version: int, key: Hashable, body: bytes, etag: str) -> None:
        """Keep an answer of the encounter at `version` (`key` names both)."""
        if len(body) > self.max_bytes:
            return
        with self._lock:
            known = self._of.get(encounter_id)
            if known is not None and version < known[0]:
                return  # a slower reader of an older version: no longer worth keeping
            if known is not None and version > known[0]:
                for old in list(known[1]):
                    self._drop(old)
            self._drop(key)
            self._kept[key] = (body, etag, encounter_id)
            self._bytes += len(body)
            self._of.setdefault(encounter_id, (version, set()))[1].add(key)
            while self._bytes > self.max_bytes:
                self._drop(next(iter(self._kept)))

    def _drop(self, key: Hashable) -> None:
        gone = self._kept.pop(key, None)
        if gone is None:
            return
        self._bytes -= len(gone[0])
        keys = self._of[gone[2]][1]
        keys.discard(key)
        if not keys:
            del self._of[gone[2]]
