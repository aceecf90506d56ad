"""A Wits fight over HTTP on both stores: server dice, the record (verify, log, CSV export,
fork), a refusal that records nothing."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.builders.wits import farthan, fighter


def post(client: TestClient, eid: str, body: dict[str, Any], status: int = 200) -> dict:
    r = client.post(f"/encounters/{eid}/commands", json=body)
    assert r.status_code == status, r.text
    return r.json()


def test_given_a_wits_fight_with_server_dice_when_audited_then_chain_dice_log_and_fork_hold(
    client: TestClient,
) -> None:
    r = client.post("/encounters", json={"name": "Ford", "ruleset": "wits"})
    assert r.status_code == 201, r.text
    eid = r.json()["id"]
    ids = {}
    for name, stats in (("Vartok", fighter(wits=14)), ("Farthan", farthan())):
        r = client.post(f"/encounters/{eid}/combatants", json={"name": name, "stats": stats})
        assert r.status_code == 201, r.text
        assert r.json()["combatant"]["health"] == 20
        ids[name] = r.json()["id"]
    post(client, eid, {"type": "roll_initiative"})
    charge = {
        "type": "attack",
        "combatant": ids["Vartok"],
        "target": ids["Farthan"],
        "weapon": "short sword",
        "charge": True,
        "distance_ft": 16.5,
        "defense": {"kind": "block", "mode": "total_single"},
    }
    result = post(client, eid, charge)
    types = [e["type"] for e in result["events"]]
    assert types[:3] == ["Moved", "AttackAnnounced", "DefenseDeclared"]
    assert "AttackTestRolled" in types
    assert result["encounter"]["ruleset"] == "wits"
    # a refused command records nothing
    before = client.get(f"/encounters/{eid}").json()["version"]
    problem = post(client, eid, {"type": "aim", "combatant": ids["Vartok"]}, status=422)
    assert problem["rule"] == "WIT-ORD-1"  # both turns are over
    assert client.get(f"/encounters/{eid}").json()["version"] == before
    post(client, eid, {"type": "end_round"})

    verified = client.get(f"/encounters/{eid}/verify").json()
    assert verified["ok"] and verified["chain"]["ok"]
    log = client.get(f"/encounters/{eid}/log").json()["lines"]
    assert any("moves 5.5 m, charging Farthan" in line["text"] for line in log)
    assert any("Total Defense against this attack" in line["text"] for line in log)
    csv = client.get(f"/encounters/{eid}/events", params={"format": "csv"}).text
    assert "AttackTestRolled" in csv
    fork = client.post(f"/encounters/{eid}/fork", json={"at": before, "name": "What if"})
    assert fork.status_code == 201, fork.text
    then = client.get(f"/encounters/{eid}", params={"version": before}).json()
    assert fork.json()["combatants"] == then["combatants"]
