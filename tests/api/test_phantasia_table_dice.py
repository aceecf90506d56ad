"""PHANTÄSIA at a real table, over HTTP with tokens: a whole fight driven only by GET
…/choices and dice fed one face at a time records what the same fight sent at once does;
a damage roll that drops a creature asks for the death check with the story so far; a
preview changes nothing, and with server dice draws and shows no die."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from tests.choices_play import (
    Played,
    choices_of,
    events,
    of,
    replayed_at_once,
    seat,
    secret_unseen,
    send_choice,
    view,
)
from tests.domain.test_phantasia import creature, pc

CAST = {"Endimion": (pc(), "heroes"), "Orc": (creature(), "foes")}


def duel(client: TestClient, dice_source: str = "manual") -> tuple[str, dict[str, str]]:
    """Given Endimion (a player character, 32 PV) and an Orc (the narrator's, 30 PV)."""
    return seat(client, "phantasia", CAST, dice_source)


def choice_of(
    client: TestClient, eid: str, kind: str, label: str = "", who: str | None = None
) -> dict[str, Any]:
    """The one choice offered now of this type whose label has `label` (the first)."""
    answer = choices_of(client, eid)
    found = [c for c in of(answer, kind, who) if label in c["label"]]
    assert found, f"no {kind} {label!r} among {[c['label'] for c in answer['choices']]}"
    return found[0]


def choose(
    client: TestClient, eid: str, kind: str, label: str = "", who: str | None = None
) -> dict[str, Any]:
    """The command of the one choice offered now of this type whose label has `label`."""
    return choice_of(client, eid, kind, label, who)["command"]


class Table:
    """Faces the table rolls, by roll name in order; none is given that was not scripted."""

    def __init__(self, faces: dict[str, list[int]]) -> None:
        self.faces = {k: list(v) for k, v in faces.items()}

    def __call__(self, needed: dict[str, Any]) -> int:
        assert self.faces.get(needed["roll"]), f"not scripted: {needed}"
        return self.faces[needed["roll"]].pop(0)


def play(
    client: TestClient,
    eid: str,
    ids: dict[str, str],
    choice: dict[str, Any],
    faces: dict[str, list[int]],
) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, list[int]]]:
    """`choice` sent one face at a time (`send_choice`), every face scripted used: (the
    answer, each `needed` in turn, the faces)."""
    table = Table(faces)
    answer, asked, given = send_choice(client, eid, choice, table, ids)
    assert not any(table.faces.values()), f"faces left over: {table.faces}"
    return answer, asked, given


# the fight: who picks what, and the faces the table rolls for it
Step = tuple[str, str, Callable[[dict[str, str]], str | None], dict[str, list[int]]]
FIGHT: list[Step] = [
    # initiative: Endimion 10 + AGI 8 = 18, the Orc 3 + 6 = 9
    (
        "roll_initiative",
        "everyone",
        lambda ids: None,
        {"initiative:Endimion": [10], "initiative:Orc": [3]},
    ),
    ("start_turn", "Start Endimion's turn", lambda ids: ids["Endimion"], {}),
    # AT 5 ≤ 6 hits; 1d8 4 + FUE adj 0 + level 5 = 9: 30 → 21 PV
    ("attack_check", "attacks Orc with sword", lambda ids: ids["Endimion"], {"attack": [5]}),
    ("roll_damage", "", lambda ids: ids["Endimion"], {"damage": [4]}),
    ("act", "Move up to", lambda ids: ids["Endimion"], {}),
    ("end_turn", "", lambda ids: ids["Endimion"], {}),
    ("start_turn", "Start Orc's turn", lambda ids: ids["Orc"], {}),
    # Endimion rolls DF against the axe: 12 fumbles, double damage: (6 + 0 + 1) × 2 = 14
    ("attack_check", "attacks Endimion with axe (AT)", lambda ids: ids["Orc"], {"defense": [12]}),
    ("roll_damage", "", lambda ids: ids["Orc"], {"damage": [6]}),
    ("end_turn", "", lambda ids: ids["Orc"], {}),
    # round 2: a natural 1, a critical: (8 + 0 + 5) × 2 = 26: 21 → −5 PV, and the death
    # check at once: 4 ≤ 5 kills him
    ("start_turn", "Start Endimion's turn", lambda ids: ids["Endimion"], {}),
    ("attack_check", "attacks Orc with sword", lambda ids: ids["Endimion"], {"attack": [1]}),
    ("roll_damage", "", lambda ids: ids["Endimion"], {"damage": [8], "death": [4]}),
    ("end_turn", "", lambda ids: ids["Endimion"], {}),
]


def test_given_a_fight_driven_by_choices_and_dice_one_at_a_time_then_it_records_as_at_once(
    client: TestClient,
) -> None:
    eid, ids = duel(client)
    sent: Played = []
    every: list[dict[str, Any]] = []
    for kind, label, who, faces in FIGHT:
        choice = choice_of(client, eid, kind, label, who(ids))
        _answer, asked, gathered = play(client, eid, ids, choice, faces)
        assert [n["roll"] for n in asked] == [r for r, fs in faces.items() for _ in fs]
        sent.append((choice["command"], gathered))
        every += asked
    orc = next(c for c in view(client, eid)["combatants"] if c["name"] == "Orc")
    assert orc["dead"] and orc["pv"] == -5
    # whose roll each was: the player rolls his AT and his DF, the narrator only damage
    whose = {(n["roll"], n["for"]) for n in every}
    assert ("defense", ids["Endimion"]) in whose and ("attack", ids["Endimion"]) in whose
    assert ("damage", ids["Orc"]) in whose and ("death", ids["Orc"]) in whose
    assert all(n["label"] and n["count"] == 1 for n in every)

    replayed_at_once(client, eid, ids, sent, duel(client))


def test_given_a_blow_that_drops_the_orc_then_the_death_check_is_asked_with_the_story(
    client: TestClient,
) -> None:
    """PHA-DTH-2: at 0 PV or less he falls Unconscious (and Prone) and at once makes a death
    check: the table is asked for the d100 after the damage, the story told so far."""
    eid, ids = duel(client)
    client.post(
        f"/encounters/{eid}/commands",
        json=choose(client, eid, "roll_initiative", "everyone")
        | {"dice": {"initiative:Endimion": [10], "initiative:Orc": [3]}},
    )
    client.post(f"/encounters/{eid}/commands", json=choose(client, eid, "start_turn"))
    client.post(
        f"/encounters/{eid}/commands",
        json={"type": "adjust_hits", "combatant": ids["Orc"], "amount": -25},
    )
    attack = choose(client, eid, "attack_check", "attacks Orc with sword")
    r = client.post(f"/encounters/{eid}/commands", json=attack | {"dice": {"attack": [4]}})
    assert r.status_code == 200, r.text
    damage = choose(client, eid, "roll_damage")
    first = client.post(f"/encounters/{eid}/commands", json=damage).json()
    assert first["rule"] == "DICE_NEEDED" and first["needed"]["roll"] == "damage"
    assert first["needed"]["label"] == "Endimion's damage with sword on Orc: 1d8"
    assert first["so_far"] == []
    body = damage | {"dice": {"damage": [3]}}  # 3 + 0 + 5 = 8: 5 → −3 PV
    r = client.post(f"/encounters/{eid}/commands", json=body)
    second = r.json()
    assert r.status_code == 422 and second["rule"] == "DICE_NEEDED"
    needed = second["needed"]
    assert (needed["roll"], needed["die"], needed["sides"], needed["for"]) == (
        "death",
        1,
        100,
        ids["Orc"],
    )
    assert (
        needed["label"]
        == "Orc's death check (falls unconscious): 1d100, his negative damage or less kills him"
    )
    story = [(e["type"], e["text"]) for e in second["so_far"]]
    assert [t for t, _ in story] == ["DamageApplied", "StatusApplied", "StatusApplied"]
    assert "Orc takes 8 damage" in story[0][1] and "PV 5 → −3" in story[0][1]
    es = client.post(f"/encounters/{eid}/commands", params={"lang": "es"}, json=body).json()
    assert es["needed"]["label"] == (
        "Chequeo de muerte de Orc (cae inconsciente): 1d100, su daño negativo o menos lo mata"
    )
    assert "Orc recibe 8" in es["so_far"][0]["text"]
    before = events(client, eid)
    assert before[-1]["type"] == "AttackChecked"  # nothing of it is recorded yet
    done = client.post(
        f"/encounters/{eid}/commands", json=damage | {"dice": {"damage": [3], "death": [50]}}
    )
    assert done.status_code == 200, done.text
    assert [e["type"] for e in done.json()["events"]][-2:] == ["DeathChecked", "ActionResolved"]


def test_given_a_preview_then_nothing_changes_and_the_first_missing_face_is_named(
    client: TestClient,
) -> None:
    eid, ids = duel(client)
    play(
        client,
        eid,
        ids,
        choice_of(client, eid, "roll_initiative", "everyone"),
        {"initiative:Endimion": [10], "initiative:Orc": [3]},
    )
    play(client, eid, ids, choice_of(client, eid, "start_turn"), {})
    before = events(client, eid)
    attack = choose(client, eid, "attack_check", "attacks Orc with sword")
    r = client.post(f"/encounters/{eid}/commands", params={"preview": "true"}, json=attack)
    assert r.status_code == 200, r.text
    preview = r.json()
    assert preview["events"] == [] and preview["needed"]["roll"] == "attack"
    assert preview["needed"]["for"] == ids["Endimion"]
    whole = client.post(
        f"/encounters/{eid}/commands",
        params={"preview": "true"},
        json=attack | {"dice": {"attack": [2]}},
    ).json()
    assert [e["type"] for e in whole["events"]] == ["AttackChecked"] and whole["needed"] is None
    assert whole["encounter"]["version"] == before[-1]["position"] + 1
    assert whole["encounter"]["step"] == "attack"
    assert events(client, eid) == before
    assert client.get(f"/encounters/{eid}").json()["version"] == before[-1]["position"]


def test_given_server_dice_when_each_command_is_previewed_first_then_no_die_is_drawn_or_shown(
    client: TestClient,
) -> None:
    eid, ids = duel(client, "server")
    previews: list[str] = []
    rolled: list[dict[str, Any]] = []
    steps = [
        ("roll_initiative", "everyone", None),
        ("start_turn", "", None),
        ("attack_check", "with sword", ids["Endimion"]),
    ]
    for kind, label, who in steps:
        body = choose(client, eid, kind, label, who)
        if kind == "start_turn":
            up = body["combatant"]
            body = choose(client, eid, "start_turn", "", up)
        r = client.post(f"/encounters/{eid}/commands", params={"preview": "true"}, json=body)
        assert r.status_code == 200, r.text
        previews.append(r.text)
        preview = r.json()
        real = client.post(f"/encounters/{eid}/commands", json=body)
        assert real.status_code == 200, real.text
        rolls = [e["data"]["rolls"] for e in real.json()["events"] if e["data"].get("rolls")]
        if rolls:  # the preview stopped at the first server roll, and named it
            first = next(iter(rolls[0]))
            assert preview["needed"] == preview["needed"] | {"roll": first, "source": "server"}
        rolled += rolls
    assert rolled, "the server rolled nothing"
    assert all(not e["data"].get("rolls") for t in previews for e in json.loads(t)["events"])
    assert all("attempt" not in roll for rolls in rolled for roll in rolls.values())
    secret_unseen(client, eid, previews)
