"""Every rule test here runs in the domain; those marked `over_http` run again through the
HTTP API (SQLite): a sample of each module (the rule book's worked examples that lead it, a
refusal, a correction), so the rules are played over HTTP without running all of them
twice, which cost about 5× the domain run (issue 17, item 4). `FRAYLOG_RULES_OVER_HTTP=all`
runs every one of them over HTTP too."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from infra.settings import Settings
from tests import builders
from tests.tokens import TokenJar

ALL_OVER_HTTP = os.environ.get("FRAYLOG_RULES_OVER_HTTP") == "all"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep a rule test's HTTP run only where it is marked `over_http` (or all are asked)."""
    if ALL_OVER_HTTP:
        return
    here = os.path.dirname(__file__)
    kept, dropped = [], []
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        sampled = item.get_closest_marker("over_http") is not None
        inside = str(item.path).startswith(here)
        (dropped if inside and params.get("through") == "http" and not sampled else kept).append(
            item
        )
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


@pytest.fixture(autouse=True, params=["domain", "http"])
def through(request: pytest.FixtureRequest, tmp_path) -> Iterator[str]:
    if request.param == "domain":
        yield "domain"
        return
    with TestClient(create_app(Settings(sqlite_path=str(tmp_path / "rules.db")))) as client:
        client.auth = TokenJar()
        builders.MODE["client"] = client
        try:
            yield "http"
        finally:
            builders.MODE["client"] = None
