"""A full Novus round through the HTTP API with manual dice, on SQLite and PostgreSQL."""

from __future__ import annotations

import dataclasses

from fastapi.testclient import TestClient

from api.main import create_app
from tests.builders import add_combatant, command, new_encounter
from tests.builders.novus import novus_stats, target_stats


def test_given_two_combatants_when_a_full_round_is_played_over_http_then_view_and_log_follow(
    client: TestClient,
) -> None:
    eid = new_encounter(client)
    brakka = add_combatant(
        client, eid, "Brakka", novus_stats(bonuses={"dex": 2, "spd": 2, "wis": 1}), "heroes"
    )
    goblin = add_combatant(client, eid, "Goblin", target_stats(def_=18, ar=6, hits=30), "foes")
    view = client.get(f"/encounters/{eid}").json()
    assert view["step"] == "initiative"

    # Step 1: NOV-TV-13 for Brakka (IP 19); the goblin rolls 3 + 4 + 3 = 10
    out = command(
        client,
        eid,
        {
            "type": "roll_initiative",
            "dice": {"initiative:Brakka": [7, 9], "initiative:Goblin": [3, 4]},
        },
    )
    assert [e["data"]["ip"] for e in out["events"]] == [19, 10]
    assert out["encounter"]["order"] == [brakka, goblin]
    assert out["encounter"]["next_to_declare"] == goblin  # NOV-DECL-1: lowest first

    # Step 2
    command(client, eid, {"type": "declare", "combatant": goblin, "actions": [{"kind": "dodge"}]})
    out = command(
        client,
        eid,
        {
            "type": "declare",
            "combatant": brakka,
            "actions": [{"kind": "melee_attack", "target": goblin, "weapon": "sword"}],
        },
    )
    view = out["encounter"]
    assert view["step"] == "resolution"
    by_name = {c["name"]: c for c in view["combatants"]}
    assert by_name["Brakka"]["action_points_left"] == 1
    assert by_name["Goblin"]["def"] == 21  # 18 + Dodge 3 for the whole round (NOV-DECL-2)

    # Step 3: NOV-TV-40's dice against DEF 21: 35 − 21 = 14 → 1 Boon Point, spent on Bleeder
    attack = view["next_to_resolve"]
    out = command(
        client,
        eid,
        {
            "type": "resolve",
            "action": attack,
            "dice": {"attack": [10, 7, 9]},
            "boons": [{"name": "bleeder"}],
        },
    )
    types = [e["type"] for e in out["events"]]
    assert types == ["AttackRolled", "BoonsSpent", "DamageApplied", "ConditionApplied"]
    damage = out["events"][2]["data"]
    assert (damage["amount"], damage["hits_before"], damage["hits_after"]) == (16, 30, 14)
    assert out["events"][2]["cause"] == out["events"][0]["position"]
    command(client, eid, {"type": "resolve"})  # the goblin's dodge

    # Step 4: upkeep ticks the wound, then round 2 starts at declaration
    out = command(client, eid, {"type": "end_round"})
    assert [e["type"] for e in out["events"]] == ["UpkeepTicked", "RoundEnded"]
    tick = out["events"][0]
    assert tick["cause"] == out["events"][0]["data"]["wound"]
    view = out["encounter"]
    assert (view["round"], view["step"]) == (2, "declaration")
    goblin_view = next(c for c in view["combatants"] if c["id"] == goblin)
    assert (goblin_view["hits"], goblin_view["bleeding"]) == (13, 1)

    lines = [line["text"] for line in client.get(f"/encounters/{eid}/log").json()["lines"]]
    assert "Round 1 upkeep: Goblin bleeds 1 (14 → 13)." in lines
    assert any(line.startswith("Round 1: Brakka attacks Goblin: 10→9 + 7") for line in lines)

    events = client.get(f"/encounters/{eid}/events").json()["events"]
    assert [e["position"] for e in events] == list(range(1, view["version"] + 1))
    past = client.get(f"/encounters/{eid}", params={"version": 5}).json()
    assert past["version"] == 5 and past["step"] == "declaration"


def test_given_an_encounter_when_exporting_then_ndjson_and_csv_carry_every_event(
    client: TestClient,
) -> None:
    eid = new_encounter(client)
    add_combatant(client, eid, "A", novus_stats())
    command(client, eid, {"type": "roll_initiative", "dice": {"initiative:A": [10, 3, 4]}})
    nd = client.get(f"/encounters/{eid}/events", params={"format": "ndjson"})
    assert nd.headers["content-type"].startswith("application/x-ndjson")
    assert len(nd.text.strip().splitlines()) == 3
    csv = client.get(f"/encounters/{eid}/events", params={"format": "csv"})
    assert csv.headers["content-type"].startswith("text/csv")
    rows = csv.text.strip().splitlines()
    assert rows[0] == "position,type,timestamp,actor,cause,command,voided_by,dice,data,hash"
    assert '{""initiative:A"":[10,3,4]}' in rows[3]
    until = client.get(f"/encounters/{eid}/events", params={"until": 2}).json()["events"]
    assert [e["position"] for e in until] == [1, 2]


def test_given_encounters_when_listing_open_then_each_appears_once(fraylog) -> None:
    fraylog.settings = dataclasses.replace(fraylog.settings, auth=False)  # --no-auth
    with TestClient(create_app(fraylog=fraylog)) as client:
        ids = {new_encounter(client), new_encounter(client)}
        listed = client.get("/encounters", params={"limit": 1000}).json()["encounters"]
    assert ids <= {e["id"] for e in listed} and len(listed) == len({e["id"] for e in listed})


def test_given_a_token_when_listing_then_only_its_encounter_is_listed(client: TestClient) -> None:
    new_encounter(client)
    mine = new_encounter(client)  # the client sends the newest GM token
    listed = client.get("/encounters").json()["encounters"]
    assert [e["id"] for e in listed] == [mine]
    r = client.get("/encounters", headers={"Authorization": "Bearer nope"})
    assert r.status_code == 401 and r.json()["rule"] == "TOKEN"
