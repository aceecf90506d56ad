"""Novus `choices` against the rules: random fights played on the application (SQLite,
manual dice, no tokens) by picking only from `fraylog.choices(eid)`, the table dice fed one
face at a time, check that every pick is accepted and asks only for the rolls it names; and
that a command type absent from `by_combatant` for a combatant is refused, whatever
instance of it is sent."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from uuid import UUID

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.rulesystems.base import Choice
from domain.rulesystems.novus import actions as act
from domain.rulesystems.novus import boons, rounds, snags
from domain.rulesystems.novus.choices import STATS
from domain.rulesystems.novus.choices_resolve import next_action
from domain.rulesystems.novus.state import encounter_marks_of
from domain.state import CombatantState, EncounterState
from infra.app import Fraylog
from tests.choices_play import Book, DrawnFaces, fights, on_sqlite, play_from_choices

MAX_COMMANDS = 40  # a fight's length, or until a side is down
FREE_FACES = 10  # faces a command draws freely; then chains stop (a 5 ends them)
CHECKS = 2  # instances of command types checked against `choices` before each pick
TYPES = [
    "roll_initiative",
    "declare",
    "hold",
    "cancel",
    "opportunity_attack",
    "spend_fate_point",
    "resolve",
    "spend_boons",
    "spend_snags",
    "save",
    "end_round",
]
ONWARD = {"roll_initiative", "declare", "resolve", "spend_boons", "spend_snags", "end_round"}
WEAPONS = {
    "sword": {"name": "sword", "dr": 6, "stat": "dex", "ranks": 7, "damage_type": "slashing"},
    "mace": {"name": "mace", "dr": 5, "ranks": 12, "damage_type": "bludgeoning"},
    "dagger": {"name": "dagger", "dr": 3, "size": "small", "ranks": 4, "damage_type": "piercing"},
    "spear": {"name": "spear", "dr": 5, "size": "large", "hands": 2, "damage_type": "piercing"},
    "bow": {"name": "bow", "kind": "missile", "dr": 5, "stat": "dex", "ranks": 7},
    "fist": {"name": "fist", "kind": "unarmed", "dr": 2, "ranks": 3, "damage_type": "bludgeoning"},
}


@pytest.fixture(scope="module")
def fraylog(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fraylog]:
    yield from on_sqlite(tmp_path_factory.mktemp("novus"))


@st.composite
def stats(draw: st.DrawFn) -> dict[str, Any]:
    weapons = draw(st.lists(st.sampled_from(sorted(WEAPONS)), max_size=3, unique=True))
    small = st.integers(-1, 3)
    out: dict[str, Any] = {
        "hits": draw(st.integers(6, 30)),
        "bonuses": {s: draw(small) for s in ("str", "dex", "spd", "con", "wil", "wis")},
        "weapons": [{**WEAPONS[w], "ranks": draw(st.integers(4, 20))} for w in weapons],
        "ar": draw(st.integers(0, 3)),
        "shield": draw(st.sampled_from(["none", "none", "small", "full"])),
        "first_aid": draw(st.integers(0, 8)),
        "base_movement": draw(st.sampled_from([None, 5])),
    }
    if draw(st.integers(0, 3)) == 0:
        out["minor_foe"] = True
    if draw(st.integers(0, 3)) == 0:
        out["advanced_combat_training"] = True
    if draw(st.integers(0, 7)) == 0:
        out["current_hits"] = draw(st.integers(-3, 1))
    return out


def action_spec(draw: st.DrawFn, ids: list[str]) -> dict[str, Any]:
    """Any declared action a table might send (no GM-entered fields)."""
    spec: dict[str, Any] = {"kind": draw(st.sampled_from(sorted(act.CATALOGUE)))}
    if draw(st.booleans()):
        spec["target"] = draw(st.sampled_from(ids))
    if draw(st.booleans()):
        spec["weapon"] = draw(st.sampled_from(sorted(WEAPONS)))
    if draw(st.integers(0, 2)) == 0:
        spec["ap"] = draw(st.integers(0, 10))
    if draw(st.integers(0, 3)) == 0:
        spec["move"] = draw(st.sampled_from(sorted(act.MOVES)))
    if draw(st.integers(0, 4)) == 0:
        spec["called_shot"] = draw(st.sampled_from(["arm", "leg", "head"]))
    if draw(st.integers(0, 4)) == 0:
        spec["defensive"] = draw(st.sampled_from([2, 4]))
    return spec


def instance(draw: st.DrawFn, state: EncounterState, kind: str) -> dict[str, Any]:
    """Any command of `kind` a table might send, the GM's overrides included."""
    ids = list(state.combatants)
    who = draw(st.sampled_from(ids))
    body: dict[str, Any] = {"type": kind, "combatant": who}
    if kind == "roll_initiative":
        if draw(st.booleans()):
            body.pop("combatant")
        if draw(st.booleans()):
            body["ip"] = draw(st.integers(0, 30))
    elif kind == "declare":
        n = draw(st.integers(0, 2))
        body["actions"] = [action_spec(draw, ids) for _ in range(n)]
        body["out_of_order"] = draw(st.booleans())
        if draw(st.integers(0, 3)) == 0:
            body["hold_ip"] = draw(st.integers(0, 25))
    elif kind == "hold":
        own = rounds.effective_ip(state, state.combatants[who]) or 0
        body["ip"] = draw(st.sampled_from([own - 1, own - 4, own, own + 2]))
    elif kind == "cancel":
        if draw(st.booleans()):
            body["replacement"] = action_spec(draw, ids)
    elif kind == "opportunity_attack":
        body["target"] = draw(st.sampled_from(ids))
        if draw(st.booleans()):
            body["weapon"] = draw(st.sampled_from(sorted(WEAPONS)))
    elif kind == "spend_fate_point":
        body["effect"] = "a reroll, as the GM rules"
    elif kind == "save":
        body["stat"] = draw(st.sampled_from(STATS))
    elif kind == "spend_boons":
        names = draw(st.lists(st.sampled_from(sorted(boons.TABLE)), max_size=2, unique=True))
        body = {"type": kind, "boons": [{"name": n} for n in names]}
    elif kind == "spend_snags":
        names = draw(st.lists(st.sampled_from(sorted(snags.TABLE)), max_size=2, unique=True))
        picked = [{"name": n} for n in names]
        for snag in picked:
            if snag["name"] == "hit_friend":
                snag["target"] = draw(st.sampled_from(ids))
            if snag["name"] == "spell_backlash":
                snag["spell_points"] = 1
        body = {"type": kind, "snags": picked}
    else:  # resolve, end_round
        body = {"type": kind}
    return body


def onward_first(data: st.DataObject, offered: list[Choice]) -> Choice:
    """The commands that move the round on three times as likely as the others."""
    weighted = [c for c in offered for _ in range(3 if c["type"] in ONWARD else 1)]
    return data.draw(st.sampled_from(weighted), label="pick")


def key_of(state: EncounterState, body: dict[str, Any]) -> str:
    """Under whom `by_combatant` files a command: its combatant; for resolve, the one whose
    action resolves; for spent points, whose roll earned them."""
    if body["type"] == "resolve":
        action = next_action(state)
        return action.combatant if action else ""
    marks = encounter_marks_of(state)
    if body["type"] == "spend_boons" and marks.pending_boons:
        return marks.pending_boons.combatant
    if body["type"] == "spend_snags" and marks.pending_snags:
        return marks.pending_snags.combatant
    return body.get("combatant") or ""


def down(state: EncounterState, who: CombatantState) -> bool:
    return who.hits <= 0


NOVUS = Book(TYPES, instance, key_of, down, checks=CHECKS, pick=onward_first)


@fights(60)
@given(data=st.data())
def test_given_random_novus_fights_when_playing_only_choices_then_each_is_accepted_and_the_rest_refused(  # noqa: E501
    fraylog: Fraylog, data: st.DataObject
) -> None:
    eid = fraylog.create_encounter("Prop", "novus", "manual").state.id
    count = data.draw(st.integers(2, 4), label="combatants")
    for i in range(count):
        side = "heroes" if i % 2 == 0 else "foes"
        fraylog.add_combatant(UUID(eid), f"C{i}", side, data.draw(stats(), label=f"C{i}"))
    faces = DrawnFaces(data, FREE_FACES, lambda needed: 5)  # a 5 ends any chain (NOV-CORE-2..4)
    play_from_choices(fraylog, eid, data, NOVUS, faces, MAX_COMMANDS)
