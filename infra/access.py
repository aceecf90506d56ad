"""Who may do what: bearer tokens bound to one encounter (a GM's, or a player's bound to his
combatants), kept hashed beside the events, each perhaps with an expiry; and the live feed's
stream tickets, short-lived and single-use, kept hashed as well.

A token is shown once, when it is minted; the store keeps only its SHA-256. A player may
read his encounter and act for his own combatants; everything else is the GM's.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import Any
from uuid import UUID

from pydantic import BaseModel

from domain.access import check_player
from domain.errors import DomainError
from domain.state import EncounterState
from infra.loop_connections import AskedTogether, table_named
from infra.settings import Settings
from infra.sidetables import SideTables
from infra.stream_tickets import StreamTickets, iso

TOKENS = "fraylog_tokens"
GM_ROLE, PLAYER_ROLE = "gm", "player"
SECRET_PREFIX = "fl_"  # every token, ticket and account key fraylog mints begins so
TOKEN_SHAPE = SECRET_PREFIX + r"[a-z]+_[A-Za-z0-9_-]{20,}"  # ... and has this shape
Run = Callable[..., list[tuple[Any, ...]]]


@dataclass(frozen=True)
class Grant:
    """What a token allows: its encounter, its role, the combatants of a player."""

    encounter_id: str
    role: str
    combatants: frozenset[str] = field(default_factory=frozenset)
    label: str = ""
    token_hash: str = ""
    expires_at: float | None = None  # seconds since the epoch; None: never

    @property
    def actor(self) -> str:
        """The `actor` of the events it records (never taken from a request body)."""
        return GM_ROLE if self.role == GM_ROLE else f"player:{self.label}"

    @property
    def is_gm(self) -> bool:
        return self.role == GM_ROLE

    def expired(self, now: float) -> bool:
        return self.expires_at is not None and now >= self.expires_at


class LastGmToken(DomainError):
    """Raised when revoking the only GM token of an encounter, which would lock its GM out."""

    status = 409
    title = "Last GM token"


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def token_id(token: str) -> str:
    """A token's id: the first 16 hex digits of its hash (safe to show and to log)."""
    return token_hash(token)[:16]


LIVE = "(expires_at IS NULL OR expires_at > ?)"
GRANT_COLUMNS = "encounter_id, role, combatants, label, expires_at"  # what a token allows


def _grant_in(row: tuple[Any, ...]) -> Grant:
    """The grant of a token's row: its hash, then GRANT_COLUMNS."""
    digest, encounter_id, role, combatants, label, expires_at = row
    until = datetime.fromisoformat(expires_at).timestamp() if expires_at else None
    return Grant(encounter_id, role, frozenset(json.loads(combatants)), label, digest, until)


class GrantsOnLoop(AskedTogether[str, Grant]):
    """What tokens allow, by their hashes, read on the event loop on PostgreSQL
    (`AskedTogether`: the tokens asked while a query is out read together in the next)."""

    def __init__(self, url: str, schema: str) -> None:
        from psycopg import sql

        query = sql.SQL(
            "SELECT token_hash, " + GRANT_COLUMNS + " FROM {} WHERE token_hash = ANY(%s::text[])"
        ).format(table_named(schema, TOKENS))
        super().__init__(url, f"fraylog tokens {schema or 'public'}", query)

    def found(self, rows: list[tuple[Any, ...]]) -> dict[str, Grant]:
        return {row[0]: _grant_in(row) for row in rows}


class AccessStore(SideTables):
    """Tokens (by hash) and stream tickets (by hash), in the event store's database."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self._grants: dict[str, Grant] = {}
        self._grants_read = time.monotonic()
        self.clock: Callable[[], float] = time.time  # what expiry is measured by
        self._revoked: set[str] = set()
        tokens = self.table(TOKENS)
        self.execute(
            f"CREATE TABLE IF NOT EXISTS {tokens} (token_hash TEXT PRIMARY KEY, "
            "encounter_id TEXT NOT NULL, role TEXT NOT NULL, combatants TEXT NOT NULL, "
            "label TEXT NOT NULL, created_at TEXT NOT NULL, expires_at TEXT)"
        )
        self.add_columns(TOKENS, "expires_at TEXT")  # a table from before tokens could expire
        self.execute(
            f"CREATE INDEX IF NOT EXISTS fraylog_tokens_by_encounter ON {tokens} "
            "(encounter_id, created_at)"
        )
        self.tickets = StreamTickets(self, lambda: self.clock())

    def _now(self) -> str:
        return iso(self.clock())

    def _hold(self, run: Run, encounter_id: str) -> None:
        """Hold the encounter's tokens still until the transaction ends (SQLite's BEGIN
        IMMEDIATE already holds the whole database)."""
        if self.settings.database_url:
            run("SELECT pg_advisory_xact_lock(hashtext(?))", (f"fraylog_tokens:{encounter_id}",))

    # -- tokens -----------------------------------------------------------------
    def mint(
        self,
        encounter_id: UUID | str,
        role: str,
        combatants: list[str] = (),
        label: str = "",
        expires_in: int | None = None,
    ) -> str:
        """A new token for an encounter; only its hash is kept. An encounter holds at most
        `max_tokens_per_encounter` unexpired tokens."""
        token = f"fl_{role}_{secrets.token_urlsafe(32)}"
        cap = self.settings.max_tokens_per_encounter
        with self.transaction() as run:
            self._hold(run, str(encounter_id))
            self._forget_expired(run, str(encounter_id))
            (held,) = run(
                f"SELECT COUNT(*) FROM {self.table(TOKENS)} WHERE encounter_id = ?",
                (str(encounter_id),),
            )[0]
            if held >= cap:
                raise DomainError(
                    "LIMIT",
                    f"an encounter holds at most {cap} tokens "
                    "(FRAYLOG_MAX_TOKENS_PER_ENCOUNTER); revoke one first",
                )
            self._insert(run, token, str(encounter_id), role, combatants, label, expires_in)
        return token

    def rotate(
        self, encounter_id: UUID, old_hash: str, expires_in: int | None = None
    ) -> str | None:
        """A new GM token in place of the GM token `old_hash`, which stops at once here;
        None if that one is gone already."""
        token = f"fl_{GM_ROLE}_{secrets.token_urlsafe(32)}"
        with self.transaction() as run:
            self._hold(run, str(encounter_id))
            gone = run(
                f"DELETE FROM {self.table(TOKENS)} WHERE token_hash = ? AND encounter_id = ? "
                "AND role = ? RETURNING label",
                (old_hash, str(encounter_id), GM_ROLE),
            )
            if not gone:
                return None
            self._insert(run, token, str(encounter_id), GM_ROLE, [], gone[0][0], expires_in)
        self._forget(old_hash)
        return token

    def _insert(
        self,
        run: Run,
        token: str,
        encounter_id: str,
        role: str,
        combatants: list[str],
        label: str,
        expires_in: int | None,
    ) -> None:
        run(
            f"INSERT INTO {self.table(TOKENS)} (token_hash, encounter_id, role, combatants, "
            "label, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                token_hash(token),
                encounter_id,
                role,
                json.dumps(sorted(combatants)),
                label or ("GM" if role == GM_ROLE else ""),
                self._now(),
                None if expires_in is None else iso(self.clock() + expires_in),
            ),
        )

    def _forget_expired(self, run: Run, encounter_id: str) -> None:
        """Expired tokens leave the table: they open nothing and hold no place under the cap."""
        run(
            f"DELETE FROM {self.table(TOKENS)} WHERE encounter_id = ? AND expires_at IS NOT "
            "NULL AND expires_at <= ?",
            (encounter_id, self._now()),
        )

    def _forget(self, digest: str) -> None:
        self._revoked.add(digest)  # a read already under way may not cache it again
        self._grants.pop(digest, None)

    def cached_grant(self, token: str) -> tuple[bool, Grant | None]:
        """(True, the grant) when the token was read lately; (False, None) when the store
        must be asked. No I/O."""
        return self.cached(token_hash(token))

    def cached(self, digest: str) -> tuple[bool, Grant | None]:
        """`cached_grant` by the token's hash; an expired token is known to open nothing."""
        if time.monotonic() - self._grants_read >= self.settings.grant_cache_seconds:
            return False, None
        grant = self._grants.get(digest)
        if grant is None:
            return False, None
        return True, None if grant.expired(self.clock()) else grant

    def grant(self, token: str) -> Grant | None:
        """What a token allows, or None for a token nobody minted, revoked or expired."""
        return self.grant_of(token_hash(token))

    def grant_of(self, digest: str) -> Grant | None:
        """`grant` by the token's hash."""
        if time.monotonic() - self._grants_read >= self.settings.grant_cache_seconds:
            self._grants, self._grants_read = {}, time.monotonic()
        if digest not in self._grants:
            rows = self.execute(
                f"SELECT token_hash, {GRANT_COLUMNS} FROM {self.table(TOKENS)} "
                "WHERE token_hash = ?",
                (digest,),
            )
            return self._granted(digest, _grant_in(rows[0]) if rows else None)
        grant = self._grants.get(digest)  # None: the cache renewed meanwhile, by another read
        if grant is None:
            return self.grant_of(digest)
        return None if grant.expired(self.clock()) else grant

    async def grant_on_loop(self, token: str) -> tuple[bool, Grant | None]:
        """`grant` awaited on the event loop, without the thread pool, where the store allows
        it (PostgreSQL: `GrantsOnLoop`, the tokens asked together read in one query): (True,
        what the token allows, or None as `grant` answers), or (False, None) where it was not
        read there (SQLite, another loop's connection, a failure): ask `grant` in the pool."""
        return await self.grant_of_on_loop(token_hash(token))

    async def grant_of_on_loop(self, digest: str) -> tuple[bool, Grant | None]:
        """`grant_on_loop` by the token's hash (else ask `grant_of` in the pool)."""
        known, grant = self.cached(digest)
        if known:
            return True, grant
        reads = self._grants_on_loop
        if reads is None:
            return False, None
        asked, grant = await reads.ask(digest)
        return (True, self._granted(digest, grant)) if asked else (False, None)

    def _granted(self, digest: str, grant: Grant | None) -> Grant | None:
        """What the store holds for a token, kept for FRAYLOG_GRANT_CACHE_SECONDS unless it
        was revoked here while it was read (`_forget`, on another thread, may come between
        the read and the keeping: looked at again once kept); None for no row, or an expired
        one."""
        if grant is None or digest in self._revoked:
            return None
        if time.monotonic() - self._grants_read >= self.settings.grant_cache_seconds:
            self._grants, self._grants_read = {}, time.monotonic()
        self._grants[digest] = grant
        if digest in self._revoked:
            self._grants.pop(digest, None)
            return None
        return None if grant.expired(self.clock()) else grant

    @cached_property
    def _grants_on_loop(self) -> GrantsOnLoop | None:
        url = self.settings.database_url
        return GrantsOnLoop(url, self.settings.postgres_schema) if url else None

    async def close_on_loop(self) -> None:
        """Close what `grant_on_loop` opened, on its loop (the application's shutdown)."""
        reads = self.__dict__.get("_grants_on_loop")
        if reads is not None:
            await reads.close()

    def close(self) -> None:
        reads = self.__dict__.get("_grants_on_loop")
        if reads is not None:
            reads.forget()  # its loop gone without `close_on_loop` (tests, the CLI)
        super().close()

    def revoke(self, encounter_id: UUID, token_id: str) -> bool:
        """Revoke a token of the encounter by its id (the start of its hash); the last GM
        token that does not expire is refused (LastGmToken): rotating replaces it."""
        with self.transaction() as run:
            self._hold(run, str(encounter_id))
            rows = run(
                f"SELECT token_hash, role, expires_at FROM {self.table(TOKENS)} "
                "WHERE encounter_id = ? AND substr(token_hash, 1, 16) = ?",
                (str(encounter_id), token_id),
            )
            if not rows:
                return False
            digest, role, expires_at = rows[0]
            if role == GM_ROLE and expires_at is None:  # one that expires goes anyway
                (others,) = run(
                    f"SELECT COUNT(*) FROM {self.table(TOKENS)} WHERE encounter_id = ? "
                    "AND role = ? AND token_hash <> ? AND expires_at IS NULL",
                    (str(encounter_id), GM_ROLE, digest),
                )[0]
                if not others:  # a GM token that expires would lock him out when it does
                    raise LastGmToken(
                        "TOKEN",
                        f"{token_id} is the encounter's only GM token that does not expire: "
                        "revoking it would lock the GM out; rotate it instead "
                        "(POST /encounters/{id}/tokens/gm/rotate)",
                        field="token_id",
                    )
            run(f"DELETE FROM {self.table(TOKENS)} WHERE token_hash = ?", (digest,))
        self._forget(digest)
        return True

    def tokens(
        self, encounter_id: UUID, limit: int, after: tuple[str, str] | None = None
    ) -> list[dict[str, Any]]:
        """An encounter's unexpired tokens, the GM's and the players', without the tokens,
        oldest first: at most `limit`, from after (created_at, id) `after`."""
        sql = (
            f"SELECT token_hash, role, combatants, label, created_at, expires_at "
            f"FROM {self.table(TOKENS)} WHERE encounter_id = ? AND {LIVE}"
        )
        params: tuple[Any, ...] = (str(encounter_id), self._now())
        if after is not None:
            sql += " AND (created_at > ? OR (created_at = ? AND substr(token_hash, 1, 16) > ?))"
            params += (after[0], after[0], after[1])
        rows = self.execute(f"{sql} ORDER BY created_at, token_hash LIMIT ?", (*params, limit))
        return [
            {
                "id": h[:16],
                "role": role,
                "combatants": json.loads(cs),
                "label": label,
                "created_at": at,
                "expires_at": until,
            }
            for h, role, cs, label, at, until in rows
        ]

    def ticket(self, grant: Grant) -> str:
        """A stream ticket carrying `grant` (infra.stream_tickets); a grant from a token is
        checked again when the ticket is used: a token revoked meanwhile opens nothing."""
        by_token = self.grant_of(grant.token_hash) is not None
        g = grant
        return self.tickets.mint(
            g.encounter_id, g.role, g.combatants, g.label, g.token_hash, by_token
        )

    def redeem(self, encounter_id: UUID, ticket: str) -> tuple[Grant, bool] | None:
        """The grant a ticket carries, and whether it came from a token (to check again
        while the stream runs), the ticket used up: None for one unknown, used or expired,
        or whose token is revoked or expired."""
        taken = self.tickets.take(encounter_id, ticket)
        if taken is None:
            return None
        role, combatants, label, holder, by_token = taken
        if by_token:
            grant = self.grant_of(holder)
            return None if grant is None else (grant, True)
        return Grant(str(encounter_id), role, combatants, label, holder), False

    def players(self, encounter_id: UUID) -> list[dict[str, Any]]:
        """The unexpired player tokens of an encounter, without the tokens."""
        rows = self.execute(
            f"SELECT token_hash, combatants, label, created_at FROM {self.table(TOKENS)} "
            f"WHERE encounter_id = ? AND role = ? AND {LIVE} ORDER BY created_at",
            (str(encounter_id), PLAYER_ROLE, self._now()),
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
