"""A store that lost an event behind fraylog's back (a gap in an encounter's positions): every
read that folds the encounter, every command and a fork answer a problem that names the
missing position (`rule: RECORD`), never a bare server failure, and record nothing; the GM's
event read still serves what is stored, so the encounter can be exported and verified."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from api.main import create_app
from infra.settings import Settings
from tests.builders import add_combatant, command, new_encounter
from tests.builders.damage import delete_event
from tests.builders.novus import novus_stats
from tests.tokens import TokenJar


def a_fight_of_four_events(settings: Settings) -> tuple[str, str, str, str]:
    """Its id, a combatant, the GM's token and a player's: created, one combatant, two
    adjustments (fewer than the test settings' snapshot interval: every read folds them)."""
    with TestClient(create_app(settings)) as client:
        client.auth = TokenJar()
        eid = new_encounter(client)
        who = add_combatant(client, eid, "A", novus_stats())
        for amount in (-1, -1):
            command(client, eid, {"type": "adjust_hits", "combatant": who, "amount": amount})
        player = client.post(f"/encounters/{eid}/tokens", json={"combatants": [who]}).json()
        return eid, who, client.auth.tokens[eid], player["token"]


def a_fight_that_lost(
    settings: Settings, position: int
) -> tuple[str, str, dict[str, str], dict[str, str]]:
    """The fight of four events with its event at `position` lost from the store: its id,
    its combatant, and the GM's and a player's Authorization headers."""
    eid, who, gm, player = a_fight_of_four_events(settings)
    delete_event(settings, eid, position)
    return eid, who, {"Authorization": f"Bearer {gm}"}, {"Authorization": f"Bearer {player}"}


def reads_and_a_command(
    client: TestClient, eid: str, who: str, as_gm: dict[str, str], as_player: dict[str, str]
) -> dict[str, Any]:
    """Each route that folds the encounter, as the GM or a player reads it, and a command."""
    return {
        "the GM's view": client.get(f"/encounters/{eid}", headers=as_gm),
        "a player's view": client.get(f"/encounters/{eid}", headers=as_player),
        "the GM's log": client.get(f"/encounters/{eid}/log", headers=as_gm),
        "a player's events": client.get(f"/encounters/{eid}/events", headers=as_player),
        "a command": client.post(
            f"/encounters/{eid}/commands",
            json={"type": "adjust_hits", "combatant": who, "amount": -1},
            headers=as_gm,
        ),
    }


def test_given_a_lost_event_when_read_or_commanded_then_a_damaged_record_names_its_position(
    settings: Settings,
) -> None:
    # given: its third event lost from the store, and a server that did not keep the fight
    eid, who, as_gm, as_player = a_fight_that_lost(settings, 3)
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        # when
        answers = reads_and_a_command(client, eid, who, as_gm, as_player)
        fork = client.post(f"/encounters/{eid}/fork", json={"at": 4, "name": "F"}, headers=as_gm)
        in_spanish = client.get(f"/encounters/{eid}", headers=as_gm | {"Accept-Language": "es"})
        stored = client.get(f"/encounters/{eid}/events", headers=as_gm)
    # then
    for what, answer in answers.items():
        assert answer.status_code == 500, what
        assert answer.headers["content-type"] == "application/problem+json", what
        problem = answer.json()
        assert problem["title"] == "Damaged record" and problem["rule"] == "RECORD", what
        assert "position 3 is missing (the next one stored is 4)" in problem["detail"], what
        assert "fraylog verify" in problem["detail"], what
    assert "falta la posición 3" in in_spanish.json()["detail"]
    # no fork of it, which would renumber what follows the gap and look whole
    assert fork.status_code == 500 and fork.json()["rule"] == "RECORD"
    assert "position 3 is missing" in fork.json()["detail"]
    # nothing recorded, and what is stored still served to the GM (its export)
    assert stored.status_code == 200
    assert [e["position"] for e in stored.json()["events"]] == [1, 2, 4]


def test_given_its_creation_lost_when_read_or_commanded_then_a_damaged_record_names_position_1(
    settings: Settings,
) -> None:
    # given
    eid, who, as_gm, as_player = a_fight_that_lost(settings, 1)
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        # when
        answers = reads_and_a_command(client, eid, who, as_gm, as_player)
    # then: not "no encounter": its events are there, but its first one is lost
    for what, answer in answers.items():
        assert answer.status_code == 500 and answer.json()["rule"] == "RECORD", what
        assert "position 1 is missing (the next one stored is 2)" in answer.json()["detail"]
