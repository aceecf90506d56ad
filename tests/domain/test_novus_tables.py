"""Every Combat Boon of the stored table and every Snag, with its effect (NOV-BOON-1..5,
NOV-SNAG-1, -2), through the domain and the HTTP API."""

from __future__ import annotations

import pytest

from domain import commands as c
from domain.rulesystems.novus import commands as nc
from projections.narrative import narrative
from tests.builders import Table, duel, of_type
from tests.builders.novus import novus_stats, target_stats

TWO_POINTS = [10, 10, 5, 1]  # 15 + 11 + AB 9 = 35 against DEF 15: margin 20, 2 Boon Points


def hit_with(boons: list[nc.BoonSpec], **stats) -> tuple[Table, list]:
    t = duel(novus_stats(**stats) if stats else None, target_stats(def_=15, ar=0, hits=80))
    return t, t.resolve(TWO_POINTS, boons=boons)


@pytest.mark.over_http
def test_given_adrenal_surge_then_base_damage_plus_the_wil_bonus() -> None:
    _, events = hit_with([nc.BoonSpec(name="adrenal_surge")], bonuses={"dex": 2, "wil": 3})
    assert of_type(events, "DamageApplied")[0].breakdown["base_damage"]["Adrenal Surge"] == 3


@pytest.mark.over_http
def test_given_knock_prone_then_the_target_is_prone_at_def_12() -> None:
    t, _ = hit_with([nc.BoonSpec(name="knock_prone")])
    assert "prone" in t.who("T")["conditions"] and t.who("T")["def"] == 12


def test_given_initiative_boost_2_then_plus_4_ip_next_round_only() -> None:
    t, _ = hit_with([nc.BoonSpec(name="initiative_boost", points=2)])
    assert t.who("A")["effective_ip"] == 19
    t.run(c.EndRound())
    assert t.who("A")["effective_ip"] == 23
    t.declare("T"), t.declare("A")
    t.run(c.EndRound())
    assert t.who("A")["effective_ip"] == 19  # NOV-INIT-4: it reverts


def test_given_inspiring_attack_then_allies_plus_ip_next_round() -> None:
    t = Table()
    t.add("A", novus_stats(), side="h")
    t.add("Ally", novus_stats(), side="h")
    t.add("T", target_stats(def_=15, ar=0, hits=80), side="f")
    t.ip("A", 19), t.ip("Ally", 10), t.ip("T", 5)
    (
        t.declare("T"),
        t.declare("Ally"),
        t.declare("A", {"kind": "melee_attack", "target": "T", "weapon": "sword"}),
    )
    t.resolve(TWO_POINTS, boons=[nc.BoonSpec(name="inspiring_attack", points=2)])
    t.run(c.EndRound())
    assert t.who("Ally")["effective_ip"] == 12 and t.who("A")["effective_ip"] == 19


@pytest.mark.parametrize("boon", ["combat_shuffle", "rapid_reload"])
def test_given_a_recorded_boon_then_it_is_logged_with_its_effect_text(boon: str) -> None:
    weapon = "bow" if boon == "rapid_reload" else "sword"
    t = duel(
        target=target_stats(def_=15, ar=0, hits=80),
        action={
            "kind": "melee_attack" if weapon == "sword" else "missile_attack",
            "target": "T",
            "weapon": weapon,
        },
    )
    spent = of_type(t.resolve(TWO_POINTS, boons=[nc.BoonSpec(name=boon)]), "BoonsSpent")[0]
    assert spent.boons[0]["recorded"] and spent.boons[0]["effect"]


def test_given_a_gm_boon_then_its_name_cost_and_effect_are_recorded() -> None:
    t = duel(target=target_stats(def_=15, ar=0, hits=80))
    spent = of_type(
        t.resolve(
            TWO_POINTS,
            boons=[nc.BoonSpec(name="savage_attack", points=2, effect="+1d10 hits (GM)")],
        ),
        "BoonsSpent",
    )[0]
    assert spent.boons[0] == {
        "name": "savage_attack",
        "label": "savage_attack",
        "points": 2,
        "effect": "+1d10 hits (GM)",
        "recorded": True,
    }


def missed_badly(**stats) -> Table:
    """A misses DEF 30 by 25 (1 − 7 + 2 + 9 = 5): 2 Snag Points."""
    t = duel(novus_stats(**stats) if stats else None, target_stats(def_=30, ar=0))
    t.resolve([1, 2, 7])
    return t


def test_given_a_strained_muscle_then_minus_1_to_all_actions_for_120_rounds() -> None:
    t = missed_badly()
    spent = t.run(nc.SpendSnags(snags=[nc.SnagSpec(name="strained_muscle")]))[0]
    effect = spent.effects[0]
    assert (effect["value"], effect["last_round"] - effect["first_round"] + 1) == (-1, 120)


def test_given_hurt_yourself_then_1d10_minus_the_worn_armour() -> None:
    t = missed_badly(ar=3)
    events = t.run(nc.SpendSnags(snags=[nc.SnagSpec(name="hurt_yourself")]), hurt_yourself=[8])
    damage = of_type(events, "DamageApplied")[0]
    assert (damage.combatant, damage.amount) == (t.ids["A"], 5)
    assert damage.rolls["hurt_yourself"]["faces"] == [8]


def test_given_a_spell_backlash_then_wil_bonus_times_the_spell_points() -> None:
    t = duel(novus_stats(bonuses={"dex": 2, "wil": 2}), target_stats(def_=30, ar=0))
    t.resolve([1, 1, 5, 6])  # (1 − 5) + (1 − 6) + 9 = 0 against DEF 30: 3 Snag Points
    events = t.run(nc.SpendSnags(snags=[nc.SnagSpec(name="spell_backlash", spell_points=4)]))
    assert of_type(events, "DamageApplied")[0].amount == 8


@pytest.mark.parametrize("snag", ["fumble", "loud_noise", "extra_round", "harmless_spell"])
def test_given_a_recorded_snag_then_it_is_logged(snag: str) -> None:
    t = missed_badly()
    spent = t.run(nc.SpendSnags(snags=[nc.SnagSpec(name=snag)]))[0]
    assert spent.snags[0]["recorded"] and spent.snags[0]["name"] == snag


def _point_lines(t: Table) -> list[str]:
    return [x["text"] for x in narrative(t.history()) if " Point" in x["text"]]


@pytest.mark.parametrize(
    ("dice", "boon", "told"),
    [
        (
            [10, 3, 4],
            nc.BoonSpec(name="knock_prone"),
            ("hit by 11, 1 Boon Point.", "1 Boon Point:"),
        ),
        (
            TWO_POINTS,
            nc.BoonSpec(name="initiative_boost", points=2),
            ("2 Boon Points.", "2 Boon Points:"),
        ),
    ],
)
def test_given_a_hit_with_boon_points_when_logged_then_one_point_or_points(
    dice: list[int], boon: nc.BoonSpec, told: tuple[str, str]
) -> None:
    t = duel(None, target_stats(def_=15, ar=0, hits=80))
    t.resolve(dice, boons=[boon])
    attack, spent = _point_lines(t)
    assert attack.endswith(told[0]) and spent.startswith(f"A spends {told[1]}")


@pytest.mark.parametrize(
    ("dice", "told"),
    [
        ([5, 5], ("miss by 11, 1 Snag Point.", "1 Snag Point:")),
        ([1, 2, 7], ("miss by 25, 2 Snag Points.", "2 Snag Points:")),
    ],
)
def test_given_a_miss_with_snag_points_when_logged_then_one_point_or_points(
    dice: list[int], told: tuple[str, str]
) -> None:
    t = duel(None, target_stats(def_=30, ar=0))  # AB 9: 19 and 5 against DEF 30
    t.resolve(dice)
    t.run(nc.SpendSnags(snags=[nc.SnagSpec(name="strained_muscle")]))
    attack, spent = _point_lines(t)
    assert attack.endswith(told[0]) and spent.startswith(f"A spends {told[1]}")
