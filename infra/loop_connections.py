"""Connections to PostgreSQL that an event loop opens for itself (psycopg's AsyncConnection,
autocommit), beside the library's pool: the last positions its reads ask for
(infra.kept_reads `PositionsAsync`) and the commands it commits (infra.group_commit
`LoopCommits`). Each one belongs to the loop that opened it."""

from __future__ import annotations

import contextlib
from typing import Any

# libpq's keepalives: a connection that died on the way (a NAT's timeout, a host gone) is
# found out within a minute, not after the system's ~15, by whatever awaits it
KEEPALIVE = {"keepalives": 1, "keepalives_idle": 30, "keepalives_interval": 10}


async def open_on_loop(url: str, application_name: str) -> Any:
    """A new autocommit connection, named for pg_stat_activity, with keepalives."""
    import psycopg

    return await psycopg.AsyncConnection.connect(
        url, autocommit=True, connect_timeout=5, application_name=application_name, **KEEPALIVE
    )


def composed(statement: Any, conn: Any) -> bytes:
    """A statement as bytes for `conn`, composed once rather than on each use."""
    return statement if isinstance(statement, bytes) else statement.as_bytes(conn)


async def close_quietly(conn: Any) -> None:
    """Close `conn` whatever its state (a connection dropped after a failure)."""
    if conn is not None:
        with contextlib.suppress(Exception):
            await conn.close()
