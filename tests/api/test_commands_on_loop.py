"""Which commands the route decides on the event loop (infra.app `Fraylog.execute_on_loop`)
and which in a worker thread (`Fraylog.execute`): plain commands on the loop, the GM's and a
player's (his answer as he may read it); a keyed one, a refusal in a worker, each answered
as before. SQLite and PostgreSQL."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from infra.app import Fraylog
from infra.settings import Settings
from tests.builders import add_combatant, new_encounter
from tests.builders.novus import novus_stats
from tests.tokens import TokenJar


@pytest.fixture
def in_workers(fraylog: Fraylog, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    return watched(fraylog, monkeypatch)


def watched(fraylog: Fraylog, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The types of the commands `Fraylog.execute` runs from now on (a worker thread's)."""
    ran: list[str] = []
    execute = fraylog.execute
    monkeypatch.setattr(
        fraylog,
        "execute",
        lambda eid, command, *a, **kw: ran.append(command.type) or execute(eid, command, *a, **kw),
    )
    return ran


def a_table(client: TestClient) -> tuple[str, str]:
    eid = new_encounter(client, dice_source="seeded", seed="s")
    return eid, add_combatant(client, eid, "Anna", novus_stats(hits=30), "heroes")


def post(client: TestClient, eid: str, body: dict[str, Any], **headers: str) -> Any:
    return client.post(f"/encounters/{eid}/commands", json=body, headers=headers)


def test_given_the_gm_when_he_sends_a_command_then_it_is_decided_on_the_loop_and_answered(
    client: TestClient, fraylog: Fraylog, in_workers: list[str]
) -> None:
    eid, anna = a_table(client)
    # when
    r = post(client, eid, {"type": "adjust_hits", "combatant": anna, "amount": -3})
    # then
    assert r.status_code == 200, r.text
    assert in_workers == []
    assert [e["type"] for e in r.json()["events"]] == ["HitsAdjusted"]
    assert r.json()["encounter"]["combatants"][0]["hits"] == 27
    assert r.json()["encounter"]["version"] == 3
    assert client.get(f"/encounters/{eid}").json()["version"] == 3


def test_given_a_player_when_he_sends_a_command_then_it_is_decided_on_the_loop_and_answered_with_his_sight(  # noqa: E501
    client: TestClient, fraylog: Fraylog, in_workers: list[str]
) -> None:
    eid, anna = a_table(client)
    hidden = client.post(
        f"/encounters/{eid}/combatants",
        json={"name": "Lurker", "side": "foes", "stats": novus_stats(), "hidden": True},
    ).json()["id"]
    r = client.post(f"/encounters/{eid}/tokens", json={"combatants": [anna], "label": "Anna"})
    player = f"Bearer {r.json()['token']}"
    before = client.get(f"/encounters/{eid}").json()["version"]
    # when
    r = post(client, eid, {"type": "roll_initiative", "combatant": anna}, Authorization=player)
    # then: recorded, and answered as he may read it: no word of the hidden foe
    assert r.status_code == 200, r.text
    assert in_workers == []
    assert [e["type"] for e in r.json()["events"]] == ["InitiativeRolled"]
    assert hidden not in r.text and "Lurker" not in r.text
    assert client.get(f"/encounters/{eid}").json()["version"] == before + 1
    # and what he may not do is refused by a worker, with what he may see of it
    r = post(
        client,
        eid,
        {"type": "adjust_hits", "combatant": hidden, "amount": -1},
        Authorization=player,
    )
    assert r.status_code in (403, 422), r.text
    assert hidden not in r.text and "Lurker" not in r.text
    assert in_workers == ["adjust_hits"]


def test_given_an_idempotency_key_when_the_gm_sends_a_command_then_a_worker_runs_it_once(
    client: TestClient, in_workers: list[str]
) -> None:
    eid, anna = a_table(client)
    body = {"type": "adjust_hits", "combatant": anna, "amount": -1}
    # when
    first = post(client, eid, body, **{"Idempotency-Key": "k1"})
    again = post(client, eid, body, **{"Idempotency-Key": "k1"})
    # then
    assert first.status_code == again.status_code == 200
    assert again.headers["Idempotent-Replayed"] == "true"
    assert in_workers == ["adjust_hits"]
    assert client.get(f"/encounters/{eid}").json()["version"] == 3


def test_given_a_refused_command_when_the_gm_sends_it_then_a_worker_answers_the_refusal(
    client: TestClient, in_workers: list[str]
) -> None:
    eid, _ = a_table(client)
    # when
    r = post(client, eid, {"type": "adjust_hits", "combatant": "nobody", "amount": -1})
    # then: the problem `execute` gives, nothing recorded
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    assert r.json()["rule"] == "COMBATANT"
    assert in_workers == ["adjust_hits"]
    assert client.get(f"/encounters/{eid}").json()["version"] == 2


def test_given_decide_on_loop_off_when_the_gm_sends_a_command_then_a_worker_decides_it(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FRAYLOG_DECIDE_ON_LOOP", "off")
    assert Settings.from_env().decide_on_loop is False
    fraylog = Fraylog(dataclasses.replace(settings, decide_on_loop=False))
    with TestClient(create_app(fraylog=fraylog)) as client:
        client.auth = TokenJar()
        ran = watched(fraylog, monkeypatch)
        eid, anna = a_table(client)
        # when
        r = post(client, eid, {"type": "adjust_hits", "combatant": anna, "amount": -3})
    # then
    assert r.status_code == 200, r.text
    assert ran == ["adjust_hits"]
    assert r.json()["encounter"]["combatants"][0]["hits"] == 27
