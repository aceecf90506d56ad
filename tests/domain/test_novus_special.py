"""Novus special situations (novus.md §5), through the domain and the HTTP API.

Vectors and the rules they test (from the rule files):
- NOV-TV-3: NOV-MAS-2
- NOV-TV-4: NOV-MAS-2
- NOV-TV-5: NOV-MCH-3, NOV-MCH-4
- NOV-TV-6: NOV-MCH-1
- NOV-TV-7: NOV-MCH-2
- NOV-TV-8: NOV-MCH-2, NOV-MCH-5
- NOV-TV-9: NOV-MNT-1..4
- NOV-TV-10: NOV-MNT-5, NOV-AP-1
- NOV-TV-11: NOV-CALL-5
- NOV-TV-12: NOV-CALL-1, -3, -4
- NOV-TV-16: NOV-FDEF-1, NOV-FDEF-3
- NOV-TV-17: NOV-BRAWL-2..4
- NOV-TV-18: NOV-IMP-2, NOV-IMP-3
- NOV-TV-21: NOV-TWO-1
- NOV-TV-22: NOV-MAS-1..3
- NOV-TV-24: NOV-CANCEL-2, NOV-CANCEL-4
- NOV-TV-25: NOV-DIS-1, NOV-OA-4
- NOV-TV-26: NOV-MCH-8
"""

from __future__ import annotations

import pytest

from domain import commands as c
from domain.errors import RuleViolation
from domain.rulesystems.novus import commands as nc
from domain.rulesystems.novus.state import marks_of
from tests.builders import Table, duel, of_type
from tests.builders.novus import novus_stats, target_stats


def facing(attacker: dict | None = None, target: dict | None = None) -> Table:
    t = Table()
    t.add("A", attacker or novus_stats(), side="heroes")
    t.add("T", target or target_stats(def_=10, ar=0, hits=60), side="foes")
    t.ip("A", 19), t.ip("T", 12)
    t.declare("T")
    return t


def attack_bonus(t: Table, **action) -> dict:
    t.declare("A", {"kind": "melee_attack", "target": "T", "weapon": "sword", **action})
    return of_type(t.resolve([5, 5]), "AttackRolled")[0].attack_bonus


@pytest.mark.over_http
@pytest.mark.parametrize(
    ("action", "name", "value"),
    [
        ({"called_shot": "arm"}, "called shot: arm", -4),  # NOV-CALL-1
        ({"called_shot": "head"}, "called shot: head", -8),
        ({"direction": "flank"}, "flank", 2),  # NOV-CZ-2
        ({"direction": "rear"}, "rear", 4),
        ({"off_hand": True}, "off hand", -4),  # NOV-OFF-1
    ],
)
def test_given_a_situation_when_attacking_then_its_ab_modifier_is_named(action, name, value):
    assert attack_bonus(facing(), **action)[name] == value


@pytest.mark.over_http
def test_given_an_ambidextrous_fighter_when_attacking_off_hand_then_no_penalty() -> None:
    assert "off hand" not in attack_bonus(facing(novus_stats(ambidextrous=True)), off_hand=True)


def test_given_fighting_defensively_6_then_ab_minus_6_and_def_plus_3_for_the_round() -> None:
    t = facing(novus_stats(bonuses={"dex": 2}))  # NOV-TV-16: skill bonus 9
    t.declare("A", {"kind": "melee_attack", "target": "T", "weapon": "sword", "defensive": 6})
    assert t.who("A")["def"] == 15 + 3
    ab = of_type(t.resolve([5, 5]), "AttackRolled")[0].attack_bonus
    assert ab["fighting defensively"] == -6 and t.who("A")["def"] == 18


@pytest.mark.over_http
@pytest.mark.parametrize(("defensive", "rule"), [(3, "NOV-FDEF-1"), (10, "NOV-FDEF-1")])
def test_given_an_odd_or_too_large_shift_when_fighting_defensively_then_refused(
    defensive: int, rule: str
) -> None:
    with pytest.raises(RuleViolation) as e:
        facing().declare(
            "A", {"kind": "melee_attack", "target": "T", "weapon": "sword", "defensive": defensive}
        )
    assert e.value.rule == rule


def test_given_brawling_with_str_2_dex_1_then_ab_3_and_base_damage_2() -> None:
    t = facing(novus_stats(bonuses={"str": 2, "dex": 1}))  # NOV-TV-17
    t.declare("A", {"kind": "brawl", "target": "T"})
    events = t.resolve([5, 5])  # 10 + 3 = 13 vs DEF 10: M 3
    assert sum(of_type(events, "AttackRolled")[0].attack_bonus.values()) == 3
    damage = of_type(events, "DamageApplied")[0]
    assert damage.breakdown["base_damage"] == {"damage rating": 0, "str bonus": 2}
    assert damage.amount == 2 + 3


def test_given_an_improvised_sword_then_skill_minus_4_and_half_base_damage() -> None:
    sword = {"name": "sword", "dr": 7, "stat": "str", "ranks": 6}  # skill 6+2 = 8, BD 9
    t = facing(novus_stats(bonuses={"str": 2, "dex": 1}, weapons=[sword]))  # NOV-TV-18
    t.declare("A", {"kind": "melee_attack", "target": "T", "weapon": "sword", "improvised": True})
    events = t.resolve([5, 5])
    ab = of_type(events, "AttackRolled")[0].attack_bonus
    assert ab == {"skill (improvised)": 8, "improvised": -4}
    damage = of_type(events, "DamageApplied")[0]
    assert sum(damage.breakdown["base_damage"].values()) == 4  # half of 9, rounded down
    assert damage.breakdown["scaled"] == 10 + 4 - 10


def test_given_a_medium_one_hander_in_two_hands_then_5_ap_and_base_damage_plus_2() -> None:
    t = facing()  # NOV-TV-21
    events = t.declare(
        "A", {"kind": "melee_attack", "target": "T", "weapon": "sword", "two_handed": True}
    )
    assert events[0].ap_spent == 5
    damage = of_type(t.resolve([5, 5]), "DamageApplied")[0]
    assert damage.breakdown["base_damage"]["two hands"] == 2


def test_given_an_arm_called_shot_hitting_twice_then_minus_2_each_and_useless_past_con():
    target = target_stats(def_=10, hits=60, called_shot_ar={"arm": 8}, values={"con": 12})
    t = facing(target=target)  # NOV-TV-12: AB 9 − 4 = 5; damage 8 + margin − 8
    shot = {
        "kind": "melee_attack",
        "target": "T",
        "weapon": "sword",
        "called_shot": "arm",
        "location": "left arm",
    }
    t.declare("A", shot)
    first = of_type(t.resolve([4, 6]), "LimbWounded")[0]  # 15 vs 10: 8 + 5 − 8 = 5
    assert (first.damage, first.penalty, first.useless) == (5, -2, False)
    t.run(c.EndRound())
    t.declare("T"), t.declare("A", shot)
    second = of_type(t.resolve([6, 7]), "LimbWounded")[0]  # 18 vs 10: 8 + 8 − 8 = 8
    assert (second.damage, second.total_damage, second.penalty) == (8, 13, -4)
    assert second.useless  # 13 > Con 12
    assert marks_of(t.state.combatants[t.ids["T"]]).limbs["left arm"].useless


def test_given_head_damage_7_8_14_15_with_con_bonus_2_then_extra_points_0_1_1_2() -> None:
    # NOV-TV-11: K = 2 + 5 = 7; damage D gives (D − 1) // 7 extra Boon Points
    for margin, extra in [(0, 0), (1, 1), (7, 1), (8, 2)]:
        target = target_stats(def_=10, ar=0, hits=60, bonuses={"spd": -5, "con": 2})
        attacker = novus_stats(
            weapons=[{"name": "club", "dr": 7, "stat": "str", "ranks": 8}], bonuses={"str": 0}
        )  # BD 7, AB 8 − 8 = 0 at the head
        t = facing(attacker, target)
        t.declare(
            "A", {"kind": "melee_attack", "target": "T", "weapon": "club", "called_shot": "head"}
        )
        faces = {0: [5, 5], 1: [5, 6], 7: [8, 9], 8: [9, 9]}[margin]
        attack = of_type(t.resolve(faces), "AttackRolled")[0]
        assert attack.margin == margin and attack.head_points == extra, margin


def test_given_head_extra_points_when_spent_on_another_boon_then_refused() -> None:
    target = target_stats(def_=10, ar=0, hits=60, bonuses={"spd": -5, "con": 0})
    attacker = novus_stats(
        weapons=[{"name": "club", "dr": 7, "stat": "str", "ranks": 8}], bonuses={"str": 0}
    )
    t = facing(attacker, target)
    t.declare("A", {"kind": "melee_attack", "target": "T", "weapon": "club", "called_shot": "head"})
    attack = of_type(t.resolve([8, 9]), "AttackRolled")[0]  # D = 7 + 7 = 14, K 5: 2 extra
    assert (attack.boon_points, attack.head_points) == (0, 2)
    with pytest.raises(RuleViolation) as e:
        t.run(nc.SpendBoons(boons=[nc.BoonSpec(name="strong_attack")]))
    assert e.value.rule == "NOV-BOON-4"
    t.run(nc.SpendBoons(boons=[nc.BoonSpec(name="daze_foe")]))
    assert t.who("T")["daze_count"] == 1


@pytest.mark.parametrize(("n", "foes", "penalty"), [(2, 2, -6), (2, 1, -4)])
def test_given_high_skill_when_splitting_attacks_then_penalties_per_attack_and_foe(
    n: int, foes: int, penalty: int
) -> None:
    skilled = novus_stats(
        weapons=[{"name": "sword", "dr": 6, "stat": "dex", "ranks": 23}], bonuses={"dex": 2}
    )  # total bonus 25: 3 attacks (NOV-TV-22)
    t = Table()
    t.add("A", skilled)
    for name in ("T1", "T2"):
        t.add(name, target_stats(def_=10, ar=0, hits=80))
    t.ip("A", 19), t.ip("T1", 5), t.ip("T2", 4)
    t.declare("T2"), t.declare("T1")
    targets = ["T1", "T2"] if foes == 2 else ["T1", "T1"]
    remainder = 25 + penalty  # NOV-TV-3: −6, NOV-TV-4 and -22: −4 → 21
    events = t.declare(
        "A",
        *[
            {"kind": "melee_attack", "target": x, "weapon": "sword", "ab_share": s}
            for x, s in zip(targets, [11, remainder - 11], strict=True)
        ],
    )
    assert events[0].ap_spent == 5  # Default NOV-AMB-13
    shares = [a["params"]["ab_share"] for a in events[0].actions]
    assert shares == [11, remainder - 11]
    with pytest.raises(RuleViolation) as e:
        t.run(c.Undo())  # and again with a wrong split
        t.declare(
            "A",
            *[
                {"kind": "melee_attack", "target": x, "weapon": "sword", "ab_share": 10}
                for x in targets
            ],
        )
    assert e.value.rule == "NOV-MAS-3"


def test_given_four_attacks_from_skill_25_then_refused_three_at_most() -> None:
    skilled = novus_stats(
        weapons=[{"name": "sword", "dr": 6, "stat": "dex", "ranks": 23}], bonuses={"dex": 2}
    )
    t = facing(skilled)
    with pytest.raises(RuleViolation) as e:
        t.declare("A", *[{"kind": "melee_attack", "target": "T", "weapon": "sword"}] * 4)
    assert e.value.rule == "NOV-MAS-1"


def rider(mc: int = 0, **kw) -> dict:
    return novus_stats(
        mounted_combat=mc,
        riding=10,
        mount_trained=True,
        weapons=[
            {
                "name": "lance",
                "dr": 8,
                "stat": "str",
                "ranks": 7,
                "size": "large",
                "family": "pole arm",
            }
        ],
        **kw,
    )


@pytest.mark.parametrize(("mc", "ap"), [(0, 8), (1, 8), (2, 6)])
def test_given_a_mounted_charge_then_8_ap_or_6_with_mounted_combat_2(mc: int, ap: int):
    t = facing(rider(mc))  # NOV-TV-6
    events = t.declare("A", {"kind": "mounted_charge", "target": "T", "weapon": "lance", "pace": 2})
    assert (events[0].ap_spent, events[0].ap_carried) == (5, ap - 5)


@pytest.mark.parametrize(("mc", "ab", "def_"), [(1, 4, -4), (0, -1, -9)])
def test_given_a_charge_then_ab_and_def_by_mounted_combat_1(mc: int, ab: int, def_: int):
    t = facing(rider(mc))  # NOV-TV-7
    t.declare("A", {"kind": "mounted_charge", "target": "T", "weapon": "lance", "pace": 2})
    assert t.who("A")["def"] == 15 + def_
    t.run(c.EndRound())
    t.declare("T"), t.declare("A")
    events = t.resolve([5, 5], dice={"riding": [6, 6]})  # Riding 12 + 10 ≥ 20
    assert of_type(events, "AttackRolled")[0].attack_bonus["mounted charge"] == ab


@pytest.mark.parametrize(("pace", "bonus", "tn"), [(2, 30, 20), (3, 45, 25), (4, 60, 30)])
def test_given_a_charge_at_pace_then_extra_damage_and_riding_tn(pace: int, bonus: int, tn: int):
    t = facing(rider(1))  # NOV-TV-5
    t.declare("A", {"kind": "mounted_charge", "target": "T", "weapon": "lance", "pace": pace})
    t.run(c.EndRound())
    t.declare("T"), t.declare("A")
    events = t.resolve([5, 5], dice={"riding": [9, 9]}, boons=[])
    assert of_type(events, "RidingRolled")[0].tn == tn
    assert of_type(events, "DamageApplied")[0].breakdown["extra"]["mounted charge"] == bonus


def test_given_a_failed_riding_roll_in_a_charge_without_mc1_then_ab_minus_2_def_minus_10():
    t = facing(rider(0))  # NOV-TV-8
    t.declare("A", {"kind": "mounted_charge", "target": "T", "weapon": "lance", "pace": 2})
    t.run(c.EndRound())
    t.declare("T"), t.declare("A")
    events = t.resolve([5, 5], dice={"riding": [2, 3]})  # 5 + 10 = 15 < 20
    ab = of_type(events, "AttackRolled")[0].attack_bonus
    assert ab["mounted charge"] + ab["failed Riding roll"] == -2
    assert t.who("A")["def"] == 15 - 9 - 1


def test_given_a_pace_above_4_without_a_gm_tn_then_refused() -> None:
    with pytest.raises(RuleViolation) as e:
        facing(rider(1)).declare(
            "A", {"kind": "mounted_charge", "target": "T", "weapon": "lance", "pace": 5}
        )
    assert e.value.rule == "NOV-MCH-4"


@pytest.mark.parametrize(
    ("mc", "foe_mounted", "ab", "def_"),
    [(1, True, 0, 0), (0, True, -5, -5), (1, False, -2, -3), (0, False, -7, -8)],
)
def test_given_a_mounted_attack_then_the_table_modifiers(mc, foe_mounted, ab, def_) -> None:
    sword = {"name": "sword", "dr": 6, "stat": "str", "ranks": 7, "size": "small"}
    t = facing(novus_stats(mounted_combat=mc, riding=10, weapons=[sword]))  # NOV-TV-9: 3 + 2 AP
    t.declare(
        "A",
        {
            "kind": "melee_attack",
            "target": "T",
            "weapon": "sword",
            "mounted": True,
            "foe_mounted": foe_mounted,
        },
    )
    assert t.who("A")["def"] == 15 + def_
    events = t.resolve([5, 5], dice={"riding": [9, 9]})  # TN 23 untrained: 28 passes
    assert of_type(events, "RidingRolled")[0].tn == 23
    assert of_type(events, "AttackRolled")[0].attack_bonus.get("mounted", 0) == ab


@pytest.mark.parametrize(("mc", "ap", "carried"), [(0, 5, 1), (2, 5, 0)])
def test_given_a_mounted_medium_attack_then_2_extra_ap_or_1_with_mc2(mc, ap, carried):
    sword = {"name": "sword", "dr": 6, "stat": "str", "ranks": 7}
    t = facing(novus_stats(mounted_combat=mc, weapons=[sword]))  # NOV-TV-10
    events = t.declare(
        "A", {"kind": "melee_attack", "target": "T", "weapon": "sword", "mounted": True}
    )
    assert (events[0].ap_spent, events[0].ap_carried) == (ap, carried)


def test_given_a_large_creature_then_its_control_zone_reaches_10_ft() -> None:
    t = Table()  # NOV-CZ-3
    t.add("Ogre", target_stats(size="large"))
    t.add("Imp", target_stats(size="tiny"))
    assert t.who("Ogre")["control_zone_ft"] == 10 and t.who("Imp")["control_zone_ft"] == 5


def test_given_a_cancelled_attack_on_x_when_replaced_by_an_attack_then_half_ab_not_on_x():
    t = Table()  # NOV-TV-24: AB 9 → 4
    t.add("A", novus_stats(), side="h")
    for name in ("X", "Y"):
        t.add(name, target_stats(def_=10, ar=0, hits=60), side="f")
    t.ip("A", 10), t.ip("X", 19), t.ip("Y", 1)
    t.declare("Y"), t.declare("A", {"kind": "melee_attack", "target": "X", "weapon": "sword"})
    t.declare("X", {"kind": "dodge"})
    t.resolve()  # X's dodge; A's attack has not resolved
    with pytest.raises(RuleViolation) as e:
        t.run(
            nc.Cancel(
                combatant=t.ids["A"],
                replacement=nc.ActionSpec(kind="melee_attack", target=t.ids["X"], weapon="sword"),
            )
        )
    assert e.value.rule == "NOV-CANCEL-4"
    t.run(
        nc.Cancel(
            combatant=t.ids["A"],
            replacement=nc.ActionSpec(kind="melee_attack", target=t.ids["Y"], weapon="sword"),
        )
    )
    assert t.view["actions"][0]["params"]["half_ab"]  # it happens at once
    attack = of_type(t.resolve([5, 5]), "AttackRolled")[0]
    assert sum(v for k, v in attack.attack_bonus.items()) == 4
    assert attack.target == t.ids["Y"]


def test_given_a_resolved_action_when_cancelled_then_refused() -> None:
    t = facing()
    t.declare("A", {"kind": "dodge"})
    t.resolve()
    with pytest.raises(RuleViolation) as e:
        t.run(nc.Cancel(combatant=t.ids["A"]))
    assert e.value.rule == "NOV-CANCEL-1"


def test_given_a_cancel_for_another_action_then_minus_5_and_a_move_at_most_3_ap() -> None:
    t = facing()
    t.declare("A", {"kind": "melee_attack", "target": "T", "weapon": "sword"})
    with pytest.raises(RuleViolation) as e:
        t.run(nc.Cancel(combatant=t.ids["A"], replacement=nc.ActionSpec(kind="move", ap=4)))
    assert e.value.rule == "NOV-CANCEL-2"
    t.run(nc.Cancel(combatant=t.ids["A"], replacement=nc.ActionSpec(kind="first_aid")))
    assert t.view["actions"][0]["params"]["ab_mods"] == {"cancelled: other action": -5}


def test_given_a_charge_coming_when_the_foe_cancels_for_a_dodge_then_its_def_is_doubled():
    t = Table()  # NOV-TV-26, NOV-MCH-8: +3 becomes +6
    t.add("Rider", rider(1), side="h")
    t.add("Foot", novus_stats(), side="f")
    t.ip("Rider", 5), t.ip("Foot", 19)
    t.declare("Rider", {"kind": "mounted_charge", "target": "Foot", "weapon": "lance", "pace": 2})
    t.declare("Foot", {"kind": "perception"})
    t.resolve()  # the foot soldier's perception
    t.run(c.EndRound())
    t.declare("Rider"), t.declare("Foot", {"kind": "draw_weapon"})
    before = t.who("Foot")["def"]
    t.run(nc.Cancel(combatant=t.ids["Foot"], replacement=nc.ActionSpec(kind="dodge")))
    assert t.who("Foot")["def"] == before + 6


def test_given_a_declared_attack_when_an_opportunity_arises_then_it_uses_that_attack() -> None:
    t = Table()  # NOV-OA-1..3
    t.add("A", novus_stats(), side="h")
    t.add("B", target_stats(def_=10, ar=0, hits=60), side="f")
    t.add("C", target_stats(def_=10, ar=0, hits=60), side="f")
    t.ip("A", 10), t.ip("B", 19), t.ip("C", 2)
    t.declare("C"), t.declare("A", {"kind": "melee_attack", "target": "C", "weapon": "sword"})
    t.declare("B", {"kind": "move", "ap": 2})
    taken = t.run(nc.OpportunityAttack(combatant=t.ids["A"], target=t.ids["B"]))[0]
    assert taken.consumed is not None and taken.ap_cost == 0
    attack = of_type(t.resolve([5, 5]), "AttackRolled")[0]
    assert attack.target == t.ids["B"]
    with pytest.raises(RuleViolation) as e:  # his one attack is spent
        t.run(nc.OpportunityAttack(combatant=t.ids["A"], target=t.ids["B"]))
    assert e.value.rule == "NOV-OA-3"


def test_given_no_declared_attack_when_taking_an_opportunity_then_paid_in_ap() -> None:
    t = Table()  # NOV-OA-3 (Default NOV-AMB-25)
    t.add("A", novus_stats(), side="h")
    t.add("B", target_stats(def_=10, ar=0, hits=60), side="f")
    t.ip("A", 10), t.ip("B", 19)
    t.declare("A", {"kind": "perception"})
    t.declare("B", {"kind": "move", "ap": 2})
    taken = t.run(nc.OpportunityAttack(combatant=t.ids["A"], target=t.ids["B"], weapon="sword"))[0]
    assert taken.ap_cost == 4 and t.who("A")["action_points_left"] == 0


def test_given_a_disengage_then_1_ap_and_a_move_out_of_the_zone() -> None:
    t = facing()  # NOV-TV-25
    events = t.declare("A", {"kind": "disengage"}, {"kind": "move", "ap": 1})
    assert events[0].ap_spent == 2


def test_given_a_charge_with_a_lance_against_a_sword_then_the_lance_strikes_first() -> None:
    t = Table()  # NOV-MCH-7: the longer weapon first, whatever the IPs
    t.add("Rider", rider(1), side="h")
    t.add("Foot", novus_stats(), side="f")
    t.ip("Rider", 5), t.ip("Foot", 19)
    t.declare("Rider", {"kind": "mounted_charge", "target": "Foot", "weapon": "lance", "pace": 2})
    t.declare("Foot")
    t.run(c.EndRound())
    (
        t.declare("Rider"),
        t.declare("Foot", {"kind": "melee_attack", "target": "Rider", "weapon": "sword"}),
    )
    order = [t.state.combatants[a["combatant"]].name for a in t.view["actions"]]
    assert order == ["Rider", "Foot"]


def test_given_an_attack_coming_when_cancelled_for_a_block_that_succeeds_then_it_is_stopped():
    t = Table()  # NOV-CMV-2, NOV-CANCEL-2: Basic Block vs TN 10 + the attacker's AB
    t.add("A", novus_stats(), side="h")  # block skill 9
    t.add("B", novus_stats(), side="f")  # AB 9: TN 19
    t.ip("A", 5), t.ip("B", 12)
    (
        t.declare("A", {"kind": "perception"}),
        t.declare("B", {"kind": "melee_attack", "target": "A", "weapon": "sword"}),
    )
    t.run(
        nc.Cancel(combatant=t.ids["A"], replacement=nc.ActionSpec(kind="block", target=t.ids["B"]))
    )
    block = of_type(t.resolve(dice={"block": [6, 5]}), "BlockRolled")[0]  # 11 + 9 = 20
    assert (block.tn, block.total, block.success) == (19, 20, True)
    assert t.view["step"] == "end_round"  # B's attack was stopped


def test_given_a_fate_point_when_spent_then_logged_with_the_gm_effect() -> None:
    t = duel()  # NOV-FATE-1, -2
    t.resolve([1, 10])  # a Nova Roll
    assert t.who("A")["fate_points"] == 1
    spent = t.run(nc.SpendFatePoint(combatant=t.ids["A"], effect="reroll the save"))[0]
    assert spent.effect == "reroll the save" and t.who("A")["fate_points"] == 0
    with pytest.raises(RuleViolation) as e:
        t.run(nc.SpendFatePoint(combatant=t.ids["A"], effect="again"))
    assert e.value.rule == "NOV-FATE-2"


def test_given_a_wounded_arm_when_an_action_uses_it_then_its_penalty_and_useless_refused():
    target = novus_stats(
        hits=60, called_shot_ar={"arm": 8}, values={"con": 12}, bonuses={"spd": -5, "dex": 2}
    )  # DEF 10
    t = Table()  # NOV-CALL-3, NOV-CALL-4: −2 per hit on actions with the limb; useless past Con
    t.add("A", novus_stats(), side="h")
    t.add("T", target, side="f")
    t.ip("A", 19), t.ip("T", 12)
    t.declare("T")
    shot = {
        "kind": "melee_attack",
        "target": "T",
        "weapon": "sword",
        "called_shot": "arm",
        "location": "sword arm",
    }
    t.declare("A", shot)
    t.resolve([4, 6])  # 5 to the arm: −2
    t.run(c.EndRound())
    t.declare("T", {"kind": "melee_attack", "target": "A", "weapon": "sword", "limb": "sword arm"})
    t.declare("A", shot)
    t.resolve([6, 7], boons=[])  # 8 more: 13 > Con 12, useless
    lost_or_rolled = t.resolve([5, 5])
    ab = of_type(lost_or_rolled, "AttackRolled")[0].attack_bonus
    assert ab["sword arm wounded"] == -4
    t.run(c.EndRound())
    with pytest.raises(RuleViolation) as e:
        t.declare(
            "T", {"kind": "melee_attack", "target": "A", "weapon": "sword", "limb": "sword arm"}
        )
    assert e.value.rule == "NOV-CALL-4"


@pytest.mark.parametrize(
    ("vector", "faces", "dice_total"),
    [
        ("NOV-TV-27", [10, 4, 7], 21),
        ("NOV-TV-28", [10, 4, 10, 3], 27),
        ("NOV-TV-29", [1, 3, 5], -1),
        ("NOV-TV-30", [1, 3, 1, 6], -3),
        ("NOV-TV-31", [10, 5, 1], 16),
        ("NOV-TV-32", [1, 10], 11),
        ("NOV-TV-33", [10, 10, 4, 10, 2], 36),
    ],
)
def test_given_the_dice_vectors_when_rolled_as_a_save_then_the_totals_match(
    vector: str, faces: list[int], dice_total: int
) -> None:
    t = Table()  # NOV-CORE-2..5 through a command (and the HTTP API)
    t.add("A", novus_stats(bonuses={"con": 0}))
    save = t.run(nc.Save(combatant=t.ids["A"], stat="con"), save=faces)[0]
    assert save.rolls["save"]["dice_total"] == dice_total, vector
    assert save.rolls["save"]["faces"] == faces
