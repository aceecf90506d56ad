"""The app `fraylog serve` runs (api.main.app_from_env) settles its heap when it starts: what
it holds for its life is frozen out of the garbage collector's full collections, which
otherwise paused every request for tens of milliseconds (docs/performance.md), and young
objects are collected less often. An app made by a test is not frozen (tests/conftest.py
unfreezes after any test that froze). And it runs its threads on one CPU of its own
(infra/cpus.py, FRAYLOG_CPU)."""

from __future__ import annotations

import gc
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from api.main import YOUNG_OBJECTS, app_from_env, create_app
from infra.cpus import claim
from infra.settings import Settings
from tests.builders.cpus import cpus_of_threads, two_cpus
from tests.builders.served import ROOT, fraylog_serving


def test_given_a_tests_app_when_it_starts_then_nothing_is_frozen(tmp_path: Path) -> None:
    threshold = gc.get_threshold()
    with TestClient(create_app(Settings(sqlite_path=str(tmp_path / "f.db")))) as client:
        assert client.get("/rulesets/novus").status_code == 200
        assert gc.get_freeze_count() == 0
        assert gc.get_threshold() == threshold


def test_given_the_served_app_when_it_starts_then_what_it_holds_is_frozen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FRAYLOG_SQLITE_PATH", str(tmp_path / "f.db"))
    monkeypatch.delenv("FRAYLOG_CPU", raising=False)  # as shipped: not pinned
    app = app_from_env()
    assert gc.get_freeze_count() == 0  # made, not started
    young, *older = gc.get_threshold()
    with TestClient(app) as client:
        assert gc.get_freeze_count() > 0
        # young objects collected less often than Python's default; the rest as they were
        assert gc.get_threshold() == (YOUNG_OBJECTS, *older) and young < YOUNG_OBJECTS
        assert client.get("/rulesets/novus").status_code == 200


# -- its threads on one CPU (infra/cpus.py, FRAYLOG_CPU) ------------------------------------


@contextmanager
def serving(tmp_path: Path, cpu: str | None) -> Iterator[int]:
    """A real `fraylog serve` (SQLite in tmp_path, FRAYLOG_CPU=`cpu` unless None, its CPU
    claims in tmp_path), answering; its process id."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("FRAYLOG_")}
    env |= {"PYTHONPATH": str(ROOT), "TMPDIR": str(tmp_path)}
    env |= {"FRAYLOG_CPU": cpu} if cpu is not None else {}
    with fraylog_serving(tmp_path, env) as served:
        yield served.pid


@two_cpus
def test_given_fraylog_serve_with_cpu_auto_when_started_then_all_its_threads_run_on_one_cpu(
    tmp_path: Path,
) -> None:
    last = max(os.sched_getaffinity(0))
    with serving(tmp_path, "auto") as pid:
        assert cpus_of_threads(pid) == {frozenset({last})}
        assert claim([last], tmp_path / "fraylog-cpus") is None  # it holds its CPU


@two_cpus
def test_given_fraylog_serve_as_shipped_then_its_threads_run_where_the_system_puts_them(
    tmp_path: Path,
) -> None:
    with serving(tmp_path, None) as pid:
        assert cpus_of_threads(pid) == {frozenset(os.sched_getaffinity(0))}
    assert not (tmp_path / "fraylog-cpus").exists()  # nothing claimed


@two_cpus
def test_given_the_served_app_in_a_test_when_it_stops_then_the_tests_threads_are_put_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = os.sched_getaffinity(0)
    monkeypatch.setenv("FRAYLOG_SQLITE_PATH", str(tmp_path / "f.db"))
    monkeypatch.setenv("FRAYLOG_CPU", "auto")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # its claims in tmp_path
    with TestClient(app_from_env()) as client:
        assert client.get("/rulesets/novus").status_code == 200
        assert os.sched_getaffinity(0) == {max(before)}
    assert os.sched_getaffinity(0) == before
    again = claim([max(before)], tmp_path / "fraylog-cpus")  # given up: another may take it
    assert again is not None
    again[1].close()
