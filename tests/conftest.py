"""Fixtures: a Fraylog application on SQLite and, where reachable, on PostgreSQL.

PostgreSQL: FRAYLOG_TEST_POSTGRES_URL (default postgresql://postgres@127.0.0.1:5432/test).
Each test session uses its own schema, dropped at the end. With FRAYLOG_REQUIRE_POSTGRES=1
(CI) an unreachable server fails the run; otherwise its tests are skipped with the reason.
"""

from __future__ import annotations

import gc
import os
import uuid
from collections.abc import Iterator
from dataclasses import replace

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from domain.state import _PARSED
from infra.app import Fraylog
from infra.settings import Settings
from tests.tokens import TokenJar

PG_URL = os.environ.get("FRAYLOG_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test")
PG_REQUIRED = os.environ.get("FRAYLOG_REQUIRE_POSTGRES", "") not in ("", "0")


@pytest.fixture(autouse=True)
def stat_blocks_read_only() -> Iterator[None]:
    """After each test: every stat block's kept model (domain.state `stats_as`, one model
    shared by every read) is still the block it was parsed from; no rule changed it."""
    yield
    kept = list(_PARSED.items())
    _PARSED.clear()  # each test's own: the check stays as small as the test
    for (_, model), (block, parsed) in kept:
        assert parsed == model.model_validate(block), f"a kept {model.__name__} was changed"


def _postgres_problem() -> str | None:
    try:
        import psycopg

        with psycopg.connect(PG_URL, connect_timeout=3) as conn:
            conn.execute("select 1")
    except Exception as e:  # any failure to connect is reported, whatever its kind
        return f"PostgreSQL not reachable at {PG_URL}: {e}".splitlines()[0]
    return None


@pytest.fixture(scope="session")
def pg_schema() -> Iterator[str]:
    problem = _postgres_problem()
    if problem:
        if PG_REQUIRED:
            pytest.fail(f"FRAYLOG_REQUIRE_POSTGRES is set but {problem}")
        pytest.skip(problem)
    schema = f"fraylog_test_{uuid.uuid4().hex[:10]}"
    yield schema
    import psycopg
    from psycopg import sql

    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))


def cut_off(application_name: str) -> int:
    """End every PostgreSQL connection of that name (pg_stat_activity), as a restart of the
    server would: how many there were."""
    import psycopg

    with psycopg.connect(PG_URL, autocommit=True) as conn:
        return len(
            conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE application_name = %s",
                (application_name,),
            ).fetchall()
        )


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def settings(request: pytest.FixtureRequest, tmp_path) -> Settings:
    """Settings for a fresh store on each backend."""
    if request.param == "sqlite":
        return Settings(sqlite_path=str(tmp_path / "fraylog.db"), snapshot_interval=5)
    schema = request.getfixturevalue("pg_schema")
    return Settings(database_url=PG_URL, postgres_schema=schema, snapshot_interval=5)


@pytest.fixture
def own_settings(settings: Settings) -> Iterator[Settings]:
    """The backend's settings with a store of the test's own (PostgreSQL: a fresh schema,
    dropped after; SQLite's file is the test's already), so read models, runner locks and
    catching up hold this test's events only."""
    if settings.backend == "sqlite":
        yield settings
        return
    own = replace(settings, postgres_schema=f"{settings.postgres_schema}_{uuid.uuid4().hex[:8]}")
    yield own
    import psycopg
    from psycopg import sql

    assert own.database_url is not None
    with psycopg.connect(own.database_url, autocommit=True) as conn:
        conn.execute(
            sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(own.postgres_schema))
        )


@pytest.fixture
def fraylog(settings: Settings) -> Iterator[Fraylog]:
    app = Fraylog(settings)
    yield app
    app.close()


@pytest.fixture
def other(fraylog: Fraylog) -> Iterator[Fraylog]:
    """Another process on the same store as `fraylog` (a second worker, the CLI)."""
    app = Fraylog(fraylog.settings)
    yield app
    app.close()


@pytest.fixture
def client(fraylog: Fraylog) -> Iterator[TestClient]:
    """The API with tokens on; the client sends the GM token of what it created."""
    with TestClient(create_app(fraylog=fraylog)) as c:
        c.auth = TokenJar()
        yield c


@pytest.fixture
def sqlite_client(tmp_path) -> Iterator[TestClient]:
    """An API on SQLite only, for tests where storage does not matter."""
    with TestClient(create_app(Settings(sqlite_path=str(tmp_path / "f.db")))) as c:
        c.auth = TokenJar()
        yield c


@pytest.fixture(autouse=True)
def no_frozen_heap() -> Iterator[None]:
    """A test that started the served app (api.main.app_from_env) froze the heap: unfreeze
    it, so that the reference cycles the test made can be collected."""
    threshold = gc.get_threshold()
    yield
    if gc.get_freeze_count():
        gc.unfreeze()
    gc.set_threshold(*threshold)  # and its collector's thresholds, as before


@pytest.fixture(autouse=True)
def no_invalid_choices(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """A rule book offering a command its own model refuses is logged and skipped at run
    time (infra/choices.py); in the tests it fails the test."""
    yield
    bad = [r.getMessage() for r in caplog.records if r.name == "fraylog.choices"]
    assert not bad, bad
