"""Wits `choices` against the rules: random fights played on the application (SQLite,
manual dice, no tokens) by picking only from `fraylog.choices(eid)`, the table dice fed one
face at a time, check that every pick is accepted and asks only for the rolls it names, the
first as its `first_roll` says; and that a command type absent from `by_combatant` for a
combatant is refused, whatever instance of it is sent."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from uuid import UUID

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.rulesystems.wits import turns
from domain.state import CombatantState, EncounterState
from infra.app import Fraylog
from tests.choices_play import Book, DrawnFaces, fights, on_sqlite, play_from_choices, settling

MAX_COMMANDS = 40  # a fight's length, or until a side is down
FREE_FACES = 12  # faces a command draws freely; then chains stop and ties break
TYPES = [
    "roll_initiative",
    "attack",
    "defend",
    "roll_attack",
    "aim",
    "move",
    "take_action",
    "hold",
    "end_turn",
    "knock_back",
    "end_round",
]
CALLED = ["arm", "leg", "vitals", "groin", "head", "hand", "foot", "neck", "heart"]
WEAPONS = {
    "sword": {"name": "sword", "damage": "1d6", "skill": "sword"},
    "axe": {"name": "axe", "damage": "1d4", "skill": "sword", "top_heavy": True},
    "hammer": {
        "name": "hammer",
        "damage": "1d4",
        "skill": "sword",
        "top_heavy": True,
        "parry_after_attack": "none",
    },
    "bow": {"name": "bow", "damage": "1d6", "skill": "bow", "ranged": True},
    "fist": {"name": "fist", "damage": "1d2", "skill": "brawling", "unarmed": True},
}


@pytest.fixture(scope="module")
def fraylog(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fraylog]:
    yield from on_sqlite(tmp_path_factory.mktemp("wits"))


@st.composite
def stats(draw: st.DrawFn) -> dict[str, Any]:
    weapons = draw(st.lists(st.sampled_from(sorted(WEAPONS)), min_size=1, max_size=3, unique=True))
    skills = {"sword": draw(st.integers(6, 16)), "bow": draw(st.integers(6, 16)), "brawling": 10}
    if draw(st.booleans()):
        skills["shield"] = draw(st.integers(4, 16))
    if draw(st.booleans()):
        skills["acrobatics"] = draw(st.integers(4, 20))
    out: dict[str, Any] = {
        "wits": draw(st.sampled_from([8, 10, 12])),
        "move": draw(st.sampled_from([0, 1, 3, 10, 12])),
        "strength": draw(st.sampled_from([None, 6, 12])),
        "base_damage": draw(st.sampled_from([None, "1d4", "1d6", "1d6"])),
        "health": draw(st.integers(3, 14)),
        "skills": skills,
        "armour": {"protection": draw(st.integers(0, 2)), "defense": draw(st.integers(0, 2))},
        "weapons": [WEAPONS[w] for w in weapons],
    }
    if draw(st.booleans()):
        out["shield"] = {"name": "buckler", "defense": draw(st.integers(0, 2))}
    if draw(st.integers(0, 5)) == 0:
        out["current_health"] = draw(st.integers(-2, 2))
    return out


OPTIONS = st.fixed_dictionaries(
    {
        "test_die": st.sampled_from(["1d20", "3d6"]),
        "roll_up": st.sampled_from(["open", "once"]),
        "critical_at": st.sampled_from([None, 2]),
        "extraordinary_at": st.sampled_from([None, 1]),
        "shield_defense": st.sampled_from(["block", "all"]),
    }
)


def defense_spec(state: EncounterState, who: str) -> st.SearchStrategy[dict[str, Any]]:
    names = [w["name"] for w in state.combatants[who].stats["weapons"]] + ["nothing"]
    return st.fixed_dictionaries(
        {
            "kind": st.sampled_from(["parry", "block", "dodge"]),
            "mode": st.sampled_from(["basic", "total", "total_single"]),
        },
        optional={
            "weapon": st.sampled_from(names),
            "dodge_with": st.sampled_from(["move", "acrobatics"]),
        },
    )


def instance(draw: st.DrawFn, state: EncounterState, kind: str) -> dict[str, Any]:
    """Any command of `kind` a table might send (no GM overrides of order or outcome)."""
    ids = list(state.combatants)
    who = draw(st.sampled_from(ids))
    body: dict[str, Any] = {"type": kind, "combatant": who}
    distance = st.sampled_from([0.5, 1, 2, 3, 5, 6, 9, 10, 12, 15])
    if kind == "roll_initiative":
        body = {"type": "roll_initiative"}
        shape = draw(st.sampled_from(["all", "one", "ties"]))
        if shape == "one":
            body["combatant"] = who
        elif shape == "ties":
            body["tie_order"] = draw(st.permutations(ids))[: draw(st.integers(2, len(ids)))]
    elif kind == "attack":
        target = draw(st.sampled_from(ids))
        body |= {
            "target": target,
            "weapon": draw(st.sampled_from(sorted(WEAPONS))),
            "roll": draw(st.booleans()),
        }
        if draw(st.booleans()):
            body["charge"] = True
        if draw(st.booleans()):
            body["distance_m"] = draw(distance)
        if draw(st.integers(0, 3)) == 0:
            body["called_shot"] = draw(st.sampled_from(CALLED))
        if draw(st.integers(0, 3)) == 0:
            body["defense"] = draw(defense_spec(state, target))
    elif kind == "defend":
        body["defense"] = draw(defense_spec(state, who))
    elif kind in ("roll_attack", "end_round"):
        body = {"type": kind}
    elif kind == "move":
        if draw(st.booleans()):
            body["distance_m"] = draw(distance)
        else:
            body["distance_ft"] = draw(distance) * 3
        if draw(st.booleans()):
            body["charge_at"] = draw(st.sampled_from(ids))
        if draw(st.booleans()):
            body["charge_from_m"] = draw(st.sampled_from([2, 5, 8, 12, 20]))
    elif kind == "take_action":
        body |= {"what": "casts Light", "actions": draw(st.sampled_from([1, 2]))}
    elif kind == "knock_back":
        attacks = [a.id for a in state.actions if a.kind == "attack"] or ["2.attack"]
        body["attack"] = draw(st.sampled_from(attacks))
    return body


def key_of(state: EncounterState, body: dict[str, Any]) -> str:
    """Under whom `by_combatant` files a command: its combatant; roll_attack's attacker."""
    if body["type"] == "roll_attack":
        pending = turns.pending_attack(state)
        return pending.combatant if pending else ""
    return body.get("combatant") or ""


def down(state: EncounterState, who: CombatantState) -> bool:
    return turns.is_down(state, who)


WITS = Book(TYPES, instance, key_of, down)


@fights(40)
@given(data=st.data())
def test_given_random_wits_fights_when_playing_only_choices_then_each_is_accepted_and_the_rest_refused(  # noqa: E501
    fraylog: Fraylog, data: st.DataObject
) -> None:
    options = data.draw(OPTIONS, label="options")
    eid = fraylog.create_encounter("Prop", "wits", "manual", options=options).state.id
    count = data.draw(st.integers(2, 4), label="combatants")
    names = [f"C{i}" for i in range(count)]
    for i, name in enumerate(names):
        fraylog.add_combatant(UUID(eid), name, "ab"[i % 2], data.draw(stats(), label=name))
    faces = DrawnFaces(data, FREE_FACES, settling(names))  # then no more roll-ups
    play_from_choices(fraylog, eid, data, WITS, faces, MAX_COMMANDS)
