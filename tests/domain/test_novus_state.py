"""Novus's own facts live in its typed marks (domain/rulesystems/novus/state.py): a
combatant's `marks` and `round_marks`, the encounter's `marks`. States and corrections
recorded before held them beside the core's fields; they read back into the marks."""

from __future__ import annotations

from typing import Any

from domain import commands as c
from domain.fold import apply_changes
from domain.rulesystems.novus.state import (
    Limb,
    NovusEncounterMarks,
    NovusMarks,
    NovusRoundMarks,
    PendingPoints,
    encounter_marks_of,
    marks_of,
    round_marks_of,
)
from domain.state import EncounterState
from tests.builders import duel
from tests.builders.novus import target_stats

PENDING = {
    "attack": 6,
    "action": "a1",
    "combatant": "brakka",
    "target": "grukk",
    "points": 2,
    "head_points": 0,
    "margin": 21,
    "weapon": "sword",
    "params": {"label": "Basic Melee Attack"},
}


def _old_combatant(cid: str, name: str, **novus: Any) -> dict[str, Any]:
    """A combatant as a snapshot written before the typed marks held him."""
    return {
        "id": cid,
        "name": name,
        "side": "",
        "entry": 0,
        "stats": {},
        "max_hits": 30,
        "hits": 26,
        "ip": 19,
        "ip_raw": 14,
        "wounds": [],
        "conditions": {},
        "effects": [],
        "limbs": {},
        "fate_points": 0,
        "ap_budget": None,
        "ap_spent": 0,
        "ap_carried": 0,
        "hold_ip": None,
        "marks": {},
        "round_marks": {},
        **novus,
    }


def _old_snapshot() -> dict[str, Any]:
    """A Novus encounter as a snapshot written before the typed marks held Novus's facts."""
    return {
        "id": "8d0c5a4e-0000-4000-8000-000000000001",
        "name": "Old fight",
        "ruleset": "novus",
        "dice_source": "manual",
        "seed": None,
        "options": {},
        "created_at": "2025-06-01T10:00:00+00:00",
        "version": 9,
        "round": 2,
        "combatants": {
            "brakka": _old_combatant(
                "brakka",
                "Brakka",
                limbs={"left arm": {"penalty": -2, "damage": 5, "useless": False}},
                fate_points=1,
                ap_budget=3,
                ap_spent=3,
                ap_carried=2,
                hold_ip=7,
            ),
            "grukk": _old_combatant("grukk", "Grukk"),
        },
        "actions": [],
        "declared": ["brakka"],
        "pending_boons": PENDING,
        "pending_snags": None,
        "dice_epoch": 0,
        "dice_commitment": None,
        "forked_from": None,
        "ended": False,
    }


def test_given_an_old_snapshot_when_read_back_then_novus_facts_are_in_the_marks() -> None:
    # given a snapshot that kept Novus's facts beside the core's
    old = _old_snapshot()
    # when it is read back
    state = EncounterState.model_validate(old)
    # then each fact is in the marks that declare it, typed
    brakka, grukk = state.combatants["brakka"], state.combatants["grukk"]
    assert marks_of(brakka) == NovusMarks(
        limbs={"left arm": Limb(penalty=-2, damage=5)}, fate_points=1, ap_carried=2
    )
    assert round_marks_of(brakka) == NovusRoundMarks(ap_budget=3, ap_spent=3, hold_ip=7)
    assert marks_of(grukk) == NovusMarks() and round_marks_of(grukk) == NovusRoundMarks()
    assert encounter_marks_of(state) == NovusEncounterMarks(
        declared=["brakka"], pending_boons=PendingPoints(**PENDING)
    )
    # and no longer beside the core's
    dump = state.model_dump()
    assert not {"declared", "pending_boons", "pending_snags"} & set(dump)
    assert not {"limbs", "fate_points", "ap_budget", "hold_ip"} & set(dump["combatants"]["brakka"])


def test_given_a_state_when_dumped_and_read_back_then_the_marks_are_the_same() -> None:
    # given a fight with a declaration, a hold and a hit whose Boon Points wait
    t = duel(target=target_stats(def_=15, ar=0))
    t.run(c.Hold(combatant=t.ids["A"], ip=15))
    t.resolve([10, 10, 10, 6, 1])  # 46 vs 15: 3 BP wait
    # when its dump is read back (as a snapshot is)
    again = EncounterState.model_validate(t.state.model_dump())
    # then it holds the same facts
    assert again == t.state
    assert encounter_marks_of(again).pending_boons is not None
    assert round_marks_of(again.combatants[t.ids["A"]]).hold_ip == 15


def test_given_a_correction_recorded_before_when_folded_then_its_paths_reach_the_marks() -> None:
    # given a fight in its first round, A declared with 5 AP and a hit's Boon Points waiting
    t = duel(target=target_stats(def_=15, ar=0))
    t.resolve([10, 10, 10, 6, 1])
    a = t.ids["A"]
    # when a correction's changes name Novus's facts where the core once kept them
    state = apply_changes(
        t.state,
        [
            {"path": ["combatants", a, "ap_budget"], "before": 5, "after": 4},
            {"path": ["combatants", a, "fate_points"], "before": 0, "after": 1},
            {"path": ["pending_boons", "points"], "before": 3, "after": 2},
            {"path": ["declared"], "before": [t.ids["T"], a], "after": [t.ids["T"]]},
        ],
    )
    # then they change the marks
    assert round_marks_of(state.combatants[a]).ap_budget == 4
    assert marks_of(state.combatants[a]).fate_points == 1
    marks = encounter_marks_of(state)
    assert marks.pending_boons is not None and marks.pending_boons.points == 2
    assert marks.declared == [t.ids["T"]]


def test_given_a_new_correction_when_recorded_then_its_path_names_the_marks() -> None:
    # given a fight where A has declared (AP budget 5)
    t = duel(target=target_stats(def_=15, ar=0))
    a = t.ids["A"]
    # when his declaration is undone
    (undone,) = t.run(c.Undo())
    # then the correction records the path of his AP budget in his round marks
    paths = [change["path"] for change in undone.changes]
    assert ["combatants", a, "round_marks", "ap_budget"] in paths
    assert round_marks_of(t.state.combatants[a]).ap_budget is None
