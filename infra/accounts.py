"""GM accounts: an account key (shown once, kept as its SHA-256) owns the encounters created
with it. The key is the GM's on every encounter the account owns; the encounter tokens keep
working for those who hold only them.

Tables beside the events: `fraylog_accounts` (id, name, the key's hash, when made) and
`fraylog_account_encounters` (which account owns which encounter, with the name, rule book
and creation time it was made with, so an encounter the read models have not reached yet is
listed all the same). The list of an account's encounters joins the second with the read
model `fraylog_encounter_list` (docs/read-models.md).
"""

from __future__ import annotations

import secrets
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from psycopg.errors import UndefinedTable

from domain.errors import DomainError
from infra.access import token_hash
from infra.read_model_views import ENCOUNTERS
from infra.settings import Settings
from infra.sidetables import SideTables

ACCOUNTS = "fraylog_accounts"
OWNED = "fraylog_account_encounters"
KEY_PREFIX = "fl_account_"
ACCOUNT_CACHE_SECONDS = 5.0  # an account key is never revoked: what it opens is kept this long
# the encounter list's columns when the read models were never made on this store
NOTHING_PROJECTED = (
    "(SELECT NULL AS encounter_id, NULL AS status, NULL AS round, NULL AS last_activity, "
    "NULL AS events, NULL AS combatants_up, NULL AS combatants_down)"
)
LIST_COLUMNS = (
    "id",
    "name",
    "ruleset",
    "created_at",
    "status",
    "round",
    "last_activity",
    "events",
    "combatants_up",
    "combatants_down",
)


@dataclass(frozen=True)
class Account:
    """A GM's account: its id, the name it was given, its key's hash."""

    id: str
    name: str
    key_hash: str
    created_at: str


class AccountLimit(DomainError):
    """An account owns as many encounters as FRAYLOG_MAX_ENCOUNTERS_PER_ACCOUNT allows."""

    status = 422
    title = "Limit reached"


def is_account_key(token: str) -> bool:
    return token.startswith(KEY_PREFIX)


class Accounts(SideTables):
    """Accounts by key hash, and the encounters each owns."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self._known: dict[str, tuple[float, Account | None]] = {}
        self._owned: set[tuple[str, str]] = set()  # (account, encounter): owners never change
        self.execute(
            f"CREATE TABLE IF NOT EXISTS {self.table(ACCOUNTS)} (account_id TEXT PRIMARY KEY, "
            "name TEXT NOT NULL, key_hash TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL)"
        )
        self.execute(
            f"CREATE TABLE IF NOT EXISTS {self.table(OWNED)} (encounter_id TEXT PRIMARY KEY, "
            "account_id TEXT NOT NULL, name TEXT NOT NULL, name_key TEXT NOT NULL, "
            "ruleset TEXT NOT NULL, created_at TEXT NOT NULL)"
        )
        self.execute(
            "CREATE INDEX IF NOT EXISTS fraylog_account_encounters_account "
            f"ON {self.table(OWNED)} (account_id, created_at)"
        )

    # -- accounts ---------------------------------------------------------------
    def open(self, name: str) -> tuple[Account, str]:
        """A new account and its key (the key is shown once: only its hash is kept)."""
        key = f"{KEY_PREFIX}{secrets.token_urlsafe(32)}"
        account = Account(
            id=f"acct_{secrets.token_hex(8)}",
            name=name,
            key_hash=token_hash(key),
            created_at=datetime.now(UTC).isoformat(),
        )
        self.execute(
            f"INSERT INTO {self.table(ACCOUNTS)} (account_id, name, key_hash, created_at) "
            "VALUES (?, ?, ?, ?)",
            (account.id, account.name, account.key_hash, account.created_at),
        )
        return account, key

    def by_key(self, key: str) -> Account | None:
        """The account of a key, or None for a key nobody was given (read lately: from
        memory)."""
        digest = token_hash(key)
        seen = self._known.get(digest)
        if seen is not None and time.monotonic() - seen[0] < ACCOUNT_CACHE_SECONDS:
            return seen[1]
        rows = self.execute(
            f"SELECT account_id, name, key_hash, created_at FROM {self.table(ACCOUNTS)} "
            "WHERE key_hash = ?",
            (digest,),
        )
        account = Account(*rows[0]) if rows else None
        if len(self._known) > 10_000:
            self._known.clear()
        self._known[digest] = (time.monotonic(), account)
        return account

    def cached(self, key: str) -> tuple[bool, Account | None]:
        """(True, the account) when the key was read lately; (False, None) when the store
        must be asked. No I/O."""
        seen = self._known.get(token_hash(key))
        if seen is None or time.monotonic() - seen[0] >= ACCOUNT_CACHE_SECONDS:
            return False, None
        return True, seen[1]

    # -- the encounters an account owns -------------------------------------------
    def claim(
        self, account: Account, encounter_id: UUID, name: str, ruleset: str, created_at: str
    ) -> Callable[[Callable[..., list[tuple[Any, ...]]]], None]:
        """The write that makes `account` own a new encounter, within its cap, to run in the
        transaction that records the encounter's first events (infra.idempotency's ALSO):
        the encounter and its owner commit together or not at all. The account's row is
        held (`FOR UPDATE`; SQLite's write holds the whole store), so two creations at once
        cannot both take the last place."""
        cap = self.settings.max_encounters_per_account
        lock = "" if self.settings.backend == "sqlite" else " FOR UPDATE"
        accounts, owned = self.table(ACCOUNTS), self.table(OWNED)

        def write(run: Callable[..., list[tuple[Any, ...]]]) -> None:
            run(f"SELECT account_id FROM {accounts} WHERE account_id = ?{lock}", (account.id,))
            (held,) = run(f"SELECT COUNT(*) FROM {owned} WHERE account_id = ?", (account.id,))[0]
            if held >= cap:
                raise AccountLimit(
                    "LIMIT",
                    f"an account owns at most {cap} encounters "
                    "(FRAYLOG_MAX_ENCOUNTERS_PER_ACCOUNT)",
                )
            run(
                f"INSERT INTO {owned} (encounter_id, account_id, name, name_key, ruleset, "
                "created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING encounter_id",
                (
                    str(encounter_id),
                    account.id,
                    name,
                    name.casefold(),  # any case, any script: SQLite's LOWER knows ASCII only
                    ruleset,
                    created_at,  # its first event's time
                ),
            )

        return write

    def count(self, account: Account) -> int:
        """How many encounters the account owns."""
        return self.execute(
            f"SELECT COUNT(*) FROM {self.table(OWNED)} WHERE account_id = ?", (account.id,)
        )[0][0]

    def owner_of(self, encounter_id: str) -> Account | None:
        """The account that owns an encounter, if one does."""
        rows = self.execute(
            f"SELECT a.account_id, a.name, a.key_hash, a.created_at FROM {self.table(OWNED)} o "
            f"JOIN {self.table(ACCOUNTS)} a ON a.account_id = o.account_id "
            "WHERE o.encounter_id = ?",
            (encounter_id,),
        )
        return Account(*rows[0]) if rows else None

    def owns(self, account: Account, encounter_id: str) -> bool:
        if (account.id, encounter_id) in self._owned:
            return True
        rows = self.execute(
            f"SELECT 1 FROM {self.table(OWNED)} WHERE encounter_id = ? AND account_id = ?",
            (encounter_id, account.id),
        )
        if rows:
            if len(self._owned) > 100_000:
                self._owned.clear()
            self._owned.add((account.id, encounter_id))
        return bool(rows)

    def owned(
        self,
        account: Account,
        *,
        limit: int,
        after: tuple[str, str] | None = None,
        ruleset: str | None = None,
        status: str | None = None,
        name: str | None = None,
    ) -> list[dict[str, Any]]:
        """The account's encounters, newest activity first (an encounter the read models have
        not reached yet: by its creation time, `status` active), at most `limit`, after the
        (activity, id) cursor `after`; filtered by rule book, status and a part of the name
        (case-insensitive)."""
        activity = "COALESCE(l.last_activity, o.created_at)"
        where, params = ["o.account_id = ?"], [account.id]
        if ruleset is not None:
            where.append("o.ruleset = ?")
            params.append(ruleset)
        if status is not None:
            where.append("COALESCE(l.status, 'active') = ?")
            params.append(status)
        if name:
            where.append("o.name_key LIKE ? ESCAPE '\\'")
            key = name.casefold().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            params.append(f"%{key}%")
        if after is not None:
            where.append(f"({activity} < ? OR ({activity} = ? AND o.encounter_id < ?))")
            params += [after[0], after[0], after[1]]

        def listed(projected: str) -> list[tuple[Any, ...]]:
            return self.execute(
                "SELECT o.encounter_id, o.name, o.ruleset, o.created_at, "
                "COALESCE(l.status, 'active'), l.round, "
                f"{activity}, l.events, l.combatants_up, l.combatants_down "
                f"FROM {self.table(OWNED)} o LEFT JOIN {projected} l "
                f"ON l.encounter_id = o.encounter_id WHERE {' AND '.join(where)} "
                f"ORDER BY {activity} DESC, o.encounter_id DESC LIMIT ?",
                (*params, limit),
            )

        try:
            rows = listed(self.table(ENCOUNTERS))
        except (sqlite3.OperationalError, UndefinedTable) as missing:
            if ENCOUNTERS not in str(missing):
                raise
            rows = listed(NOTHING_PROJECTED)  # no runner has run on this store yet
        return [dict(zip(LIST_COLUMNS, row, strict=True)) for row in rows]
