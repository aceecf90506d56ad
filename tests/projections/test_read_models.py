"""The rows of the read models across encounters, computed from events: who dealt the damage
(through the cause chain), whose roll it was, each book's criticals and fumbles, the rolls to
hit and the damage dice with their sums, and what a void takes away and gives back."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from domain import commands as c
from projections.read_models import combatant_stats, encounter_corrections, encounter_row
from tests.builders import duel


def event(kind: str, position: int, cause: int | None = None, **data: Any) -> Any:
    """A stand-in for a recorded event: its class name, position, cause and fields."""
    cls = type(kind, (SimpleNamespace,), {})
    return cls(originator_version=position, cause=cause, **data)


def roll(source: str, dice: int = 7) -> dict[str, Any]:
    """A roll whose dice showed `dice` (its total adds a modifier of 3)."""
    return {"source": source, "dice_total": dice, "total": dice + 3}


def attack(position: int, who: str, hit: bool, source: str = "server", **more: Any) -> Any:
    """A Novus attack roll (no Boon or Snag Points unless given)."""
    points = {"boon_points": 0, "snag_points": 0, "rolls": {"attack": roll(source)}, **more}
    return event("AttackRolled", position, combatant=who, hit=hit, **points)


def added(position: int, who: str) -> Any:
    return event("CombatantAdded", position, combatant=who, name=who.upper(), side="")


def fighters(ruleset: str = "novus") -> list[Any]:
    return [
        event("EncounterCreated", 1, ruleset=ruleset),
        added(2, "a"),
        added(3, "t"),
        added(4, "b"),
    ]


FIGHTERS = fighters()


def test_given_a_bystander_hit_through_a_failed_save_then_the_attacker_dealt_it() -> None:
    stats = combatant_stats(
        [
            *FIGHTERS,
            attack(5, "a", hit=False),
            event("SaveRolled", 6, 5, combatant="b", rolls={"bystander_save:B": roll("server")}),
            event("DamageApplied", 7, 6, combatant="b", amount=6, rolls={}),
        ]
    )
    assert (stats["a"]["damage_dealt"], stats["b"]["damage_taken"]) == (6, 6)
    assert (stats["a"]["misses"], stats["a"]["rolls_server"]) == (1, 1)
    assert stats["b"]["rolls_server"] == 1  # the save is the bystander's roll
    assert (stats["b"]["attack_rolls"], stats["b"]["damage_rolls"]) == (0, 0)  # neither kind


def test_given_a_snag_that_hurts_the_roller_then_the_damage_is_taken_not_dealt() -> None:
    stats = combatant_stats(
        [
            *FIGHTERS,
            attack(5, "a", hit=False, rolls={"attack": roll("manual", 2)}, snag_points=1),
            event("SnagsSpent", 6, 5, combatant="a"),
            event(
                "DamageApplied",
                7,
                6,
                combatant="a",
                amount=4,
                rolls={"hurt_yourself": roll("seeded", 5)},
            ),
        ]
    )
    assert (stats["a"]["damage_dealt"], stats["a"]["damage_taken"]) == (0, 4)
    assert (stats["a"]["rolls_manual"], stats["a"]["rolls_seeded"]) == (1, 1)
    assert (stats["a"]["fumbles"], stats["a"]["criticals"]) == (1, 0)  # NOV-CORE-7
    assert (stats["a"]["attack_rolls"], stats["a"]["attack_dice_sum"]) == (1, 2)
    assert (stats["a"]["damage_rolls"], stats["a"]["damage_dice_sum"]) == (1, 5)  # his 1d10


def test_given_novus_attacks_then_one_earning_boon_points_is_a_critical_whatever_the_points() -> (
    None
):
    stats = combatant_stats(
        [
            *FIGHTERS,
            attack(5, "a", hit=True, boon_points=2, rolls={"attack": roll("server", 19)}),
            attack(6, "a", hit=True, rolls={"attack": roll("server", 11)}),
            attack(7, "t", hit=False, snag_points=1, rolls={"attack": roll("server", 2)}),
        ]
    )
    assert (stats["a"]["criticals"], stats["a"]["fumbles"]) == (1, 0)
    assert (stats["a"]["attack_rolls"], stats["a"]["attack_dice_sum"]) == (2, 30)
    assert (stats["t"]["criticals"], stats["t"]["fumbles"]) == (0, 1)


def test_given_a_wits_attack_then_the_defense_roll_is_the_defenders_the_damage_dice_not() -> None:
    stats = combatant_stats(
        [
            *fighters("wits"),
            event(
                "AttackTestRolled",
                5,
                combatant="a",
                target="t",
                hit=True,
                degree="critical",
                rolls={"attack": roll("seeded", 3), "defense": roll("seeded", 15)},
            ),
            event(
                "DamageApplied", 6, 5, combatant="t", amount=7, rolls={"damage": roll("seeded", 4)}
            ),
        ]
    )
    assert (stats["a"]["rolls_seeded"], stats["t"]["rolls_seeded"]) == (2, 1)
    assert (stats["a"]["hits"], stats["a"]["damage_dealt"], stats["t"]["damage_taken"]) == (1, 7, 7)
    assert (stats["a"]["attack_rolls"], stats["a"]["attack_dice_sum"]) == (1, 3)
    assert (stats["t"]["attack_rolls"], stats["t"]["damage_rolls"]) == (0, 0)  # a defense
    assert (stats["a"]["damage_rolls"], stats["a"]["damage_dice_sum"]) == (1, 4)
    assert (stats["a"]["criticals"], stats["t"]["criticals"]) == (1, 0)  # WIT-CRIT


def check(target: str, roller: str, name: str, kind: str, face: int, **more: Any) -> dict:
    """A PHANTÄSIA attack's result for one target, rolled by `roller` as roll `name`."""
    return {
        "target": target,
        "roller": roller,
        "roll_name": name,
        "check": kind,
        "face": face,
        "critical": face == 1,
        "fumble": face == 12,
        "hit": more.pop("hit", face == 1),
        **more,
    }


def test_given_phantasia_checks_then_each_roll_counts_once_for_who_rolled_it() -> None:
    area = [check("t", "a", "attack", "AM", 1), check("b", "a", "attack", "AM", 1)]
    defended = [check("a", "t", "defense", "DF", 12, hit=True)]
    stats = combatant_stats(
        [
            *fighters("phantasia"),
            event(
                "AttackChecked",
                5,
                combatant="a",
                results=area,
                rolls={"attack": roll("manual", 1)},
            ),
            event(
                "AttackChecked",
                6,
                combatant="b",
                results=defended,
                rolls={"defense": roll("manual", 12)},
            ),
        ]
    )
    # one AM against two targets: one roll, one critical, two hits (PHA-CRIT-1, -2)
    assert (stats["a"]["criticals"], stats["a"]["hits"], stats["a"]["attack_rolls"]) == (1, 2, 1)
    # the player's fumbled DF is his (PHA-CRIT-7), and not a roll to hit
    assert (stats["t"]["fumbles"], stats["t"]["rolls_manual"], stats["t"]["attack_rolls"]) == (
        1,
        1,
        0,
    )
    assert (stats["b"]["hits"], stats["b"]["rolls_manual"], stats["b"]["fumbles"]) == (1, 0, 0)


def test_given_a_phantasia_fumble_rerolled_then_the_second_result_stands() -> None:
    first = [check("t", "a", "attack", "AT", 12)]
    second = [check("t", "a", "attack", "AT", 4, hit=True)]
    stats = combatant_stats(
        [
            *fighters("phantasia"),
            event(
                "AttackChecked",
                5,
                combatant="a",
                results=first,
                rolls={"attack": roll("manual", 12)},
            ),
            event(
                "CheckRerolled",
                6,
                5,
                combatant="a",
                results=second,
                replaced=first,
                rolls={"reroll": roll("manual", 4)},
            ),
        ]
    )
    assert (stats["a"]["fumbles"], stats["a"]["hits"], stats["a"]["misses"]) == (0, 1, 0)
    assert (stats["a"]["attack_rolls"], stats["a"]["attack_dice_sum"]) == (2, 16)  # both rolled


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
    assert (counted[a]["attack_rolls"], counted[a]["attack_dice_sum"]) == (1, 18)
    assert counted[a]["voided"] == 0
    assert encounter_corrections(t.history()) == {"voided": 0, "corrections": 0}

    t.run(c.Void(target=hit[0].originator_version, reason="disputed"))
    voided = combatant_stats(t.history())
    assert (voided[a]["hits"], voided[a]["damage_dealt"], voided[a]["rolls_manual"]) == (0, 0, 0)
    assert voided[target]["damage_taken"] == 0
    assert voided[a]["attack_rolls"] == 0
    # the attack roll is A's, the damage T's: each is voided with the roll
    assert (voided[a]["voided"], voided[target]["voided"]) == (1, 1)
    cascade = len(t.history()[-1].cascade)
    assert encounter_corrections(t.history()) == {"voided": cascade, "corrections": 1}

    t.run(c.Void(target=t.state.version, reason="the roll stands"))
    assert combatant_stats(t.history()) == counted
    assert encounter_corrections(t.history()) == {"voided": 1, "corrections": 2}


def test_given_a_target_down_then_the_encounter_row_counts_him_down() -> None:
    t = duel(target={"hits": 5, "bonuses": {"spd": 5}, "ar": 0})
    before = encounter_row(t.state, "then")
    t.resolve([9, 9], boons=[])
    after = encounter_row(t.state, "now")
    assert (before["combatants_up"], before["combatants_down"]) == (2, 0)
    assert (after["combatants_up"], after["combatants_down"]) == (1, 1)
    assert after["events"] == t.state.version == len(t.history())
    assert (after["status"], after["round"], after["last_activity"]) == ("active", 1, "now")
