"""What a host needs around the read models: one runner per store (a lock the runner holds
for its lifetime, released when its process dies, SIGKILL included), `fraylog projections
status` (position, latest, lag, age, running), `rebuild` and a second `run` refused while a
runner runs, and `fraylog serve` keeping the read models itself."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from api.cli import app as cli
from infra.app import Fraylog
from infra.read_models import PROJECTION, Follower, ReadModelsStore, catch_up, status
from infra.runner_lock import RunnerLock
from infra.settings import Settings
from tests.builders import free_port
from tests.builders.novus import novus_stats

ROOT = Path(__file__).parents[2]
LOCKED = "import sys, time; from infra.runner_lock import RunnerLock; {settings}; " + (
    "lock = RunnerLock(s, 'fraylog_read_models'); print(lock.acquire(), flush=True); "
    "time.sleep(600)"
)


@pytest.fixture
def own(own_settings: Settings) -> Settings:
    """A store of the test's own (tests/conftest.py): its read models, its lock."""
    return own_settings


def env_of(settings: Settings) -> dict[str, str]:
    return {
        "FRAYLOG_SQLITE_PATH": settings.sqlite_path,
        "FRAYLOG_DATABASE_URL": settings.database_url or "",
        "FRAYLOG_POSTGRES_SCHEMA": settings.postgres_schema,
        "FRAYLOG_PROJECTIONS_POLL_SECONDS": "0.05",
        "COLUMNS": "200",
    }


def fights(settings: Settings, n: int) -> list[str]:
    """`n` encounters of three events each (created, two combatants)."""
    made = []
    with Fraylog(settings) as fraylog:
        for i in range(n):
            created = fraylog.create_encounter(f"Fight {i}", "novus")
            eid = uuid.UUID(created.state.id)
            fraylog.add_combatant(eid, "A", "", novus_stats())
            fraylog.add_combatant(eid, "B", "", novus_stats())
            made.append(str(eid))
    return made


def until(check: Callable[[], Any], seconds: float = 30.0) -> Any:
    """Poll `check` until it is truthy (a deadline, not a timed assertion)."""
    deadline = time.monotonic() + seconds
    while True:
        found = check()
        if found or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def holder(settings: Settings) -> subprocess.Popen[str]:
    """Another process holding the read models' runner lock."""
    made = (
        f"from infra.settings import Settings; s = Settings(sqlite_path={settings.sqlite_path!r}, "
        f"database_url={settings.database_url!r}, postgres_schema={settings.postgres_schema!r})"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", LOCKED.format(settings=made)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "True"
    return proc


def test_given_a_runner_holding_the_lock_when_another_asks_then_refused_until_released(
    own: Settings,
) -> None:
    first, second = RunnerLock(own, PROJECTION), RunnerLock(own, PROJECTION)
    assert not second.running()
    assert first.acquire()
    assert second.running() and first.running()
    assert not second.acquire(attempts=2)
    assert RunnerLock(own, "another_read_model").acquire()  # each read model its own lock
    first.release()
    assert not second.running()
    assert second.acquire()
    second.release()


def test_given_a_runner_killed_with_sigkill_then_its_lock_is_free(own: Settings) -> None:
    proc = holder(own)
    try:
        lock = RunnerLock(own, PROJECTION)
        assert lock.running() and not lock.acquire(attempts=2)
        proc.kill()
        proc.wait()
        assert until(lambda: not lock.running(), 10)
        assert lock.acquire()
        lock.release()
    finally:
        proc.kill()
        proc.wait()


def test_given_a_runner_running_when_rebuild_or_another_run_then_exit_1_and_nothing_dropped(
    own: Settings,
) -> None:
    fights(own, 2)
    catch_up(own)
    proc = holder(own)
    try:
        for args in (["projections", "rebuild"], ["projections", "run"]):
            refused = CliRunner().invoke(cli, args, env=env_of(own))
            assert refused.exit_code == 1, refused.output
            assert "stop it first" in refused.output
        shown = CliRunner().invoke(cli, ["projections", "status", "--json"], env=env_of(own))
        assert shown.exit_code == 0, shown.output
        (read_model,) = json.loads(shown.output)["read_models"]
        assert read_model["running"] is True and read_model["position"] == 6
    finally:
        proc.kill()
        proc.wait()
    store = ReadModelsStore(own)
    assert len(store.encounters()) == 2  # the refused rebuild dropped nothing
    store.close()
    rebuilt = CliRunner().invoke(cli, ["projections", "rebuild"], env=env_of(own))
    assert rebuilt.exit_code == 0, rebuilt.output
    assert "rebuilt from 6 events" in rebuilt.output


def test_given_a_backlog_then_status_shows_position_latest_lag_and_age(own: Settings) -> None:
    before = status(own)
    assert before["position"] == 0 and before["latest"] == 0 and before["lag"] == 0
    assert before["last_projected_at"] is None and before["running"] is False
    fights(own, 1)
    catch_up(own)
    fights(own, 2)
    store = ReadModelsStore(own)
    try:
        now = store.status()
        assert (now["position"], now["latest"], now["lag"]) == (3, 9, 6)
        with Fraylog(own) as fraylog:
            third = fraylog.mapper.to_domain_event(
                fraylog.recorder.select_notifications(start=3, limit=1)[0]
            )
        assert now["last_projected_at"] == third.timestamp.isoformat()
        assert now["age_seconds"] >= 0
        assert [s["name"] for s in store.statuses()] == [PROJECTION]
    finally:
        store.close()
    shown = CliRunner().invoke(cli, ["projections", "status"], env=env_of(own))
    assert shown.exit_code == 0, shown.output
    assert PROJECTION in shown.output and "none" in shown.output  # no runner
    catch_up(own)
    assert status(own)["lag"] == 0


def test_given_a_follower_in_process_then_it_keeps_the_read_models_and_holds_the_lock(
    own: Settings,
) -> None:
    fights(own, 1)
    follower = Follower(own, poll_seconds=0.05)
    assert follower.start()
    try:
        assert not Follower(own).start()  # one runner per store
        assert status(own)["running"] is True
        (late,) = fights(own, 1)
        store = ReadModelsStore(own)
        try:
            listed = until(
                lambda: [
                    e for e in store.encounters() if (e["encounter_id"], e["events"]) == (late, 3)
                ]
            )
            assert listed  # all three of its events projected
            assert until(lambda: store.status()["lag"] == 0)
        finally:
            store.close()
    finally:
        follower.stop()
    assert not follower.alive()
    assert status(own)["running"] is False


def serve(
    settings: Settings, port: int, *args: str, env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """`fraylog serve` over the store, in open mode (no tokens needed to create)."""
    fraylog = Path(sys.executable).with_name("fraylog")
    return subprocess.Popen(
        [str(fraylog), "serve", "--no-auth", "--port", str(port), *args],
        env={**os.environ, **env_of(settings), "PYTHONPATH": str(ROOT), **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )


def answering(url: str) -> bool:
    try:
        return httpx.get(f"{url}/rulesets", timeout=1).status_code == 200
    except httpx.TransportError:
        return False


def test_given_fraylog_serve_on_sqlite_when_an_encounter_is_created_then_it_is_in_the_read_model(
    tmp_path: Path,
) -> None:
    settings = Settings(sqlite_path=str(tmp_path / "served.db"))
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = serve(settings, port)
    try:
        assert until(lambda: answering(url) or server.poll() is not None), "no answer"
        created = httpx.post(f"{url}/encounters", json={"name": "Served", "ruleset": "novus"})
        assert created.status_code == 201, created.text
        eid = created.json()["id"]
        store = ReadModelsStore(settings)
        try:
            listed = until(lambda: [e for e in store.encounters() if e["encounter_id"] == eid])
            assert listed and listed[0]["name"] == "Served"
            assert store.status()["running"] is True
        finally:
            store.close()
        refused = CliRunner().invoke(cli, ["projections", "run"], env=env_of(settings))
        assert refused.exit_code == 1, refused.output  # the server's runner holds the lock
    finally:
        server.terminate()
        output = server.communicate(timeout=30)[0].decode()
    assert "kept up to date by this server" in output
    assert "Traceback" not in output
    assert status(settings)["running"] is False  # stopped with the server


def test_given_serve_with_no_projections_or_another_runner_then_it_serves_without_one(
    tmp_path: Path,
) -> None:
    settings = Settings(sqlite_path=str(tmp_path / "served.db"))
    for args, env, said in (
        (["--no-projections"], {}, None),
        ([], {"FRAYLOG_PROJECTIONS": "off"}, None),
        ([], {}, "another runner keeps them"),
    ):
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        lock = RunnerLock(settings, PROJECTION)
        if said:
            assert lock.acquire()
        server = serve(settings, port, *args, env=env)
        try:
            assert until(lambda u=url, p=server: answering(u) or p.poll() is not None)
            assert answering(url)
            assert status(settings)["running"] is bool(said)  # only the lock held here
        finally:
            server.terminate()
            output = server.communicate(timeout=30)[0].decode()
            lock.release()
        assert "kept up to date by this server" not in output
        if said:
            assert said in output


def test_given_a_store_the_runner_cannot_project_when_serving_then_one_line_each_try(
    own: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    """An encounter of a rule book this process does not know (a store shared with another
    installation): serve's runner logs its error on one line, no traceback (a server's log
    is read for tracebacks), and tries again later."""
    from domain.rulesystems import register, unregister
    from tests.skirmish.system import SkirmishRules

    rules = register(SkirmishRules())
    try:
        with Fraylog(own) as fraylog:
            fraylog.create_encounter("Elsewhere", "skirmish")
    finally:
        unregister(rules.name)
    follower = Follower(own, poll_seconds=0.05)
    caplog.set_level(logging.INFO, logger="fraylog.read_models")
    assert follower.start()
    try:
        failed = until(lambda: [r for r in caplog.records if r.levelno == logging.ERROR])
    finally:
        follower.stop()
    assert failed and failed[0].exc_info is None
    assert "UnknownRuleSystem" in failed[0].getMessage()
    assert "starting it again" in failed[0].getMessage()
