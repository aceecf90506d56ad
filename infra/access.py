"""Who may do what: bearer tokens bound to one encounter (a GM's, or a player's bound to his
combatants), kept hashed beside the events; and Idempotency-Key records of commands.

A token is shown once, when it is minted; the store keeps only its SHA-256. A player may
read his encounter and act for his own combatants; everything else is the GM's.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from pydantic import BaseModel

from domain.access import check_player
from domain.errors import DomainError
from domain.state import EncounterState
from infra.settings import Settings
from infra.sidetables import SideTables

TOKENS = "fraylog_tokens"
KEYS = "fraylog_idempotency_keys"
LEASE_SECONDS = 30.0  # a command holding a key longer than this has stopped
GRANT_CACHE_SECONDS = 5.0  # how long a revoked token may still work in another worker
GM_ROLE, PLAYER_ROLE = "gm", "player"


class IdempotencyConflict(DomainError):
    """The key is being used by a command still running, or was lost mid-way."""

    status = 409
    title = "Idempotency-Key in use"


@dataclass(frozen=True)
class Grant:
    """What a token allows: its encounter, its role, the combatants of a player."""

    encounter_id: str
    role: str
    combatants: frozenset[str] = field(default_factory=frozenset)
    label: str = ""
    token_hash: str = ""

    @property
    def actor(self) -> str:
        """The `actor` of the events it records (never taken from a request body)."""
        return GM_ROLE if self.role == GM_ROLE else f"player:{self.label}"

    @property
    def is_gm(self) -> bool:
        return self.role == GM_ROLE


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def request_hash(body: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


class AccessStore(SideTables):
    """Tokens (by hash) and idempotency records, in the event store's database."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self._grants: dict[str, Grant] = {}
        self._grants_read = time.monotonic()
        self._revoked: set[str] = set()
        self.execute(
            f"CREATE TABLE IF NOT EXISTS {self.table(TOKENS)} (token_hash TEXT PRIMARY KEY, "
            "encounter_id TEXT NOT NULL, role TEXT NOT NULL, combatants TEXT NOT NULL, "
            "label TEXT NOT NULL, created_at TEXT NOT NULL)"
        )
        self.execute(
            f"CREATE TABLE IF NOT EXISTS {self.table(KEYS)} (encounter_id TEXT NOT NULL, "
            "key TEXT NOT NULL, request_hash TEXT NOT NULL, at_version INTEGER NOT NULL, "
            "response TEXT, created_at TEXT NOT NULL, lease TEXT NOT NULL, "
            "leased_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (encounter_id, key))"
        )

    # -- tokens -----------------------------------------------------------------
    def mint(
        self, encounter_id: UUID | str, role: str, combatants: list[str] = (), label: str = ""
    ) -> str:
        """A new token for an encounter; only its hash is kept."""
        token = f"fl_{role}_{secrets.token_urlsafe(32)}"
        self.execute(
            f"INSERT INTO {self.table(TOKENS)} (token_hash, encounter_id, role, combatants, "
            "label, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            (
                token_hash(token),
                str(encounter_id),
                role,
                json.dumps(sorted(combatants)),
                label,
                datetime.now(UTC).isoformat(),
            ),
        )
        return token

    def cached_grant(self, token: str) -> tuple[bool, Grant | None]:
        """(True, the grant) when the token was read lately; (False, None) when the store
        must be asked. No I/O."""
        if time.monotonic() - self._grants_read > GRANT_CACHE_SECONDS:
            return False, None
        digest = token_hash(token)
        return (True, self._grants[digest]) if digest in self._grants else (False, None)

    def grant(self, token: str) -> Grant | None:
        """What a token allows, or None for a token nobody minted."""
        digest = token_hash(token)
        if time.monotonic() - self._grants_read > GRANT_CACHE_SECONDS:  # a revocation shows
            self._grants, self._grants_read = {}, time.monotonic()
        if digest not in self._grants:
            rows = self.execute(
                f"SELECT encounter_id, role, combatants, label FROM {self.table(TOKENS)} "
                "WHERE token_hash = ?",
                (digest,),
            )
            if not rows:
                return None
            encounter_id, role, combatants, label = rows[0]
            if digest in self._revoked:
                return None
            self._grants[digest] = Grant(
                encounter_id, role, frozenset(json.loads(combatants)), label, digest
            )
        return self._grants[digest]

    def revoke(self, encounter_id: UUID, token_id: str) -> bool:
        """Revoke a player's token by its id (the start of its hash)."""
        gone = self.execute(
            f"DELETE FROM {self.table(TOKENS)} WHERE encounter_id = ? AND role = ? "
            "AND substr(token_hash, 1, 16) = ? RETURNING token_hash",
            (str(encounter_id), PLAYER_ROLE, token_id),
        )
        for (digest,) in gone:
            self._revoked.add(digest)  # a read already under way may not cache it again
            self._grants.pop(digest, None)
        return bool(gone)

    def players(self, encounter_id: UUID) -> list[dict[str, Any]]:
        """The player tokens of an encounter, without the tokens."""
        rows = self.execute(
            f"SELECT token_hash, combatants, label, created_at FROM {self.table(TOKENS)} "
            "WHERE encounter_id = ? AND role = ? ORDER BY created_at",
            (str(encounter_id), PLAYER_ROLE),
        )
        return [
            {"id": h[:16], "combatants": json.loads(cs), "label": label, "created_at": at}
            for h, cs, label, at in rows
        ]

    # -- idempotency keys -------------------------------------------------------
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


# -- what a player may do: the game's rule (domain.access) -------------------------------


def check_command(grant: Grant, command: BaseModel, state: EncounterState) -> None:
    """A GM may run any command; a player what domain.access.check_player allows him."""
    if not grant.is_gm:
        check_player(grant.combatants, command, state)
