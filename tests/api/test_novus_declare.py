"""Novus declarations over HTTP (SQLite and PostgreSQL): a round whose whole AP budget a
multi-round action carried away takes no new action (NOV-DECL-3, Default NOV-AMB-10)."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.builders import add_combatant, command, new_encounter
from tests.builders.novus import novus_stats, target_stats


def test_given_a_heavy_crossbow_reload_took_round_2_when_drawing_a_weapon_then_422_nothing_recorded(
    client: TestClient,
) -> None:
    eid = new_encounter(client)
    a = add_combatant(client, eid, "A", novus_stats())
    b = add_combatant(client, eid, "B", target_stats())
    command(client, eid, {"type": "roll_initiative", "combatant": a, "ip": 19})
    command(client, eid, {"type": "roll_initiative", "combatant": b, "ip": 12})
    command(client, eid, {"type": "declare", "combatant": b, "actions": []})
    reload = [{"kind": "reload_heavy_crossbow"}]  # 10 AP: 5 now, 5 carried into round 2
    command(client, eid, {"type": "declare", "combatant": a, "actions": reload})
    command(client, eid, {"type": "end_round"})
    command(client, eid, {"type": "declare", "combatant": b, "actions": []})
    before = client.get(f"/encounters/{eid}").json()
    assert before["round"] == 2
    assert next(x for x in before["combatants"] if x["id"] == a)["ap_budget"] == 0

    r = client.post(
        f"/encounters/{eid}/commands",
        json={"type": "declare", "combatant": a, "actions": [{"kind": "draw_weapon"}]},
    )

    assert r.status_code == 422, r.text
    assert r.headers["content-type"] == "application/problem+json"
    problem = r.json()
    assert (problem["rule"], problem["field"]) == ("NOV-DECL-3", "actions")
    after = client.get(f"/encounters/{eid}").json()
    assert after["version"] == before["version"] and after["next_to_declare"] == a
    offered = client.get(f"/encounters/{eid}/choices").json()["choices"]
    declares = [x["command"]["actions"] for x in offered if x["type"] == "declare"]
    assert declares == [[]]  # A declares nothing, B has declared
