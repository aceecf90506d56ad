"""The raw driver: sqlite3 or psycopg alone inserting rows shaped like the library's stored
events (the same columns and primary key, a state of the same bytes), one transaction and
one commit per command: the floor under the library's save and fraylog's command."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any
from uuid import uuid4

from bench.timing import clock
from infra.settings import Settings

TABLE = "raw_events"


class RawDriver:
    """Inserts one row per save into a table of its own: on SQLite a file of its own next
    to the store (WAL, as the library opens it), on PostgreSQL the store's schema."""

    def __init__(self, settings: Settings, topic: str, state: bytes) -> None:
        self.topic, self.state = topic, state
        self.originator = uuid4()
        self.version = 0
        self.saves: list[int] = []
        self.pg = settings.database_url is not None
        if self.pg:
            import psycopg
            from psycopg import sql

            self.conn: Any = psycopg.connect(settings.database_url or "", autocommit=True)
            table = sql.Identifier(settings.postgres_schema or "public", TABLE)
            with self.conn.transaction():
                self.conn.execute(
                    sql.SQL(
                        "CREATE TABLE IF NOT EXISTS {} (originator_id uuid NOT NULL, "
                        "originator_version bigint NOT NULL, topic text, state bytea, "
                        "notification_id bigserial, "
                        "PRIMARY KEY (originator_id, originator_version))"
                    ).format(table)
                )
            self.insert: Any = sql.SQL(
                "INSERT INTO {} (originator_id, originator_version, topic, state) "
                "VALUES (%s, %s, %s, %s)"
            ).format(table)
        else:
            path = Path(settings.sqlite_path).with_name(f"{TABLE}.db")
            # autocommit mode and an explicit BEGIN, as eventsourcing.sqlite does
            self.conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute(
                f"CREATE TABLE IF NOT EXISTS {TABLE} (originator_id TEXT, "
                "originator_version INTEGER, topic TEXT, state BLOB, "
                "PRIMARY KEY (originator_id, originator_version)) WITHOUT ROWID"
            )
            self.insert = f"INSERT INTO {TABLE} VALUES (?, ?, ?, ?)"

    def save(self) -> None:
        """One row in one transaction, committed; timed."""
        self.version += 1
        t0 = clock()
        if self.pg:
            with self.conn.transaction():
                self.conn.execute(
                    self.insert, (self.originator, self.version, self.topic, self.state)
                )
        else:
            self.conn.execute("BEGIN")
            self.conn.execute(
                self.insert, (self.originator.hex, self.version, self.topic, self.state)
            )
            self.conn.execute("COMMIT")
        self.saves.append(clock() - t0)

    def take_save_rate(self) -> float:
        """Saves/s since the last take, then start afresh."""
        samples, self.saves = self.saves, []
        return len(samples) / (sum(samples) / 1e9)

    def close(self) -> None:
        self.conn.close()
