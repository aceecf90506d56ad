"""Campaigns over HTTP, on SQLite and PostgreSQL (issue 18, item 2): a GM with one account
key keeps a roster and a bestiary, copies entries into his fights, and carries a
character's wounds from one fight to the next."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api.test_accounts import fight
from tests.builders.novus import novus_stats
from tests.builders.wits import fighter


def _key(client: TestClient, name: str) -> dict[str, str]:
    r = client.post("/accounts", json={"name": name})
    assert r.status_code == 201, r.text
    return {"Authorization": f"Bearer {r.json()['key']}"}


def _entry(client: TestClient, key: dict[str, str], **body: Any) -> dict[str, Any]:
    r = client.post("/roster", json=body, headers=key)
    assert r.status_code == 201, r.text
    return r.json()


def _copy(
    client: TestClient, key: dict[str, str], eid: str, entry: str, **more: Any
) -> dict[str, Any]:
    r = client.post(
        f"/encounters/{eid}/combatants", json={"from_roster": entry, **more}, headers=key
    )
    assert r.status_code == 201, r.text
    return r.json()


def _gm(client: TestClient, key: dict[str, str], eid: str, command: dict[str, Any]) -> None:
    r = client.post(f"/encounters/{eid}/commands", json=command, headers=key)
    assert r.status_code in (200, 201), r.text


def _events(client: TestClient, key: dict[str, str], eid: str) -> list[dict[str, Any]]:
    r = client.get(f"/encounters/{eid}/events", headers=key)
    assert r.status_code == 200, r.text
    body = r.json()
    return body["events"] if isinstance(body, dict) else body


@pytest.fixture
def marta(client: TestClient) -> dict[str, str]:
    return _key(client, "Marta")


@pytest.fixture
def brakka(client: TestClient, marta: dict[str, str]) -> dict[str, Any]:
    return _entry(
        client,
        marta,
        kind="character",
        ruleset="novus",
        name="Brakka",
        side="players",
        stats=novus_stats(30),
    )


@pytest.fixture
def goblin(client: TestClient, marta: dict[str, str]) -> dict[str, Any]:
    return _entry(
        client,
        marta,
        kind="creature",
        ruleset="novus",
        name="Goblin",
        side="foes",
        stats=novus_stats(12),
    )


def test_given_one_account_key_when_three_fights_are_run_then_wounds_carry_forward(
    client: TestClient, marta: dict[str, str], brakka: dict[str, Any], goblin: dict[str, Any]
) -> None:
    # fight 1: the bestiary only
    first = fight(client, marta, "Ambush at the ford")
    _copy(client, marta, first, goblin["id"])
    # fight 2: Brakka from the roster takes 12 damage and a bleeding wound; the fight ends
    second = fight(client, marta, "The bridge")
    him = _copy(client, marta, second, brakka["id"])
    assert him["combatant"]["name"] == "Brakka"
    assert him["combatant"]["hits"] == 30
    _copy(client, marta, second, goblin["id"])
    _gm(client, marta, second, {"type": "adjust_hits", "combatant": him["id"], "amount": -12})
    _gm(
        client,
        marta,
        second,
        {"type": "set_condition", "combatant": him["id"], "condition": "bleeding", "rate": 2},
    )
    _gm(client, marta, second, {"type": "end_encounter"})
    position = len(_events(client, marta, second))

    r = client.post(
        f"/roster/{brakka['id']}/carry",
        json={"encounter": second, "combatant": him["id"]},
        headers=marta,
    )
    assert r.status_code == 200, r.text
    carried = r.json()
    assert carried["lasting"] == {"hits": 18, "wounds": [{"rate": 2}], "stabilised": False}
    assert carried["carried_from"]["encounter"] == second
    assert carried["carried_from"]["position"] == position
    assert carried["carried_from"]["ended"] is True
    assert carried["version"] == 2

    # fight 3: he starts wounded, through the encounter's own events
    third = fight(client, marta, "The keep")
    again = _copy(client, marta, third, brakka["id"])
    assert again["combatant"]["hits"] == 18
    events = _events(client, marta, third)
    added = next(e for e in events if e["type"] == "CombatantAdded")
    assert added["data"]["stats"]["current_hits"] == 18
    kinds = [e["type"] for e in events]
    assert kinds.count("ConditionApplied") == 1
    notes = [e for e in events if e["type"] == "NoteTaken"]
    assert len(notes) == 1 and brakka["id"] in str(notes[0])
    view = client.get(f"/encounters/{third}", headers=marta).json()
    (wounded,) = [c for c in view["combatants"] if c["name"] == "Brakka"]
    assert (wounded["hits"], wounded["bleeding"], len(wounded["wounds"])) == (18, 2, 1)

    # the entry's history: saved, then the carry with its encounter and position
    r = client.get(f"/roster/{brakka['id']}/history", headers=marta)
    assert r.status_code == 200, r.text
    history = r.json()["events"]
    assert [e["type"] for e in history] == ["RosterEntrySaved", "LastingStateCarried"]
    assert history[1]["data"]["encounter"] == second
    assert history[1]["data"]["position"] == position
    assert history[1]["position"] == 2

    # the account lists its three fights and reads each one's statistics with its key
    r = client.get("/encounters", headers=marta)
    assert r.status_code == 200, r.text
    assert {e["id"] for e in r.json()["encounters"]} == {first, second, third}
    for eid in (first, second, third):
        r = client.get(f"/encounters/{eid}/statistics", headers=marta)
        assert r.status_code == 200, r.text


def test_given_a_creature_when_copied_twice_into_one_fight_then_two_combatants(
    client: TestClient, marta: dict[str, str], goblin: dict[str, Any]
) -> None:
    eid = fight(client, marta, "Goblin cave")
    one = _copy(client, marta, eid, goblin["id"])
    two = _copy(client, marta, eid, goblin["id"])
    named = _copy(client, marta, eid, goblin["id"], name="Goblin boss", side="boss")
    assert one["id"] != two["id"]
    assert [one["combatant"]["name"], two["combatant"]["name"]] == ["Goblin", "Goblin 2"]
    assert named["combatant"]["name"] == "Goblin boss"
    view = client.get(f"/encounters/{eid}", headers=marta).json()
    assert len(view["combatants"]) == 3


def test_given_another_accounts_key_when_any_roster_route_is_asked_then_404(
    client: TestClient, marta: dict[str, str], brakka: dict[str, Any]
) -> None:
    olaf = _key(client, "Olaf")
    his_fight = fight(client, olaf, "Olaf's fight")
    marta_fight = fight(client, marta, "Marta's fight")
    entry = brakka["id"]
    asked = [
        client.get(f"/roster/{entry}", headers=olaf),
        client.get(f"/roster/{entry}/history", headers=olaf),
        client.post(f"/roster/{entry}/stats", json={"stats": novus_stats(31)}, headers=olaf),
        client.post(
            f"/roster/{entry}/carry",
            json={"encounter": marta_fight, "combatant": "x"},
            headers=olaf,
        ),
        client.post(f"/roster/{entry}/rest", json={}, headers=olaf),
        client.delete(f"/roster/{entry}", headers=olaf),
        client.post(
            f"/encounters/{his_fight}/combatants", json={"from_roster": entry}, headers=olaf
        ),
    ]
    for r in asked:
        assert r.status_code == 404, r.text
        assert r.headers["content-type"].startswith("application/problem+json")
    assert asked[-1].json()["field"] == "from_roster"
    assert client.get("/roster", headers=olaf).json()["entries"] == []
    # and Marta's own entry is unchanged
    assert client.get(f"/roster/{entry}", headers=marta).json()["version"] == 1


def test_given_no_account_key_when_the_roster_is_asked_then_401(client: TestClient) -> None:
    r = client.get("/roster")
    assert r.status_code == 401, r.text
    assert r.json()["field"] == "Authorization"


def test_given_the_encounter_token_when_copying_from_the_roster_then_404_naming_it(
    client: TestClient, marta: dict[str, str], brakka: dict[str, Any]
) -> None:
    r = client.post("/encounters", json={"name": "Open table", "ruleset": "novus"})
    assert r.status_code == 201, r.text
    token = {"Authorization": f"Bearer {r.json()['gm_token']}"}
    r = client.post(
        f"/encounters/{r.json()['id']}/combatants",
        json={"from_roster": brakka["id"]},
        headers=token,
    )
    assert r.status_code == 404, r.text
    assert r.json()["field"] == "from_roster"


def test_given_stats_the_book_refuses_when_saved_or_revised_then_422_naming_the_field(
    client: TestClient, marta: dict[str, str], brakka: dict[str, Any]
) -> None:
    body = {"kind": "character", "ruleset": "novus", "name": "Bad", "stats": {"hits": -1}}
    r = client.post("/roster", json=body, headers=marta)
    assert r.status_code == 422, r.text
    assert (r.json()["rule"], r.json()["field"]) == ("NOVUS-STATS", "stats.hits")
    r = client.post(f"/roster/{brakka['id']}/stats", json={"stats": {"hits": 0}}, headers=marta)
    assert r.status_code == 422, r.text
    assert r.json()["field"] == "stats.hits"
    assert client.get("/roster", headers=marta).json()["entries"][0]["name"] == "Brakka"


def test_given_an_entry_of_another_book_when_copied_then_422_ruleset(
    client: TestClient, marta: dict[str, str], brakka: dict[str, Any]
) -> None:
    eid = fight(client, marta, "Wits duel", ruleset="wits")
    r = client.post(
        f"/encounters/{eid}/combatants", json={"from_roster": brakka["id"]}, headers=marta
    )
    assert r.status_code == 422, r.text
    assert (r.json()["rule"], r.json()["field"]) == ("RULESET", "from_roster")


def test_given_stats_and_from_roster_when_adding_then_422(
    client: TestClient, marta: dict[str, str], brakka: dict[str, Any]
) -> None:
    eid = fight(client, marta, "Both")
    r = client.post(
        f"/encounters/{eid}/combatants",
        json={"from_roster": brakka["id"], "stats": novus_stats()},
        headers=marta,
    )
    assert r.status_code == 422, r.text
    r = client.post(f"/encounters/{eid}/combatants", json={"name": "X"}, headers=marta)
    assert r.status_code == 422, r.text


def test_given_entries_when_listed_then_filtered_and_paged(
    client: TestClient, marta: dict[str, str], brakka: dict[str, Any], goblin: dict[str, Any]
) -> None:
    lief = _entry(client, marta, kind="character", ruleset="wits", name="Lief", stats=fighter())
    r = client.get("/roster?kind=character", headers=marta)
    assert [e["name"] for e in r.json()["entries"]] == ["Brakka", "Lief"]
    r = client.get("/roster?ruleset=wits", headers=marta)
    assert [e["id"] for e in r.json()["entries"]] == [lief["id"]]
    seen, after = [], None
    while True:
        r = client.get(
            "/roster", params={"limit": 1, **({"after": after} if after else {})}, headers=marta
        )
        assert r.status_code == 200, r.text
        seen += [e["id"] for e in r.json()["entries"]]
        after = r.json()["next"]
        if after is None:
            break
    assert seen == [brakka["id"], goblin["id"], lief["id"]]
    r = client.get("/roster?ruleset=chess", headers=marta)
    assert r.status_code == 422 and r.json()["field"] == "ruleset"


def test_given_a_revision_rest_and_retirement_then_history_keeps_all_and_copy_refused(
    client: TestClient, marta: dict[str, str], goblin: dict[str, Any]
) -> None:
    entry = goblin["id"]
    r = client.post(
        f"/roster/{entry}/stats",
        json={"stats": novus_stats(14), "name": "Goblin veteran", "expected_version": 1},
        headers=marta,
    )
    assert r.status_code == 200, r.text
    assert (r.json()["name"], r.json()["stats"]["hits"], r.json()["version"]) == (
        "Goblin veteran",
        14,
        2,
    )
    r = client.post(
        f"/roster/{entry}/stats",
        json={"stats": novus_stats(15), "expected_version": 1},
        headers=marta,
    )
    assert r.status_code == 409, r.text
    assert (
        client.post(f"/roster/{entry}/rest", json={"reason": "inn"}, headers=marta).json()[
            "lasting"
        ]
        is None
    )
    r = client.delete(f"/roster/{entry}", headers=marta)
    assert r.status_code == 200 and r.json()["retired"] is True
    assert client.get("/roster", headers=marta).json()["entries"] == []
    listed = client.get("/roster?retired=true", headers=marta).json()["entries"]
    assert [e["retired"] for e in listed] == [True]
    history = client.get(f"/roster/{entry}/history", headers=marta).json()["events"]
    assert [e["type"] for e in history] == [
        "RosterEntrySaved",
        "StatsRevised",
        "RestTaken",
        "RosterEntryRetired",
    ]
    eid = fight(client, marta, "Too late")
    r = client.post(f"/encounters/{eid}/combatants", json={"from_roster": entry}, headers=marta)
    assert r.status_code == 422, r.text
    assert (r.json()["rule"], r.json()["field"]) == ("RETIRED", "from_roster")


def test_given_a_combatant_of_another_accounts_fight_when_carried_then_404_naming_encounter(
    client: TestClient, marta: dict[str, str], brakka: dict[str, Any]
) -> None:
    olaf = _key(client, "Olaf")
    his_fight = fight(client, olaf, "Olaf's fight")
    r = client.post(
        f"/roster/{brakka['id']}/carry",
        json={"encounter": his_fight, "combatant": "x"},
        headers=marta,
    )
    assert r.status_code == 404, r.text
    assert r.json()["field"] == "encounter"
    mine = fight(client, marta, "Mine")
    r = client.post(
        f"/roster/{brakka['id']}/carry", json={"encounter": mine, "combatant": "x"}, headers=marta
    )
    assert r.status_code == 422, r.text
    assert r.json()["field"] == "combatant"


def test_given_roster_events_when_saved_then_the_encounters_notification_log_never_holds_them(
    client: TestClient, marta: dict[str, str]
) -> None:
    fraylog = client.app.state.fraylog
    fight(client, marta, "Den")
    before = fraylog.recorder.max_notification_id()
    assert before
    campaigns = client.app.state.campaigns.get()
    saved_before = campaigns.recorder.max_notification_id() or 0
    entry = _entry(
        client, marta, kind="creature", ruleset="wits", name="Wolf", stats=fighter(health=8)
    )
    client.post(f"/roster/{entry['id']}/rest", json={}, headers=marta)
    assert fraylog.recorder.max_notification_id() == before
    assert campaigns.recorder.max_notification_id() == saved_before + 2
    topics = [n.topic for n in fraylog.notification_log.select(max(1, before - 9), 10)]
    assert topics and not [t for t in topics if t.startswith("domain.roster")]
