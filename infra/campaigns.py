"""Campaigns: each account's roster (characters) and bestiary (creatures), event-sourced by a
second eventsourcing Application, `fraylog_campaigns`, beside the encounters' `fraylog`.

Its events are stored in their own table, `fraylog_campaigns_events`, on both stores (on
PostgreSQL the library names the table after the application; on SQLite, where it would
be `stored_events` for every application, the recorder below names it), so they have their
own notification log: the read models' runner follows the `fraylog` application's and never
sees a roster event. Entries are not snapshotted (a few events each).

Which entries an account has is kept beside them, in the side table `fraylog_roster`
(entry, account, kind, rule book, name, retired, when saved), written in the transaction of
the entry's events (infra.idempotency's ALSO): the list reads it, and an entry of another
account is not found (404: ids cannot be probed)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Application
from eventsourcing.persistence import IntegrityError
from eventsourcing.sqlite import SQLiteDatastore
from eventsourcing.utils import get_topic

from domain.errors import DomainError
from domain.roster import Copy, RosterEntry, RosterEntryState
from domain.state import EncounterState
from infra.accounts import ACCOUNTS, Account
from infra.cursors import after as page_after
from infra.cursors import cursor
from infra.idempotency import ALSO, Also, MarkingPostgresRecorder, MarkingSQLiteRecorder
from infra.runner_lock import creating_tables
from infra.settings import Settings
from infra.sidetables import SideTables

EVENTS_TABLE = "fraylog_campaigns_events"
ROSTER = "fraylog_roster"
MAX_ENTRIES = 1000  # entries an account may save (retired ones count: their history stays)
ROSTER_COLUMNS = ("id", "kind", "ruleset", "name", "retired", "saved_at")
Run = Callable[..., list[tuple[Any, ...]]]  # a statement in the events' transaction


class CampaignEvents(MarkingSQLiteRecorder):
    """The campaigns' events on SQLite, in their own table (not `stored_events`), with the
    roster's row written in their transaction (infra.idempotency's ALSO)."""

    def __init__(self, datastore: SQLiteDatastore, events_table_name: str = EVENTS_TABLE) -> None:
        super().__init__(datastore, events_table_name)


class RosterEntryNotFound(DomainError):
    """No entry with that id on the account's roster (another account's is not found either)."""

    status = 404
    title = "Roster entry not found"


class RosterConflict(DomainError):
    status = 409
    title = "Version conflict"


@dataclass(frozen=True)
class Page:
    entries: list[dict[str, Any]]
    next: str | None


class RosterIndex(SideTables):
    """Which entries each account has (`fraylog_roster`)."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.execute(
            f"CREATE TABLE IF NOT EXISTS {self.table(ROSTER)} (entry_id TEXT PRIMARY KEY, "
            "account_id TEXT NOT NULL, kind TEXT NOT NULL, ruleset TEXT NOT NULL, "
            "name TEXT NOT NULL, retired INTEGER NOT NULL DEFAULT 0, saved_at TEXT NOT NULL)"
        )
        self.execute(
            f"CREATE INDEX IF NOT EXISTS fraylog_roster_account ON {self.table(ROSTER)} "
            "(account_id, saved_at, entry_id)"
        )

    def claim(self, account: Account, entry: RosterEntryState) -> Also:
        """The write that lists a new entry on the account's roster, within MAX_ENTRIES, in
        the transaction of the entry's first event: both commit or neither does."""
        lock = "" if self.settings.backend == "sqlite" else " FOR UPDATE"
        accounts, roster = self.table(ACCOUNTS), self.table(ROSTER)

        def write(run: Run) -> None:
            run(f"SELECT account_id FROM {accounts} WHERE account_id = ?{lock}", (account.id,))
            (held,) = run(f"SELECT COUNT(*) FROM {roster} WHERE account_id = ?", (account.id,))[0]
            if held >= MAX_ENTRIES:
                raise DomainError(
                    "LIMIT", f"a roster holds at most {MAX_ENTRIES} entries", field="name"
                )
            run(
                f"INSERT INTO {roster} (entry_id, account_id, kind, ruleset, name, retired, "
                "saved_at) VALUES (?, ?, ?, ?, ?, 0, ?) RETURNING entry_id",
                (entry.id, account.id, entry.kind, entry.ruleset, entry.name, entry.saved_at),
            )

        return write

    def update(self, entry: RosterEntryState) -> Also:
        """The write that keeps the listed name and `retired` as the entry's new events say,
        in their transaction."""
        roster = self.table(ROSTER)

        def write(run: Run) -> None:
            run(
                f"UPDATE {roster} SET name = ?, retired = ? WHERE entry_id = ? RETURNING entry_id",
                (entry.name, int(entry.retired), entry.id),
            )

        return write

    def holds(self, account: Account, entry_id: str) -> bool:
        return bool(
            self.execute(
                f"SELECT 1 FROM {self.table(ROSTER)} WHERE entry_id = ? AND account_id = ?",
                (entry_id, account.id),
            )
        )

    def listed(
        self,
        account: Account,
        *,
        limit: int,
        after: str | None,
        kind: str | None,
        ruleset: str | None,
        retired: bool,
    ) -> Page:
        """The account's entries, oldest saved first, `limit` a page."""
        where, params = ["account_id = ?"], [account.id]
        if kind is not None:
            where.append("kind = ?")
            params.append(kind)
        if ruleset is not None:
            where.append("ruleset = ?")
            params.append(ruleset)
        if not retired:
            where.append("retired = 0")
        if after is not None:
            saved_at, entry_id = page_after(after)
            where.append("(saved_at > ? OR (saved_at = ? AND entry_id > ?))")
            params += [saved_at, saved_at, entry_id]
        rows = self.execute(
            "SELECT entry_id, kind, ruleset, name, retired, saved_at "
            f"FROM {self.table(ROSTER)} WHERE {' AND '.join(where)} "
            "ORDER BY saved_at, entry_id LIMIT ?",
            (*params, limit + 1),
        )
        entries = [
            {**dict(zip(ROSTER_COLUMNS, row, strict=True)), "retired": bool(row[4])}
            for row in rows[:limit]
        ]
        last = entries[-1] if len(rows) > limit else None
        return Page(entries, cursor(last["saved_at"], last["id"]) if last else None)


class Campaigns(Application[UUID]):
    """The roster entries of every account, each its own event stream."""

    name = "fraylog_campaigns"

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        env = settings.eventsourcing_env()
        env.update(IS_SNAPSHOTTING_ENABLED="n", AGGREGATE_CACHE_MAXSIZE="")
        if settings.backend == "sqlite":
            env["APPLICATION_RECORDER_TOPIC"] = get_topic(CampaignEvents)
        else:  # a small pool: the roster is read far less than the encounters
            env.update(POSTGRES_POOL_SIZE="1", POSTGRES_MAX_OVERFLOW="3")
            env["APPLICATION_RECORDER_TOPIC"] = get_topic(MarkingPostgresRecorder)
        with creating_tables(settings):  # another process may be creating them too
            super().__init__(env=env)
            self.index = RosterIndex(settings)

    def close(self) -> None:
        super().close()
        if hasattr(self, "index"):
            self.index.close()

    # -- writes -----------------------------------------------------------------------
    def save_entry(
        self,
        account: Account,
        kind: str,
        ruleset: str,
        name: str,
        side: str,
        stats: dict[str, Any],
    ) -> RosterEntryState:
        """A new entry on the account's roster (its stats valid by its rule book)."""
        entry = RosterEntry.save(account.id, kind, ruleset, name, side, stats)
        self.save(entry, **{ALSO: self.index.claim(account, entry.state)})
        return entry.state

    def revise(
        self,
        account: Account,
        entry_id: UUID,
        stats: dict[str, Any],
        name: str | None,
        side: str | None,
        expected_version: int | None = None,
    ) -> RosterEntryState:
        entry = self.entry(account, entry_id, expected_version)
        entry.revise(stats, name, side)
        return self._saved(entry)

    def carry(
        self,
        account: Account,
        entry_id: UUID,
        state: EncounterState,
        combatant: str,
        expected_version: int | None = None,
    ) -> RosterEntryState:
        """Carry what lasts of `combatant`, as the encounter `state` stands, to the entry."""
        entry = self.entry(account, entry_id, expected_version)
        who = state.combatants.get(combatant)
        if who is None:
            raise DomainError(
                "COMBATANT", f"encounter {state.id} has no combatant {combatant}", field="combatant"
            )
        entry.carry(state, who)
        return self._saved(entry)

    def rest(
        self, account: Account, entry_id: UUID, reason: str, expected_version: int | None = None
    ) -> RosterEntryState:
        entry = self.entry(account, entry_id, expected_version)
        entry.rest(reason)
        return self._saved(entry)

    def retire(self, account: Account, entry_id: UUID, reason: str) -> RosterEntryState:
        entry = self.entry(account, entry_id)
        entry.retire(reason)
        return self._saved(entry)

    def _saved(self, entry: RosterEntry) -> RosterEntryState:
        try:
            self.save(entry, **{ALSO: self.index.update(entry.state)})
        except IntegrityError:
            raise RosterConflict(
                "VERSION", "the entry changed meanwhile; reload it and try again"
            ) from None
        return entry.state

    # -- reads ------------------------------------------------------------------------
    def entry(
        self,
        account: Account,
        entry_id: UUID,
        expected_version: int | None = None,
        field: str | None = None,
    ) -> RosterEntry:
        """The account's entry (another account's, or none: not found)."""
        missing = RosterEntryNotFound(
            "ROSTER", f"no roster entry {entry_id} on this account", field=field
        )
        if not self.index.holds(account, str(entry_id)):
            raise missing
        try:
            entry: RosterEntry = self.repository.get(entry_id)
        except AggregateNotFoundError:
            raise missing from None
        if expected_version is not None and expected_version != entry.version:
            raise RosterConflict(
                "VERSION",
                f"the request was decided on version {expected_version}, but the entry is "
                f"at version {entry.version}",
                field="expected_version",
            )
        return entry

    def copy(
        self,
        account: Account,
        entry_id: UUID,
        ruleset: str,
        name: str | None,
        side: str | None,
    ) -> Copy:
        """The account's entry as a new combatant of an encounter playing `ruleset`."""
        return self.entry(account, entry_id, field="from_roster").copy(ruleset, name, side)

    def history(self, account: Account, entry_id: UUID) -> list[dict[str, Any]]:
        """The entry's events, oldest first: position, type, when, and their own fields."""
        self.entry(account, entry_id)
        records = []
        for event in self.events.get(entry_id):
            data = {
                k: v
                for k, v in event.__dict__.items()
                if k not in ("originator_id", "originator_version", "timestamp", "originator_topic")
            }
            records.append(
                {
                    "position": event.originator_version,
                    "type": type(event).__name__,
                    "timestamp": event.timestamp.isoformat(),
                    "data": data,
                }
            )
        return records


class CampaignsOnDemand:
    """The Campaigns application, opened on its first use: a server (or a test) that never
    reads a roster opens no connection for it."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._lock = threading.Lock()
        self._opened: Campaigns | None = None

    @property
    def opened(self) -> Campaigns | None:
        return self._opened

    def get(self) -> Campaigns:
        with self._lock:
            if self._opened is None:
                self._opened = Campaigns(self.settings)
            return self._opened

    def close(self) -> None:
        with self._lock:
            if self._opened is not None:
                self._opened.close()
                self._opened = None
