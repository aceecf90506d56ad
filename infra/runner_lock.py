"""The lock fraylog holds while it creates its tables (`creating_tables`), and the lock a
read model's runner holds for its lifetime, so that one runner follows a store
and a rebuild never runs beside it. The operating system or the database server releases
it when the process ends, however it ends (SIGKILL included):

- PostgreSQL: a session advisory lock (`pg_try_advisory_lock`) on a connection of its own,
  keyed by the read model and the schema;
- SQLite: an exclusive `flock` on a file beside the store, `<sqlite path>.projections.lock`
  for the read models (`<sqlite path>.<name>.lock` for another read model).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from infra.settings import Settings

LOCK_FILES = {"fraylog_read_models": "projections"}  # <sqlite path>.projections.lock
CREATING = "fraylog_create_tables"  # the advisory lock of creating_tables


def lock_path(settings: Settings, name: str) -> str:
    """SQLite: the lock file of the runner of read model `name`."""
    return f"{settings.sqlite_path}.{LOCK_FILES.get(name, name)}.lock"


def advisory_key(settings: Settings, name: str) -> int:
    """A positive 63-bit key for PostgreSQL's advisory lock of `name` in this schema."""
    digest = hashlib.sha256(f"fraylog:{settings.postgres_schema}:{name}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def running_query(settings: Settings, name: str) -> tuple[str, tuple[int, int]]:
    """PostgreSQL: the query (one row, one boolean) whether a session holds the advisory
    lock of `name`, looked up in pg_locks without taking it."""
    key = advisory_key(settings, name)
    return (
        "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted "
        "AND objsubid = 1 AND classid::bigint = %s AND objid::bigint = %s AND database = "
        "(SELECT oid FROM pg_database WHERE datname = current_database()))",
        (key >> 32, key & 0xFFFFFFFF),
    )


_creating = threading.local()  # whether this thread holds the lock of creating_tables


@contextmanager
def creating_tables(settings: Settings) -> Iterator[None]:
    """Held while fraylog creates its schema and tables (an application's recorder with the
    library's insert function, a read model's view, fraylog's own tables). PostgreSQL: an
    advisory lock on a connection of its own, so that processes and threads starting at once
    (the workers of `fraylog serve --workers N`, its read models' runner, a restart while a
    killed process's sessions still run) take turns: at once, `CREATE … IF NOT EXISTS`
    collides in the catalog and `CREATE OR REPLACE FUNCTION` fails with "tuple concurrently
    updated". SQLite: an exclusive `flock` on `<sqlite path>.tables.lock` (two read models'
    views made at once record the same migration; nothing for a database in memory).
    Re-entrant on a thread."""
    path = settings.sqlite_path
    in_memory = path == ":memory:" or path.startswith("file:")
    if getattr(_creating, "held", False) or (settings.backend == "sqlite" and in_memory):
        yield
        return
    if settings.backend == "sqlite":
        fd = os.open(f"{path}.tables.lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            with _held():
                yield
        finally:
            os.close(fd)  # and the lock with it
        return
    import psycopg

    assert settings.database_url is not None
    conn = psycopg.connect(settings.database_url, autocommit=True, connect_timeout=5)
    try:
        conn.execute("SELECT pg_advisory_lock(%s)", (advisory_key(settings, CREATING),))
        with _held():
            yield
    finally:
        conn.close()  # the session ends, and its lock with it


@contextmanager
def _held() -> Iterator[None]:
    """This thread holds the lock of creating_tables meanwhile."""
    _creating.held = True
    try:
        yield
    finally:
        _creating.held = False


class RunnerLock:
    """Held while a runner runs: `acquire()` (not blocking: False when another holds it),
    `release()`; `running()` tells whether some runner holds it, without taking it on
    PostgreSQL (on SQLite a probe holds a shared lock for an instant)."""

    def __init__(self, settings: Settings, name: str) -> None:
        self.settings = settings
        self.name = name
        self._held: Any = None  # the connection (PostgreSQL) or the file descriptor (SQLite)

    @property
    def held(self) -> bool:
        return self._held is not None

    def acquire(self, attempts: int = 5) -> bool:
        """Take the lock if no runner holds it (tried `attempts` times 50 ms apart, so a
        status probe at that instant does not refuse a runner)."""
        if self._held is not None:
            return True
        for attempt in range(attempts):
            if attempt:
                time.sleep(0.05)
            self._held = self._try()
            if self._held is not None:
                return True
        return False

    def _try(self) -> Any:
        if self.settings.backend == "postgres":
            import psycopg

            assert self.settings.database_url is not None
            conn = psycopg.connect(self.settings.database_url, autocommit=True, connect_timeout=5)
            key = advisory_key(self.settings, self.name)
            row = conn.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()
            if row and row[0]:
                return conn
            conn.close()
            return None
        fd = os.open(lock_path(self.settings, self.name), os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())  # for a person looking: whose it is
        return fd

    def release(self) -> None:
        held, self._held = self._held, None
        if held is None:
            return
        if isinstance(held, int):
            with contextlib.suppress(OSError):
                fcntl.flock(held, fcntl.LOCK_UN)
            os.close(held)
        else:
            with contextlib.suppress(Exception):  # closing the session releases it anyway
                held.execute(
                    "SELECT pg_advisory_unlock(%s)", (advisory_key(self.settings, self.name),)
                )
            held.close()

    def running(self) -> bool:
        """Whether a runner holds the lock (this one, another in this process, or another
        process's)."""
        if self._held is not None:
            return True
        if self.settings.backend == "postgres":
            import psycopg

            assert self.settings.database_url is not None
            sql, params = running_query(self.settings, self.name)
            with psycopg.connect(
                self.settings.database_url, autocommit=True, connect_timeout=5
            ) as conn:
                row = conn.execute(sql, params).fetchone()
            return bool(row and row[0])
        path = lock_path(self.settings, self.name)
        try:
            fd = os.open(path, os.O_RDONLY)
        except FileNotFoundError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        finally:
            os.close(fd)  # closing it releases the probe's shared lock
        return False

    def __enter__(self) -> RunnerLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
