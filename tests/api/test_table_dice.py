"""Table dice one face at a time, preview and choices, whatever the rule book: a missing
face records nothing and asks for the next roll; a preview changes nothing and draws no
server die; choices follow the token."""

from __future__ import annotations

import json
from typing import Any

from fastapi.testclient import TestClient

from tests.builders import add_combatant, new_encounter
from tests.builders.wits import farthan, fighter
from tests.table_dice import send_http


def wits_fight(client: TestClient, dice_source: str = "manual") -> tuple[str, dict[str, str]]:
    """Given Vartok (Wits 14) and Farthan placed in the order: Vartok's turn."""
    eid = new_encounter(client, dice_source, ruleset="wits")
    ids = {
        "Vartok": add_combatant(client, eid, "Vartok", fighter(wits=14), "heroes"),
        "Farthan": add_combatant(client, eid, "Farthan", farthan(), "foes"),
    }
    r = client.post(f"/encounters/{eid}/commands", json={"type": "roll_initiative"})
    assert r.status_code == 200, r.text
    return eid, ids


def swing(ids: dict[str, str], **dice: list[int]) -> dict[str, Any]:
    body: dict[str, Any] = {
        "type": "attack",
        "combatant": ids["Vartok"],
        "target": ids["Farthan"],
        "weapon": "short sword",
    }
    return body | ({"dice": dice} if dice else {})


def log_of(client: TestClient, eid: str) -> list[dict[str, Any]]:
    return client.get(f"/encounters/{eid}/events").json()["events"]


def test_given_table_dice_when_a_face_is_missing_then_dice_needed_names_the_next_roll(
    client: TestClient,
) -> None:
    eid, ids = wits_fight(client)
    before = log_of(client, eid)
    r = client.post(f"/encounters/{eid}/commands", json=swing(ids, attack=[3]))
    assert r.status_code == 422
    assert r.headers["content-type"].startswith("application/problem+json")
    problem = r.json()
    assert problem["rule"] == "DICE_NEEDED" and problem["field"] == "dice.damage"
    needed = problem["needed"]
    assert (needed["roll"], needed["die"], needed["sides"]) == ("damage", 1, 8)
    assert needed["for"] == ids["Vartok"] and needed["count"] >= 1
    assert needed["label"]  # in the table's words (each rule book words its own)
    # so far: the attack was announced and the 3 hit; nothing of it is recorded
    assert [e["type"] for e in problem["so_far"]] == ["AttackAnnounced", "AttackTestRolled"]
    assert problem["so_far"][1]["data"]["hit"] is True
    assert "hit" in problem["so_far"][1]["text"]
    assert log_of(client, eid) == before


def test_given_faces_fed_one_at_a_time_then_the_record_is_as_if_sent_at_once(
    client: TestClient,
) -> None:
    eid, ids = wits_fight(client)
    faces = iter([3, 8, 5, 2])  # the attack hits; the 8 of the d8 rolls up; then Strength's d6
    status, answer, asked = send_http(client, eid, swing(ids), lambda needed: next(faces))
    assert status == 200, answer
    assert [(n["roll"], n["die"], n["sides"]) for n in asked] == [
        ("attack", 1, 20),
        ("damage", 1, 8),
        ("damage", 2, 8),
        ("damage", 3, 6),
    ]
    again, again_ids = wits_fight(client)
    at_once = client.post(
        f"/encounters/{again}/commands", json=swing(again_ids, attack=[3], damage=[8, 5, 2])
    ).json()

    def facts(events: list[dict[str, Any]], ids: dict[str, str]) -> list[Any]:
        names = {v: k for k, v in ids.items()}
        return [
            (
                e["type"],
                {
                    k: names.get(v, v) if isinstance(v, str) else v
                    for k, v in e["data"].items()
                    if k != "action"
                },
            )
            for e in events
        ]

    assert facts(answer["events"], ids) == facts(at_once["events"], again_ids)


def test_given_faces_the_command_does_not_need_then_a_422_names_them(client: TestClient) -> None:
    eid, ids = wits_fight(client)
    r = client.post(f"/encounters/{eid}/commands", json=swing(ids, attack=[20], damage=[4]))
    assert r.status_code == 422
    assert r.json()["rule"] == "DICE" and r.json()["field"] == "dice.damage"  # a miss


def test_given_a_preview_then_nothing_changes_and_the_would_be_events_are_shown(
    client: TestClient,
) -> None:
    eid, ids = wits_fight(client)
    before = log_of(client, eid)
    key = {"Idempotency-Key": "swing-1"}
    r = client.post(
        f"/encounters/{eid}/commands",
        params={"preview": "true"},
        json=swing(ids, attack=[3]),
        headers=key,
    )
    assert r.status_code == 200, r.text
    preview = r.json()
    assert preview["preview"] is True
    assert [e["type"] for e in preview["events"]] == ["AttackAnnounced", "AttackTestRolled"]
    assert preview["events"][1]["text"].startswith("Vartok rolls 3 vs 13")  # its log line
    assert preview["needed"]["roll"] == "damage"
    assert preview["encounter"]["version"] == before[-1]["position"] + 2
    assert log_of(client, eid) == before
    # the idempotency key was not taken by the preview: the real command uses it afresh
    real = client.post(f"/encounters/{eid}/commands", json=swing(ids, attack=[19]), headers=key)
    assert real.status_code == 200 and "Idempotent-Replayed" not in real.headers
    assert real.json()["events"][-1]["data"]["hit"] is False
    # a complete command previews whole, with nothing needed
    whole = client.post(
        f"/encounters/{eid}/commands",
        params={"preview": "true"},
        json={"type": "end_turn", "combatant": ids["Vartok"]},
    ).json()
    assert whole["needed"] is None and [e["type"] for e in whole["events"]] == ["TurnEnded"]


def test_given_server_dice_when_previewed_then_no_server_die_is_drawn_or_shown(
    client: TestClient,
) -> None:
    eid, ids = wits_fight(client, "server")
    answers = []
    for _ in range(3):
        r = client.post(f"/encounters/{eid}/commands", params={"preview": "true"}, json=swing(ids))
        assert r.status_code == 200, r.text
        answers.append(r.text)
        preview = r.json()
        assert preview["needed"]["roll"] == "attack" and preview["needed"]["source"] == "server"
        assert [e["type"] for e in preview["events"]] == ["AttackAnnounced"]
    real = client.post(f"/encounters/{eid}/commands", json=swing(ids)).json()
    rolled = next(e for e in real["events"] if e["type"] == "AttackTestRolled")
    assert "attempt" not in rolled["data"]["rolls"]["attack"]  # no draw was burnt before it
    ended = client.post(f"/encounters/{eid}/commands", json={"type": "end_encounter"}).json()
    secret = ended["events"][-1]["data"]["secret"]
    assert all(secret not in text for text in answers)
    # no preview showed a face: none of its events holds a roll
    assert all(not e["data"].get("rolls") for text in answers for e in json.loads(text)["events"])
    verified = client.get(f"/encounters/{eid}/verify").json()
    assert verified["ok"], verified


def test_given_a_preview_of_a_void_then_the_cascade_is_shown_and_nothing_voided(
    client: TestClient,
) -> None:
    eid, ids = wits_fight(client)
    hit = client.post(f"/encounters/{eid}/commands", json=swing(ids, attack=[3], damage=[4, 2]))
    first = hit.json()["events"][0]["position"]
    before = log_of(client, eid)
    preview = client.post(
        f"/encounters/{eid}/commands",
        params={"preview": "true"},
        json={"type": "void", "target": first + 1, "reason": "the die fell off the table"},
    ).json()
    assert preview["events"][0]["type"] == "RollVoided"
    assert preview["events"][0]["data"]["cascade"] == [first + 1, first + 2]
    assert preview["encounter"]["combatants"][1]["health"] == 20
    assert log_of(client, eid) == before
    refused = client.post(
        f"/encounters/{eid}/commands", params={"preview": "true"}, json={"type": "end_encounter"}
    )
    assert refused.status_code == 422 and refused.json()["rule"] == "PREVIEW"
    assert log_of(client, eid) == before


def test_given_a_player_token_then_choices_are_his_and_the_gm_has_overrides_and_corrections(
    client: TestClient,
) -> None:
    eid, ids = wits_fight(client)
    gm = client.get(f"/encounters/{eid}/choices").json()
    assert gm["role"] == "gm" and gm["version"] == 5
    assert {f["type"] for f in gm["overrides"]} >= {"adjust_hits", "set_condition"}
    assert {f["type"] for f in gm["corrections"]} == {"undo", "void"}  # nothing to redo
    minted = client.post(f"/encounters/{eid}/tokens", json={"combatants": [ids["Farthan"]]})
    player = {"Authorization": f"Bearer {minted.json()['token']}"}
    mine = client.get(f"/encounters/{eid}/choices", headers=player).json()
    assert mine["role"] == "player" and mine["combatants"] == [ids["Farthan"]]
    assert mine["overrides"] == [] and mine["corrections"] == []
    assert all(choice["combatant"] == ids["Farthan"] for choice in mine["choices"])
    client.post(f"/encounters/{eid}/commands", json={"type": "undo"})
    gm = client.get(f"/encounters/{eid}/choices").json()
    assert {f["type"] for f in gm["corrections"]} == {"undo", "redo", "void"}
