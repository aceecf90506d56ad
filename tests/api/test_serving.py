"""The app `fraylog serve` runs (api.main.app_from_env) settles its heap when it starts: what
it holds for its life is frozen out of the garbage collector's full collections, which
otherwise paused every request for tens of milliseconds (docs/performance.md). An app made
by a test is not frozen (tests/conftest.py unfreezes after any test that froze)."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from api.main import app_from_env, create_app
from infra.settings import Settings


def test_given_a_tests_app_when_it_starts_then_nothing_is_frozen(tmp_path: Path) -> None:
    with TestClient(create_app(Settings(sqlite_path=str(tmp_path / "f.db")))) as client:
        assert client.get("/rulesets/novus").status_code == 200
        assert gc.get_freeze_count() == 0


def test_given_the_served_app_when_it_starts_then_what_it_holds_is_frozen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FRAYLOG_SQLITE_PATH", str(tmp_path / "f.db"))
    app = app_from_env()
    assert gc.get_freeze_count() == 0  # made, not started
    with TestClient(app) as client:
        assert gc.get_freeze_count() > 0
        assert client.get("/rulesets/novus").status_code == 200
