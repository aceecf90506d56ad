"""JSON types taken strictly (issue 18): an integer field takes a JSON integer only (not
`"5"`, `true`, `5.0` or `5.5`), a boolean field `true` or `false` only (not `1` or `"true"`),
in every command body, in each rule book's stats and options, and in the API's own bodies.
A refusal is a 422 naming the field and saying what was given; nothing is recorded."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from infra.app import Fraylog
from infra.settings import Settings
from tests.builders import add_combatant, command, new_encounter
from tests.builders.novus import novus_stats
from tests.builders.phantasia import ORC, PC
from tests.builders.wits import fighter

NOT_INTEGERS = [
    pytest.param("5", "a string", id="string"),
    pytest.param(True, "a boolean", id="true"),
    pytest.param(5.0, "a decimal number", id="5.0"),
    pytest.param(5.5, "a decimal number", id="5.5"),
]
NOT_BOOLEANS = [pytest.param(1, "an integer", id="1"), pytest.param("true", "a string", id="str")]


def version(client: TestClient, eid: str) -> int:
    return client.get(f"/encounters/{eid}").json()["version"]


def refused(r: Any, field: str, given: str) -> None:
    """A 422 problem naming `field`, saying it was given `given` (a string, ...)."""
    assert r.status_code == 422, r.text
    assert r.headers["content-type"] == "application/problem+json"
    assert r.json()["field"] == field
    assert f"not {given}" in r.json()["detail"]


def run(client: TestClient, eid: str, body: dict[str, Any]) -> Any:
    return client.post(f"/encounters/{eid}/commands", json=body)


def wits_turn(client: TestClient) -> tuple[str, str]:
    """A Wits fight whose one combatant, Lief, has his place in the order: (encounter, Lief)."""
    eid = new_encounter(client, ruleset="wits")
    a = add_combatant(client, eid, "Lief", fighter())
    command(client, eid, {"type": "roll_initiative"})
    return eid, a


# -- commands ----------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "given"), NOT_INTEGERS)
def test_given_a_novus_save_when_its_tn_is_not_an_integer_then_422_and_nothing_recorded(
    client: TestClient, value: Any, given: str
) -> None:
    # given: a Novus fight with one combatant
    eid = new_encounter(client)
    a = add_combatant(client, eid, "Eve", novus_stats())
    before = version(client, eid)
    # when: the save's target number is "5", true, 5.0 or 5.5
    body = {"type": "save", "combatant": a, "stat": "con", "tn": value, "dice": {"save": [5, 5]}}
    r = run(client, eid, body)
    # then: refused, naming the field; nothing recorded
    refused(r, "body.save.tn", given)
    assert version(client, eid) == before


def test_given_a_novus_save_when_its_tn_is_the_integer_5_then_it_is_rolled(
    client: TestClient,
) -> None:
    eid = new_encounter(client)
    a = add_combatant(client, eid, "Eve", novus_stats())
    body = {"type": "save", "combatant": a, "stat": "con", "tn": 5, "dice": {"save": [5, 5]}}
    assert command(client, eid, body)["events"]


@pytest.mark.parametrize(
    ("value", "given"),
    [
        pytest.param("1", "a string", id="string"),
        pytest.param(True, "a boolean", id="true"),
        pytest.param(1.0, "a decimal number", id="1.0"),
        pytest.param(1.5, "a decimal number", id="1.5"),
    ],
)
def test_given_a_wits_action_when_its_actions_are_not_an_integer_then_422_and_nothing_recorded(
    client: TestClient, value: Any, given: str
) -> None:
    # given: a Wits fight, Lief's turn; `actions` is 1 or 2 (a choice of integers: `true` is
    # no 1 either)
    eid, a = wits_turn(client)
    before = version(client, eid)
    # when
    body = {"type": "take_action", "combatant": a, "what": "casts Light", "actions": value}
    r = run(client, eid, body)
    # then
    refused(r, "body.take_action.actions", given)
    assert version(client, eid) == before


def test_given_a_wits_action_when_its_actions_are_the_integer_1_then_it_is_recorded(
    client: TestClient,
) -> None:
    eid, a = wits_turn(client)
    body = {"type": "take_action", "combatant": a, "what": "casts Light", "actions": 1}
    [taken] = command(client, eid, body)["events"]
    assert taken["type"] == "ActionTaken"
    assert taken["data"]["actions"] == 1


@pytest.mark.parametrize(("value", "given"), NOT_INTEGERS)
def test_given_a_phantasia_fall_when_its_metres_are_not_an_integer_then_422_and_nothing_recorded(
    client: TestClient, value: Any, given: str
) -> None:
    eid = new_encounter(client, ruleset="phantasia")
    a = add_combatant(client, eid, "Orco", ORC)
    before = version(client, eid)
    r = run(client, eid, {"type": "fall", "combatant": a, "metres": value})
    refused(r, "body.fall.metres", given)
    assert version(client, eid) == before


def test_given_a_phantasia_fall_when_its_metres_are_the_integer_5_then_it_is_recorded(
    client: TestClient,
) -> None:
    eid = new_encounter(client, ruleset="phantasia")
    a = add_combatant(client, eid, "Orco", ORC)
    before = version(client, eid)
    command(client, eid, {"type": "fall", "combatant": a, "metres": 5})
    assert version(client, eid) > before


def test_given_a_number_field_when_given_an_integer_then_it_passes_but_not_text_or_a_boolean(
    sqlite_client: TestClient,
) -> None:
    # given: PHANTÄSIA's load in kg is a number: 12 is one, "12" and true are not
    client = sqlite_client
    eid = new_encounter(client, ruleset="phantasia", options={"load_rule": True})
    a = add_combatant(client, eid, "Orco", ORC)
    for value, given in (("12", "a string"), (True, "a boolean")):
        r = run(client, eid, {"type": "set_load", "combatant": a, "carried_kg": value})
        refused(r, "body.set_load.carried_kg", given)
    command(client, eid, {"type": "set_load", "combatant": a, "carried_kg": 12})


@pytest.mark.parametrize(("value", "given"), NOT_BOOLEANS)
def test_given_a_boolean_field_when_given_1_or_true_as_text_then_422_and_nothing_recorded(
    client: TestClient, value: Any, given: str
) -> None:
    eid = new_encounter(client)
    a = add_combatant(client, eid, "Eve", novus_stats())
    before = version(client, eid)
    r = run(client, eid, {"type": "hide_combatant", "combatant": a, "until_acting": value})
    refused(r, "body.hide_combatant.until_acting", given)
    assert version(client, eid) == before


def test_given_the_modifiers_of_a_roll_when_one_is_text_then_422_naming_it(
    sqlite_client: TestClient,
) -> None:
    client = sqlite_client
    eid = new_encounter(client)
    a = add_combatant(client, eid, "Eve", novus_stats())
    body = {"type": "save", "combatant": a, "stat": "con", "modifiers": {"poison": "-2"}}
    refused(run(client, eid, body), "body.save.modifiers.poison", "a string")


# -- stats and options -------------------------------------------------------------------

STATS = [
    pytest.param("novus", novus_stats(hits="30"), "stats.hits", "a string", id="novus-hits"),
    pytest.param(
        "novus",
        novus_stats(weapons=[{"name": "sword", "dr": 6.0}]),
        "stats.weapons.0.dr",
        "a decimal number",
        id="novus-weapon-dr",
    ),
    pytest.param(
        "novus",
        novus_stats(weapons=[{"name": "sword", "dr": 6, "hands": True}]),
        "stats.weapons.0.hands",
        "a boolean",
        id="novus-hands",
    ),
    pytest.param(
        "novus", novus_stats(minor_foe=1), "stats.minor_foe", "an integer", id="novus-bool"
    ),
    pytest.param("wits", fighter(health=True), "stats.health", "a boolean", id="wits-health"),
    pytest.param(
        "wits",
        fighter(skills={"short sword": "13"}),
        "stats.skills.short sword",
        "a string",
        id="wits-skill",
    ),
    pytest.param("phantasia", {**PC, "pv": 30.5}, "stats.pv", "a decimal number", id="pha-pv"),
    pytest.param("phantasia", {**ORC, "large": True}, "stats.large", "a boolean", id="pha-large"),
]


@pytest.mark.parametrize(("ruleset", "stats", "field", "given"), STATS)
def test_given_stats_when_a_figure_is_not_of_its_json_type_then_422_and_nobody_added(
    client: TestClient, ruleset: str, stats: dict[str, Any], field: str, given: str
) -> None:
    # given: an encounter of the book
    eid = new_encounter(client, ruleset=ruleset)
    before = version(client, eid)
    # when: a combatant's stats hold a figure of another JSON type
    r = client.post(f"/encounters/{eid}/combatants", json={"name": "Eve", "stats": stats})
    # then: the book refuses them, naming the figure; nobody is added
    refused(r, field, given)
    assert r.json()["rule"] == f"{ruleset.upper()}-STATS"
    assert version(client, eid) == before
    assert client.get(f"/encounters/{eid}").json()["combatants"] == []


def test_given_wits_options_when_a_figure_is_text_then_the_encounter_is_refused(
    sqlite_client: TestClient,
) -> None:
    body = {"name": "Fight", "ruleset": "wits", "options": {"critical_at": "18"}}
    r = sqlite_client.post("/encounters", json=body)
    refused(r, "options.critical_at", "a string")
    assert r.json()["rule"] == "WITS-OPTIONS"


# -- the API's own bodies ----------------------------------------------------------------


@pytest.mark.parametrize(("value", "given"), NOT_INTEGERS)
def test_given_a_new_combatant_when_its_expected_version_is_not_an_integer_then_422(
    client: TestClient, value: Any, given: str
) -> None:
    eid = new_encounter(client)
    before = version(client, eid)
    body = {"name": "Eve", "stats": novus_stats(), "expected_version": value}
    r = client.post(f"/encounters/{eid}/combatants", json=body)
    refused(r, "body.expected_version", given)
    assert version(client, eid) == before


@pytest.mark.parametrize(("value", "given"), NOT_BOOLEANS)
def test_given_a_new_combatant_when_hidden_is_not_a_boolean_then_422_and_nobody_added(
    client: TestClient, value: Any, given: str
) -> None:
    eid = new_encounter(client)
    before = version(client, eid)
    body = {"name": "Eve", "stats": novus_stats(), "hidden": value}
    r = client.post(f"/encounters/{eid}/combatants", json=body)
    refused(r, "body.hidden", given)
    assert version(client, eid) == before


def test_given_a_new_combatant_when_every_field_has_its_json_type_then_he_is_added(
    client: TestClient,
) -> None:
    eid = new_encounter(client)
    body = {"name": "Eve", "stats": novus_stats(), "hidden": True, "expected_version": 1}
    r = client.post(f"/encounters/{eid}/combatants", json=body)
    assert r.status_code == 201, r.text


def test_given_a_fork_when_its_position_is_text_then_422(sqlite_client: TestClient) -> None:
    eid = new_encounter(sqlite_client)
    r = sqlite_client.post(f"/encounters/{eid}/fork", json={"at": "1", "name": "What if"})
    refused(r, "body.at", "a string")


def test_given_a_new_encounter_when_its_name_is_a_number_then_422(
    sqlite_client: TestClient,
) -> None:
    r = sqlite_client.post("/encounters", json={"name": 5, "ruleset": "novus"})
    refused(r, "body.name", "an integer")


# -- what is stored ----------------------------------------------------------------------


def test_given_stats_stored_while_types_were_lax_when_played_on_then_they_load_as_before(
    tmp_path: Path,
) -> None:
    # given: a combatant whose stored stats hold his Con bonus as text and minor_foe as 0, as
    # a record written before the types were strict may
    settings = Settings(sqlite_path=str(tmp_path / "f.db"))
    with Fraylog(settings) as fraylog:
        eid = fraylog.create_encounter("Old fight", "novus", "manual").events[0].originator_id
        eve, _ = fraylog.add_combatant(eid, "Eve", "", novus_stats())
    added = "select state from stored_events where topic like '%:CombatantAdded'"
    with sqlite3.connect(settings.sqlite_path) as db:
        record = json.loads(db.execute(added).fetchone()[0])
        record["stats"]["bonuses"]["con"], record["stats"]["minor_foe"] = "3", 0
        db.execute(
            "update stored_events set state = ? where topic like '%:CombatantAdded'",
            (json.dumps(record).encode(),),
        )
    # when: the fight is read back and a save against Con is rolled
    with Fraylog(settings) as fraylog:
        save = {"type": "save", "combatant": eve, "stat": "con", "dice": {"save": [5, 5]}}
        [rolled] = fraylog.execute(eid, fraylog.command(eid, save)).events
    # then: the stored stats are read as they were (only input is strict): Con bonus 3
    assert rolled.rolls["save"]["modifiers"]["con bonus"] == 3, rolled.rolls
