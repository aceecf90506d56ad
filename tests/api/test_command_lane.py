"""The command lane (api/routes/command_lane.py) answers a plain command before FastAPI routes
it, with the answer the command route gives; every other request reaches the route, which
answers it as it always did. What follows a command's commit failing is answered once, the
command not run again."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from typing import Any
from uuid import UUID

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from api.routes import command_route
from bench.command_levers import served
from infra.access import token_id
from infra.app import Fraylog
from infra.settings import Settings
from tests.api.test_command_route import requests, unstamped
from tests.builders import add_combatant, new_encounter
from tests.builders.novus import novus_stats
from tests.tokens import TokenJar


def a_table(fraylog: Fraylog) -> dict[str, Any]:
    """A seeded Novus encounter with one fighter, its GM token read once (as a served one
    is by its first command)."""
    eid = fraylog.create_encounter("Lane", "novus", "seeded", "lane").state.id
    who, _ = fraylog.add_combatant(UUID(eid), "A", "x", novus_stats())
    token = fraylog.access.mint(eid, "gm")
    assert fraylog.access.grant(token) is not None
    fraylog.ruleset(UUID(eid))
    return {"fraylog": fraylog, "id": eid, "who": who, "token": token}


@pytest.fixture
def tables(settings: Settings) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    fraylog = Fraylog(settings)
    yield a_table(fraylog), a_table(fraylog)
    fraylog.close()


@pytest.fixture
def routed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths the command route read from now on (the lane's are not among them)."""
    seen: list[str] = []
    arguments = command_route._arguments

    async def spied(request: Any) -> dict[str, Any]:
        seen.append(request.url.path)
        return await arguments(request)

    monkeypatch.setattr(command_route, "_arguments", spied)
    return seen


def same_table(answer: dict[str, Any], table: dict[str, Any]) -> dict[str, Any]:
    """An answer with its table's ids, times, hashes and dice commitment taken out: twin
    tables' alike."""
    text = json.dumps(answer).replace(table["id"], "ENCOUNTER").replace(table["who"], "WHO")
    alike = unstamped(json.loads(text))
    del alike["encounter"]["created_at"], alike["encounter"]["dice_commitment"]
    return alike


def test_given_a_plain_command_when_sent_then_the_lane_answers_it_as_the_route_would(
    tables: tuple[dict[str, Any], dict[str, Any]], routed: list[str]
) -> None:
    twins = tables
    answers = []
    for table, lane in zip(twins, (True, False), strict=True):
        with TestClient(served(table["fraylog"], lane)) as client:
            # when
            answers.append(
                client.post(
                    f"/encounters/{table['id']}/commands",
                    json={"type": "adjust_hits", "combatant": table["who"], "amount": -2},
                    headers={"Authorization": f"Bearer {table['token']}"},
                )
            )
    # then: the route read only the second, and both answers are one
    by_lane, by_route = answers
    assert routed == [f"/encounters/{twins[1]['id']}/commands"]
    assert by_lane.status_code == by_route.status_code == 200, by_lane.text
    assert by_lane.headers["content-type"] == by_route.headers["content-type"]
    assert same_table(by_lane.json(), twins[0]) == same_table(by_route.json(), twins[1])
    assert by_lane.json()["encounter"]["version"] == 3
    assert twins[0]["fraylog"].state(UUID(twins[0]["id"])).version == 3


@pytest.mark.parametrize("index", range(17))
def test_given_a_request_the_lane_leaves_when_sent_then_the_route_answers_it(
    tables: tuple[dict[str, Any], dict[str, Any]], routed: list[str], index: int
) -> None:
    table = tables[0]
    name, request = requests(table)[index]
    # when
    with TestClient(served(table["fraylog"], True)) as client:
        by_lane = client.post(**request)
    with TestClient(served(table["fraylog"], False)) as client:
        by_route = client.post(**request)
    # then: the route read it both times, and answered it alike
    assert len(routed) == 2, name
    assert (by_lane.status_code, unstamped(by_lane.json())) == (
        by_route.status_code,
        unstamped(by_route.json()),
    ), name
    assert by_lane.headers.get("content-type") == by_route.headers.get("content-type"), name


@pytest.mark.parametrize(
    "case",
    [
        "an id in capitals",
        "an Idempotency-Key",
        "a query",
        "a correction",
        "an actor in the body",
        "the token of another encounter",
    ],
)
def test_given_a_command_the_loop_cannot_take_as_it_is_when_sent_then_the_route_records_it(
    tables: tuple[dict[str, Any], dict[str, Any]], routed: list[str], case: str
) -> None:
    table = tables[0]
    fraylog, eid = table["fraylog"], table["id"]
    url, token = f"/encounters/{eid}/commands", table["token"]
    body: dict[str, Any] = {"type": "adjust_hits", "combatant": table["who"], "amount": -1}
    headers = {}
    if case == "an id in capitals":
        url = f"/encounters/{eid.upper()}/commands"
    elif case == "an Idempotency-Key":
        headers["Idempotency-Key"] = "once"
    elif case == "a query":
        url += "?preview=false"
    elif case == "a correction":
        body = {"type": "undo"}
    elif case == "an actor in the body":
        body["actor"] = "someone"
    elif case == "the token of another encounter":  # read lately, as his own would be
        token = tables[1]["token"]
    headers["Authorization"] = f"Bearer {token}"
    before = fraylog.state(UUID(eid)).version
    # when
    with TestClient(served(fraylog, True)) as client:
        r = client.post(url, json=body, headers=headers)
    # then
    assert len(routed) == 1
    if case == "an actor in the body":  # the route's refusal: tokens are on
        assert r.status_code == 422 and r.json()["rule"] == "ACTOR", r.text
        assert fraylog.state(UUID(eid)).version == before
    elif case == "the token of another encounter":  # no such encounter, for that token
        assert r.status_code == 404 and r.json()["rule"] == "ENCOUNTER", r.text
        assert fraylog.state(UUID(eid)).version == before
    else:
        assert r.status_code == 200, r.text
        assert r.json()["encounter"]["version"] == fraylog.state(UUID(eid)).version > before


def test_given_a_token_not_read_yet_when_a_plain_command_is_sent_then_postgres_reads_it_on_the_loop(
    tables: tuple[dict[str, Any], dict[str, Any]], routed: list[str]
) -> None:
    """On PostgreSQL the lane reads the token on the loop (one query) and answers; on
    SQLite the route reads it, in a worker thread."""
    table = tables[0]
    fraylog = table["fraylog"]
    token = fraylog.access.mint(table["id"], "gm", label="co-GM")  # never read here
    url = f"/encounters/{table['id']}/commands"
    body = {"type": "adjust_hits", "combatant": table["who"], "amount": -1}
    # when
    with TestClient(served(fraylog, True)) as client:
        r = client.post(url, json=body, headers={"Authorization": f"Bearer {token}"})
    # then
    assert r.status_code == 200, r.text
    assert r.json()["encounter"]["version"] == fraylog.state(UUID(table["id"])).version == 3
    if fraylog.settings.backend == "postgres":
        assert routed == []
        assert fraylog.access._grants_on_loop.queries == 1  # type: ignore[union-attr]
    else:
        assert routed == [url]


@pytest.fixture
def no_grant_cache(settings: Settings) -> Iterator[Fraylog]:
    """A Fraylog as each of several workers is (`fraylog serve --workers N`): what a token
    allows is read for every request (FRAYLOG_GRANT_CACHE_SECONDS=0)."""
    fraylog = Fraylog(dataclasses.replace(settings, grant_cache_seconds=0))
    yield fraylog
    fraylog.close()


def test_given_no_grant_cache_when_plain_commands_are_sent_then_each_token_is_read_on_the_loop_on_postgres(  # noqa: E501
    no_grant_cache: Fraylog, routed: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Several workers read every request's token (a revocation stops it at once in each):
    on PostgreSQL on the event loop, so the lane still answers plain commands; on SQLite
    (one process) in a worker thread, through the route."""
    fraylog = no_grant_cache
    table = a_table(fraylog)
    in_threads: list[str] = []
    grant = fraylog.access.grant
    monkeypatch.setattr(fraylog.access, "grant", lambda t: in_threads.append(t) or grant(t))
    url = f"/encounters/{table['id']}/commands"
    body = {"type": "adjust_hits", "combatant": table["who"], "amount": -1}
    # when
    with TestClient(served(fraylog, True)) as client:
        client.headers["Authorization"] = f"Bearer {table['token']}"
        answers = [client.post(url, json=body) for _ in range(3)]
    # then
    assert [r.status_code for r in answers] == [200] * 3, answers[-1].text
    assert fraylog.state(UUID(table["id"])).version == 5
    if fraylog.settings.backend == "postgres":
        assert (routed, in_threads) == ([], [])
        assert fraylog.access._grants_on_loop.queries == 3  # type: ignore[union-attr]
    else:
        assert (routed, in_threads) == ([url] * 3, [table["token"]] * 3)


def test_given_no_grant_cache_when_another_process_revokes_a_token_then_the_next_command_is_refused(
    no_grant_cache: Fraylog, other: Fraylog
) -> None:
    fraylog = no_grant_cache
    table = a_table(fraylog)
    second = fraylog.access.mint(table["id"], "gm", label="co-GM")
    url = f"/encounters/{table['id']}/commands"
    body = {"type": "adjust_hits", "combatant": table["who"], "amount": -1}
    with TestClient(served(fraylog, True)) as client:
        client.headers["Authorization"] = f"Bearer {second}"
        assert client.post(url, json=body).status_code == 200
        # when: revoked by another worker
        assert other.access.revoke(UUID(table["id"]), token_id(second))
        r = client.post(url, json=body)
    # then: refused at once, nothing recorded
    assert r.status_code == 404 and r.json()["rule"] == "ENCOUNTER", r.text
    assert fraylog.state(UUID(table["id"])).version == 3


def test_given_a_player_when_he_sends_a_plain_command_then_the_lane_answers_it_with_his_sight(
    client: TestClient, routed: list[str]
) -> None:
    eid = new_encounter(client, dice_source="seeded", seed="s")
    anna = add_combatant(client, eid, "Anna", novus_stats(), "heroes")
    hidden = client.post(
        f"/encounters/{eid}/combatants",
        json={"name": "Lurker", "side": "foes", "stats": novus_stats(), "hidden": True},
    ).json()["id"]
    token = client.post(f"/encounters/{eid}/tokens", json={"combatants": [anna]}).json()["token"]
    player = {"Authorization": f"Bearer {token}"}
    url, body = f"/encounters/{eid}/commands", {"type": "roll_initiative", "combatant": anna}
    client.get(f"/encounters/{eid}", headers=player)  # his token read once
    # when
    r = client.post(url, json=body, headers=player)
    # then: not routed, and nothing of the hidden foe in what he reads
    assert r.status_code == 200, r.text
    assert routed == []
    assert [e["type"] for e in r.json()["events"]] == ["InitiativeRolled"]
    assert hidden not in r.text and "Lurker" not in r.text


def test_given_the_lane_records_a_command_when_what_follows_its_commit_fails_then_it_is_answered_once(  # noqa: E501
    fraylog: Fraylog, monkeypatch: pytest.MonkeyPatch, routed: list[str]
) -> None:
    with TestClient(create_app(fraylog=fraylog), raise_server_exceptions=False) as client:
        client.auth = TokenJar()
        eid = new_encounter(client, dice_source="seeded", seed="s")
        anna = add_combatant(client, eid, "Anna", novus_stats(), "heroes")
        before = client.get(f"/encounters/{eid}").json()["version"]

        def broken(*args: Any) -> None:
            raise OSError("the disk is full")

        monkeypatch.setattr(fraylog, "_take_snapshots", broken)
        # when
        r = client.post(
            f"/encounters/{eid}/commands",
            json={"type": "adjust_hits", "combatant": anna, "amount": -1},
        )
        monkeypatch.undo()
        # then: the server's failure, the command recorded once, not sent on to the route
        assert r.status_code == 500
        assert r.headers["content-type"].startswith("application/problem+json")
        assert client.get(f"/encounters/{eid}").json()["version"] == before + 1
    assert routed == []


def test_given_decide_on_loop_off_when_a_plain_command_is_sent_then_the_route_reads_it(
    settings: Settings, routed: list[str]
) -> None:
    fraylog = Fraylog(Settings(**{**settings.__dict__, "decide_on_loop": False}))
    with TestClient(create_app(fraylog=fraylog)) as client:
        client.auth = TokenJar()
        eid = new_encounter(client, dice_source="seeded", seed="s")
        anna = add_combatant(client, eid, "Anna", novus_stats(), "heroes")
        # when
        r = client.post(
            f"/encounters/{eid}/commands",
            json={"type": "adjust_hits", "combatant": anna, "amount": -1},
        )
    fraylog.close()
    # then
    assert r.status_code == 200, r.text
    assert routed == [f"/encounters/{eid}/commands"]


def test_given_open_mode_when_a_command_names_its_actor_then_the_lane_records_it_as_his(
    settings: Settings, routed: list[str]
) -> None:
    fraylog = Fraylog(dataclasses.replace(settings, auth=False))
    table = a_table(fraylog)
    body = {"type": "adjust_hits", "combatant": table["who"], "amount": -1, "actor": "bob"}
    # when: no token at all, as open mode takes it
    with TestClient(served(fraylog, True)) as client:
        r = client.post(f"/encounters/{table['id']}/commands", json=body)
    fraylog.close()
    # then: answered by the lane, the body's actor on the event
    assert r.status_code == 200, r.text
    assert routed == []
    assert [e["actor"] for e in r.json()["events"]] == ["bob"]


def test_given_a_command_the_loop_declines_when_sent_then_it_is_tried_there_once(
    tables: tuple[dict[str, Any], dict[str, Any]],
    routed: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = tables[0]
    fraylog, eid = table["fraylog"], table["id"]
    tries: list[str] = []
    on_loop = fraylog.execute_on_loop

    async def counted(encounter_id: UUID, command: Any, *args: Any) -> Any:
        tries.append(command.type)
        return await on_loop(encounter_id, command, *args)

    monkeypatch.setattr(fraylog, "execute_on_loop", counted)
    body = {"type": "adjust_hits", "combatant": "nobody", "amount": -1}
    # when: refused on the loop, so the route decides it in a worker thread
    with TestClient(served(fraylog, True)) as client:
        r = client.post(
            f"/encounters/{eid}/commands",
            json=body,
            headers={"Authorization": f"Bearer {table['token']}"},
        )
    # then: the route's refusal, the loop tried once, not again by the route
    assert r.status_code == 422 and r.json()["rule"] == "COMBATANT", r.text
    assert len(routed) == 1
    assert tries == ["adjust_hits"]
