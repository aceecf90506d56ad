"""The read models' tables, kept by a view that is the store's own tracking recorder, so the
rows an event changes and the tracking record of that event commit in one transaction.

Tables (in the configured PostgreSQL schema, like infra.sidetables): fraylog_encounter_list,
fraylog_combatant_stats, and fraylog_read_models_tracking (one row: the last notification of
the `fraylog` application whose changes are in the tables). On SQLite the library's tracking
table is always called `tracking`; the view names its own instead, as on PostgreSQL, so a
rebuild can drop it without touching any other projection's.
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from eventsourcing.persistence import Tracking
from eventsourcing.postgres import PostgresTrackingRecorder
from eventsourcing.sqlite import SQLiteTrackingRecorder
from psycopg.errors import UndefinedTable
from psycopg.sql import SQL

from projections.read_models import (
    CORRECTION_COLUMNS,
    COUNTERS,
    ENCOUNTER_COLUMNS,
    STATS_COLUMNS,
)

PROJECTION = "fraylog_read_models"
ENCOUNTERS = "fraylog_encounter_list"
STATS = "fraylog_combatant_stats"
TRACKING = f"{PROJECTION}_tracking"
# each table's columns: a table made by an older fraylog that lacks one is rebuilt
COLUMNS = {ENCOUNTERS: (*ENCOUNTER_COLUMNS, *CORRECTION_COLUMNS), STATS: STATS_COLUMNS}
log = logging.getLogger("fraylog.read_models")

_DDL = (
    "CREATE TABLE IF NOT EXISTS {encounters} ("
    "encounter_id TEXT PRIMARY KEY, name TEXT NOT NULL, ruleset TEXT NOT NULL, "
    "status TEXT NOT NULL, round BIGINT NOT NULL, created_at TEXT NOT NULL, "
    "last_activity TEXT NOT NULL, events BIGINT NOT NULL, "
    "combatants_up BIGINT NOT NULL, combatants_down BIGINT NOT NULL, "
    + ", ".join(f"{c} BIGINT NOT NULL DEFAULT 0" for c in CORRECTION_COLUMNS)
    + ")",
    "CREATE INDEX IF NOT EXISTS fraylog_encounter_list_activity ON {encounters} (last_activity)",
    "CREATE TABLE IF NOT EXISTS {stats} ("
    "encounter_id TEXT NOT NULL, combatant_id TEXT NOT NULL, name TEXT NOT NULL, "
    "side TEXT NOT NULL, "
    + ", ".join(f"{c} BIGINT NOT NULL" for c in COUNTERS)
    + ", PRIMARY KEY (encounter_id, combatant_id))",
)


@dataclass
class Changes:
    """What a run of events changed: encounter rows to upsert, encounters whose statistics
    are replaced whole (after a correction), and amounts to add to the others'."""

    encounters: list[dict[str, Any]] = field(default_factory=list)
    replaced: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    added: list[dict[str, Any]] = field(default_factory=list)
    corrected: dict[str, dict[str, int]] = field(default_factory=dict)  # encounter -> counts


class _ViewSQL:
    """The view's SQL, written once with `?` placeholders for both stores."""

    datastore: Any  # the store's tracking recorder, next in the MRO, gives these two
    _insert_tracking: Any

    def _name(self, table: str) -> str:
        return table

    def _sql(self, text: str) -> str:
        return text

    def _ddl(self) -> list[str]:
        return [s.format(encounters=self._name(ENCOUNTERS), stats=self._name(STATS)) for s in _DDL]

    @cached_property
    def _statements(self) -> dict[str, str]:
        enc, stats = self._name(ENCOUNTERS), self._name(STATS)

        def insert(table: str, columns: tuple[str, ...]) -> str:
            marks = ", ".join("?" for _ in columns)
            return f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})"

        upsert = ", ".join(f"{c} = excluded.{c}" for c in ENCOUNTER_COLUMNS[1:])
        add = ", ".join(f"{c} = {stats}.{c} + excluded.{c}" for c in COUNTERS)
        return {
            name: self._sql(text)
            for name, text in {
                "encounter": f"{insert(enc, ENCOUNTER_COLUMNS)} "
                f"ON CONFLICT (encounter_id) DO UPDATE SET {upsert}",
                "corrected": f"UPDATE {enc} SET "
                + ", ".join(f"{c} = ?" for c in CORRECTION_COLUMNS)
                + " WHERE encounter_id = ?",
                "forget": f"DELETE FROM {stats} WHERE encounter_id = ?",
                "stats": insert(stats, STATS_COLUMNS),
                "add": f"{insert(stats, STATS_COLUMNS)} "
                f"ON CONFLICT (encounter_id, combatant_id) DO UPDATE SET {add}",
            }.items()
        }

    def write(self, changes: Changes, tracking: Tracking) -> None:
        """Apply the changes and record the tracking object in one transaction. The tracking
        insert comes first and fails (IntegrityError) for a notification already recorded,
        so an event is never counted twice, even by two runners racing."""
        sql = self._statements
        with self.datastore.transaction(commit=True) as cursor:
            self._insert_tracking(cursor, tracking)
            for row in changes.encounters:
                cursor.execute(sql["encounter"], tuple(row[c] for c in ENCOUNTER_COLUMNS))
            for encounter_id, counts in changes.corrected.items():
                cursor.execute(
                    sql["corrected"], (*(counts[c] for c in CORRECTION_COLUMNS), encounter_id)
                )
            for encounter_id, rows in changes.replaced.items():
                cursor.execute(sql["forget"], (encounter_id,))
                if rows:
                    cursor.executemany(
                        sql["stats"],
                        [(encounter_id, *(r[c] for c in STATS_COLUMNS[1:])) for r in rows],
                    )
            if changes.added:
                cursor.executemany(
                    sql["add"], [tuple(r[c] for c in STATS_COLUMNS) for r in changes.added]
                )

    def create_table(self) -> None:
        """Create what is missing. Tables of an older shape (a column missing: made by an
        older fraylog) are dropped first with the tracking, so every event is projected
        again from the first: the read models are derived data (docs/read-models.md)."""
        missing = self._missing_columns()
        if missing:
            log.warning(
                "the read models' tables lack %s: dropped, every event is projected again",
                ", ".join(missing),
            )
            self.drop()
        super().create_table()  # the tracking recorder's, next in the MRO

    def _missing_columns(self) -> tuple[str, ...]:
        """`table.column` of each column the tables lack (none for a table not made yet)."""
        missing: list[str] = []
        with self.datastore.transaction(commit=False) as cursor:
            for table, columns in COLUMNS.items():
                have = self._columns(cursor, table)
                if have:
                    missing += [f"{table}.{c}" for c in columns if c not in have]
        return tuple(missing)

    def _columns(self, cursor: Any, table: str) -> set[str]:
        cursor.execute("SELECT name FROM pragma_table_info(?)", (table,))
        return {row["name"] for row in cursor.fetchall()}

    def drop(self) -> None:
        """Drop the tables and the tracking: the view then starts from nothing."""
        with self.datastore.transaction(commit=True) as cursor:
            for table in (ENCOUNTERS, STATS, TRACKING):
                cursor.execute(f"DROP TABLE IF EXISTS {self._name(table)}")


class SQLiteReadModelsView(_ViewSQL, SQLiteTrackingRecorder):
    """The read models in the SQLite file of the events, with their own tracking table."""

    def __init__(self, datastore: Any, **kwargs: Any) -> None:
        super().__init__(datastore, **kwargs)
        assert self.datastore.single_row_tracking, "the view keeps one tracking row"
        self.insert_tracking_statement = (
            f"INSERT INTO {TRACKING} VALUES (:application_name, :notification_id) "
            "ON CONFLICT (application_name) DO UPDATE SET notification_id = :notification_id "
            f"WHERE {TRACKING}.notification_id < :notification_id RETURNING notification_id"
        )
        self.select_max_tracking_id_statement = (
            f"SELECT MAX(notification_id) FROM {TRACKING} WHERE application_name=?"
        )

    def construct_create_table_statements(self) -> list[str]:
        return [
            f"CREATE TABLE IF NOT EXISTS {TRACKING} (application_name TEXT, "
            "notification_id INTEGER, PRIMARY KEY (application_name)) WITHOUT ROWID",
            *self._ddl(),
        ]


class PostgresReadModelsView(_ViewSQL, PostgresTrackingRecorder):
    """The read models in the PostgreSQL schema of the events; the library names the
    tracking table after the projection (fraylog_read_models_tracking)."""

    def __init__(self, datastore: Any, **kwargs: Any) -> None:
        super().__init__(datastore, **kwargs)
        assert self.tracking_table_name == TRACKING, self.tracking_table_name
        self.sql_create_statements.extend(SQL(s) for s in self._ddl())  # type: ignore[arg-type]

    def _name(self, table: str) -> str:
        return f'"{self.datastore.schema}".{table}'

    def _sql(self, text: str) -> str:
        return text.replace("?", "%s")

    def _columns(self, cursor: Any, table: str) -> set[str]:
        cursor.execute(
            "SELECT column_name AS name FROM information_schema.columns "
            "WHERE table_schema = %s AND table_name = %s",
            (self.datastore.schema or "public", table),
        )
        return {row["name"] for row in cursor.fetchall()}


def projected(tables: Any, tracking: str = TRACKING) -> int | None:
    """The last notification of the `fraylog` application the read models hold, read with
    `tables` (an infra.sidetables.SideTables); None when they never projected on this
    store (no tracking table, or no row)."""
    try:
        rows = tables.execute(
            f"SELECT notification_id FROM {tables.table(tracking)} WHERE application_name = ?",
            ("fraylog",),
        )
    except (sqlite3.OperationalError, UndefinedTable):
        return None
    return rows[0][0] if rows else None

