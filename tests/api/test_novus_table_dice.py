"""A Novus fight at a real table over HTTP (SQLite and PostgreSQL, tokens on): driven only
by `GET …/choices` and table dice fed one face at a time, it records what the same fight
records with every face sent at once; an open-ended roll and the save it leads to, asked
for face by face, tell their story in `so_far`; a preview changes nothing and, with server
dice, shows no face."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.builders.novus import novus_stats, target_stats
from tests.choices_play import (
    events,
    play_by_choices,
    replayed_at_once,
    seat,
    secret_unseen,
    told_face_by_face,
    view,
)

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
    return seat(client, "novus", CAST, dice_source)


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


def test_given_a_novus_fight_driven_by_choices_and_table_dice_then_it_records_as_all_at_once(
    client: TestClient,
) -> None:
    eid, ids = table(client)
    rolled = {name: iter(faces) for name, faces in FACES.items()}
    spent = {"boons": 0, "snags": 0}
    played = play_by_choices(
        client,
        eid,
        ids,
        pick=lambda answer, state: pick(answer, state, spent),
        face=lambda needed: next(rolled[needed["roll"]]),
        over=lambda state: any(x["down"] for x in state["combatants"]),  # a combatant down
        max_commands=MAX_COMMANDS,
    )
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

    told = replayed_at_once(client, eid, ids, played, table(client))
    assert any("Brakka attacks Goblin: 10→9 + 7" in line for line in told)


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
    answer, story = told_face_by_face(
        client,
        eid,
        {"type": "resolve", "boons": [{"name": "disarm_foe"}]},
        [
            ("attack", 10),
            ("attack", 7),
            ("attack", 9),
            ("disarm_save", 1),
            ("disarm_save", 3),
            ("disarm_save", 4),
        ],
    )

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
        "Goblin's Save vs. Str (Disarm Foe): open-ended 2d10 (a 10 explodes, a 1 "
        "implodes, a 1 with a 10 is a Nova)",
    )
    assert s3["label"] == (  # NOV-CORE-3
        "Goblin's Save: die A showed 1 — roll it again and subtract (another 1 goes on; a 10 "
        "is just −10)"
    )
    assert hit[0].startswith("Round 1: Brakka attacks Goblin: 10→9 + 7")
    assert hit[0].endswith("vs DEF 18: hit by 17, 1 Boon Point.")
    assert len(hit) == 3 and "Disarm Foe" in hit[1] and "Goblin" in hit[2]
    assert saving == hit  # the save is told once its dice are all in
    types = [e["type"] for e in answer["events"]]
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
    secret_unseen(client, served, previews)
