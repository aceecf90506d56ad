"""A Novus fight at a real table over HTTP (SQLite and PostgreSQL, tokens on): driven only
by `GET …/choices` and table dice fed one face at a time, it records what the same fight
records with every face sent at once; an open-ended roll and the save it leads to, asked
for face by face, tell their story in `so_far`; a preview changes nothing and, with server
dice, shows no face."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from fastapi.testclient import TestClient

from tests.builders import add_combatant, new_encounter, novus_stats, target_stats
from tests.table_dice import send_http

CAST = {
    "Brakka": (novus_stats(), "heroes"),
    "Goblin": (
        target_stats(def_=18, ar=2, hits=40, weapons=[{"name": "club", "dr": 4, "ranks": 3}]),
        "foes",
    ),
}
# What the table rolls, roll by roll (each face only when the server asks for it): Brakka's
# first attack explodes (10 → 9), the Goblin's implodes (1 → 5) for a Snag Point, the third
# explodes on both dice (10 → 3; 10 → 10 → 2).
FACES = {
    "initiative:Brakka": [7, 9],
    "initiative:Goblin": [3, 4],
    "attack": [10, 7, 9, 1, 2, 5, 8, 8, 10, 10, 3, 10, 2],
}
# The table's script, by the words of the choices: what each one declares, round by round,
# and what he buys with the points of a roll.
DECLARE = {
    ("Goblin", 1): "Goblin declares Basic Melee Attack on Brakka with the club",
    ("Goblin", 2): "Goblin declares Basic Dodge (Combat Move)",
    ("Goblin", 3): "Goblin declares no action",
    ("Brakka", 1): "Brakka declares Basic Melee Attack on Goblin with the sword",
    ("Brakka", 2): "Brakka declares Basic Melee Attack on Goblin with the sword",
    ("Brakka", 3): "Brakka declares Basic Melee Attack on Goblin with the sword",
}
SPEND = {"boons": ["buys Bleeder", "buys Daze Foe"], "snags": ["Strained muscle"]}
MAX_COMMANDS = 40


def table(client: TestClient, dice_source: str = "manual") -> tuple[str, dict[str, str]]:
    eid = new_encounter(client, dice_source)
    ids = {
        name: add_combatant(client, eid, name, stats, side) for name, (stats, side) in CAST.items()
    }
    return eid, ids


def choices(client: TestClient, eid: str) -> dict[str, Any]:
    r = client.get(f"/encounters/{eid}/choices")
    assert r.status_code == 200, r.text
    return r.json()


def events(client: TestClient, eid: str) -> list[dict[str, Any]]:
    r = client.get(f"/encounters/{eid}/events")
    assert r.status_code == 200, r.text
    return r.json()["events"]


def view(client: TestClient, eid: str) -> dict[str, Any]:
    return client.get(f"/encounters/{eid}").json()


def pick(answer: dict[str, Any], state: dict[str, Any], spent: dict[str, int]) -> dict[str, Any]:
    """The script read off the choices by type and label (no rule known to the table)."""
    offered = answer["choices"]

    def first(kind: str, words: str = "") -> dict[str, Any]:
        return next(c for c in offered if c["type"] == kind and words in c["label"])

    step = answer["step"]
    if step == "initiative":
        return next(c for c in offered if c["command"] == {"type": "roll_initiative"})
    if step == "declaration":
        who = next(x["name"] for x in state["combatants"] if x["id"] == state["next_to_declare"])
        return next(
            c
            for c in offered
            if c["type"] == "declare" and c["label"].startswith(DECLARE[who, state["round"]])
        )
    if step in ("boons", "snags"):
        spent[step] += 1
        return first(f"spend_{step}", SPEND[step][spent[step] - 1])
    if step == "resolution":
        return first("resolve")
    return first("end_round")


def play_by_choices(
    client: TestClient, eid: str, ids: dict[str, str]
) -> list[tuple[dict[str, Any], dict[str, list[int]]]]:
    """The fight, to a combatant down: each command as chosen, with the faces the server
    asked for one at a time."""
    rolled: dict[str, Iterator[int]] = {name: iter(f) for name, f in FACES.items()}
    played: list[tuple[dict[str, Any], dict[str, list[int]]]] = []
    spent = {"boons": 0, "snags": 0}
    for _ in range(MAX_COMMANDS):
        state = view(client, eid)
        if any(x["down"] for x in state["combatants"]):
            return played
        answer = choices(client, eid)
        choice = pick(answer, state, spent)
        faces: dict[str, list[int]] = {}

        def face(needed: dict[str, Any], faces: dict[str, list[int]] = faces) -> int:
            assert needed["label"] and needed["for"] in ids.values()
            value = next(rolled[needed["roll"]])
            faces.setdefault(needed["roll"], []).append(value)
            return value

        status, result, asked = send_http(client, eid, choice["command"], face)
        assert status == 200, (choice, result)
        assert sum(len(got) for got in faces.values()) == len(asked)  # no face unasked
        assert {n["roll"] for n in asked} <= set(choice["rolls"])
        if asked:  # the choice said which roll comes first, in the same words
            first = choice["first_roll"]
            assert (first["roll"], first["label"]) == (asked[0]["roll"], asked[0]["label"])
        else:
            assert choice["first_roll"] is None
        played.append((choice["command"], faces))
    raise AssertionError("the fight did not end")


def comparable(client: TestClient, eid: str, ids: dict[str, str]) -> list[tuple[str, Any]]:
    """The events as (type, data), combatant ids named, the dice commitment left out."""
    text = json.dumps([(e["type"], e["data"]) for e in events(client, eid)])
    for name, cid in ids.items():
        text = text.replace(cid, f"<{name}>")
    records = json.loads(text)
    records[0][1].pop("dice_commitment")
    return records


def test_given_a_novus_fight_driven_by_choices_and_table_dice_then_it_records_as_all_at_once(
    client: TestClient,
) -> None:
    eid, ids = table(client)
    played = play_by_choices(client, eid, ids)
    kinds = [body["type"] for body, _ in played]
    assert {"roll_initiative", "declare", "resolve", "spend_boons", "spend_snags"} <= set(kinds)
    assert kinds.count("end_round") == 2  # the Goblin falls in round 3
    assert [faces for _, faces in played if faces][:3] == [
        {"initiative:Brakka": [7, 9], "initiative:Goblin": [3, 4]},
        {"attack": [10, 7, 9]},
        {"attack": [1, 2, 5]},
    ]
    goblin = next(x for x in view(client, eid)["combatants"] if x["name"] == "Goblin")
    assert goblin["dead"]

    again, again_ids = table(client)
    for body, faces in played:
        text = json.dumps(body)
        for name, cid in ids.items():
            text = text.replace(cid, again_ids[name])
        r = client.post(f"/encounters/{again}/commands", json=json.loads(text) | {"dice": faces})
        assert r.status_code == 200, r.text
    assert comparable(client, again, again_ids) == comparable(client, eid, ids)
    told = [
        [x["text"] for x in client.get(f"/encounters/{e}/log").json()["lines"]]
        for e in (eid, again)
    ]
    assert told[0] == told[1]
    assert any("Brakka attacks Goblin: 10→9 + 7" in line for line in told[0])


def test_given_an_exploding_hit_and_a_disarm_when_asked_face_by_face_then_so_far_tells_the_story(
    client: TestClient,
) -> None:
    """Brakka's attack explodes and hits; its Boon Point buys Disarm Foe at once, so the
    Goblin saves vs. Str, and his save implodes: each answer says what came before."""
    eid, ids = table(client)
    for body in (
        {"type": "roll_initiative", "combatant": ids["Brakka"], "ip": 19},
        {"type": "roll_initiative", "combatant": ids["Goblin"], "ip": 10},
        {"type": "declare", "combatant": ids["Goblin"]},
        {
            "type": "declare",
            "combatant": ids["Brakka"],
            "actions": [{"kind": "melee_attack", "target": ids["Goblin"], "weapon": "sword"}],
        },
    ):
        assert client.post(f"/encounters/{eid}/commands", json=body).status_code == 200
    before = events(client, eid)
    body: dict[str, Any] = {"type": "resolve", "boons": [{"name": "disarm_foe"}], "dice": {}}
    story = []
    for roll, value in [
        ("attack", 10),
        ("attack", 7),
        ("attack", 9),
        ("disarm_save", 1),
        ("disarm_save", 3),
        ("disarm_save", 4),
    ]:
        r = client.post(f"/encounters/{eid}/commands", json=body)
        assert r.status_code == 422 and r.json()["rule"] == "DICE_NEEDED", r.text
        problem = r.json()
        assert problem["needed"]["roll"] == roll
        story.append((problem["needed"], [x["text"] for x in problem["so_far"]]))
        body["dice"].setdefault(roll, []).append(value)
        assert events(client, eid) == before  # nothing recorded while a face is missing
    r = client.post(f"/encounters/{eid}/commands", json=body)
    assert r.status_code == 200, r.text

    (a1, none), (a2, _), (a3, rolling), (s1, hit), _, (s3, saving) = story
    assert none == [] and rolling == []  # the attack is told once its dice are all in
    assert (a1["for"], a1["die"], a1["count"], a2["die"], a2["count"]) == (
        ids["Brakka"],
        1,
        2,
        2,
        1,
    )
    assert a1["label"] == (
        "Brakka attacks Goblin with the sword (Basic Melee Attack; DEF 18): open-ended 2d10 "
        "(a 10 explodes, a 1 implodes, a 1 with a 10 is a Nova)"
    )
    assert a3["label"] == (  # NOV-CORE-2
        "Brakka's attack: die A showed 10 — roll it again and add (another 10 goes on)"
    )
    assert (s1["for"], s1["label"]) == (
        ids["Goblin"],
        "Goblin's Save vs. Str (TN 22, Disarm Foe): open-ended 2d10 (a 10 explodes, a 1 "
        "implodes, a 1 with a 10 is a Nova)",
    )
    assert s3["label"] == (  # NOV-CORE-3
        "Goblin's Save: die A showed 1 — roll it again and subtract (another 1 goes on; a 10 "
        "is just −10)"
    )
    assert hit[0].startswith("Round 1: Brakka attacks Goblin: 10→9 + 7")
    assert hit[0].endswith("vs DEF 18: hit by 17, 1 Boon Point(s).")
    assert len(hit) == 3 and "Disarm Foe" in hit[1] and "Goblin" in hit[2]
    assert saving == hit  # the save is told once its dice are all in
    types = [e["type"] for e in r.json()["events"]]
    assert types == [
        "AttackRolled",
        "BoonsSpent",
        "DamageApplied",
        "SaveRolled",
        "ConditionApplied",
    ]


def test_given_a_preview_then_nothing_changes_and_server_dice_stay_unseen(
    client: TestClient,
) -> None:
    """A preview with table dice shows what the faces given decide and the next roll; with
    server dice it stops at the first server roll, shows no face, and the secret revealed
    at the end is not in any preview."""
    eid, ids = table(client)
    for body in (
        {
            "type": "roll_initiative",
            "dice": {"initiative:Brakka": [7, 9], "initiative:Goblin": [3, 4]},
        },
        {"type": "declare", "combatant": ids["Goblin"]},
        {
            "type": "declare",
            "combatant": ids["Brakka"],
            "actions": [{"kind": "melee_attack", "target": ids["Goblin"], "weapon": "sword"}],
        },
    ):
        assert client.post(f"/encounters/{eid}/commands", json=body).status_code == 200
    before, version = events(client, eid), view(client, eid)["version"]
    r = client.post(
        f"/encounters/{eid}/commands?preview=true",
        json={"type": "resolve", "dice": {"attack": [10, 7]}},
    )
    assert r.status_code == 200, r.text
    preview = r.json()
    assert preview["events"] == [] and preview["needed"]["die"] == 3
    assert preview["needed"]["label"].startswith("Brakka's attack: die A showed 10")
    r = client.post(
        f"/encounters/{eid}/commands?preview=true",
        json={"type": "resolve", "dice": {"attack": [10, 7, 9]}},
    )
    assert r.status_code == 200, r.text
    preview = r.json()
    assert [e["type"] for e in preview["events"]] == ["AttackRolled"]
    assert preview["needed"] is None and preview["encounter"]["step"] == "boons"
    assert events(client, eid) == before and view(client, eid)["version"] == version

    served, served_ids = table(client, "server")
    previews, answers = [], []
    for _ in range(2):  # asked twice, it answers the same and draws nothing
        r = client.post(
            f"/encounters/{served}/commands?preview=true", json={"type": "roll_initiative"}
        )
        assert r.status_code == 200, r.text
        previews.append(r.text)
        answer = r.json()
        answers.append(answer["needed"])
        assert answer["events"] == [] and answer["needed"]["source"] == "server"
        assert answer["needed"]["roll"] == "initiative:Brakka"
        assert answer["needed"]["for"] == served_ids["Brakka"]
        assert answer["needed"]["label"].startswith("Brakka's initiative: open-ended 2d10")
    assert answers[0] == answers[1]
    assert view(client, served)["version"] == 3 and len(events(client, served)) == 3
    r = client.post(f"/encounters/{served}/commands", json={"type": "roll_initiative"})
    assert r.status_code == 200, r.text
    rolled = r.json()["events"][0]["data"]["rolls"]["initiative:Brakka"]
    assert rolled["source"] == "server" and "attempt" not in rolled  # the first draw: none burnt
    r = client.post(f"/encounters/{served}/commands", json={"type": "end_encounter"})
    assert r.status_code == 200, r.text
    secret = next(e for e in r.json()["events"] if e["type"] == "DiceSecretRevealed")["data"][
        "secret"
    ]
    assert all(secret not in text for text in previews)
    assert client.get(f"/encounters/{served}/verify").json()["ok"] is True
