"""The command route reads its parameters by hand (api/routes/command_route.py): each request
gets the answer FastAPI's own dependency solving gives the same endpoint."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from uuid import UUID

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from api.routes.command_route import CommandRoute
from bench.command_levers import one_route_app
from infra.app import Fraylog
from infra.settings import Settings
from tests.builders.novus import novus_stats


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    fraylog = Fraylog(Settings(sqlite_path=str(tmp_path_factory.mktemp("r") / "r.db")))
    eid = fraylog.create_encounter("Parity", "novus", "seeded", "s").state.id
    who, _ = fraylog.add_combatant(UUID(eid), "A", "x", novus_stats())
    token = fraylog.access.mint(eid, "gm")
    yield {
        "fraylog": fraylog,
        "id": eid,
        "who": who,
        "token": token,
        "by_hand": TestClient(one_route_app(CommandRoute, fraylog)),
        "generic": TestClient(one_route_app(APIRoute, fraylog)),
    }
    fraylog.close()


def requests(t: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    good = {"type": "adjust_hits", "combatant": t["who"], "amount": -1}
    auth = {"Authorization": f"Bearer {t['token']}"}
    url = f"/encounters/{t['id']}/commands"
    return [
        ("an id that is no UUID", {"url": "/encounters/x/commands", "json": good}),
        ("no token", {"url": url, "json": good}),
        ("another scheme", {"url": url, "json": good, "headers": {"Authorization": "Basic x"}}),
        ("an unknown query", {"url": url + "?untill=3", "json": good, "headers": auth}),
        ("an unknown lang", {"url": url + "?lang=fr", "json": good, "headers": auth}),
        (
            "a preview that is no bool",
            {"url": url + "?preview=maybe", "json": good, "headers": auth},
        ),
        (
            "an empty Idempotency-Key",
            {"url": url, "json": good, "headers": {**auth, "Idempotency-Key": ""}},
        ),
        (
            "a long Idempotency-Key",
            {"url": url, "json": good, "headers": {**auth, "Idempotency-Key": "k" * 201}},
        ),
        ("no body", {"url": url, "headers": auth}),
        (
            "JSON that does not parse",
            {
                "url": url,
                "content": b'{"type": ',
                "headers": {**auth, "Content-Type": "application/json"},
            },
        ),
        (
            "a body that is not UTF-8",
            {
                "url": url,
                "content": b"\x80\x81",
                "headers": {**auth, "Content-Type": "application/json"},
            },
        ),
        (
            "a body sent as text",
            {"url": url, "content": b"{}", "headers": {**auth, "Content-Type": "text/plain"}},
        ),
        ("a body with no type", {"url": url, "content": b"{}", "headers": auth}),
        ("no such command", {"url": url, "json": {"type": "dance"}, "headers": auth}),
        (
            "several errors at once",
            {"url": "/encounters/x/commands?preview=no-way", "headers": {"Idempotency-Key": ""}},
        ),
        ("a preview", {"url": url + "?preview=true", "json": good, "headers": auth}),
        (
            "a refused command",
            {"url": url, "json": {**good, "combatant": "nobody"}, "headers": auth},
        ),
    ]


def unstamped(answer: dict[str, Any]) -> dict[str, Any]:
    """A preview's events without their time and hash (two previews differ only there)."""
    for event in answer.get("events") or []:
        event.pop("timestamp"), event.pop("hash")
    return answer


@pytest.mark.parametrize("index", range(17))
def test_given_a_request_when_the_route_reads_it_by_hand_then_fastapi_would_answer_the_same(
    table: dict[str, Any], index: int
) -> None:
    name, request = requests(table)[index]
    by_hand = table["by_hand"].post(**request)
    generic = table["generic"].post(**request)
    assert (by_hand.status_code, unstamped(by_hand.json())) == (
        generic.status_code,
        unstamped(generic.json()),
    ), name
    assert by_hand.headers.get("content-type") == generic.headers.get("content-type"), name


def test_given_a_valid_command_when_read_by_hand_then_it_is_recorded(table: dict[str, Any]) -> None:
    t = table
    before = t["fraylog"].state(UUID(t["id"])).version
    answer = t["by_hand"].post(
        f"/encounters/{t['id']}/commands",
        json={"type": "adjust_hits", "combatant": t["who"], "amount": -1},
        headers={"Authorization": f"Bearer {t['token']}", "Idempotency-Key": "once"},
    )
    assert answer.status_code == 200, answer.text
    assert answer.json()["encounter"]["version"] == before + 1
