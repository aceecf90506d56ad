"""Idempotency-Key records of commands, kept beside the events: a command sent again with
the same key and body gets its first answer again instead of running twice."""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from domain.errors import DomainError
from infra.settings import Settings
from infra.sidetables import SideTables

KEYS = "fraylog_idempotency_keys"
LEASE_SECONDS = 30.0  # a command holding a key longer than this has stopped


class IdempotencyConflict(DomainError):
    """The key is being used by a command still running, or was lost mid-way."""

    status = 409
    title = "Idempotency-Key in use"


def request_hash(body: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


class IdempotencyKeys(SideTables):
    """Commands' idempotency keys (by encounter and key), their body's hash and first answer."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.execute(
            f"CREATE TABLE IF NOT EXISTS {self.table(KEYS)} (encounter_id TEXT NOT NULL, "
            "key TEXT NOT NULL, request_hash TEXT NOT NULL, at_version INTEGER NOT NULL, "
            "response TEXT, created_at TEXT NOT NULL, lease TEXT NOT NULL, "
            "leased_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (encounter_id, key))"
        )

    def reserve(
        self, encounter_id: UUID, key: str, digest: str, version: int
    ) -> tuple[str | None, dict[str, Any] | None]:
        """Reserve `key` for a command: (a lease, None) when this request is to run it (then
        `complete` or `release` with the lease), or (None, the first answer) when a command
        with this key already answered. A key held by a command still running is a 409."""
        lease = secrets.token_hex(8)
        now = time.time()
        inserted = self.execute(
            f"INSERT INTO {self.table(KEYS)} (encounter_id, key, request_hash, at_version, "
            "response, created_at, lease, leased_at) VALUES (?, ?, ?, ?, NULL, ?, ?, ?) "
            "ON CONFLICT (encounter_id, key) DO NOTHING RETURNING key",
            (str(encounter_id), key, digest, version, datetime.now(UTC).isoformat(), lease, now),
        )
        if inserted:
            return lease, None
        rows = self.execute(
            f"SELECT request_hash, response, at_version, leased_at FROM {self.table(KEYS)} "
            "WHERE encounter_id = ? AND key = ?",
            (str(encounter_id), key),
        )
        if not rows:  # released in between: try again
            return self.reserve(encounter_id, key, digest, version)
        first_hash, response, at_version, leased_at = rows[0]
        if first_hash != digest:
            raise DomainError(
                "IDEMPOTENCY",
                "this Idempotency-Key was used with a different command body; "
                "use a new key for a new command",
                field="Idempotency-Key",
            )
        if response is not None:
            return None, json.loads(response)
        if now - float(leased_at) < LEASE_SECONDS:
            raise IdempotencyConflict(
                "IDEMPOTENCY",
                "a command with this Idempotency-Key is still running; ask again in a moment",
                field="Idempotency-Key",
            )
        if at_version != version:  # it may have been recorded before its process stopped
            raise IdempotencyConflict(
                "IDEMPOTENCY",
                "the command with this Idempotency-Key stopped before it answered, after "
                f"version {at_version}; read the events after it to see whether it was recorded",
                field="Idempotency-Key",
            )
        taken = self.execute(  # nothing was recorded since: take the lapsed lease over
            f"UPDATE {self.table(KEYS)} SET lease = ?, leased_at = ? WHERE encounter_id = ? "
            "AND key = ? AND leased_at = ? AND response IS NULL RETURNING key",
            (lease, now, str(encounter_id), key, leased_at),
        )
        if not taken:
            return self.reserve(encounter_id, key, digest, version)
        return lease, None

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
            "AND response IS NULL",
            (str(encounter_id), key, lease),
        )
