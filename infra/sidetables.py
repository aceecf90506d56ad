"""Tables fraylog keeps beside the event store, in the same database: SQLite through one
connection per store of them, PostgreSQL through short connections (in the configured
schema) from one small pool the process's stores share."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from infra.settings import Settings

POOL_SIZE = 8  # PostgreSQL connections every side table of a process shares, at most
_pools: dict[str, tuple[Any, int]] = {}  # database URL -> (its pool, the stores using it)
_pools_lock = threading.Lock()


class SideTables:
    """Run SQL on fraylog's own tables, written with `?` placeholders for both stores."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._lock = threading.Lock()
        self._sqlite: sqlite3.Connection | None = None
        self._pool: Any = None
        if not settings.database_url:
            self._sqlite = sqlite3.connect(
                settings.sqlite_path, timeout=10, check_same_thread=False, isolation_level=None
            )

    def table(self, name: str) -> str:
        schema = self.settings.postgres_schema
        return f'"{schema}".{name}' if self.settings.database_url and schema else name

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        if self._sqlite is not None:
            with self._lock:
                return self._sqlite.execute(sql, params).fetchall()
        with self._postgres().connection() as conn:
            cur = conn.execute(sql.replace("?", "%s"), params)
            return cur.fetchall() if cur.description else []

    def add_columns(self, name: str, *columns: str) -> None:
        """Give table `name`, made by an older fraylog, the `columns` it lacks (each written
        `column TYPE …`); its rows take their defaults. Safe when several processes start at
        once: a column another added first is kept."""
        from psycopg.errors import UndefinedColumn

        table = self.table(name)
        for column in columns:
            try:  # already there: no ALTER, no lock
                self.execute(f"SELECT {column.split()[0]} FROM {table} LIMIT 0")
                continue
            except (sqlite3.OperationalError, UndefinedColumn):
                pass
            if self._sqlite is None:
                self.execute(f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS {column}")
                continue
            try:
                self.execute(f"ALTER TABLE {table} ADD COLUMN {column}")
            except sqlite3.OperationalError as e:  # another process added it first
                if "duplicate column" not in str(e):
                    raise

    @contextmanager
    def transaction(self) -> Iterator[Callable[..., list[tuple[Any, ...]]]]:
        """Statements run as one transaction, holding the database's write lock from the
        start on SQLite (BEGIN IMMEDIATE); on PostgreSQL, rows it locks (FOR UPDATE) stay
        locked until it ends. Yields `run(sql, params)`; an exception rolls it all back."""
        if self._sqlite is not None:
            with self._lock:
                db = self._sqlite
                db.execute("BEGIN IMMEDIATE")
                try:
                    yield lambda sql, params=(): db.execute(sql, params).fetchall()
                except BaseException:
                    db.execute("ROLLBACK")
                    raise
                db.execute("COMMIT")
            return
        with self._postgres().connection() as conn, conn.transaction():

            def run(sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
                cur = conn.execute(sql.replace("?", "%s"), params)
                return cur.fetchall() if cur.description else []

            yield run

    def _postgres(self) -> Any:
        """The process's pool of autocommit connections to this database, opened on first
        use by any of its side tables and closed when the last of them closes."""
        with self._lock:
            if self._pool is None:
                url = self.settings.database_url
                assert url is not None
                with _pools_lock:
                    pool, users = _pools.get(url, (None, 0))
                    if pool is None:
                        from psycopg_pool import ConnectionPool

                        pool = ConnectionPool(
                            url,
                            min_size=1,
                            max_size=POOL_SIZE,
                            kwargs={"autocommit": True, "connect_timeout": 5},
                            open=True,
                        )
                    _pools[url] = (pool, users + 1)
                self._pool = pool
            return self._pool

    def close(self) -> None:
        if self._sqlite is not None:
            self._sqlite.close()
            self._sqlite = None
        if self._pool is not None:
            url = self.settings.database_url
            with _pools_lock:
                pool, users = _pools[url]
                if users > 1:
                    _pools[url] = (pool, users - 1)
                else:
                    del _pools[url]
                    pool.close()
            self._pool = None
