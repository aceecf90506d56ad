"""A store damaged behind fraylog's back, as a lost event would leave it."""

from __future__ import annotations

import uuid

from infra.app import Fraylog
from infra.settings import Settings


def delete_event(settings: Settings, encounter_id: str, position: int) -> None:
    """Remove one stored event, as a store that lost it would."""
    with Fraylog(settings) as app:
        table = app.recorder.events_table_name
    if settings.backend == "sqlite":
        import sqlite3

        with sqlite3.connect(settings.sqlite_path) as conn:
            gone = conn.execute(
                f"DELETE FROM {table} WHERE originator_id = ? AND originator_version = ?",
                (uuid.UUID(encounter_id).hex, position),
            ).rowcount
    else:
        import psycopg
        from psycopg import sql

        parts = table.split(".") if "." in table else [settings.postgres_schema, table]
        name = sql.Identifier(*parts)
        assert settings.database_url is not None
        with psycopg.connect(settings.database_url, autocommit=True) as conn:
            gone = conn.execute(
                sql.SQL(
                    "DELETE FROM {} WHERE originator_id = %s AND originator_version = %s"
                ).format(name),
                (uuid.UUID(encounter_id), position),
            ).rowcount
    assert gone == 1
