"""The live feed's stream tickets: a browser's EventSource cannot send the Authorization
header, so a reader trades his token for a ticket (POST /encounters/{id}/stream-tickets)
and opens the stream with `?ticket=`: single-use, for TICKET_SECONDS, kept hashed beside the
tokens so that a ticket minted by one worker opens the stream on another. It carries the
grant of who asked for it (infra.access turns it back into one)."""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from infra.sidetables import SideTables

TICKETS = "fraylog_stream_tickets"
TICKET_SECONDS = 60  # how long a stream ticket may wait for its stream


def iso(at: float) -> str:
    """A time (seconds since the epoch) in one fixed form, so that both stores compare
    times as text."""
    return datetime.fromtimestamp(at, UTC).isoformat(timespec="microseconds")


class StreamTickets:
    """Tickets in table `fraylog_stream_tickets` of `store`'s database; `clock` tells the
    time (seconds since the epoch)."""

    def __init__(self, store: SideTables, clock: Callable[[], float]) -> None:
        self.store, self.clock = store, clock
        self.execute(
            f"CREATE TABLE IF NOT EXISTS {store.table(TICKETS)} (ticket_hash TEXT PRIMARY KEY, "
            "encounter_id TEXT NOT NULL, role TEXT NOT NULL, combatants TEXT NOT NULL, "
            "label TEXT NOT NULL, holder TEXT NOT NULL, by_token INTEGER NOT NULL, "
            "expires_at TEXT NOT NULL)"
        )

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        return self.store.execute(sql, params)

    def mint(
        self,
        encounter_id: str,
        role: str,
        combatants: frozenset[str],
        label: str,
        holder: str,
        by_token: bool,
    ) -> str:
        """A new ticket for a grant (`holder`: the hash of the token or key it came from);
        tickets past their time are dropped meanwhile."""
        ticket = f"fl_ticket_{secrets.token_urlsafe(32)}"
        table = self.store.table(TICKETS)
        with self.store.transaction() as run:
            run(f"DELETE FROM {table} WHERE expires_at <= ?", (iso(self.clock()),))
            run(
                f"INSERT INTO {table} (ticket_hash, encounter_id, role, combatants, label, "
                "holder, by_token, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    hashlib.sha256(ticket.encode()).hexdigest(),
                    encounter_id,
                    role,
                    json.dumps(sorted(combatants)),
                    label,
                    holder,
                    int(by_token),
                    iso(self.clock() + TICKET_SECONDS),
                ),
            )
        return ticket

    def take(
        self, encounter_id: UUID, ticket: str
    ) -> tuple[str, frozenset[str], str, str, bool] | None:
        """The grant a ticket carries (role, combatants, label, holder, by_token), the
        ticket used up; None for one unknown here, used or expired."""
        rows = self.execute(
            f"DELETE FROM {self.store.table(TICKETS)} WHERE ticket_hash = ? AND "
            "encounter_id = ? RETURNING role, combatants, label, holder, by_token, expires_at",
            (hashlib.sha256(ticket.encode()).hexdigest(), str(encounter_id)),
        )
        if not rows or rows[0][5] <= iso(self.clock()):
            return None
        role, combatants, label, holder, by_token, _ = rows[0]
        return role, frozenset(json.loads(combatants)), label, holder, bool(by_token)
