"""Bad input gets a problem+json naming the rule or field at fault, and records nothing."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.builders import add_combatant, command, new_encounter
from tests.builders.novus import novus_stats, target_stats


def ready_to_resolve(client: TestClient) -> tuple[str, str]:
    eid = new_encounter(client)
    a = add_combatant(client, eid, "A", novus_stats())
    t = add_combatant(client, eid, "T", target_stats())
    command(client, eid, {"type": "roll_initiative", "combatant": a, "ip": 19})
    command(client, eid, {"type": "roll_initiative", "combatant": t, "ip": 12})
    command(client, eid, {"type": "declare", "combatant": t, "actions": []})
    command(
        client,
        eid,
        {"type": "declare", "combatant": a, "actions": [{"kind": "melee_attack", "target": t}]},
    )
    return eid, a


def version(client: TestClient, eid: str) -> int:
    return client.get(f"/encounters/{eid}").json()["version"]


def test_given_a_stale_expected_version_when_commanding_then_409_and_nothing_recorded(
    client: TestClient,
) -> None:
    eid, _ = ready_to_resolve(client)
    before = version(client, eid)
    r = client.post(
        f"/encounters/{eid}/commands",
        json={"type": "resolve", "dice": {"attack": [5, 5]}, "expected_version": before - 1},
    )
    assert r.status_code == 409
    assert r.headers["content-type"] == "application/problem+json"
    assert r.json()["field"] == "expected_version"
    assert version(client, eid) == before
    ok = command(
        client, eid, {"type": "resolve", "dice": {"attack": [5, 5]}, "expected_version": before}
    )
    assert ok["encounter"]["version"] > before


@pytest.mark.parametrize(
    ("dice", "detail", "die"),
    [
        ({"attack": [5, 11]}, "not in 1..10", 2),  # out of range
        ({"attack": [5, 0]}, "not in 1..10", 2),
        ({"attack": [5]}, "needs a face", 2),  # missing
        ({"attack": [10, 5]}, "needs a face", 3),  # missing: the 10 explodes
        ({"attack": [5, 5, 5]}, "left over", 3),  # left over
        ({"attack": [5, 5], "damage": [3]}, "not rolled", None),  # a roll never made
        ({}, "needs a face", 1),  # manual encounter, no dice at all
    ],
)
def test_given_bad_manual_dice_when_resolving_then_422_names_roll_and_die(
    sqlite_client: TestClient, dice: dict, detail: str, die: int | None
) -> None:
    eid, _ = ready_to_resolve(sqlite_client)
    before = version(sqlite_client, eid)
    r = sqlite_client.post(f"/encounters/{eid}/commands", json={"type": "resolve", "dice": dice})
    assert r.status_code == 422, r.text
    body = r.json()
    assert r.headers["content-type"] == "application/problem+json"
    assert body["title"] == "Bad dice" and detail in body["detail"]
    assert body["roll"] == ("damage" if "damage" in dice else "attack")
    assert body.get("die") == die
    assert version(sqlite_client, eid) == before


def test_given_a_face_that_is_not_a_number_when_resolving_then_422_names_the_field(
    sqlite_client: TestClient,
) -> None:
    eid, _ = ready_to_resolve(sqlite_client)
    r = sqlite_client.post(
        f"/encounters/{eid}/commands", json={"type": "resolve", "dice": {"attack": ["six", 5]}}
    )
    assert r.status_code == 422
    assert r.json()["field"] == "body.resolve.dice.attack.0"


@pytest.mark.parametrize(
    ("body", "status", "rule"),
    [
        ({"type": "fly"}, 422, None),
        ({"type": "declare", "combatant": "nobody", "actions": []}, 422, "COMBATANT"),
        (
            {"type": "resolve", "modifiers": {"skill ranks": 50}, "dice": {"attack": [5, 5]}},
            422,
            "MODIFIERS",
        ),
        ({"type": "end_round"}, 422, "NOV-SEQ-1"),
        ({"type": "set_condition", "combatant": "X", "condition": "bored"}, 422, "COMBATANT"),
        ({"type": "resolve", "hit": "maybe"}, 422, None),
    ],
)
def test_given_bad_commands_when_posted_then_problem_json_and_nothing_recorded(
    sqlite_client: TestClient, body: dict, status: int, rule: str | None
) -> None:
    eid, _ = ready_to_resolve(sqlite_client)
    before = version(sqlite_client, eid)
    r = sqlite_client.post(f"/encounters/{eid}/commands", json=body)
    assert r.status_code == status, r.text
    assert r.headers["content-type"] == "application/problem+json"
    assert r.json().get("rule") == rule
    assert version(sqlite_client, eid) == before


def test_given_unknown_condition_when_set_then_422_names_rule(sqlite_client: TestClient) -> None:
    eid, a = ready_to_resolve(sqlite_client)
    r = sqlite_client.post(
        f"/encounters/{eid}/commands",
        json={"type": "set_condition", "combatant": a, "condition": "bored"},
    )
    assert r.status_code == 422 and r.json()["rule"] == "NOVUS-COND"


def test_given_unknown_or_malformed_encounter_id_then_404_or_422(sqlite_client: TestClient):
    missing = sqlite_client.get("/encounters/00000000-0000-0000-0000-000000000000")
    assert missing.status_code == 404
    assert missing.headers["content-type"] == "application/problem+json"
    assert sqlite_client.get("/encounters/not-a-uuid").status_code == 422


def test_given_bad_stats_when_adding_a_combatant_then_422_names_the_stat(
    sqlite_client: TestClient,
) -> None:
    eid = new_encounter(sqlite_client)
    r = sqlite_client.post(
        f"/encounters/{eid}/combatants", json={"name": "X", "stats": {"hits": 0}}
    )
    assert r.status_code == 422 and r.json()["field"] == "stats.hits"
    add_combatant(sqlite_client, eid, "X", novus_stats())
    dup = sqlite_client.post(
        f"/encounters/{eid}/combatants", json={"name": "X", "stats": novus_stats()}
    )
    assert dup.status_code == 422 and dup.json()["field"] == "name"


def test_given_an_unknown_ruleset_when_creating_then_422_naming_the_field(
    sqlite_client: TestClient,
) -> None:
    r = sqlite_client.post("/encounters", json={"name": "x", "ruleset": "dnd"})
    assert r.status_code == 422 and r.json()["field"] == "body.ruleset"


@pytest.mark.parametrize(
    ("ruleset", "options", "rule", "field"),
    [
        ("novus", {"test_die": "1d20"}, "NOVUS-OPTIONS", "options"),
        ("wits", {"test_die": "2d10"}, "WITS-OPTIONS", "options.test_die"),
        ("wits", {"dice": 3}, "WITS-OPTIONS", "options.dice"),
        ("phantasia", {"initiative": "dice"}, "PHANTASIA-OPTIONS", "options.initiative"),
    ],
)
def test_given_bad_options_when_creating_then_422_naming_the_option(
    sqlite_client: TestClient, ruleset: str, options: dict, rule: str, field: str
) -> None:
    r = sqlite_client.post(
        "/encounters", json={"name": "x", "ruleset": ruleset, "options": options}
    )
    assert r.status_code == 422 and r.json()["rule"] == rule and r.json()["field"] == field
    assert sqlite_client.app.state.fraylog.list_encounters() == []  # nothing recorded


def test_given_wits_options_when_creating_then_the_defaults_are_recorded_in_the_first_event(
    sqlite_client: TestClient,
) -> None:
    r = sqlite_client.post(
        "/encounters", json={"name": "x", "ruleset": "wits", "options": {"roll_up": "once"}}
    )
    assert r.status_code == 201, r.text
    first = sqlite_client.get(f"/encounters/{r.json()['id']}/events").json()["events"][0]
    assert first["data"]["options"] == r.json()["options"]
    assert first["data"]["options"]["roll_up"] == "once"
    assert first["data"]["options"]["test_die"] == "1d20"


def test_given_seeded_without_seed_when_creating_then_422(sqlite_client: TestClient) -> None:
    r = sqlite_client.post(
        "/encounters", json={"name": "x", "ruleset": "novus", "dice_source": "seeded"}
    )
    assert r.status_code == 422 and r.json()["field"] == "seed"


@pytest.mark.parametrize(
    "path",
    [
        "/encounters/{eid}?version=9223372036854775808",
        "/encounters/{eid}/events?until=9223372036854775808",
        "/encounters/{eid}/log?until=9223372036854775808",
        "/encounters/{eid}/diff?from=9223372036854775808",
    ],
)
def test_given_a_position_beyond_any_integer_column_then_422(sqlite_client: TestClient, path):
    eid = new_encounter(sqlite_client)
    r = sqlite_client.get(path.format(eid=eid))
    assert r.status_code == 422 and r.headers["content-type"] == "application/problem+json"


def test_given_hits_worked_out_past_the_limit_then_422_and_nothing_recorded(
    sqlite_client: TestClient,
) -> None:
    eid = new_encounter(sqlite_client)
    r = sqlite_client.post(
        f"/encounters/{eid}/combatants",
        json={"name": "A", "stats": {"racial_max_hits": 9999, "values": {"str": 1, "con": 1}}},
    )
    assert r.status_code == 422
    assert sqlite_client.get(f"/encounters/{eid}").status_code == 200
    assert version(sqlite_client, eid) == 1


def test_given_a_lone_surrogate_echoed_in_a_refusal_then_still_problem_json(
    sqlite_client: TestClient,
) -> None:
    eid, a = ready_to_resolve(sqlite_client)
    r = sqlite_client.post(
        f"/encounters/{eid}/commands",
        content='{"type":"clear_condition","combatant":"' + a + '","condition":"\\ud800"}',
        headers={"content-type": "application/json"},
    )
    assert r.status_code == 422 and r.headers["content-type"] == "application/problem+json"


def test_given_the_schema_then_every_command_requires_its_type(sqlite_client: TestClient):
    schemas = sqlite_client.get("/openapi.json").json()["components"]["schemas"]
    assert "type" in schemas["Declare"]["required"] and "type" in schemas["Undo"]["required"]


@pytest.mark.parametrize(
    ("ruleset", "field", "value", "books"),
    [
        ("novus", "tie_order", [], "Wits or PHANTÄSIA"),
        ("novus", "group", ["a", "b"], "PHANTÄSIA"),
        ("novus", "simultaneous", True, "PHANTÄSIA"),
        ("wits", "group", ["a", "b"], "PHANTÄSIA"),
    ],
)
def test_given_a_field_another_books_roll_initiative_has_when_sent_then_422_names_it(
    client: TestClient, ruleset: str, field: str, value: object, books: str
) -> None:
    # given an encounter of a book whose roll_initiative lacks the field
    eid = new_encounter(client, ruleset=ruleset)
    before = version(client, eid)
    # when the GM sends it
    body = {"type": "roll_initiative", field: value}
    r = client.post(f"/encounters/{eid}/commands", json=body)
    # then the book refuses it, naming the field and the books that have it; nothing recorded
    assert r.status_code == 422, r.text
    assert r.json()["rule"] == f"{ruleset.upper()}-CMD" and r.json()["field"] == field
    assert r.json()["detail"] == (
        f"{field} is a {books} initiative choice; the {ruleset} rule system has none"
    )
    assert version(client, eid) == before
