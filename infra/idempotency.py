"""Idempotency-Key records of commands, kept beside the events: a command sent again with
the same key and body gets its first answer again instead of running twice.

A key's command marks the key as recorded (`recorded_from`, `recorded_to`: its first and
last position) in the same database transaction as its events (the recorders below), so a
command whose process stopped before it answered is known exactly: recorded (its answer is
rebuilt from the record) or not (it may run). Keys are forgotten after
FRAYLOG_IDEMPOTENCY_RETENTION_HOURS."""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from eventsourcing.persistence import InterfaceError, OperationalError, StoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder
from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteCursor
from eventsourcing.utils import get_topic, retry
from psycopg import ClientCursor
from psycopg.sql import SQL, Composed, Identifier

from domain.errors import DomainError
from infra.settings import Settings
from infra.sidetables import SideTables

KEYS = "fraylog_idempotency_keys"
LEASE_SECONDS = 30.0  # a command holding a key longer than this has stopped
SWEEP_SECONDS = 60.0  # keys past their retention are deleted at most this often per process
MARK = "idempotency"  # the keyword Fraylog.save passes a key's Mark to the recorder with
# the keyword of a write of fraylog's own that commits with the events or not at all (an
# account's claim on the encounter it creates): a callable given `run(sql, params)`, which
# runs in the events' transaction with `?` placeholders; each statement returns rows (an
# INSERT with RETURNING)
ALSO = "also"
# the keyword of a save whose caller reads no notification ids (a group commit's batch,
# infra.app `_record_together`): on PostgreSQL its transaction is one query
# (`MarkingPostgresRecorder._insert_at_once`, or infra.group_commit `LoopCommits`)
UNNUMBERED = "unnumbered"
Also = Callable[[Callable[..., list[tuple[Any, ...]]]], None]


class IdempotencyConflict(DomainError):
    """The key is being used by a command still running, or was lost mid-way."""

    status = 409
    title = "Idempotency-Key in use"


def request_hash(body: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def _stamp(seconds: float) -> str:
    """An ISO 8601 UTC time, always with microseconds (so the texts compare as the times)."""
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="microseconds")


@dataclass(frozen=True)
class Mark:
    """What the transaction recording a key's command marks: the key, held by `lease`."""

    table: str
    encounter_id: UUID
    key: str
    lease: str

    def statement(self, placeholder: str) -> str:
        return (
            f"UPDATE {self.table} SET recorded_from = ?, recorded_to = ? WHERE "
            "encounter_id = ? AND key = ? AND lease = ? AND response IS NULL RETURNING key"
        ).replace("?", placeholder)

    def mine(self, stored_events: Sequence[StoredEvent]) -> bool:
        """Whether its encounter has events among those recorded."""
        mine = str(self.encounter_id)
        return any(str(s.originator_id) == mine for s in stored_events)

    def params(self, stored_events: Sequence[StoredEvent]) -> tuple[Any, ...]:
        """Its command's first and last positions: of its encounter's events among those
        recorded (a group commit records other encounters' with them)."""
        mine = str(self.encounter_id)
        positions = [s.originator_version for s in stored_events if str(s.originator_id) == mine]
        return (min(positions), max(positions), str(self.encounter_id), self.key, self.lease)

    def taken_over(self) -> IdempotencyConflict:
        return IdempotencyConflict(
            "IDEMPOTENCY",
            "this command ran so long that its Idempotency-Key was taken over by a later "
            "request with it; nothing of it was recorded",
            field="Idempotency-Key",
        )


def listed(given: Any) -> list[Any]:
    """The marks (or writes) a save passes: one, several (a group commit's), or none."""
    if given is None:
        return []
    return list(given) if isinstance(given, list | tuple) else [given]


class MarkingSQLiteRecorder(SQLiteApplicationRecorder):
    """SQLite: a command's events and its key's mark in one transaction (no mark: nothing)."""

    def select_events(
        self,
        originator_id: UUID | str,
        *,
        gt: int | None = None,
        lte: int | None = None,
        desc: bool = False,
        limit: int | None = None,
    ) -> Sequence[StoredEvent]:
        """The library's select (the same rows, in its order), with the id the rows share
        converted once rather than for each row, and only the columns that differ read, by
        position: together about a fifth of a full fold's time on SQLite (scaling.md)."""
        key = originator_id.hex if isinstance(originator_id, UUID) else originator_id
        statement = (
            f"SELECT originator_version, topic, state FROM {self.events_table_name} "
            "WHERE originator_id=? "
        )
        params: list[Any] = [key]
        if gt is not None:
            statement += "AND originator_version>? "
            params.append(gt)
        if lte is not None:
            statement += "AND originator_version<=? "
            params.append(lte)
        statement += "ORDER BY originator_version " + ("DESC " if desc else "ASC ")
        if limit is not None:
            statement += "LIMIT ? "
            params.append(limit)
        with self.datastore.transaction(commit=False) as c:
            c.execute(statement, params)
            rows = c.fetchall()
        if not rows:
            return []
        shared = self.convert_originator_id(key)  # every row's, as the WHERE matched it
        return [StoredEvent(shared, version, topic, state) for version, topic, state in rows]

    def _insert_events(
        self, c: SQLiteCursor, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> Sequence[int] | None:
        returning = super()._insert_events(c, stored_events, **kwargs)
        if not stored_events:
            return returning
        for mark in listed(kwargs.get(MARK)):
            if not mark.mine(stored_events):
                continue  # its command recorded nothing: nothing to mark
            c.execute(mark.statement("?"), mark.params(stored_events))
            if not c.fetchall():  # the lease lapsed and was taken: roll it all back
                raise mark.taken_over()

        def run(sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
            c.execute(sql, params)
            return c.fetchall()

        for also in listed(kwargs.get(ALSO)):
            also(run)  # an exception rolls the events back too
        return returning


class MarkingPostgresRecorder(PostgresApplicationRecorder):
    """PostgreSQL: the same, in the library's transaction (its pipeline), or with
    POSTGRES_ENABLE_DB_FUNCTIONS in a transaction around the insert function's call that
    first takes the table lock the library's own insert takes."""

    def __init__(self, datastore: Any, *, events_table_name: str = "stored_events") -> None:
        super().__init__(datastore, events_table_name=events_table_name)
        # The library names its insert function by the id type alone, so each application
        # recorder of a schema (the events', the campaigns') replaced the one function with
        # its own table's, and a save could go to the other table: each here has its own.
        shared = self.pg_function_name_insert_events
        own = f"{shared}_{events_table_name}"[:63]  # PostgreSQL's longest name
        at = self.create_insert_function_statement_index
        self.sql_create_statements[at] = _renamed(self.sql_create_statements[at], shared, own)
        self.sql_invoke_pg_function_insert_events = _renamed(
            self.sql_invoke_pg_function_insert_events, shared, own
        )
        self.pg_function_name_insert_events = own
        # the events' columns as four arrays, not one array of the library's composite
        # type: psycopg dumps a composite in Python, field by field (`_insert_stored_events`)
        insert = SQL(
            "INSERT INTO {schema}.{table} AS t"
            " (originator_id, originator_version, topic, state)"
            " SELECT * FROM unnest(%s::{id_type}[], %s::bigint[], %s::text[], %s::bytea[])"
        ).format(
            schema=Identifier(datastore.schema),
            table=Identifier(events_table_name),
            id_type=SQL(datastore.originator_id_type),
        )
        self._insert_columns = insert + SQL(" RETURNING notification_id")
        self._notify = SQL("NOTIFY {0}").format(Identifier(self.channel_name))
        # a batch's whole transaction as one query (`_insert_at_once`; infra.group_commit
        # LoopCommits sends it on the event loop)
        self.at_once = SQL("; ").join(
            [
                SQL("BEGIN"),
                *self.lock_table_statements,
                self._notify,
                insert,
                SQL("COMMIT"),
            ]
        )

    def _insert_stored_events(
        self, curs: Any, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> None:
        """The library's insert, as eventsourcing 9.5.6's `PostgresApplicationRecorder`
        and its base make it (the pin keeps it: <9.6): the table's lock, the channel
        notified, the events inserted in their order, their notification ids returned;
        their columns sent as four arrays."""
        self._lock_table(curs)
        curs.execute(self._notify)
        curs.execute(self._insert_columns, columns(stored_events))

    def _insert_events(
        self, curs: Any, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> None:
        super()._insert_events(curs, stored_events, **kwargs)
        if not stored_events:
            return
        for mark in listed(kwargs.get(MARK)):
            if mark.mine(stored_events):
                self._mark(curs, stored_events, mark)
        for also in listed(kwargs.get(ALSO)):
            self._also(curs, also)

    @staticmethod
    def _also(curs: Any, also: Also) -> None:
        def run(sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
            curs.execute(sql.replace("?", "%s"), params)
            rows = curs.fetchall()  # each statement returns rows (the pipeline syncs here)
            return [tuple(r.values()) if isinstance(r, dict) else tuple(r) for r in rows]

        also(run)  # an exception rolls the events back too

    @staticmethod
    def _mark(curs: Any, stored_events: Sequence[StoredEvent], mark: Mark) -> None:
        # runs before the events' insert, in the same transaction; the key's row stays
        # locked until it commits, so a request taking the key over waits for it
        curs.execute(mark.statement("%s"), mark.params(stored_events))
        if not curs.fetchall():  # fetched at once (the pipeline syncs)
            raise mark.taken_over()

    def insert_events(
        self, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> Sequence[int] | None:
        if not stored_events:
            return super().insert_events(stored_events, **kwargs)
        if self.datastore.enable_db_functions:
            marks, writes = listed(kwargs.get(MARK)), listed(kwargs.get(ALSO))
            return self._insert_by_function(stored_events, marks, writes)
        if kwargs.get(UNNUMBERED) and not kwargs.get(MARK) and not kwargs.get(ALSO):
            self._insert_at_once(stored_events)
            return None
        return super().insert_events(stored_events, **kwargs)

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def _insert_at_once(self, stored_events: Sequence[StoredEvent]) -> None:
        """The library's transaction (`insert_events`: the table's lock, the channel
        notified, the events inserted) as one query, its values bound by psycopg on this
        side (`ClientCursor`): one message to PostgreSQL and one wait for its answer, where
        the library's pipeline sends each statement, syncs after the insert for the
        notification ids (which the caller does not read) and again at the commit. The
        writer thread holds the interpreter's lock less (~0.16 against ~0.36 ms of CPU a
        transaction of 16 saves, measured alone) and gives it up once, not at each step.
        A position taken fails the query at the insert: PostgreSQL skips the rest, the
        pool's connection rolls the transaction back as it is given back, and the same
        IntegrityError is raised as before, nothing recorded. For saves without a key's
        mark or a write of fraylog's own, which read rows in the transaction
        (`insert_events`)."""
        with self.datastore.get_connection() as conn:
            ClientCursor(conn).execute(self.at_once, columns(stored_events))

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def _insert_by_function(
        self, stored_events: Sequence[StoredEvent], marks: list[Mark], writes: list[Also]
    ) -> list[int]:
        """The insert function's call, the key's mark and fraylog's own write in one
        transaction, which first takes the table lock (`_lock_table`) as the library's own
        insert does: its function takes none (eventsourcing 9.5), and without it two
        processes' transactions may commit notification ids out of their order, so that a
        reader of the notification log (the read models' runner) passes an id that commits
        after it."""
        events = [
            self.construct_pg_stored_event(
                originator_id=e.originator_id,
                originator_version=e.originator_version,
                topic=e.topic,
                state=e.state,
            )
            for e in stored_events
        ]
        with self.datastore.get_connection() as conn, conn.transaction(), conn.cursor() as curs:
            self._lock_table(curs)
            for mark in marks:
                if mark.mine(stored_events):
                    self._mark(curs, stored_events, mark)
            curs.execute(self.sql_invoke_pg_function_insert_events, (events,), prepare=True)
            ids = [r[self.pg_function_name_insert_events] for r in curs.fetchall()]
            for also in writes:
                self._also(curs, also)
            return ids


def columns(stored_events: Sequence[StoredEvent]) -> tuple[list[Any], ...]:
    """The events' columns as four arrays, as the insert statements take them."""
    return (
        [e.originator_id for e in stored_events],
        [e.originator_version for e in stored_events],
        [e.topic for e in stored_events],
        [e.state for e in stored_events],
    )


def _renamed(statement: Composed, old: str, new: str) -> Composed:
    """`statement` with the identifier `old` as `new` wherever it stands alone."""
    return Composed([Identifier(new) if part == Identifier(old) else part for part in statement])


def recorder_env(settings: Settings) -> dict[str, str]:
    """The library's setting that makes Fraylog's recorder one that marks keys."""
    marking = MarkingPostgresRecorder if settings.backend == "postgres" else MarkingSQLiteRecorder
    return {"APPLICATION_RECORDER_TOPIC": get_topic(marking)}


@dataclass(frozen=True)
class Reservation:
    """What `reserve` decided: `answer`, the first answer, to send again; or `lease`, the
    key held for this request, which runs the command (then `complete` or `release`), or,
    with `recorded` (the positions the command recorded before its process stopped),
    rebuilds the answer from the record and `complete`s it."""

    lease: str | None = None
    answer: dict[str, Any] | None = None
    recorded: tuple[int, int] | None = None


class IdempotencyKeys(SideTables):
    """Commands' idempotency keys (by encounter and key), their body's hash and first answer."""

    def __init__(self, settings: Settings, clock: Callable[[], float] = time.time) -> None:
        super().__init__(settings)
        self.clock = clock  # tests move it
        self._swept = float("-inf")
        table = self.table(KEYS)
        self.execute(
            f"CREATE TABLE IF NOT EXISTS {table} (encounter_id TEXT NOT NULL, "
            "key TEXT NOT NULL, request_hash TEXT NOT NULL, at_version INTEGER NOT NULL, "
            "response TEXT, created_at TEXT NOT NULL, lease TEXT NOT NULL, "
            "leased_at DOUBLE PRECISION NOT NULL, recorded_from INTEGER, "
            "recorded_to INTEGER, marks_recording INTEGER NOT NULL DEFAULT 0, "
            "PRIMARY KEY (encounter_id, key))"
        )
        # a table made before keys were marked gets the columns; its rows keep
        # `marks_recording` 0 (a lapsed one of them is not known to be unrecorded)
        self.add_columns(
            KEYS,
            "recorded_from INTEGER",
            "recorded_to INTEGER",
            "marks_recording INTEGER NOT NULL DEFAULT 0",
        )
        self.execute(f"CREATE INDEX IF NOT EXISTS {KEYS}_created ON {table} (created_at)")

    def mark(self, encounter_id: UUID, key: str, lease: str) -> Mark:
        """What to pass to Fraylog.execute so its transaction marks the key as recorded."""
        return Mark(self.table(KEYS), encounter_id, key, lease)

    def retention_seconds(self) -> float:
        return self.settings.idempotency_retention_hours * 3600

    def sweep(self, force: bool = False) -> None:
        """Delete the keys past their retention (at most once a minute unless `force`)."""
        now = self.clock()
        if not force and now - self._swept < SWEEP_SECONDS:
            return
        self._swept = now
        self.execute(
            f"DELETE FROM {self.table(KEYS)} WHERE created_at < ?",
            (_stamp(now - self.retention_seconds()),),
        )

    def reserve(self, encounter_id: UUID, key: str, digest: str, version: int) -> Reservation:
        """Reserve `key` for a command (see Reservation). A key whose command is still
        running is a 409; a key past its retention is a new key."""
        self.sweep()
        lease = secrets.token_hex(8)
        now = self.clock()
        inserted = self.execute(
            f"INSERT INTO {self.table(KEYS)} (encounter_id, key, request_hash, at_version, "
            "response, created_at, lease, leased_at, marks_recording) "
            "VALUES (?, ?, ?, ?, NULL, ?, ?, ?, 1) "
            "ON CONFLICT (encounter_id, key) DO NOTHING RETURNING key",
            (str(encounter_id), key, digest, version, _stamp(now), lease, now),
        )
        if inserted:
            return Reservation(lease=lease)
        rows = self.execute(
            "SELECT request_hash, response, at_version, leased_at, created_at, marks_recording "
            f"FROM {self.table(KEYS)} "
            "WHERE encounter_id = ? AND key = ?",
            (str(encounter_id), key),
        )
        if not rows:  # released in between: try again
            return self.reserve(encounter_id, key, digest, version)
        first_hash, response, at_version, leased_at, created_at, marks = rows[0]
        if created_at < _stamp(now - self.retention_seconds()):  # forgotten: a new key
            self.execute(
                f"DELETE FROM {self.table(KEYS)} WHERE encounter_id = ? AND key = ? "
                "AND created_at = ?",
                (str(encounter_id), key, created_at),
            )
            return self.reserve(encounter_id, key, digest, version)
        if first_hash != digest:
            raise DomainError(
                "IDEMPOTENCY",
                "this Idempotency-Key was used with a different command body; "
                "use a new key for a new command",
                field="Idempotency-Key",
            )
        if response is not None:
            return Reservation(answer=json.loads(response))
        if now - float(leased_at) < LEASE_SECONDS:
            raise IdempotencyConflict(
                "IDEMPOTENCY",
                "a command with this Idempotency-Key is still running; ask again in a moment",
                field="Idempotency-Key",
            )
        if not marks and at_version != version:  # kept before keys were marked: unknown
            raise IdempotencyConflict(
                "IDEMPOTENCY",
                "the command with this Idempotency-Key stopped before it answered, after "
                f"version {at_version}; read the events after it to see whether it was recorded",
                field="Idempotency-Key",
            )
        taken = self.execute(  # the lapsed lease taken over: to answer from the record, or run
            f"UPDATE {self.table(KEYS)} SET lease = ?, leased_at = ? WHERE encounter_id = ? "
            "AND key = ? AND leased_at = ? AND response IS NULL "
            "RETURNING recorded_from, recorded_to",  # as committed (it waits for a mark)
            (lease, now, str(encounter_id), key, leased_at),
        )
        if not taken:
            return self.reserve(encounter_id, key, digest, version)
        start, end = taken[0]
        return Reservation(lease=lease, recorded=None if start is None else (start, end))

    def complete(self, encounter_id: UUID, key: str, lease: str, response: dict[str, Any]) -> None:
        self.execute(
            f"UPDATE {self.table(KEYS)} SET response = ? WHERE encounter_id = ? AND key = ? "
            "AND lease = ?",
            (json.dumps(response), str(encounter_id), key, lease),
        )

    def release(self, encounter_id: UUID, key: str, lease: str) -> None:
        """A refused command recorded nothing: its key may be used again."""
        self.execute(
            f"DELETE FROM {self.table(KEYS)} WHERE encounter_id = ? AND key = ? AND lease = ? "
            "AND response IS NULL AND recorded_from IS NULL",
            (str(encounter_id), key, lease),
        )
