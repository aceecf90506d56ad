"""The rows of the read models across encounters, computed from events: who dealt the damage
(through the cause chain), whose roll it was, and what a void takes away and gives back."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from domain import commands as c
from projections.read_models import combatant_stats, encounter_row
from tests.builders import duel


def event(kind: str, position: int, cause: int | None = None, **data: Any) -> Any:
    """A stand-in for a recorded event: its class name, position, cause and fields."""
    cls = type(kind, (SimpleNamespace,), {})
    return cls(originator_version=position, cause=cause, **data)


def roll(source: str) -> dict[str, Any]:
    return {"source": source, "total": 10}


def added(position: int, who: str) -> Any:
    return event("CombatantAdded", position, combatant=who, name=who.upper(), side="")


FIGHTERS = [event("EncounterCreated", 1), added(2, "a"), added(3, "t"), added(4, "b")]


def test_given_a_bystander_hit_through_a_failed_save_then_the_attacker_dealt_it() -> None:
    stats = combatant_stats(
        [
            *FIGHTERS,
            event("AttackRolled", 5, combatant="a", hit=False, rolls={"attack": roll("server")}),
            event("SaveRolled", 6, 5, combatant="b", rolls={"bystander_save:B": roll("server")}),
            event("DamageApplied", 7, 6, combatant="b", amount=6, rolls={}),
        ]
    )
    assert (stats["a"]["damage_dealt"], stats["b"]["damage_taken"]) == (6, 6)
    assert (stats["a"]["misses"], stats["a"]["rolls_server"]) == (1, 1)
    assert stats["b"]["rolls_server"] == 1  # the save is the bystander's roll


def test_given_a_snag_that_hurts_the_roller_then_the_damage_is_taken_not_dealt() -> None:
    stats = combatant_stats(
        [
            *FIGHTERS,
            event("AttackRolled", 5, combatant="a", hit=False, rolls={"attack": roll("manual")}),
            event("SnagsSpent", 6, 5, combatant="a"),
            event(
                "DamageApplied",
                7,
                6,
                combatant="a",
                amount=4,
                rolls={"hurt_yourself": roll("seeded")},
            ),
        ]
    )
    assert (stats["a"]["damage_dealt"], stats["a"]["damage_taken"]) == (0, 4)
    assert (stats["a"]["rolls_manual"], stats["a"]["rolls_seeded"]) == (1, 1)


def test_given_a_wits_attack_then_the_defense_roll_is_the_defenders_the_damage_dice_not() -> None:
    stats = combatant_stats(
        [
            *FIGHTERS,
            event(
                "AttackTestRolled",
                5,
                combatant="a",
                target="t",
                hit=True,
                rolls={"attack": roll("seeded"), "defense": roll("seeded")},
            ),
            event("DamageApplied", 6, 5, combatant="t", amount=7, rolls={"damage": roll("seeded")}),
        ]
    )
    assert (stats["a"]["rolls_seeded"], stats["t"]["rolls_seeded"]) == (2, 1)
    assert (stats["a"]["hits"], stats["a"]["damage_dealt"], stats["t"]["damage_taken"]) == (1, 7, 7)


def test_given_a_roll_from_an_unknown_source_then_it_is_refused_not_dropped() -> None:
    with pytest.raises(ValueError, match="source 'psychic'"):
        combatant_stats(
            [*FIGHTERS, event("InitiativeRolled", 5, combatant="a", rolls={"ip": roll("psychic")})]
        )


def test_given_a_hit_voided_then_restored_then_the_statistics_follow_the_fold() -> None:
    t = duel()
    hit = t.resolve([9, 9], boons=[])
    a, target = t.ids["A"], t.ids["T"]
    counted = combatant_stats(t.history())
    assert (counted[a]["hits"], counted[a]["damage_dealt"]) == (1, hit[1].amount)
    assert counted[target]["damage_taken"] == hit[1].amount > 0

    t.run(c.Void(target=hit[0].originator_version, reason="disputed"))
    voided = combatant_stats(t.history())
    assert (voided[a]["hits"], voided[a]["damage_dealt"], voided[a]["rolls_manual"]) == (0, 0, 0)
    assert voided[target]["damage_taken"] == 0

    t.run(c.Void(target=t.state.version, reason="the roll stands"))
    assert combatant_stats(t.history()) == counted


def test_given_a_target_down_then_the_encounter_row_counts_him_down() -> None:
    t = duel(target={"hits": 5, "bonuses": {"spd": 5}, "ar": 0})
    before = encounter_row(t.state, "then")
    t.resolve([9, 9], boons=[])
    after = encounter_row(t.state, "now")
    assert (before["combatants_up"], before["combatants_down"]) == (2, 0)
    assert (after["combatants_up"], after["combatants_down"]) == (1, 1)
    assert after["events"] == t.state.version == len(t.history())
    assert (after["status"], after["round"], after["last_activity"]) == ("active", 1, "now")
