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
from domain.state import EncounterState
from infra.settings import Settings
from infra.sidetables import SideTables

TOKENS = "fraylog_tokens"
GRANT_CACHE_SECONDS = 5.0  # how long a revoked token may still work in another worker
GM_ROLE, PLAYER_ROLE = "gm", "player"


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


class AccessStore(SideTables):
    """Tokens (by hash), in the event store's database."""

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


# -- what a player may do: the game's rule (domain.access) -------------------------------


def check_command(grant: Grant, command: BaseModel, state: EncounterState) -> None:
    """A GM may run any command; a player what domain.access.check_player allows him."""
    if not grant.is_gm:
        check_player(grant.combatants, command, state)
