"""Every rule test here runs twice: in the domain, and through the HTTP API (SQLite)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from infra.settings import Settings
from tests import builders
from tests.tokens import TokenJar


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
