"""What an answer's headers say: a 405 lists the methods its path takes (`Allow`), and no
answer names the server's process (`Fraylog-Worker`) unless FRAYLOG_WORKER_HEADER asks."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from infra.settings import Settings
from tests.builders import new_encounter


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        pytest.param("PUT", "/encounters", "GET, POST", id="PUT-encounters"),
        pytest.param("DELETE", "/rulesets", "GET", id="DELETE-rulesets"),
        pytest.param("PATCH", "/rulesets/novus", "GET", id="PATCH-a-ruleset"),
        pytest.param("POST", "/web/index.html", "GET, HEAD", id="POST-a-web-page"),
    ],
)
def test_given_a_method_the_path_does_not_take_then_405_with_allow_listing_its_methods(
    sqlite_client: TestClient, method: str, path: str, allowed: str
) -> None:
    # when: a method no route of the path takes
    r = sqlite_client.request(method, path)
    # then: 405 problem+json, and Allow names every method of every route of the path
    assert r.status_code == 405, r.text
    assert r.headers["content-type"] == "application/problem+json"
    assert r.headers["allow"] == allowed
    assert r.json()["detail"] == f"{method} is not allowed here; this path takes {allowed}"


def test_given_an_encounter_path_when_a_method_it_lacks_then_allow_names_what_it_takes(
    sqlite_client: TestClient,
) -> None:
    eid = new_encounter(sqlite_client)
    r = sqlite_client.put(f"/encounters/{eid}/commands")
    assert r.status_code == 405
    assert r.headers["allow"] == "POST"
    note = {"type": "take_note", "text": "the path takes POST"}
    assert sqlite_client.post(f"/encounters/{eid}/commands", json=note).status_code == 200


def test_given_the_default_settings_then_no_answer_names_the_worker(
    sqlite_client: TestClient,
) -> None:
    assert Settings().worker_header is False
    for r in (
        sqlite_client.get("/rulesets/novus"),
        sqlite_client.put("/encounters"),
        sqlite_client.get("/encounters/nope"),
    ):
        assert "fraylog-worker" not in r.headers


def test_given_the_worker_header_setting_then_every_answer_names_the_worker(
    tmp_path: Path,
) -> None:
    settings = Settings(sqlite_path=str(tmp_path / "f.db"), worker_header=True)
    with TestClient(create_app(settings)) as client:
        for r in (client.get("/rulesets/novus"), client.put("/encounters")):
            assert r.headers["fraylog-worker"] == str(os.getpid())


@pytest.mark.parametrize(
    ("value", "on"),
    [("1", True), ("true", True), ("yes", True), ("0", False), ("", False)],
)
def test_given_fraylog_worker_header_in_the_environment_then_the_setting_follows(
    monkeypatch: pytest.MonkeyPatch, value: str, on: bool
) -> None:
    monkeypatch.setenv("FRAYLOG_WORKER_HEADER", value)
    assert Settings.from_env().worker_header is on
