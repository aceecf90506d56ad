"""Signed checkpoints and the installation's signing keys, in tables beside the events.

A checkpoint is the server's Ed25519 signature over an encounter's id, the position and
hash of its last event, and the time (docs/audit-spec.md §6). The signing key is made on
first use, once per installation (a one-row table names the current one, so two workers
starting together agree on it); `fraylog keys rotate` makes a new one current and erases
the old private key, whose public key stays published for verification.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domain.audit import checkpoint_statement, key_id
from infra.settings import Settings
from infra.sidetables import SideTables

KEYS = "fraylog_signing_keys"
CURRENT = "fraylog_signing_current"
CHECKPOINTS = "fraylog_checkpoints"
COLUMNS = ("encounter_id", "position", "hash", "time", "key_id", "signature")
FIELDS = ("encounter", "position", "hash", "time", "key", "signature")  # a checkpoint's, as sent


def _now() -> str:
    return datetime.now(UTC).isoformat()


class Checkpoints(SideTables):
    """The signing keys and the checkpoints signed with them."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.execute(
            f"CREATE TABLE IF NOT EXISTS {self.table(KEYS)} (key_id TEXT PRIMARY KEY, "
            "public_key TEXT NOT NULL, private_key TEXT, created TEXT NOT NULL, retired TEXT)"
        )
        self.execute(
            f"CREATE TABLE IF NOT EXISTS {self.table(CURRENT)} (slot INTEGER PRIMARY KEY "
            "CHECK (slot = 1), key_id TEXT NOT NULL)"
        )
        self.execute(
            f"CREATE TABLE IF NOT EXISTS {self.table(CHECKPOINTS)} (encounter_id TEXT NOT NULL, "
            "position INTEGER NOT NULL, hash TEXT NOT NULL, time TEXT NOT NULL, "
            "key_id TEXT NOT NULL, signature TEXT NOT NULL, "
            "PRIMARY KEY (encounter_id, position, key_id))"
        )

    # -- keys ---------------------------------------------------------------------------
    def _new_key(self, run: Callable[..., list[tuple[Any, ...]]] | None = None) -> str:
        private = Ed25519PrivateKey.generate()
        public = private.public_key().public_bytes_raw()
        made = key_id(public)
        (run or self.execute)(
            f"INSERT INTO {self.table(KEYS)} (key_id, public_key, private_key, created) "
            "VALUES (?, ?, ?, ?)",
            (made, public.hex(), private.private_bytes_raw().hex(), _now()),
        )
        return made

    def _current(self) -> tuple[str, Ed25519PrivateKey] | None:
        rows = self.execute(
            f"SELECT k.key_id, k.private_key FROM {self.table(CURRENT)} c "
            f"JOIN {self.table(KEYS)} k ON k.key_id = c.key_id WHERE c.slot = 1"
        )
        if not rows or rows[0][1] is None:
            return None
        return rows[0][0], Ed25519PrivateKey.from_private_bytes(bytes.fromhex(rows[0][1]))

    def current_key(self) -> tuple[str, Ed25519PrivateKey]:
        """The key that signs now, made on first use."""
        current = self._current()
        if current is None:
            made = self._new_key()
            self.execute(
                f"INSERT INTO {self.table(CURRENT)} (slot, key_id) VALUES (1, ?) "
                "ON CONFLICT (slot) DO NOTHING",
                (made,),
            )
            current = self._current()
            if current is None:
                raise RuntimeError(
                    "the current signing key has no private key: fraylog keys rotate"
                )
            if current[0] != made:  # another process made the first key at the same time
                self.execute(f"DELETE FROM {self.table(KEYS)} WHERE key_id = ?", (made,))
        return current

    def rotate(self) -> str:
        """Make a new key current; every other key signs nothing more (its private key is
        deleted from the table) but stays published. Returns the new key's id.

        One transaction holds the current key's row (FOR UPDATE; SQLite: the write lock)
        while it makes the new key, swaps it in and retires every other: a rotation at the
        same time waits, then retires this one. (Swapping and retiring as separate statements
        let a slower rotation, reading an older current key, erase the private key of the
        one just made current: signing stopped.)"""
        lock = " FOR UPDATE" if self.settings.database_url else ""
        while True:
            with self.transaction() as run:
                held = run(f"SELECT key_id FROM {self.table(CURRENT)} WHERE slot = 1{lock}")
                made = self._new_key(run)
                if held:
                    run(f"UPDATE {self.table(CURRENT)} SET key_id = ? WHERE slot = 1", (made,))
                elif not run(
                    f"INSERT INTO {self.table(CURRENT)} (slot, key_id) VALUES (1, ?) "
                    "ON CONFLICT (slot) DO NOTHING RETURNING key_id",
                    (made,),
                ):  # the first key was made meanwhile: its row exists now
                    run(f"DELETE FROM {self.table(KEYS)} WHERE key_id = ?", (made,))
                    continue
                # every key but this one: retired (if it was not) and its private key gone,
                # a key left by a rotation that crashed half-way included
                run(
                    f"UPDATE {self.table(KEYS)} SET retired = COALESCE(retired, ?), "
                    "private_key = NULL WHERE key_id <> ? "
                    "AND (private_key IS NOT NULL OR retired IS NULL)",
                    (_now(), made),
                )
                return made

    def _current_id(self) -> str | None:
        rows = self.execute(f"SELECT key_id FROM {self.table(CURRENT)} WHERE slot = 1")
        return rows[0][0] if rows else None

    def keys(self) -> list[dict[str, Any]]:
        """Every key this installation signed with, the current one first: what a verifier
        needs (GET /audit/keys), never a private key."""
        now = self._current_id()
        rows = self.execute(
            f"SELECT key_id, public_key, created, retired FROM {self.table(KEYS)} "
            "ORDER BY created DESC, key_id"
        )
        return sorted(
            (
                {
                    "id": k,
                    "algorithm": "Ed25519",
                    "public_key": public,
                    "created": created,
                    "retired": retired,
                    "current": k == now,
                }
                for k, public, created, retired in rows
            ),
            key=lambda key: not key["current"],
        )

    # -- checkpoints ----------------------------------------------------------------------
    def sign(self, encounter_id: UUID, position: int, hash_: str) -> dict[str, Any]:
        """Sign and keep a checkpoint of an encounter at `position` (whose event has
        `hash_`); one already signed there with the current key is returned instead."""
        signing, private = self.current_key()
        checkpoint: dict[str, Any] = {
            "encounter": str(encounter_id),
            "position": position,
            "hash": hash_,
            "time": _now(),
            "key": signing,
        }
        checkpoint["signature"] = private.sign(checkpoint_statement(checkpoint)).hex()
        self.execute(
            f"INSERT INTO {self.table(CHECKPOINTS)} ({', '.join(COLUMNS)}) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (encounter_id, position, key_id) DO NOTHING",
            tuple(checkpoint[k] for k in FIELDS),
        )
        kept = self.of(encounter_id, since=position, until=position)
        return next(c for c in reversed(kept) if c["key"] == signing)

    def of(
        self, encounter_id: UUID, *, since: int = 1, until: int | None = None
    ) -> list[dict[str, Any]]:
        """The checkpoints of an encounter at positions `since` to `until`, in order of
        position (then time)."""
        rows = self.execute(
            f"SELECT {', '.join(COLUMNS)} FROM {self.table(CHECKPOINTS)} "
            "WHERE encounter_id = ? AND position >= ? AND position <= ? "
            "ORDER BY position, time",
            (str(encounter_id), since, until if until is not None else 2**62),
        )
        return [{**dict(zip(FIELDS, row, strict=True)), "position": int(row[1])} for row in rows]

    def latest(self, encounter_id: UUID, until: int | None = None) -> dict[str, Any] | None:
        """The latest checkpoint at or before `until`: the one an export carries."""
        kept = self.of(encounter_id, until=until)
        return kept[-1] if kept else None
