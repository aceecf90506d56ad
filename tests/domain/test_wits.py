"""The Wits system: every test vector of shared/rules/wits.md (WIT-TV-1..18) and the AUTO
rules, each test run in the domain and through the HTTP API with manual dice."""

from __future__ import annotations

from typing import Any

import pytest

from domain import commands as c
from domain.errors import RuleViolation
from domain.rulesystems.wits import commands as wc
from tests.builders import DomainTable, Table, of_type
from tests.builders.wits import farthan, fighter


def table(a: dict[str, Any] | None = None, b: dict[str, Any] | None = None, **options: Any):
    """A (Wits 12) and B (Wits 10), placed in the order; it is A's turn."""
    t = Table("wits", options)
    t.add("A", a or fighter(), side="heroes")
    t.add("B", b or fighter(wits=10), side="foes")
    t.run(c.RollInitiative())
    return t


def attack(t: DomainTable, who: str, target: str, weapon: str = "short sword", **kw: Any):
    dice = kw.pop("dice", {})
    if "defense" in kw and kw["defense"] is not None:
        kw["defense"] = wc.DefenseSpec(**kw["defense"])
    return t.run(wc.Attack(combatant=t.ids[who], target=t.ids[target], weapon=weapon, **kw), **dice)


def refused(rule: str, fn, *args: Any, **kw: Any) -> RuleViolation:
    with pytest.raises(RuleViolation) as e:
        fn(*args, **kw)
    assert e.value.rule == rule, e.value.detail
    return e.value


@pytest.mark.over_http
def test_given_lief_hits_with_a_short_sword_when_the_d6_rolls_up_then_damage_is_14():
    """WIT-TV-1 (WIT-DMG-1, WIT-DMG-3): D8 = 5; D6 = 6 → reroll 3: 5 + 6 + 3 = 14."""
    t = table()
    events = attack(t, "A", "B", dice={"attack": [7], "damage": [5, 6, 3]})
    (damage,) = of_type(events, "DamageApplied")
    assert damage.amount == 14
    roll = damage.rolls["damage"]
    assert [d["faces"] for d in roll["dice"]] == [[5], [6, 3]]
    assert [d["sides"] for d in roll["dice"]] == [8, 6]
    assert t.who("B")["health"] == 6


@pytest.mark.over_http
def test_given_farthan_blocks_when_his_shield_and_armour_add_then_block_skill_is_11():
    """WIT-TV-2 (WIT-DEF-6, WIT-DEF-7): floor(15 / 2) + 2 + 2 = 11."""
    t = table(a=fighter(), b=farthan())
    events = attack(t, "A", "B", "fist", defense={"kind": "block"}, roll=False)
    (declared,) = of_type(events, "DefenseDeclared")
    assert declared.skill["base"] == 7
    assert declared.skill["parts"] == {"shield defense": 2, "armour defense": 2}
    assert declared.skill["effective"] == 11


def test_given_farthans_block_at_11_when_he_rolls_7_then_the_punch_is_stopped():
    """WIT-TV-3 (WIT-TEST-1, WIT-ATK-4): the Jotan's Brawling test succeeds, Farthan's
    block 7 vs 11 succeeds: no damage. The defender may be entered before the roll."""
    t = table(a=fighter(), b=farthan())
    attack(t, "A", "B", "fist", roll=False)
    t.run(wc.Defend(combatant=t.ids["B"], defense=wc.DefenseSpec(kind="block")))
    events = t.run(wc.RollAttack(), attack=[9], defense=[7])
    (rolled,) = of_type(events, "AttackTestRolled")
    assert rolled.success and rolled.defense["success"] and not rolled.hit
    assert not of_type(events, "DamageApplied")
    assert t.who("B")["health"] == 20


def _jokkler_aims(t: DomainTable, actions: int) -> None:
    """Jokkler (A) aims `actions` times, ending each round after his two actions."""
    for _ in range(actions):
        if t.who("A")["actions_left"] == 0:
            t.run(c.EndTurn(combatant=t.ids["B"]))
            t.run(c.EndRound())
        t.run(wc.Aim(combatant=t.ids["A"]))


def test_given_jokkler_aims_five_actions_when_he_shoots_a_14_then_it_hits_at_17():
    """WIT-TV-4 (WIT-AIM-1..3, WIT-TEST-1): Sling 12, aims rounds 1, 2 and the first action
    of round 3, shoots with the second: 12 + 5 = 17; 14 ≤ 17."""
    sling = fighter(
        skills={"sling": 12},
        weapons=[{"name": "sling", "damage": "1d4", "skill": "sling", "ranged": True}],
    )
    t = table(a=sling)
    _jokkler_aims(t, 5)
    assert t.view["round"] == 3 and t.who("A")["aim"] == 5
    events = attack(t, "A", "B", "sling", dice={"attack": [14], "damage": [2]})
    (rolled,) = of_type(events, "AttackTestRolled")
    assert rolled.skill["effective"] == 17 and rolled.skill["parts"] == {"aiming": 5}
    assert rolled.hit
    assert t.who("A")["aim"] == 0


def test_given_jokkler_does_not_aim_when_he_shoots_a_14_then_it_misses_at_12():
    """WIT-TV-4, the counter-case: without aiming, 14 fails against 12."""
    sling = fighter(
        skills={"sling": 12},
        weapons=[{"name": "sling", "damage": "1d4", "skill": "sling", "ranged": True}],
    )
    t = table(a=sling)
    (rolled,) = of_type(attack(t, "A", "B", "sling", dice={"attack": [14]}), "AttackTestRolled")
    assert rolled.skill["effective"] == 12 and not rolled.success and not rolled.hit


def test_given_vartok_18_feet_away_when_he_charges_then_he_moves_6_m_and_hits_at_12():
    """WIT-TV-5 (WIT-MOV-1, WIT-CHG-1..3, WIT-CHG-5): 18 ft = 6 m with one action, the attack
    with the other; Broadsword 14 − 2 = 12; 11 hits; damage 1d10 + 2d6, the source's 15."""
    vartok = fighter(
        skills={"broadsword": 14},
        weapons=[{"name": "broadsword", "damage": "1d10", "skill": "broadsword"}],
    )
    t = table(a=vartok)
    events = attack(
        t,
        "A",
        "B",
        "broadsword",
        charge=True,
        distance_ft=18,
        dice={"attack": [11], "damage": [7, 3, 5]},
    )
    (moved,) = of_type(events, "Moved")
    assert moved.metres == 6 and moved.actions == 1
    (rolled,) = of_type(events, "AttackTestRolled")
    assert rolled.skill["parts"] == {"charge": -2} and rolled.skill["effective"] == 12
    assert rolled.hit
    (damage,) = of_type(events, "DamageApplied")
    assert [d["sides"] for d in damage.rolls["damage"]["dice"]] == [10, 6, 6]
    assert damage.amount == 15
    assert t.who("A")["actions_left"] == 0


@pytest.mark.parametrize(("charge", "base_dice"), [(False, 2), (True, 3)])
def test_given_an_extraordinary_success_when_damage_is_rolled_then_one_more_base_die(
    charge: bool, base_dice: int
):
    """WIT-TV-6 (WIT-CRIT-3, WIT-CHG-3): Base Damage 1d6 → 2d6; charging, 3d6."""
    t = table()
    faces = [4] + [2] * base_dice
    events = attack(
        t,
        "A",
        "B",
        charge=charge,
        distance_m=6 if charge else None,
        degree="extraordinary",
        dice={"attack": [3], "damage": faces},
    )
    (damage,) = of_type(events, "DamageApplied")
    assert [d["sides"] for d in damage.rolls["damage"]["dice"]] == [8] + [6] * base_dice
    assert damage.breakdown["protection_ignored"]  # WIT-AMB-3: extraordinary is critical too


@pytest.mark.parametrize(
    ("part", "modifier"),
    [
        ("arm", -2),
        ("leg", -2),
        ("vitals", -3),
        ("groin", -4),
        ("head", -5),
        ("hand", -6),
        ("foot", -6),
        ("neck", -8),
        ("heart", -10),
    ],
)
def test_given_a_called_shot_when_the_attack_is_rolled_then_the_table_modifier_applies(
    part: str, modifier: int
):
    """WIT-TV-7 (WIT-CALL-1)."""
    t = table()
    (rolled,) = of_type(
        attack(t, "A", "B", called_shot=part, dice={"attack": [20]}), "AttackTestRolled"
    )
    assert rolled.skill["parts"] == {f"called shot: {part}": modifier}
    assert rolled.skill["effective"] == 13 + modifier


def test_given_sword_skill_14_when_calling_a_head_shot_then_effective_skill_is_9():
    """WIT-TV-8 (WIT-CALL-1, WIT-TEST-2); a 10 then misses."""
    t = table(a=fighter(skills={"short sword": 14, "brawling": 11, "bow": 12}))
    (rolled,) = of_type(
        attack(t, "A", "B", called_shot="head", dice={"attack": [10]}), "AttackTestRolled"
    )
    assert rolled.skill["effective"] == 9 and not rolled.success


@pytest.mark.parametrize("move", [12, 13])
def test_given_move_12_or_13_when_moving_then_6_m_is_one_action_and_7_m_the_round(move: int):
    """WIT-TV-9 (WIT-MOV-1, WIT-MOV-2)."""
    t = table(a=fighter(move=move))
    (moved,) = of_type(t.run(wc.Move(combatant=t.ids["A"], distance_m=6)), "Moved")
    assert moved.actions == 1 and t.who("A")["actions_left"] == 1
    refused("WIT-MOV-2", t.run, wc.Move(combatant=t.ids["A"], distance_m=7))
    t.run(c.EndTurn(combatant=t.ids["A"]))
    t.run(c.EndTurn(combatant=t.ids["B"]))
    t.run(c.EndRound())
    (moved,) = of_type(t.run(wc.Move(combatant=t.ids["A"], distance_m=7)), "Moved")
    assert moved.actions == 2 and t.who("A")["actions_left"] == 0
    assert t.view["acting"] == t.ids["B"]  # after 7 m he cannot act this round


def test_given_farthan_takes_total_defense_against_one_attack_then_block_is_14():
    """WIT-TV-10 (WIT-DEF-4): 11 + 3 = 14, and it uses both his actions."""
    t = table(a=fighter(), b=farthan())
    events = attack(
        t, "A", "B", "fist", defense={"kind": "block", "mode": "total_single"}, roll=False
    )
    (declared,) = of_type(events, "DefenseDeclared")
    assert declared.skill["effective"] == 14 and declared.actions == 2
    assert t.who("B")["actions_left"] == 0


@pytest.mark.parametrize(("degree", "health"), [(None, 9), ("critical", 6)])
def test_given_a_14_point_hit_on_protection_3_then_health_20_becomes_9_or_6_on_a_critical(
    degree: str | None, health: int
):
    """WIT-TV-11 (WIT-DMG-2, WIT-CRIT-1): 14 − 3 = 11 → 9; a Critical ignores Protection."""
    t = table(b=fighter(wits=10, armour={"protection": 3, "defense": 0}))
    attack(t, "A", "B", degree=degree, dice={"attack": [5], "damage": [8, 5, 1]})
    assert t.who("B")["health"] == health


def test_given_a_bow_rolls_up_when_it_hits_then_no_base_damage_die_is_added():
    """WIT-TV-12 (WIT-DMG-3, WIT-DMG-4): D8 = 8 → reroll 2 = 10; Strength adds nothing."""
    t = table()
    events = attack(t, "A", "B", "bow", dice={"attack": [4], "damage": [8, 2]})
    (damage,) = of_type(events, "DamageApplied")
    assert damage.amount == 10 and len(damage.rolls["damage"]["dice"]) == 1


@pytest.mark.parametrize(
    ("roll_up", "faces", "total"), [("open", [6, 6, 2], 14), ("once", [6, 6], 12)]
)
def test_given_a_d6_chain_6_6_2_then_open_ended_is_14_and_a_single_reroll_12(
    roll_up: str, faces: list[int], total: int
):
    """WIT-TV-13 (WIT-DMG-3, Default WIT-AMB-4 and its override `roll_up: once`)."""
    sling = fighter(
        skills={"sling": 12},
        weapons=[{"name": "sling", "damage": "1d6", "skill": "sling", "ranged": True}],
    )
    t = table(a=sling, roll_up=roll_up)
    (damage,) = of_type(
        attack(t, "A", "B", "sling", dice={"attack": [1], "damage": faces}), "DamageApplied"
    )
    assert damage.amount == total


def test_given_he_attacked_this_round_when_he_tries_total_defense_then_only_basic():
    """WIT-TV-14 (WIT-DEF-1, WIT-DEF-3): refused; a Basic Defense with his action left is not."""
    t = table()
    attack(t, "A", "B", dice={"attack": [20]})
    t.run(c.EndTurn(combatant=t.ids["A"]))
    attack(t, "B", "A", roll=False)
    total = wc.DefenseSpec(kind="parry", mode="total")
    refused("WIT-DEF-1", t.run, wc.Defend(combatant=t.ids["A"], defense=total))
    events = t.run(wc.Defend(combatant=t.ids["A"], defense=wc.DefenseSpec(kind="parry")))
    assert of_type(events, "DefenseDeclared")[0].mode == "basic"


def test_given_a_top_heavy_axe_used_to_attack_when_parrying_then_skill_is_7():
    """WIT-TV-15 (WIT-DEF-6..8): floor(14 / 2) − 2 + 2 = 7."""
    axeman = fighter(
        skills={"axe": 14},
        weapons=[{"name": "axe", "damage": "1d8", "skill": "axe", "top_heavy": True}],
        armour={"protection": 0, "defense": 2},
    )
    t = table(a=axeman)
    attack(t, "A", "B", "axe", dice={"attack": [20]})
    t.run(c.EndTurn(combatant=t.ids["A"]))
    attack(t, "B", "A", roll=False)
    events = t.run(wc.Defend(combatant=t.ids["A"], defense=wc.DefenseSpec(kind="parry")))
    (declared,) = of_type(events, "DefenseDeclared")
    assert declared.skill["parts"] == {"top-heavy after attacking": -2, "armour defense": 2}
    assert declared.skill["effective"] == 7


@pytest.mark.over_http
def test_given_a_top_heavy_weapon_ruled_no_parry_when_parrying_after_attacking_then_refused():
    """WIT-DEF-8: the GM's other ruling, 'cannot parry at all'."""
    axeman = fighter(
        skills={"axe": 14},
        weapons=[
            {
                "name": "axe",
                "damage": "1d8",
                "skill": "axe",
                "top_heavy": True,
                "parry_after_attack": "none",
            }
        ],
    )
    t = table(a=axeman)
    attack(t, "A", "B", "axe", dice={"attack": [20]})
    t.run(c.EndTurn(combatant=t.ids["A"]))
    attack(t, "B", "A", roll=False)
    refused(
        "WIT-DEF-8", t.run, wc.Defend(combatant=t.ids["A"], defense=wc.DefenseSpec(kind="parry"))
    )


def test_given_he_aimed_then_defended_when_he_attacks_then_no_aiming_bonus():
    """WIT-TV-16 (WIT-AIM-2, WIT-AIM-5): aim twice, a Basic Defense, then the attack."""
    t = table(a=fighter(wits=10), b=fighter(wits=12))  # B acts first
    t.run(c.EndTurn(combatant=t.ids["B"]))
    t.run(wc.Aim(combatant=t.ids["A"]))
    t.run(wc.Aim(combatant=t.ids["A"]))
    assert t.who("A")["aim"] == 2
    t.run(c.EndRound())
    events = attack(t, "B", "A", defense={"kind": "parry"}, dice={"attack": [20], "defense": [1]})
    (lost,) = of_type(events, "AimLost")
    assert lost.aim == 2
    t.run(c.EndTurn(combatant=t.ids["B"]))
    (rolled,) = of_type(attack(t, "A", "B", dice={"attack": [20]}), "AttackTestRolled")
    assert "aiming" not in rolled.skill["parts"]


def test_given_two_combatants_with_wits_14_when_placed_then_the_higher_roll_off_acts_first():
    """WIT-TV-17 (WIT-ORD-2, Default WIT-AMB-15): 1d6 each, higher first, ties reroll."""
    t = Table("wits")
    t.add("A", fighter(wits=14))
    t.add("B", fighter(wits=14))
    t.add("C", fighter(wits=16))
    events = t.run(c.RollInitiative(), **{"tie:A": [4, 2], "tie:B": [4, 5]})
    placed = {e.combatant: e for e in of_type(events, "InitiativeRolled")}
    assert placed[t.ids["B"]].rolls["tie:B"]["faces"] == [4, 5]
    assert placed[t.ids["B"]].modifiers == {"rank among equals": 1}
    assert placed[t.ids["A"]].modifiers == {"rank among equals": 2}
    assert placed[t.ids["C"]].rolls == {}
    assert t.view["order"] == [t.ids["C"], t.ids["B"], t.ids["A"]]


def test_given_three_tied_when_two_tie_again_then_only_they_reroll_and_stay_ahead():
    """Default WIT-AMB-15: A and B beat C 5 to 3, then settle between themselves."""
    t = Table("wits")
    for name in ("A", "B", "C"):
        t.add(name, fighter(wits=9))
    t.run(c.RollInitiative(), **{"tie:A": [5, 3, 2], "tie:B": [5, 3, 1], "tie:C": [3]})
    assert t.view["order"] == [t.ids["A"], t.ids["B"], t.ids["C"]]


def test_given_seven_tied_when_placed_then_the_roll_off_ends():
    """Default WIT-AMB-15 with more combatants than a d6 has faces."""
    t = Table("wits")
    names = [f"G{i}" for i in range(7)]
    for name in names:
        t.add(name, fighter(wits=9))
    faces = {f"tie:{n}": [6 - i if i < 6 else 1] for i, n in enumerate(names)}
    faces["tie:G5"] = [1, 2]
    faces["tie:G6"] = [1, 1, 4]
    faces["tie:G5"] = [1, 1, 3]
    t.run(c.RollInitiative(), **faces)
    assert t.view["order"] == [t.ids[n] for n in names[:5]] + [t.ids["G6"], t.ids["G5"]]


def test_given_a_late_joiner_at_a_wits_already_held_then_he_acts_after_them():
    """fraylog's default beside WIT-ORD-2: those placed first keep their places."""
    t = table()
    t.add("C", fighter(wits=12))
    events = t.run(c.RollInitiative())
    assert events[0].rolls == {}
    assert t.view["order"] == [t.ids["A"], t.ids["C"], t.ids["B"]]


def test_given_two_combatants_with_wits_14_when_the_gm_orders_them_then_his_order_holds():
    """WIT-TV-17 (WIT-ORD-2): the GM decides who completes first."""
    t = Table("wits")
    t.add("A", fighter(wits=14))
    t.add("B", fighter(wits=14))
    t.run(c.RollInitiative(), **{"tie:A": [6], "tie:B": [1]})
    t.run(wc.RollInitiative(tie_order=[t.ids["B"], t.ids["A"]]))
    assert t.view["order"] == [t.ids["B"], t.ids["A"]]
    refused("WIT-ORD-2", t.run, wc.RollInitiative(tie_order=[t.ids["B"]]))


def test_given_a_target_4_m_away_when_charging_then_refused():
    """WIT-TV-18 (WIT-CHG-1)."""
    t = table()
    refused("WIT-CHG-1", attack, t, "A", "B", charge=True, distance_m=4)
    assert t.who("A")["actions_left"] == 2  # nothing recorded


# -- the AUTO rules beyond the vectors ------------------------------------------------


def test_given_the_order_when_the_slower_acts_first_then_refused_until_the_faster_is_done():
    """WIT-ORD-1, WIT-ORD-5: descending Wits; he takes his actions on his own turn."""
    t = table()
    assert t.view["acting"] == t.ids["A"] and t.view["step"] == "turns"
    refused("WIT-ORD-1", t.run, wc.Aim(combatant=t.ids["B"]))
    t.run(wc.Aim(combatant=t.ids["B"], out_of_order=True))  # the GM rules otherwise
    t.run(wc.Aim(combatant=t.ids["A"]))
    t.run(wc.Aim(combatant=t.ids["A"]))
    assert t.view["acting"] == t.ids["B"]
    t.run(wc.Aim(combatant=t.ids["B"]))
    assert t.view["step"] == "end_round"
    refused("WIT-ORD-1", t.run, wc.Aim(combatant=t.ids["A"]))


def test_given_he_holds_when_others_act_then_he_acts_at_any_later_point():
    """WIT-ORD-3: a held turn passes to the next; he acts later in the round."""
    t = table()
    t.run(c.Hold(combatant=t.ids["A"]))
    assert t.view["acting"] == t.ids["B"]
    t.run(wc.Aim(combatant=t.ids["B"]))
    t.run(wc.Aim(combatant=t.ids["A"]))  # in the middle of B's turn
    assert t.who("A")["actions_left"] == 1 and t.who("A")["held"]
    refused("WIT-ORD-3", t.run, c.Hold(combatant=t.ids["A"]))


def test_given_two_actions_when_a_third_is_tried_then_refused():
    """WIT-ACT-1, WIT-ACT-2, WIT-ACT-3: two actions a round; a spell is one, a GM-entered
    long talk may be two."""
    t = table()
    t.run(wc.TakeAction(combatant=t.ids["A"], what="casts Light"))
    refused("WIT-ACT-1", t.run, wc.TakeAction(combatant=t.ids["A"], what="talks", actions=2))
    t.run(wc.Aim(combatant=t.ids["A"]))
    assert t.who("A")["actions_left"] == 0


def test_given_a_round_when_it_ends_then_actions_renew_and_time_is_2_seconds_a_round():
    """WIT-RND-1."""
    t = table()
    t.run(c.EndRound())
    t.run(c.EndRound())
    assert t.view["round"] == 3 and t.view["elapsed_seconds"] == 4


def test_given_a_half_move_when_a_full_move_follows_then_refused_and_two_halves_are_fine():
    """WIT-MOV-2, Default WIT-AMB-14; WIT-MOV-3: feet at 3 ft = 1 m."""
    t = table()
    t.run(wc.Move(combatant=t.ids["A"], distance_ft=18))
    refused("WIT-MOV-2", t.run, wc.Move(combatant=t.ids["A"], distance_m=12))
    t.run(wc.Move(combatant=t.ids["A"], distance_m=6))
    refused("WIT-MOV-2", t.run, wc.Move(combatant=t.ids["B"], distance_m=13, out_of_order=True))


def test_given_an_aim_at_5_when_aiming_again_then_refused_and_a_stun_loses_it():
    """WIT-AIM-3, WIT-AIM-5 (Default WIT-AMB-17: the bonus carries across rounds)."""
    t = table()
    _jokkler_aims(t, 5)
    refused("WIT-AIM-3", t.run, wc.Aim(combatant=t.ids["A"]))
    events = t.run(c.SetCondition(combatant=t.ids["A"], condition="stunned"))
    assert of_type(events, "AimLost")[0].aim == 5
    assert t.who("A")["aim"] == 0


def test_given_aiming_when_he_moves_then_the_bonus_is_lost():
    """WIT-AIM-2, WIT-AIM-5: any action but the attack."""
    t = table()
    t.run(wc.Aim(combatant=t.ids["A"]))
    events = t.run(wc.Move(combatant=t.ids["A"], distance_m=2))
    assert of_type(events, "AimLost")[0].aim == 1


def test_given_aiming_with_a_fist_when_attacking_then_melee_and_unarmed_aim_too():
    """WIT-AIM-4."""
    t = table()
    t.run(wc.Aim(combatant=t.ids["A"]))
    (rolled,) = of_type(attack(t, "A", "B", "fist", dice={"attack": [20]}), "AttackTestRolled")
    assert rolled.skill["parts"] == {"aiming": 1}


def test_given_total_defense_when_three_blows_come_then_a_fourth_is_refused():
    """WIT-DEF-3: up to three blows, each attack once; no attack of his own that round."""
    t = Table("wits")
    for name, wits in (("A", 12), ("B", 11), ("C", 10), ("D", 9)):
        t.add(name, fighter(wits=wits))
    t.run(c.RollInitiative())
    total = {"kind": "dodge", "mode": "total"}
    attack(t, "A", "D", defense=total, roll=False)
    assert t.who("D")["actions_left"] == 0  # Default WIT-AMB-7: both actions
    again = wc.Defend(combatant=t.ids["D"], defense=wc.DefenseSpec(**total))
    refused("WIT-DEF-3", t.run, again)  # each attack at most once
    t.run(wc.RollAttack(), attack=[3], defense=[1])
    for who in ("A", "B"):
        attack(t, who, "D", defense=total, dice={"attack": [3], "defense": [1]})
    assert t.who("D")["blows_defended"] == 3 and t.who("D")["health"] == 20
    refused("WIT-DEF-3", attack, t, "B", "D", defense=total, roll=False)
    refused("WIT-DEF-3", attack, t, "D", "A", out_of_order=True, dice={"attack": [1]})


def test_given_total_defense_after_another_action_then_refused():
    """Default WIT-AMB-7: Total Defense uses both actions."""
    t = table()
    t.run(c.EndTurn(combatant=t.ids["A"]))
    t.run(wc.Aim(combatant=t.ids["B"]))
    refused(
        "WIT-AMB-7",
        attack,
        t,
        "A",
        "B",
        out_of_order=True,
        defense={"kind": "dodge", "mode": "total_single"},
        roll=False,
    )


def test_given_a_rolled_attack_when_a_defense_comes_late_then_refused():
    """WIT-DEF-5, WIT-ATK-2: declared while the blow is announced, before the roll."""
    t = table()
    attack(t, "A", "B", dice={"attack": [20]})
    refused(
        "WIT-DEF-5", t.run, wc.Defend(combatant=t.ids["B"], defense=wc.DefenseSpec(kind="dodge"))
    )


def test_given_an_announced_attack_when_someone_else_defends_or_acts_then_refused():
    """WIT-ATK-2: only the target answers, and the attack is rolled before anything else."""
    t = Table("wits")
    for name in ("A", "B", "C"):
        t.add(name, fighter(wits={"A": 12, "B": 11, "C": 10}[name]))
    t.run(c.RollInitiative())
    attack(t, "A", "B", roll=False)
    assert t.view["step"] == "attack"
    refused(
        "WIT-ATK-2", t.run, wc.Defend(combatant=t.ids["C"], defense=wc.DefenseSpec(kind="dodge"))
    )
    refused("WIT-ATK-2", t.run, wc.Aim(combatant=t.ids["A"]))
    refused("WIT-ATK-4", t.run, c.EndRound())


def test_given_an_unseen_attack_when_the_target_defends_then_refused():
    """WIT-ATK-2, WIT-DEF-2 (Default WIT-AMB-21): only against a blow he can see."""
    t = table()
    refused("WIT-ATK-2", attack, t, "A", "B", visible=False, defense={"kind": "dodge"})


def test_given_a_failed_attack_test_when_undefended_then_it_misses():
    """WIT-ATK-3, WIT-ATK-4, WIT-TEST-1: success at or under the effective skill."""
    t = table()
    (ok,) = of_type(
        attack(t, "A", "B", dice={"attack": [13], "damage": [1, 1]}), "AttackTestRolled"
    )
    (ko,) = of_type(
        attack(t, "A", "B", modifiers={"fog": -1}, dice={"attack": [13]}), "AttackTestRolled"
    )
    assert ok.hit and not ko.hit and ko.skill["parts"] == {"fog": -1}


def test_given_a_critical_when_the_target_defends_then_the_defense_is_not_rolled():
    """WIT-CRIT-2 (Default WIT-AMB-20): no defense, unless the GM allows a magical one."""
    t = table()
    events = attack(
        t,
        "A",
        "B",
        degree="critical",
        defense={"kind": "dodge"},
        dice={"attack": [12], "damage": [1, 1]},
    )
    (rolled,) = of_type(events, "AttackTestRolled")
    assert rolled.hit and rolled.defense["rolled"] is False
    t.run(c.EndTurn(combatant=t.ids["A"]))
    events = attack(
        t,
        "B",
        "A",
        degree="critical",
        defense={"kind": "dodge", "magical": True},
        dice={"attack": [12], "defense": [2]},
    )
    (rolled,) = of_type(events, "AttackTestRolled")
    assert not rolled.hit and rolled.defense["success"]


def test_given_critical_at_3_as_an_option_when_a_3_is_rolled_then_it_is_a_critical():
    """WIT-TEST-3 (Default WIT-AMB-3 overridden per encounter: critical_at)."""
    t = table(critical_at=3, extraordinary_at=1)
    (rolled,) = of_type(
        attack(t, "A", "B", dice={"attack": [3], "damage": [1, 1]}), "AttackTestRolled"
    )
    assert rolled.degree == "critical" and rolled.degree_source == "option"
    (rolled,) = of_type(
        attack(t, "A", "B", dice={"attack": [1], "damage": [1, 1, 1]}), "AttackTestRolled"
    )
    assert rolled.degree == "extraordinary"


def test_given_no_option_when_a_1_is_rolled_then_it_is_only_a_success():
    """WIT-TEST-3 (Default WIT-AMB-3): the program never infers a higher degree."""
    t = table()
    (rolled,) = of_type(
        attack(t, "A", "B", dice={"attack": [1], "damage": [1, 1]}), "AttackTestRolled"
    )
    assert rolled.degree == "success"


def test_given_3d6_as_the_test_die_when_attacking_then_three_dice_are_rolled():
    """WIT-TEST-1 (Default WIT-AMB-2 overridden: test_die 3d6)."""
    t = table(test_die="3d6")
    (rolled,) = of_type(attack(t, "A", "B", dice={"attack": [6, 5, 3]}), "AttackTestRolled")
    assert rolled.rolls["attack"]["total"] == 14 and not rolled.success


def test_given_a_ranged_extraordinary_success_then_the_weapon_dice_are_rolled_twice():
    """WIT-DMG-5, WIT-CRIT-4 (Default: the two rolls add, each rolling up)."""
    t = table()
    events = attack(
        t, "A", "B", "bow", degree="extraordinary", dice={"attack": [2], "damage": [8, 1, 3]}
    )
    (damage,) = of_type(events, "DamageApplied")
    assert [d["faces"] for d in damage.rolls["damage"]["dice"]] == [[8, 1], [3]]
    assert damage.amount == 12


def test_given_non_physical_damage_when_the_highest_face_shows_then_it_does_not_roll_up():
    """WIT-DMG-7 (Default WIT-AMB-13)."""
    t = table()
    (damage,) = of_type(
        attack(t, "A", "B", physical=False, dice={"attack": [2], "damage": [8, 6]}), "DamageApplied"
    )
    assert damage.amount == 14


def test_given_protection_above_the_damage_then_the_target_loses_nothing():
    """WIT-DMG-2 (Default WIT-AMB-12): never below 0."""
    t = table(b=fighter(wits=10, armour={"protection": 10, "defense": 0}))
    (damage,) = of_type(
        attack(t, "A", "B", dice={"attack": [2], "damage": [2, 1]}), "DamageApplied"
    )
    assert damage.amount == 0


def test_given_health_at_0_then_he_is_down_and_his_turn_is_skipped():
    """Default WIT-AMB-11 (down_at 0, overridable)."""
    t = table(b=fighter(wits=10, health=5))
    attack(t, "A", "B", dice={"attack": [2], "damage": [4, 1]})
    assert t.who("B")["down"] and t.who("B")["health"] == 0
    t.run(c.EndTurn(combatant=t.ids["A"]))
    assert t.view["step"] == "end_round"
    refused("WIT-AMB-11", t.run, wc.Aim(combatant=t.ids["B"], out_of_order=True))
    t2 = table(b=fighter(wits=10, health=5), down_at=-5)
    attack(t2, "A", "B", dice={"attack": [2], "damage": [4, 1]})
    assert not t2.who("B")["down"]


def test_given_dodge_when_acrobatics_is_better_than_move_then_it_is_used():
    """WIT-DEF-6: half Move or half Acrobatics, the defender's choice (default the better)."""
    t = table(
        b=fighter(
            wits=10, move=8, skills={"acrobatics": 15, "short sword": 10, "brawling": 9, "bow": 9}
        )
    )
    events = attack(t, "A", "B", defense={"kind": "dodge"}, roll=False)
    assert of_type(events, "DefenseDeclared")[0].skill["base"] == 7
    assert of_type(events, "DefenseDeclared")[0].skill["base_from"] == "half acrobatics"


def test_given_shield_defense_all_when_dodging_then_the_shield_adds_too():
    """WIT-DEF-7 (Default WIT-AMB-8 overridden: shield_defense all)."""
    t = table(b=farthan(), shield_defense="all")
    events = attack(t, "A", "B", defense={"kind": "dodge", "dodge_with": "move"}, roll=False)
    assert of_type(events, "DefenseDeclared")[0].skill["effective"] == 6 + 2 + 2


def test_given_a_long_charge_when_it_takes_two_rounds_then_the_charge_still_applies():
    """WIT-CHG-5 (Default WIT-AMB-18): started far away, it closes with one action later."""
    t = table()
    t.run(wc.Move(combatant=t.ids["A"], distance_m=12, charge_at=t.ids["B"], charge_from_m=18))
    t.run(c.EndTurn(combatant=t.ids["B"]))
    t.run(c.EndRound())
    events = attack(
        t, "A", "B", charge=True, distance_m=6, dice={"attack": [5], "damage": [1, 1, 1]}
    )
    assert of_type(events, "Moved")[0].charge_from_m == 18
    assert of_type(events, "AttackTestRolled")[0].skill["parts"] == {"charge": -2}


def test_given_a_ranged_charge_then_refused_and_too_far_to_close_then_refused():
    """Default WIT-AMB-18, WIT-CHG-5."""
    t = table()
    refused("WIT-AMB-18", attack, t, "A", "B", "bow", charge=True, distance_m=6)
    refused("WIT-CHG-5", attack, t, "A", "B", charge=True, distance_m=9)


def test_given_a_charge_knocks_back_when_testing_strength_then_minus_5():
    """WIT-CHG-4 (Default WIT-AMB-10): the knock-back is GM-entered; −5 after a Charge."""
    t = table()
    events = attack(
        t, "A", "B", charge=True, distance_m=5, dice={"attack": [5], "damage": [1, 1, 1]}
    )
    action = of_type(events, "AttackTestRolled")[0].action
    events = t.run(wc.KnockBack(combatant=t.ids["B"], attack=action), strength=[8])
    (test,) = of_type(events, "KnockBackTested")
    assert test.skill["effective"] == 7 and not test.stays_up
    assert of_type(events, "ConditionApplied")[0].condition == "prone"


@pytest.mark.over_http
def test_given_a_disputed_attack_roll_when_voided_then_health_and_aim_return_and_it_is_rerolled():
    """The record (issue 3) on a Wits fight: voiding the attack test voids its damage; the
    announced attack waits for its roll again, with the aim it had."""
    t = table()
    t.run(wc.Aim(combatant=t.ids["A"]))
    events = attack(t, "A", "B", dice={"attack": [5], "damage": [5, 6, 3]})
    rolled = of_type(events, "AttackTestRolled")[0]
    assert t.who("B")["health"] == 6 and t.who("A")["aim"] == 0
    voided = t.run(c.Void(target=rolled.originator_version, reason="die fell off the table"))
    assert voided[0].cascade == [rolled.originator_version, rolled.originator_version + 1]
    assert t.who("B")["health"] == 20 and t.who("A")["aim"] == 1
    assert t.view["step"] == "attack"
    (again,) = of_type(t.run(wc.RollAttack(), attack=[19]), "AttackTestRolled")
    assert again.skill["parts"] == {"aiming": 1} and not again.hit


def test_given_an_attack_when_it_names_no_target_of_his_or_a_weapon_he_lacks_then_refused():
    """WIT-ATK-1, WIT-ATK-3: an attacker states his target and the weapon he uses."""
    t = table()
    refused("WIT-ATK-1", attack, t, "A", "A")
    refused("WIT-ATK-3", attack, t, "A", "B", "halberd")
    events = attack(t, "A", "B", "fist", roll=False)
    (announced,) = of_type(events, "AttackAnnounced")
    assert announced.target == t.ids["B"] and announced.action["weapon"] == "fist"
    assert t.view["pending_attack"]["id"] == announced.action["id"]


def test_given_aiming_when_a_charge_closes_then_the_move_loses_the_aim():
    """WIT-AIM-2, WIT-AIM-5, WIT-CHG-5: the charge's move is an action of its own."""
    t = table()
    t.run(wc.Aim(combatant=t.ids["A"]))
    t.run(c.EndTurn(combatant=t.ids["A"]))
    t.run(c.EndTurn(combatant=t.ids["B"]))
    t.run(c.EndRound())
    events = attack(t, "A", "B", charge=True, distance_m=6, dice={"attack": [20]})
    assert of_type(events, "AimLost")[0].aim == 1
    assert of_type(events, "AttackTestRolled")[0].skill["parts"] == {"charge": -2}


def test_given_a_situational_modifier_named_like_a_computed_one_then_refused_when_announced():
    """WIT-TEST-2: computed modifiers keep their names; nothing waits on a roll it can't make."""
    t = table()
    refused(
        "MODIFIERS",
        attack,
        t,
        "A",
        "B",
        charge=True,
        distance_m=6,
        modifiers={"charge": 1},
        roll=False,
    )
    assert t.view["step"] == "turns"
    t.run(c.SetModifier(combatant=t.ids["A"], name="charge", applies_to="ab", value=1))
    (rolled,) = of_type(attack(t, "A", "B", dice={"attack": [20]}), "AttackTestRolled")
    assert rolled.skill["parts"] == {"charge (GM)": 1}


def test_given_a_knock_back_when_its_hit_is_voided_then_the_fall_and_the_lost_aim_go_too():
    """WIT-CHG-4 on the record: the knock-back follows from the roll that hit."""
    t = table(b=fighter(wits=10, strength=10))
    t.run(wc.Aim(combatant=t.ids["A"]))
    t.run(c.EndTurn(combatant=t.ids["A"]))
    t.run(wc.Aim(combatant=t.ids["B"]))
    t.run(c.EndRound())
    events = attack(t, "A", "B", dice={"attack": [2], "damage": [1, 1]})
    rolled = of_type(events, "AttackTestRolled")[0]
    events = t.run(wc.KnockBack(combatant=t.ids["B"], attack=rolled.action), strength=[15])
    assert t.who("B")["aim"] == 0 and "prone" in t.who("B")["conditions"]
    refused("WIT-CHG-4", t.run, wc.KnockBack(combatant=t.ids["B"], attack=rolled.action))
    t.run(c.Void(target=rolled.originator_version, reason="disputed"))
    assert t.who("B")["aim"] == 1 and "prone" not in t.who("B")["conditions"]


def test_given_aim_lost_then_aiming_again_when_the_loss_is_voided_then_the_aims_add_up():
    """WIT-AIM-3 after a correction: 2 aims, a knock-back, 1 aim; void it: +3."""
    t = table(a=fighter(strength=10))
    t.run(c.EndTurn(combatant=t.ids["A"]))
    events = attack(t, "B", "A", dice={"attack": [2], "damage": [1, 1]})
    hit = of_type(events, "AttackTestRolled")[0]
    t.run(wc.Aim(combatant=t.ids["A"], out_of_order=True))
    t.run(wc.Aim(combatant=t.ids["A"], out_of_order=True))
    test = of_type(
        t.run(wc.KnockBack(combatant=t.ids["A"], attack=hit.action), strength=[1]),
        "KnockBackTested",
    )[0]
    t.run(c.EndTurn(combatant=t.ids["B"]))
    t.run(c.EndRound())
    t.run(wc.Aim(combatant=t.ids["A"]))
    assert t.who("A")["aim"] == 1
    t.run(c.Void(target=test.originator_version, reason="he was not knocked back"))
    assert t.who("A")["aim"] == 3


def test_given_down_when_the_gm_rules_he_fights_on_then_he_acts_again():
    """Default WIT-AMB-11: the GM rules the state of a combatant down at 0."""
    t = table(b=fighter(wits=10, health=5))
    attack(t, "A", "B", dice={"attack": [2], "damage": [4, 1]})
    assert t.who("B")["down"]
    t.run(c.SetCondition(combatant=t.ids["B"], condition="fighting_on"))
    assert not t.who("B")["down"]
    t.run(c.EndTurn(combatant=t.ids["A"]))
    assert t.view["acting"] == t.ids["B"]


def test_given_two_tied_when_the_table_ties_them_a_thousand_times_then_an_order_not_a_crash():
    """The roll-off goes on as long as the dice tie (Default WIT-AMB-15), without a limit."""
    t = Table("wits")
    t.add("A", fighter(wits=9))
    t.add("B", fighter(wits=9))
    t.run(c.RollInitiative(), **{"tie:A": [4] * 1200 + [6], "tie:B": [4] * 1200 + [1]})
    assert t.view["order"] == [t.ids["A"], t.ids["B"]]
