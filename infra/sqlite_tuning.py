"""SQLite's `synchronous` setting on every connection of the event store's pool.

The library opens its SQLite connections itself (WAL mode, SQLite's default FULL). FULL
syncs the write-ahead log to disk at every commit: a command answered is on disk, whatever
happens next. NORMAL syncs it only when the log is checkpointed into the database: a
killed process loses nothing (the log is in the OS's hands), but a power cut or an OS crash
may lose the last commits, never the store's consistency. EXTRA also syncs the directory
after a log is deleted. FRAYLOG_SQLITE_SYNCHRONOUS picks one (docs/performance.md); OFF is
not offered. The level cannot be changed inside a transaction, so it is set on each
connection when it is opened.
"""

from __future__ import annotations

from typing import Any


def set_synchronous(pool: Any, level: str) -> None:
    """Every connection `pool` (the library's SQLiteConnectionPool) opens from now on, and
    those it holds idle, at `level`."""
    statement = f"PRAGMA synchronous={level}"  # level is one of Settings' checked names
    open_connection = pool._create_connection

    def opened() -> Any:
        connection = open_connection()
        connection._sqlite_conn.execute(statement)
        return connection

    pool._create_connection = opened
    for idle in list(pool._pool):
        idle._sqlite_conn.execute(statement)


def keep_connections(pool: Any) -> None:
    """Keep every connection the pool opens (at most its size and its overflow), rather
    than closing those beyond its size as each is given back: a SQLite connection costs a
    file handle and its page cache to hold, and to open again, the pragmas and a cold page
    cache for its first reads. Under 16 concurrent commands the library's default (5 kept,
    10 more opened and closed again) reopened a connection for most loads."""
    pool.pool_size += pool.max_overflow
    pool.max_overflow = 0


def synchronous_of(pool: Any) -> list[int]:
    """The level of each idle connection (0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA), for tests."""
    return [idle._sqlite_conn.execute("PRAGMA synchronous").fetchone()[0] for idle in pool._pool]
