"""Where the server's dice secrets wait until they are revealed: beside the events, never in
them. Each secret is kept under its commitment (its SHA-256), which the events record, so a
secret kept for a command that then lost a race is simply never used."""

from __future__ import annotations

import hashlib
import secrets
from uuid import UUID

from infra.settings import Settings
from infra.sidetables import SideTables

TABLE = "fraylog_dice_secrets"
ATTEMPTS = "fraylog_dice_attempts"  # server draws per position (needs SQLite 3.35+)


class SecretStore(SideTables):
    """(encounter id, commitment) -> secret."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self._cache: dict[tuple[str, str], bytes] = {}
        self.execute(
            f"CREATE TABLE IF NOT EXISTS {self.table(TABLE)} (encounter_id TEXT NOT NULL, "
            "commitment TEXT NOT NULL, secret TEXT NOT NULL, "
            "PRIMARY KEY (encounter_id, commitment))"
        )
        self.execute(
            f"CREATE TABLE IF NOT EXISTS {self.table(ATTEMPTS)} (encounter_id TEXT NOT NULL, "
            "position INTEGER NOT NULL, attempts INTEGER NOT NULL, "
            "PRIMARY KEY (encounter_id, position))"
        )

    def next_attempt(self, encounter_id: UUID, position: int) -> int:
        """Count a server draw at a position (0 for the first); the count is kept even when
        the command is then refused, so a retry draws other faces."""
        rows = self.execute(
            f"INSERT INTO {self.table(ATTEMPTS)} AS a (encounter_id, position, attempts) "
            "VALUES (?, ?, 1) ON CONFLICT (encounter_id, position) "
            "DO UPDATE SET attempts = a.attempts + 1 RETURNING attempts",
            (str(encounter_id), position),
        )
        return int(rows[0][0]) - 1

    def commit(self, encounter_id: UUID) -> str:
        """Draw and keep a fresh 32-byte secret; return its commitment (SHA-256, hex)."""
        secret = secrets.token_bytes(32)
        commitment = hashlib.sha256(secret).hexdigest()
        self.execute(
            f"INSERT INTO {self.table(TABLE)} (encounter_id, commitment, secret) VALUES (?, ?, ?)",
            (str(encounter_id), commitment, secret.hex()),
        )
        self._cache[(str(encounter_id), commitment)] = secret
        return commitment

    def get(self, encounter_id: UUID, commitment: str) -> bytes:
        key = (str(encounter_id), commitment)
        if key not in self._cache:
            rows = self.execute(
                f"SELECT secret FROM {self.table(TABLE)} WHERE encounter_id = ? AND commitment = ?",
                key,
            )
            if not rows:
                raise LookupError(
                    f"no dice secret for encounter {encounter_id} under commitment {commitment}"
                )
            self._cache[key] = bytes.fromhex(rows[0][0])
        return self._cache[key]
