"""Holding, preparing, Snags, firing into melee, movement and hits from stats
(NOV-TV-15, -19, -46, -48..52).

Vectors and the rules they test (from the rule files):
- NOV-TV-15: NOV-HOLD-1..3
- NOV-TV-19: NOV-FIM-1..6
- NOV-TV-46: NOV-CORE-7, NOV-SNAG-1, -2
- NOV-TV-48: NOV-HITS-1
- NOV-TV-49: NOV-MOVE-1
- NOV-TV-50: NOV-ERRATA-1, NOV-HOLD-1
- NOV-TV-51: NOV-PREP-1, NOV-RRI-1
- NOV-TV-52: NOV-SAVE-4, NOV-FIM-5
"""

from __future__ import annotations

import pytest

from domain import commands as c
from domain.errors import RuleViolation
from domain.rulesystems.novus import commands as nc
from domain.rulesystems.novus.stats import NovusStats
from tests.builders import Table, duel, of_type
from tests.builders.novus import novus_stats, target_stats


def three(a_ip: int = 19, b_ip: int = 12) -> Table:
    t = Table()
    t.add("A", novus_stats())
    t.add("B", novus_stats())
    t.add("Foe", target_stats(def_=30))
    t.ip("A", a_ip), t.ip("B", b_ip), t.ip("Foe", 5)
    t.declare("Foe")
    return t


@pytest.mark.over_http
def test_given_a_declared_medium_attack_when_a_decides_to_hold_to_12_then_4_ap_and_first():
    t = three()  # NOV-TV-15, NOV-TV-50 (a)
    t.declare("B", {"kind": "draw_weapon"})
    t.declare("A", {"kind": "melee_attack", "target": "Foe", "weapon": "sword"})
    with pytest.raises(RuleViolation) as e:
        t.run(c.Hold(combatant=t.ids["A"], ip=19))
    assert e.value.rule == "NOV-HOLD-2"
    held = t.run(c.Hold(combatant=t.ids["A"], ip=12))[0]
    assert (held.ap_cost, held.ap_budget) == (1, 4)
    assert t.who("A")["action_points_left"] == 0
    names = [t.state.combatants[a["combatant"]].name for a in t.view["actions"]]
    assert names == ["A", "B"]  # at IP 12 the holder goes before B


@pytest.mark.over_http
def test_given_a_hold_announced_in_the_declaration_then_it_costs_nothing() -> None:
    t = three()  # NOV-TV-50 (b), Default NOV-AMB-43
    t.declare("B")
    events = t.declare("A", {"kind": "melee_attack", "target": "Foe", "weapon": "sword"}, hold_ip=3)
    assert events[0].ap_budget == 5 and t.who("A")["hold_ip"] == 3
    assert [t.state.combatants[a["combatant"]].name for a in t.view["actions"]] == ["A"]


@pytest.mark.over_http
def test_given_5_ap_declared_when_deciding_to_hold_then_refused_for_lack_of_ap() -> None:
    t = three()
    t.declare("B")
    t.declare("A", {"kind": "power_attack", "target": "Foe", "weapon": "sword"})
    with pytest.raises(RuleViolation) as e:
        t.run(c.Hold(combatant=t.ids["A"], ip=10))
    assert e.value.rule == "NOV-HOLD-1"


def test_given_base_ip_12_when_preparing_a_round_then_next_round_rolls_again_and_replaces_it():
    t = Table()  # NOV-TV-51
    t.add("A", novus_stats(bonuses={"spd": 2, "wis": 1}))
    t.add("B", novus_stats())
    t.ip("A", 12), t.ip("B", 5)
    t.declare("B")
    with pytest.raises(RuleViolation):
        t.declare("A", {"kind": "prepare_reroll"}, {"kind": "perception"})
    events = t.declare("A", {"kind": "prepare_reroll"})
    assert events[0].ap_spent == 5
    t.resolve()
    t.run(c.EndRound())
    assert t.view["step"] == "initiative"
    rolled = t.run(c.RollInitiative(combatant=t.ids["A"]), initiative=[9, 6])
    assert rolled[0].ip == 18 and t.who("A")["ip"] == 18
    assert "reroll_initiative" not in t.who("A")["conditions"]
    assert t.view["step"] == "declaration"


def missed_by(points: int) -> Table:
    """A's sword attack (AB 9) against T with DEF 15 + 5 × points."""
    t = Table()
    t.add("A", novus_stats())
    t.add("Friend", target_stats(def_=10, ar=0, hits=30), side="")
    t.add("T", target_stats(def_=15 + 5 * points, ar=0))
    t.ip("A", 19), t.ip("Friend", 10), t.ip("T", 12)
    t.declare("Friend"), t.declare("T")
    t.declare("A", {"kind": "melee_attack", "target": "T", "weapon": "sword"})
    return t


def test_given_1_snag_point_when_choosing_hit_nearest_friend_then_refused() -> None:
    t = missed_by(1)  # NOV-TV-46 (a): short of DEF 20 by 11 → 1 SP
    attack = of_type(t.resolve([1, 2, 3]), "AttackRolled")[0]  # 1 − 3 + 2 + 9 = 9
    assert (attack.snag_points, t.view["step"]) == (1, "snags")
    with pytest.raises(RuleViolation) as e:
        t.run(nc.SpendSnags(snags=[nc.SnagSpec(name="hit_friend", target=t.ids["Friend"])]))
    assert e.value.rule == "NOV-SNAG-1"


def test_given_2_snag_points_when_hitting_the_nearest_friend_then_a_new_attack_roll_on_him():
    t = missed_by(3)  # NOV-TV-46 (b): DEF 30, total 4 → 2 SP
    attack = of_type(t.resolve([1, 2, 7]), "AttackRolled")[0]  # 1 − 7 + 2 + 9 = 5 vs 30
    assert attack.snag_points == 2
    events = t.run(
        nc.SpendSnags(snags=[nc.SnagSpec(name="hit_friend", target=t.ids["Friend"])]),
        friend_attack=[5, 5],
    )
    friend = of_type(events, "AttackRolled")[0]
    assert (friend.target, friend.total, friend.hit) == (t.ids["Friend"], 19, True)
    assert of_type(events, "DamageApplied")[0].combatant == t.ids["Friend"]


def test_given_a_weapon_break_snag_with_bd_8_then_16_hits_to_the_wielder_no_armour() -> None:
    t = missed_by(4)  # NOV-TV-46 (c): 3 SP
    t.resolve([1, 1, 5, 1, 2], snags=[nc.SnagSpec(name="weapon_breaks")])
    # 1 − 5 + (1 − 1 − 2) + 9 = 3 vs 35: 3 SP
    assert t.who("A")["hits"] == 30 - 16


def test_given_a_miss_into_melee_when_the_bystander_fails_by_3_then_6_damage() -> None:
    t = Table()  # NOV-TV-19, NOV-TV-52
    t.add(
        "Archer",
        novus_stats(
            weapons=[{"name": "bow", "kind": "missile", "dr": 5, "stat": "dex", "ranks": 6}],
            bonuses={"dex": 0},
        ),
    )
    t.add("Target", target_stats(def_=20, ar=0))
    t.add("Bystander", target_stats(def_=16, ar=2, bonuses={"spd": 1}))
    t.ip("Archer", 19), t.ip("Target", 10), t.ip("Bystander", 8)
    t.declare("Bystander"), t.declare("Target")
    t.declare(
        "Archer",
        {
            "kind": "missile_attack",
            "target": "Target",
            "weapon": "bow",
            "into_melee": True,
            "bystanders": [t.ids["Bystander"]],
        },
    )
    events = t.resolve([7, 5], dice={"bystander_save:Bystander": [3, 4]})
    attack = of_type(events, "AttackRolled")[0]
    assert attack.attack_bonus["firing into melee"] == -2 and attack.total == 16
    save = of_type(events, "SaveRolled")[0]
    assert (save.tn, save.total, save.margin) == (16, 13, -3)
    assert of_type(events, "DamageApplied")[0].amount == 6


def test_given_base_movement_10_when_running_then_feet_double() -> None:
    t = Table()  # NOV-TV-49 distances
    t.add("A", novus_stats(base_movement=10))
    t.ip("A", 10)
    t.declare("A", {"kind": "run", "ap": 2}, {"kind": "move", "ap": 1})
    assert of_type(t.resolve(), "ActionResolved")[0].detail["feet"] == 40
    assert of_type(t.resolve(), "ActionResolved")[0].detail["feet"] == 10


def test_given_str_17_con_16_racial_80_special_10_then_maximum_113_starting_63() -> None:
    stats = NovusStats.model_validate(  # NOV-TV-48
        {"racial_max_hits": 80, "special_hits": 10, "values": {"str": 17, "con": 16}}
    )
    assert (stats.hits, stats.current_hits) == (113, 63)
    t = Table()
    t.add("Fighter", {"racial_max_hits": 80, "special_hits": 10, "values": {"str": 17, "con": 16}})
    assert (t.who("Fighter")["max_hits"], t.who("Fighter")["hits"]) == (113, 63)


def test_given_lightning_attack_when_bought_then_an_immediate_attack_at_minus_4() -> None:
    t = duel(target=target_stats(def_=15, ar=0))  # NOV-BOON table, Default NOV-AMB-42
    t.resolve([10, 10, 5, 1], boons=[nc.BoonSpec(name="lightning_attack")])  # 2 BP
    nxt = t.view["actions"][0]
    assert nxt["immediate"] and nxt["cost"] == 0
    attack = of_type(t.resolve([5, 5]), "AttackRolled")[0]
    assert attack.attack_bonus["lightning attack"] == -4
