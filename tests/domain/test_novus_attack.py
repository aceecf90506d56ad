"""Novus attacks, damage, Boons, saves, conditions and dying (novus-core.md vectors).

Vectors and the rules they test (from the rule files):
- NOV-TV-32: NOV-CORE-5, NOV-FATE-1
- NOV-TV-35: NOV-SAVE-1..3
- NOV-TV-36: NOV-ATK-3, -4, NOV-CMV-2
- NOV-TV-37: NOV-DMG-1
- NOV-TV-38: NOV-ATK-1, -2, -5, NOV-DMG-1..3
- NOV-TV-39: NOV-ATK-2, -5
- NOV-TV-40: NOV-ATK-5, NOV-BOON-1, NOV-COND-1
- NOV-TV-41: NOV-COND-1, NOV-END-1
- NOV-TV-42: NOV-COND-2, -5
- NOV-TV-43: NOV-BOON-2, -3
- NOV-TV-44: novus-core §5.1, NOV-DMG-1, -4
- NOV-TV-45: novus-core §5.1, NOV-SAVE-1..3
- NOV-TV-47: NOV-HITS-3..5
- NOV-TV-53: NOV-CMV-2
"""

from __future__ import annotations

import pytest

from domain import commands as c
from domain.errors import RuleViolation
from domain.rulesystems.novus import combat
from domain.rulesystems.novus import commands as nc
from tests.builders import Table, duel, of_type
from tests.builders.novus import novus_stats, target_stats


@pytest.mark.over_http
def test_given_dex_2_and_dr_6_when_hitting_with_margin_3_against_ar_4_then_7_damage() -> None:
    t = duel()  # NOV-TV-38, NOV-TV-37 (BD 8)
    events = t.resolve([8, 6])
    attack, damage = of_type(events, "AttackRolled")[0], of_type(events, "DamageApplied")[0]
    assert attack.rolls["attack"]["modifiers"] == {"skill ranks": 7, "dex bonus": 2}
    assert (attack.total, attack.defense["def"], attack.hit, attack.margin) == (23, 20, True, 3)
    assert attack.boon_points == 0
    assert sum(damage.breakdown["base_damage"].values()) == 8
    assert (damage.amount, damage.hits_before, damage.hits_after) == (7, 30, 23)


@pytest.mark.over_http
@pytest.mark.parametrize(("faces", "hit", "amount"), [([4, 5], False, None), ([6, 5], True, 4)])
def test_given_def_20_when_total_18_or_20_then_miss_or_hit_for_base_damage_only(
    faces: list[int], hit: bool, amount: int | None
) -> None:
    t = duel()  # NOV-TV-39
    events = t.resolve(faces)
    assert of_type(events, "AttackRolled")[0].hit is hit
    damages = of_type(events, "DamageApplied")
    assert (damages[0].amount if damages else None) == amount


def test_given_exploding_attack_with_margin_17_when_bleeder_bought_then_19_damage_and_wound():
    t = duel(target=target_stats(def_=18, ar=6))  # NOV-TV-40
    events = t.resolve([10, 7, 9])
    attack = of_type(events, "AttackRolled")[0]
    assert (attack.total, attack.margin, attack.boon_points) == (35, 17, 1)
    assert t.view["step"] == "boons"
    spent = t.run(nc.SpendBoons(boons=[nc.BoonSpec(name="bleeder")]))
    assert of_type(spent, "DamageApplied")[0].amount == 19
    wound = of_type(spent, "ConditionApplied")[0]
    assert (wound.condition, wound.rate) == ("bleeding", 1)
    assert t.who("T")["bleeding"] == 1 and t.who("T")["hits"] == 11


def test_given_bleeding_wounds_when_rounds_end_then_hits_drop_by_their_rates() -> None:
    t = duel(target=target_stats(def_=18, ar=6))  # NOV-TV-41
    t.resolve([10, 7, 9], boons=[nc.BoonSpec(name="bleeder")])
    t.run(c.EndRound())
    assert t.who("T")["hits"] == 10
    t.declare("T"), t.declare("A")
    t.run(c.EndRound())
    assert t.who("T")["hits"] == 9
    t.run(c.SetCondition(combatant=t.ids["T"], condition="bleeding", rate=2))
    t.declare("T"), t.declare("A")
    t.run(c.EndRound())
    assert t.who("T")["hits"] == 6 and t.who("T")["bleeding"] == 3


def test_given_wounds_of_rate_1_and_2_when_first_aid_then_tns_18_and_21() -> None:
    t = Table()  # NOV-TV-41, NOV-COND-1
    t.add("Medic", novus_stats(first_aid=10))
    t.add("T", target_stats())
    for rate in (1, 2):
        t.run(c.SetCondition(combatant=t.ids["T"], condition="bleeding", rate=rate))
    t.ip("Medic", 19), t.ip("T", 12)
    t.declare("T")
    t.declare("Medic", {"kind": "first_aid", "target": "T", "ap": 2})
    first = of_type(t.resolve(dice={"first_aid": [5, 3]}), "FirstAidRolled")[0]
    assert (first.tn, first.total, first.success) == (18, 18, True)
    assert t.who("T")["bleeding"] == 2
    t.run(c.EndRound())
    t.declare("T"), t.declare("Medic", {"kind": "first_aid", "target": "T", "ap": 2})
    second = of_type(t.resolve(dice={"first_aid": [5, 5]}), "FirstAidRolled")[0]
    assert (second.tn, second.success) == (21, False)


def test_given_daze_foe_when_the_dazed_foe_attacks_later_then_minus_4_for_two_rounds() -> None:
    t = Table()  # NOV-TV-42
    t.add("A", novus_stats())
    t.add(
        "Foe",
        novus_stats(
            weapons=[{"name": "club", "dr": 4, "stat": "str", "ranks": 6}], bonuses={"str": 2}
        ),
    )
    t.ip("A", 19), t.ip("Foe", 12)
    t.declare("Foe", {"kind": "melee_attack", "target": "A"})
    t.declare("A", {"kind": "melee_attack", "target": "Foe", "weapon": "sword"})
    t.resolve([10, 6, 8], boons=[nc.BoonSpec(name="daze_foe")])  # 24 + 9 = 33 vs 15: 1 BP
    foe_attack = of_type(t.resolve([5, 5]), "AttackRolled")[0]
    assert sum(foe_attack.attack_bonus.values()) == 4  # AB 8 − 4
    t.run(c.EndRound())
    assert t.who("Foe")["daze_count"] == 1  # not lowered in the round applied
    t.declare("Foe", {"kind": "melee_attack", "target": "A"}), t.declare("A")
    assert of_type(t.resolve([5, 5]), "AttackRolled")[0].attack_bonus["dazed"] == -4
    t.run(c.EndRound())
    assert t.who("Foe")["daze_count"] == 0 and "dazed" not in t.who("Foe")["conditions"]


@pytest.mark.parametrize(
    ("boons", "ok"),
    [
        ([("attack_boost", 2), ("defensive_posture", None)], True),
        ([("attack_boost", 1)], False),
        ([("adrenal_surge", None), ("strong_attack", None)], False),
    ],
)
def test_given_3_boon_points_when_buying_then_table_limits_apply(boons, ok) -> None:
    t = duel(target=target_stats(def_=15, ar=0))  # NOV-TV-43
    t.resolve([10, 10, 10, 6, 1])  # 26 + 11 + 9 = 46 vs 15: M 31, 3 BP
    assert t.view["pending_boons"]["points"] == 3
    specs = [nc.BoonSpec(name=n, points=p) for n, p in boons]
    if not ok:
        with pytest.raises(RuleViolation) as e:
            t.run(nc.SpendBoons(boons=specs))
        assert e.value.rule == "NOV-BOON-2"
        return
    t.run(nc.SpendBoons(boons=specs))
    t.run(c.EndRound())
    assert t.who("A")["def"] == 15 + 2  # Defensive Posture in the next round
    t.declare("T"), t.declare("A", {"kind": "melee_attack", "target": "T", "weapon": "sword"})
    attack = of_type(t.resolve([5, 5]), "AttackRolled")[0]
    assert attack.attack_bonus["Attack Boost"] == 2


@pytest.mark.over_http
def test_given_a_mace_when_buying_bleeder_then_refused() -> None:
    t = duel(
        target=target_stats(def_=15, ar=0),
        action={"kind": "melee_attack", "target": "T", "weapon": "mace"},
    )
    t.resolve([10, 10, 10, 6, 1])  # NOV-TV-43 (d)
    with pytest.raises(RuleViolation) as e:
        t.run(nc.SpendBoons(boons=[nc.BoonSpec(name="bleeder")]))
    assert e.value.rule == "NOV-BOON-2"


def test_given_bd_8_when_skilled_and_strong_attack_then_bd_10_plus_3() -> None:
    t = duel(target=target_stats(def_=15, ar=0))  # NOV-TV-44: 7 ranks, Str +2
    t.resolve([10, 10, 5, 1])  # 15 + 11 + 9 = 35 vs 15: M 20 → 2 BP
    damage = of_type(
        t.run(
            nc.SpendBoons(
                boons=[nc.BoonSpec(name="skilled_attack"), nc.BoonSpec(name="strong_attack")]
            )
        ),
        "DamageApplied",
    )[0]
    assert sum(damage.breakdown["base_damage"].values()) == 10
    assert damage.breakdown["extra"] == {"Skilled Attack": 3}
    assert damage.amount == 10 + 20 + 3


def test_given_disarm_foe_by_6_ranks_when_foe_rolls_12_with_str_2_then_tn_21_fails() -> None:
    attacker = novus_stats(weapons=[{"name": "sword", "dr": 6, "stat": "dex", "ranks": 6}])
    t = duel(attacker, target_stats(def_=15, ar=0, bonuses={"spd": 0, "str": 2}))
    events = t.resolve(
        [10, 7, 2], boons=[nc.BoonSpec(name="disarm_foe")], dice={"disarm_save": [6, 6]}
    )  # NOV-TV-45
    save = of_type(events, "SaveRolled")[0]
    assert (save.tn, save.total, save.saved) == (21, 19, False)
    assert "disarmed" in t.who("T")["conditions"]


def test_given_save_vs_con_bonus_1_when_rolling_9_then_15_saved_and_8_then_failed_by_1():
    t = Table()  # NOV-TV-35
    t.add("A", novus_stats(bonuses={"con": 1}))
    ok = t.run(nc.Save(combatant=t.ids["A"], stat="con"), save=[5, 4])[0]
    bad = t.run(nc.Save(combatant=t.ids["A"], stat="con"), save=[5, 3])[0]
    assert (ok.total, ok.saved) == (15, True)
    assert (bad.total, bad.saved, bad.margin) == (14, False, -1)


def test_given_speed_2_ranks_12_shield_and_dodge_then_def_25_and_prone_13() -> None:
    t = Table()  # NOV-TV-36
    t.add("A", novus_stats(bonuses={"spd": 2}, melee_ranks=12, shield="normal", magic_def=1))
    t.ip("A", 10)
    t.declare("A", {"kind": "dodge"})
    assert t.who("A")["def"] == 15 + 2 + 2 + 3 + 1 + 3  # the ring's +1 is magic: 26
    t.run(c.SetCondition(combatant=t.ids["A"], condition="prone"))
    assert t.who("A")["def"] == 13


def test_given_6_hits_when_taking_12_then_helpless_dying_and_losing_1_until_stabilised():
    t = Table()  # NOV-TV-47
    t.add("PC", novus_stats(hits=30, current_hits=6, first_aid=10))
    t.add("Other", novus_stats(hits=30, current_hits=-10))
    t.add("Foe", novus_stats())
    t.run(c.SetCondition(combatant=t.ids["Other"], condition="bleeding", rate=1))
    t.run(c.AdjustHits(combatant=t.ids["PC"], amount=-12, reason="12 after AR"))
    pc = t.who("PC")
    assert (pc["hits"], pc["helpless"], pc["dying"], pc["def"]) == (-6, True, True, 12)
    t.ip("PC", 10), t.ip("Other", 5), t.ip("Foe", 15)
    t.declare("Other")
    t.declare("PC", {"kind": "first_aid"})
    t.declare("Foe")
    t.run(
        c.SetModifier(combatant=t.ids["PC"], name="shaking", applies_to="act", value=-20, rounds=1)
    )
    failed = of_type(t.resolve(dice={"first_aid": [8, 8]}), "FirstAidRolled")[0]
    assert (failed.tn, failed.total, failed.success) == (25, 6, False)
    events = t.run(c.EndRound())  # the First Aid comes next round: PC could not yet roll
    assert t.who("PC")["hits"] == -7
    assert t.who("Other")["hits"] == -11 and t.who("Other")["dead"]
    assert [u.kind for u in of_type(events, "UpkeepTicked")] == ["dying", "bleeding"]
    t.declare("PC", {"kind": "first_aid"}), t.declare("Foe")
    assert of_type(t.resolve(dice={"first_aid": [8, 8]}), "FirstAidRolled")[0].success
    t.run(c.EndRound())
    assert t.who("PC")["hits"] == -7 and not t.who("PC")["dying"]


def test_given_helpless_when_declaring_an_attack_then_only_first_aid_on_himself() -> None:
    t = Table()  # NOV-HITS-3
    t.add("PC", novus_stats(current_hits=-3, first_aid=10))
    t.add("Foe", novus_stats())
    t.ip("PC", 10), t.ip("Foe", 15)
    with pytest.raises(RuleViolation) as e:
        t.declare("PC", {"kind": "melee_attack", "target": "Foe", "weapon": "sword"})
    assert e.value.rule == "NOV-HITS-3"
    t.declare("PC", {"kind": "first_aid"})
    t.declare("Foe")
    aid = of_type(t.resolve(dice={"first_aid": [8, 8]}), "FirstAidRolled")[0]
    assert (aid.purpose, aid.tn, aid.total, aid.success) == ("stabilise", 25, 26, True)
    assert not t.who("PC")["dying"]
    t.run(c.EndRound())
    assert t.who("PC")["hits"] == -3  # stabilised: no further loss


def test_given_cut_with_bd_8_and_margin_7_against_ar_6_then_8_damage() -> None:
    attacker = novus_stats(bonuses={"dex": 2})  # NOV-TV-53: Cut +1 AB
    t = duel(
        attacker,
        target_stats(def_=18, ar=6),
        {"kind": "melee_attack", "target": "T", "weapon": "sword", "move": "cut"},
    )
    events = t.resolve([8, 7])  # 15 + 9 + 1 = 25 vs 18: M 7
    assert of_type(events, "AttackRolled")[0].margin == 7
    assert of_type(events, "DamageApplied")[0].amount == 8


def test_given_nova_attack_when_resolved_then_fate_point_gained() -> None:
    t = duel()  # NOV-TV-32, NOV-FATE-1
    events = t.resolve([1, 10])
    assert of_type(events, "AttackRolled")[0].nova
    assert t.who("A")["fate_points"] == 1


def test_given_a_miss_by_10_when_resolved_then_snag_point_recorded() -> None:
    t = duel()  # NOV-CORE-7 (Default NOV-AMB-40)
    attack = of_type(t.resolve([1, 2, 3]), "AttackRolled")[0]  # 1 − 3 + 2 + 9 = 9 vs 20
    assert (attack.hit, attack.margin, attack.snag_points) == (False, -11, 1)


def test_given_gm_override_when_resolving_then_miss_becomes_hit() -> None:
    t = duel()
    events = t.resolve([4, 5], hit=True)
    assert of_type(events, "AttackRolled")[0].defense["gm_override"] is True
    assert of_type(events, "DamageApplied")[0].amount == 4  # BD 8 − AR 4, no scaled


def test_given_minor_foe_when_reduced_to_0_then_dead() -> None:
    t = Table()  # NOV-HITS-6
    t.add("Mook", target_stats(hits=5, minor_foe=True))
    t.run(c.AdjustHits(combatant=t.ids["Mook"], amount=-5))
    assert t.who("Mook")["dead"]
    assert combat.is_dead(t.state.combatants[t.ids["Mook"]])
