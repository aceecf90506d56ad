"""Where the server's dice secrets wait until they are revealed: beside the events, never in
them (the events only carry each secret's SHA-256 commitment)."""

from __future__ import annotations

import hashlib
import secrets
import sqlite3
import threading
from uuid import UUID

from infra.settings import Settings

TABLE = "fraylog_dice_secrets"


def new_secret() -> tuple[bytes, str]:
    """32 random bytes and their SHA-256 (hex), the commitment."""
    secret = secrets.token_bytes(32)
    return secret, hashlib.sha256(secret).hexdigest()


class SecretStore:
    """encounter id, epoch -> secret; the epoch counts the reveals so far."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._lock = threading.Lock()
        self._cache: dict[tuple[str, int], bytes] = {}
        self._execute(
            f"CREATE TABLE IF NOT EXISTS {self._table()} (encounter_id TEXT NOT NULL, "
            "epoch INTEGER NOT NULL, secret TEXT NOT NULL, "
            "PRIMARY KEY (encounter_id, epoch))"
        )

    def _table(self) -> str:
        schema = self.settings.postgres_schema
        return f'"{schema}".{TABLE}' if self.settings.database_url and schema else TABLE

    def _execute(self, sql: str, params: tuple = ()) -> list[tuple]:  # type: ignore[type-arg]
        if self.settings.database_url:
            import psycopg

            with psycopg.connect(
                self.settings.database_url, autocommit=True, connect_timeout=5
            ) as conn:
                cur = conn.execute(sql.replace("?", "%s"), params)
                return cur.fetchall() if cur.description else []
        with self._lock, sqlite3.connect(self.settings.sqlite_path, timeout=10) as conn:
            return conn.execute(sql, params).fetchall()

    def put(self, encounter_id: UUID, epoch: int, secret: bytes) -> None:
        self._execute(
            f"INSERT INTO {self._table()} (encounter_id, epoch, secret) VALUES (?, ?, ?)",
            (str(encounter_id), epoch, secret.hex()),
        )
        self._cache[(str(encounter_id), epoch)] = secret

    def get(self, encounter_id: UUID, epoch: int) -> bytes:
        key = (str(encounter_id), epoch)
        if key not in self._cache:
            rows = self._execute(
                f"SELECT secret FROM {self._table()} WHERE encounter_id = ? AND epoch = ?", key
            )
            if not rows:
                raise LookupError(f"no dice secret for encounter {encounter_id}, epoch {epoch}")
            self._cache[key] = bytes.fromhex(rows[0][0])
        return self._cache[key]

    def commit(self, encounter_id: UUID, epoch: int) -> str:
        """Make and keep a fresh secret for an epoch; return its commitment."""
        secret, commitment = new_secret()
        self.put(encounter_id, epoch, secret)
        return commitment
