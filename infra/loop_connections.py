"""Connections to PostgreSQL that an event loop opens for itself (psycopg's AsyncConnection,
autocommit), beside the library's pool: the last positions its reads ask for
(infra.kept_reads `PositionsAsync`), what the tokens they carry allow (infra.access
`GrantsOnLoop`), both through `AskedTogether`, and the commands it commits
(infra.group_commit `LoopCommits`). Each one belongs to the loop that opened it."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Hashable
from typing import Any, Generic, TypeVar

log = logging.getLogger("fraylog.reads")

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

# libpq's keepalives: a connection that died on the way (a NAT's timeout, a host gone) is
# found out within a minute, not after the system's ~15, by whatever awaits it
KEEPALIVE = {"keepalives": 1, "keepalives_idle": 30, "keepalives_interval": 10}


async def open_on_loop(url: str, application_name: str) -> Any:
    """A new autocommit connection, named for pg_stat_activity, with keepalives."""
    import psycopg

    return await psycopg.AsyncConnection.connect(
        url, autocommit=True, connect_timeout=5, application_name=application_name, **KEEPALIVE
    )


def table_named(schema: str, table: str) -> Any:
    """A table as fraylog names it on PostgreSQL: in `schema`, or without one (the
    connection's search_path then finds it, as for every other statement)."""
    from psycopg import sql

    return sql.Identifier(schema, table) if schema else sql.Identifier(table)


def composed(statement: Any, conn: Any) -> bytes:
    """A statement as bytes for `conn`, composed once rather than on each use."""
    return statement if isinstance(statement, bytes) else statement.as_bytes(conn)


async def close_quietly(conn: Any) -> None:
    """Close `conn` whatever its state (a connection dropped after a failure)."""
    if conn is not None:
        with contextlib.suppress(Exception):
            await conn.close()


class LoopConnection:
    """A connection of an event loop's own to `url`, opened when first needed, with the one
    statement it sends composed for it then; named `application_name` in pg_stat_activity.
    It belongs to `_loop`: awaited there (`_open`, `_drop`), or, where that loop can no
    longer await it (closed, or not running), its socket closed at once (`_finish`)."""

    def __init__(self, url: str, application_name: str, statement: Any) -> None:
        self._url = url
        self.application_name = application_name
        self._statement = statement  # composed for the connection once it opens
        self._conn: Any = None  # psycopg.AsyncConnection, on self._loop
        self._loop: asyncio.AbstractEventLoop | None = None

    async def _open(self) -> Any:
        conn = await open_on_loop(self._url, self.application_name)
        self._statement = composed(self._statement, conn)
        self._conn = conn
        return conn

    async def _drop(self, conn: Any) -> None:
        if conn is not None and conn is self._conn:
            self._conn = None
        await close_quietly(conn)

    def _finish(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.pgconn.finish()


class AskedTogether(LoopConnection, Generic[K, V]):
    """Rows by key read on the event loop, awaited rather than run in the thread pool, whose
    hop (and a pooled connection's transaction) costs more than the read itself: one
    prepared query on an autocommit connection of its own, `query` taking the keys asked as
    one array (`%s`), each row its key first (`found` reads the rows).

    Reads that ask while a query is out wait for the next one, which answers them all: each
    read is answered by a query sent after it asked, so it sees every row committed before
    it asked, as a query of its own would.

    The connection belongs to the loop that opened it (or, once that loop is closed, to the
    next). A read asked on another loop, once the connection is closing, or when its query
    failed is answered (False, None): the caller reads as it would without. A failed query
    is logged and its connection dropped; for `REST_SECONDS` after it, reads are answered
    so at once, then a new connection is opened for the next."""

    REST_SECONDS = 1.0  # after a failed query, the callers read without for this long

    def __init__(self, url: str, application_name: str, query: Any) -> None:
        super().__init__(url, application_name, query)
        self._waiting: dict[K, list[asyncio.Future[tuple[bool, V | None]]]] = {}
        self._asker: asyncio.Task[None] | None = None  # sends the queries while reads wait
        self._closing = False  # on self._loop: its application is shutting down
        self._resting_until = 0.0  # time.monotonic() after a failed query
        self.queries = 0  # sent so far (tests: reads asking together share one)

    def found(self, rows: list[tuple[Any, ...]]) -> dict[K, V]:
        """What a query's rows answer, by key: the second column of each, by default."""
        return {row[0]: row[1] for row in rows}

    async def ask(self, key: K) -> tuple[bool, V | None]:
        """(True, the row's value, or None where there is none), or (False, None) where the
        read was not answered here: another loop's connection, closing, or a failure."""
        loop = asyncio.get_running_loop()
        if self._loop is None or self._loop.is_closed():  # the first loop, or its successor
            self._finish()
            self._loop, self._waiting, self._asker, self._closing = loop, {}, None, False
        if loop is not self._loop or self._closing or time.monotonic() < self._resting_until:
            return False, None
        answer: asyncio.Future[tuple[bool, V | None]] = loop.create_future()
        self._waiting.setdefault(key, []).append(answer)
        if self._asker is None:  # a task of its own: a read given up stops no other
            self._asker = loop.create_task(self._ask())
        return await answer

    async def _ask(self) -> None:
        """Send one query for every read waiting, and again while reads came meanwhile."""
        import psycopg

        waiting: dict[K, list[asyncio.Future[tuple[bool, V | None]]]] = {}
        try:
            while self._waiting:
                waiting, self._waiting = self._waiting, {}
                found: dict[K, V] | None = None
                conn = self._conn
                try:
                    conn = conn or await self._open()
                    self.queries += 1
                    cur = await conn.execute(self._statement, (list(waiting),), prepare=True)
                    found = self.found(await cur.fetchall())
                except psycopg.Error as e:  # these reads, and those till it rests, the callers'
                    log.warning("%s: a read failed (%r); read without it", self.application_name, e)
                    self._resting_until = time.monotonic() + self.REST_SECONDS
                    await self._drop(conn)
                    break
                _answer(waiting, found)
        finally:  # cancelled (the app closing), failed or resting: the callers read without
            self._asker = None
            _answer(waiting, None)
            _answer(self._waiting, None)
            self._waiting = {}

    def forget(self) -> None:
        """The connection of a loop that cannot close it (closed, or not running: the
        application's close without its shutdown on the loop), its socket closed at once."""
        loop = self._loop
        if loop is None or not loop.is_running():
            self._finish()

    async def close(self) -> None:
        """Close the connection, on its own loop (the application's shutdown); reads asked
        after it are answered (False, None)."""
        if self._loop is asyncio.get_running_loop():
            self._closing = True
            if self._asker is not None:
                self._asker.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await self._asker
            await self._drop(self._conn)


def _answer(waiting: dict[Any, list[asyncio.Future[Any]]], found: dict[Any, Any] | None) -> None:
    """Each read still waiting gets (True, its key's row found, None for no row), or, where
    `found` is None (no query answered), (False, None)."""
    for key, answers in waiting.items():
        for answer in answers:
            if not answer.done():  # answered already, or its read given up
                answer.set_result((False, None) if found is None else (True, found.get(key)))
