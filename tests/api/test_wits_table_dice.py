"""A Wits fight at a real table over HTTP (SQLite and PostgreSQL, tokens on): driven only
by `GET …/choices` and table dice fed one face at a time, it records what the same fight
records with every face sent at once; a roll-up asked for face by face tells its story in
`so_far`; a preview changes nothing and, with server dice, shows no face."""

from __future__ import annotations

import itertools
from typing import Any

from fastapi.testclient import TestClient

from tests.builders.wits import farthan, fighter
from tests.choices_play import (
    events,
    play_by_choices,
    replayed_at_once,
    seat,
    secret_unseen,
    told_face_by_face,
    view,
)

GOBLIN = fighter(
    wits=10,
    health=25,
    skills={"short sword": 11},
    weapons=[{"name": "short sword", "damage": "1d8", "skill": "short sword"}],
)
CAST = {
    "Lief": (fighter(health=40), "heroes"),
    "Farthan": (farthan(health=40), "foes"),
    "Goblin": (GOBLIN, "foes"),
}
# What the table rolls, roll by roll (each face only when the server asks for it): the
# Goblin and Farthan tie at Wits 10 and roll again; damage dice roll up now and then.
FACES = {
    "tie:Farthan": [4, 5],
    "tie:Goblin": [4, 2],
    "attack": [3, 12, 5, 17, 2, 9, 4, 11],
    "defense": [15, 4, 18, 7],
    "damage": [8, 3, 6, 2, 4, 1, 5, 2, 3, 1, 6, 1, 2],
    "strength": [14, 3],
}
MAX_COMMANDS = 80


def table(client: TestClient, dice_source: str = "manual") -> tuple[str, dict[str, str]]:
    return seat(client, "wits", CAST, dice_source)


def pick(answer: dict[str, Any], state: dict[str, Any], knocked: set[int]) -> dict[str, Any]:
    """The table's script, read off the choices by type and label: everyone placed; Lief
    aims once, then everyone attacks the first foe offered with his short sword; a target
    blocks (or parries) with a Basic Defense while he can; the GM rules the first hit of
    each round a knock-back; the round ends when every turn is over."""
    offered = answer["choices"]
    by_type = {
        kind: [c for c in offered if c["type"] == kind] for kind in {c["type"] for c in offered}
    }
    if answer["step"] == "order":
        return next(
            c for c in by_type["roll_initiative"] if c["command"] == {"type": "roll_initiative"}
        )
    for knock in by_type.get("knock_back", []):
        if state["round"] not in knocked:
            knocked.add(state["round"])
            return knock
    if answer["step"] == "attack":
        for how in ("blocks", "parries with the short sword"):
            for c in by_type.get("defend", []):
                if how in c["label"] and "Basic Defense" in c["label"]:
                    return c
        return by_type["roll_attack"][0]
    if answer["step"] == "end_round":
        return by_type["end_round"][0]
    acting = answer["acting"]
    mine = [c for c in offered if c["combatant"] == acting]
    me = next(x for x in state["combatants"] if x["id"] == acting)
    if me["name"] == "Lief" and state["round"] == 1 and me["aim"] == 0:
        return next(c for c in mine if c["type"] == "aim")
    swings = [
        c
        for c in mine
        if c["type"] == "attack"
        and c["command"]["weapon"] == "short sword"
        and not c["command"].get("charge")
    ]
    return swings[0] if swings else next(c for c in mine if c["type"] == "end_turn")


def test_given_a_wits_fight_driven_by_choices_and_table_dice_then_it_records_as_all_at_once(
    client: TestClient,
) -> None:
    eid, ids = table(client)
    rolled = {name: itertools.cycle(faces) for name, faces in FACES.items()}
    knocked: set[int] = set()
    played = play_by_choices(
        client,
        eid,
        ids,
        pick=lambda answer, state: pick(answer, state, knocked),
        face=lambda needed: min(next(rolled[needed["roll"]]), needed["sides"]),
        over=lambda state: state["round"] > 3 or any(x["down"] for x in state["combatants"]),
        max_commands=MAX_COMMANDS,
    )
    kinds = {body["type"] for body, _ in played}
    assert {"roll_initiative", "aim", "attack", "defend", "roll_attack", "knock_back"} <= kinds
    assert "end_round" in kinds
    rolled_names = {name for _, faces in played for name in faces}
    assert {"tie:Farthan", "attack", "defense", "damage", "strength"} <= rolled_names

    told = replayed_at_once(client, eid, ids, played, table(client))
    assert any("rolling up: [8+3]" in line for line in told)


def test_given_a_hit_when_its_damage_rolls_up_face_by_face_then_so_far_tells_the_story(
    client: TestClient,
) -> None:
    """Lief attacks at once and Farthan blocks: the attack and the Block are rolled, the d8
    shows 8 and rolls up, then the Base Damage d6; each answer says what came before."""
    eid, ids = table(client)
    client.post(
        f"/encounters/{eid}/commands",
        json={"type": "roll_initiative", "dice": {"tie:Farthan": [5], "tie:Goblin": [2]}},
    )
    answer, story = told_face_by_face(
        client,
        eid,
        {
            "type": "attack",
            "combatant": ids["Lief"],
            "target": ids["Farthan"],
            "weapon": "short sword",
            "defense": {"kind": "block"},
        },
        [
            ("attack", 3),
            ("defense", 15),
            ("damage", 8),
            ("damage", 8),
            ("damage", 2),
            ("damage", 4),
        ],
    )

    (attack, announced), (block, _), (d8, rolled), (again, _), (twice, _), (d6, _) = story
    assert attack["for"] == ids["Lief"] and block["for"] == ids["Farthan"]
    assert attack["label"] == "Lief's short sword attack on Farthan: 1d20, 13 or less"
    assert block["label"] == "Farthan's Block (Basic Defense) against Lief: 1d20, 11 or less"
    assert announced == [
        "Lief attacks Farthan with short sword.",
        "Farthan will block (Basic Defense) at 7 (half shield) +2 shield defense +2 armour "
        "defense = 11.",
    ]
    assert rolled == [
        *announced,
        "Lief rolls 3 vs 13 (short sword): success; Farthan's block 15 vs 11 fails → hit.",
    ]
    assert rolled[-1].endswith("→ hit.") and "block 15 vs 11 fails" in rolled[-1]
    assert (d8["die"], d8["count"], again["die"], again["count"]) == (1, 2, 2, 2)
    assert "the d8 (short sword) showed an 8: it rolls up" in again["label"]
    assert "showed an 8 again (8 + 8 so far)" in twice["label"]
    assert (d6["die"], d6["sides"], d6["count"]) == (4, 6, 1)
    damage = next(e for e in answer["events"] if e["type"] == "DamageApplied")
    assert damage["data"]["rolls"]["damage"]["dice"][0]["faces"] == [8, 8, 2]


def test_given_a_preview_then_nothing_changes_and_server_dice_stay_unseen(
    client: TestClient,
) -> None:
    """A preview with table dice shows what the faces given decide and the next roll; with
    server dice it stops at the first server roll, shows no face, and the secret revealed
    at the end is not in any preview."""
    eid, ids = table(client)
    client.post(
        f"/encounters/{eid}/commands",
        json={"type": "roll_initiative", "dice": {"tie:Farthan": [5], "tie:Goblin": [2]}},
    )
    attack = {
        "type": "attack",
        "combatant": ids["Lief"],
        "target": ids["Farthan"],
        "weapon": "short sword",
    }
    before, version = events(client, eid), view(client, eid)["version"]
    r = client.post(
        f"/encounters/{eid}/commands?preview=true", json=attack | {"dice": {"attack": [3]}}
    )
    assert r.status_code == 200, r.text
    preview = r.json()
    assert [e["type"] for e in preview["events"]] == ["AttackAnnounced", "AttackTestRolled"]
    assert preview["needed"]["roll"] == "damage" and preview["needed"]["for"] == ids["Lief"]
    assert events(client, eid) == before and view(client, eid)["version"] == version

    served, served_ids = table(client, "server")
    r = client.post(f"/encounters/{served}/commands", json={"type": "roll_initiative"})
    assert r.status_code == 200, r.text
    body = attack | {"combatant": served_ids["Lief"], "target": served_ids["Farthan"]}
    before, version = events(client, served), view(client, served)["version"]
    previews, answers = [], []
    for _ in range(2):  # asked twice, it answers the same and draws nothing
        r = client.post(f"/encounters/{served}/commands?preview=true", json=body)
        assert r.status_code == 200, r.text
        previews.append(r.text)
        answer = r.json()
        answers.append((answer["needed"], [(e["type"], e["data"]) for e in answer["events"]]))
        assert answer["needed"]["source"] == "server" and answer["needed"]["roll"] == "attack"
        assert answer["needed"]["for"] == served_ids["Lief"]
        assert answer["needed"]["label"] == (
            "Lief's short sword attack on Farthan: 1d20, 13 or less"
        )
        assert [e["type"] for e in answer["events"]] == ["AttackAnnounced"]
    assert answers[0] == answers[1]
    assert view(client, served)["version"] == version
    assert events(client, served) == before
    r = client.post(f"/encounters/{served}/commands", json=body)
    assert r.status_code == 200, r.text
    rolled = next(e for e in r.json()["events"] if e["type"] == "AttackTestRolled")
    assert rolled["data"]["rolls"]["attack"]["source"] == "server"
    secret_unseen(client, served, previews)
