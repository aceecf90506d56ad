"""Wits `choices`: what is offered at each step of a round (and what is not), a player's
token seeing only his combatants' choices, and the table's words of the dice asked for.
Each test runs in the domain (the application's choices over the aggregate) and over HTTP
(`GET …/choices`, tokens on)."""

from __future__ import annotations

from typing import Any

import pytest

from domain import commands as c
from domain.rulesystems.wits import commands as wc
from tests.builders import DomainTable, Table
from tests.builders.wits import farthan, fighter
from tests.choices_play import needed, of, offered, types


def duel(a: dict[str, Any] | None = None, b: dict[str, Any] | None = None, **options: Any):
    """Lief (Wits 12, heroes) and Farthan (Wits 10, foes, shield), placed: Lief's turn."""
    t = Table("wits", options)
    t.add("Lief", a or fighter(), side="heroes")
    t.add("Farthan", b or farthan(), side="foes")
    t.run(c.RollInitiative())
    return t


def announce(t: DomainTable, who: str, target: str, weapon: str = "short sword", **kw: Any):
    return t.run(
        wc.Attack(combatant=t.ids[who], target=t.ids[target], weapon=weapon, roll=False, **kw)
    )


# -- order --------------------------------------------------------------------------------


@pytest.mark.over_http
def test_given_nobody_placed_when_asking_then_everyone_is_placed_by_wits_and_the_tie_rolls():
    """WIT-ORD-1, -2 (Default WIT-AMB-15): placing all, one by one, or the GM's tie order."""
    t = Table("wits")
    t.add("Lief", fighter(wits=10), side="heroes")
    t.add("Farthan", farthan(), side="foes")
    answer = offered(t)
    assert answer["step"] == "order"
    everyone = [
        x for x in of(answer, "roll_initiative") if x["command"] == {"type": "roll_initiative"}
    ]
    assert everyone[0]["rolls"] == ["tie:Lief", "tie:Farthan"]
    assert everyone[0]["first_roll"]["label"] == (
        "Lief is tied with Farthan at Wits 10: Lief rolls — 1d6, the higher acts first "
        "(ties roll again)"
    )
    assert types(t, answer, "Lief") == ["roll_initiative"]
    ordered = [x for x in of(answer, "roll_initiative") if "tie_order" in x["command"]]
    assert ordered[0]["command"]["tie_order"] == [t.ids["Lief"], t.ids["Farthan"]]
    assert not of(answer, "attack") and not of(answer, "knock_back")


@pytest.mark.over_http
def test_given_a_tie_when_it_rolls_again_then_the_table_is_told_why():
    """WIT-ORD-2 (Default WIT-AMB-15): tied again on 4, each rolls his d6 again."""
    t = Table("wits")
    t.add("Lief", fighter(wits=10), side="heroes")
    t.add("Farthan", farthan(), side="foes")
    asked = needed(t, c.RollInitiative(), **{"tie:Lief": [4], "tie:Farthan": [4]})
    assert asked["roll"] == "tie:Lief" and asked["die"] == 2 and asked["for"] == t.ids["Lief"]
    assert asked["label"].startswith("Lief and Farthan tied again on 4: Lief rolls again")


# -- turns --------------------------------------------------------------------------------


def test_given_liefs_turn_when_asking_then_his_actions_are_offered_and_nobody_elses():
    """WIT-ORD-1, -5: only the acting combatant; WIT-ATK-1 each weapon at each foe;
    WIT-MOV-1, -2 half Move for one action, Move for the round; WIT-CHG-1, -5 a Charge that
    closes from 5 m (half Move 6 m); WIT-AIM-1; WIT-ORD-3 hold; end_turn; end_round."""
    t = duel()
    answer = offered(t)
    assert answer["step"] == "turns" and answer["acting"] == t.ids["Lief"]
    assert types(t, answer, "Lief") == ["attack", "aim", "move", "take_action", "hold", "end_turn"]
    assert types(t, answer, "Farthan") == []
    assert types(t, answer, None) == ["end_round"]
    attacks = of(answer, "attack")
    assert {(x["command"]["weapon"], x["command"].get("charge", False)) for x in attacks} == {
        ("short sword", False),
        ("short sword", True),
        ("fist", False),
        ("fist", True),
        ("bow", False),
    }
    assert all(x["command"]["target"] == t.ids["Farthan"] for x in attacks)
    assert all(not x["command"]["roll"] for x in attacks)  # Farthan may answer first
    moves = [x["command"].get("distance_m") for x in of(answer, "move")]
    assert moves[:2] == [6, 12]
    assert of(answer, "aim")[0]["label"] == "Lief aims: +1 to the next attack (one action)"


def test_given_a_dead_target_when_asking_then_he_is_not_attacked_and_one_down_comes_last():
    """Default WIT-AMB-11: the dead are not offered as targets; one down (the GM has not
    ruled his state) may still be struck, after those on their feet."""
    t = duel()
    t.add("Goblin", fighter(wits=8), side="foes")
    t.add("Orc", fighter(wits=6, current_health=0), side="foes")
    t.run(c.RollInitiative())
    t.run(c.SetCondition(combatant=t.ids["Farthan"], condition="dead"))
    answer = offered(t)
    targets = [x["command"]["target"] for x in of(answer, "attack")]
    assert set(targets) == {t.ids["Goblin"], t.ids["Orc"]}
    assert targets[0] == t.ids["Goblin"] and targets[-1] == t.ids["Orc"]
    assert of(answer, "attack")[0]["fields"]["target"]["enum"] == [t.ids["Goblin"], t.ids["Orc"]]
    charges = {x["command"].get("charge_at") for x in of(answer, "move")}
    assert charges == {None, t.ids["Goblin"]}  # a Charge is at someone on his feet


def test_given_one_action_used_when_asking_then_no_whole_round_move_nor_closing_charge():
    """WIT-MOV-2: Move for the whole round only before any action; WIT-CHG-5: a Charge
    that closes uses two actions; WIT-AIM-3: aiming goes on (+2)."""
    t = duel()
    t.run(wc.Aim(combatant=t.ids["Lief"]))
    answer = offered(t)
    assert [x["command"].get("distance_m") for x in of(answer, "move")][:1] == [6]
    assert 12 not in [x["command"].get("distance_m") for x in of(answer, "move")]
    assert not [x for x in of(answer, "attack") if x["command"].get("charge")]
    assert "+2 to the next attack" in of(answer, "aim")[0]["label"]


def test_given_both_actions_spent_when_asking_then_lief_is_offered_nothing_and_farthan_acts():
    """WIT-ACT-1: two actions a round; his turn is over (WIT-ORD-5)."""
    t = duel()
    t.run(wc.Aim(combatant=t.ids["Lief"]))
    t.run(wc.Aim(combatant=t.ids["Lief"]))
    answer = offered(t)
    assert types(t, answer, "Lief") == []
    assert answer["acting"] == t.ids["Farthan"]
    assert "attack" in types(t, answer, "Farthan")


def test_given_every_turn_over_when_asking_then_only_the_round_ends():
    """WIT-RND-1: the round ends; nobody has a turn left."""
    t = duel()
    t.run(c.EndTurn(combatant=t.ids["Lief"]))
    t.run(c.EndTurn(combatant=t.ids["Farthan"]))
    answer = offered(t)
    assert answer["step"] == "end_round"
    assert [x["type"] for x in answer["choices"]] == ["end_round"]
    assert answer["choices"][0]["combatant"] is None


def test_given_lief_held_when_farthan_attacks_him_then_lief_may_act_too_but_only_basic_later():
    """WIT-ORD-3: a held combatant acts at any later point, no second hold; WIT-DEF-1: who
    has attacked this round defends with a Basic Defense only."""
    t = duel()
    t.run(c.Hold(combatant=t.ids["Lief"]))
    answer = offered(t)
    assert answer["acting"] == t.ids["Farthan"]
    assert "hold" not in types(t, answer, "Lief") and "attack" in types(t, answer, "Lief")
    assert "hold" in types(t, answer, "Farthan")
    announce(t, "Farthan", "Lief")
    t.run(wc.RollAttack(), attack=[20])  # a miss
    announce(t, "Lief", "Farthan")
    t.run(wc.RollAttack(), attack=[20])
    announce(t, "Farthan", "Lief")
    modes = {x["command"]["defense"]["mode"] for x in of(offered(t), "defend")}
    assert modes == {"basic"}


# -- an attack waiting for its roll -------------------------------------------------------


def test_given_an_announced_attack_when_asking_then_the_target_defends_or_the_attacker_rolls():
    """WIT-ATK-2, WIT-DEF-2..4, -6: Farthan's Parry, Block and Dodge in each mode; no other
    action and no end of round while the attack waits (WIT-ATK-4)."""
    t = duel()
    announce(t, "Lief", "Farthan")
    answer = offered(t)
    assert answer["step"] == "attack"
    assert types(t, answer, "Lief") == ["roll_attack"]
    assert types(t, answer, "Farthan") == ["defend"]
    assert types(t, answer, None) == []
    specs = {
        (x["command"]["defense"]["kind"], x["command"]["defense"]["mode"])
        for x in of(answer, "defend")
    }
    assert specs == {
        (k, m) for k in ("parry", "block", "dodge") for m in ("basic", "total", "total_single")
    }
    block = next(
        x
        for x in of(answer, "defend")
        if x["command"]["defense"] == {"kind": "block", "mode": "basic"}
    )
    assert block["label"] == (
        "Farthan blocks with the small shield against Lief's short sword: Basic Defense, "
        "1d20, 11 or less"
    )
    (roll,) = of(answer, "roll_attack")
    assert roll["rolls"] == ["attack", "damage"]
    assert roll["first_roll"]["label"] == "Lief's short sword attack on Farthan: 1d20, 13 or less"


def test_given_farthan_blocked_when_asking_then_no_second_defense_and_the_roll_asks_his_die():
    """WIT-DEF-3: each attack is defended at most once; the Block is rolled with it."""
    t = duel()
    announce(t, "Lief", "Farthan")
    t.run(wc.Defend(combatant=t.ids["Farthan"], defense=wc.DefenseSpec(kind="block")))
    answer = offered(t)
    assert types(t, answer, "Farthan") == []
    (roll,) = of(answer, "roll_attack")
    assert roll["rolls"] == ["attack", "defense", "damage"]
    asked = needed(t, wc.RollAttack(), attack=[7])
    assert asked["roll"] == "defense" and asked["for"] == t.ids["Farthan"]
    assert asked["label"] == "Farthan's Block (Basic Defense) against Lief: 1d20, 11 or less"


def test_given_a_hammer_that_attacked_when_defending_then_it_is_not_offered_to_parry():
    """WIT-DEF-8 (Default WIT-AMB-25): a top-heavy weapon ruled 'no parry' after attacking."""
    hammer = {
        "name": "hammer",
        "damage": "1d6",
        "skill": "short sword",
        "top_heavy": True,
        "parry_after_attack": "none",
    }
    t = duel(a=fighter(wits=8), b=fighter(weapons=[hammer, *fighter()["weapons"]]))
    announce(t, "Farthan", "Lief", "hammer")
    t.run(wc.RollAttack(), attack=[20])
    t.run(c.EndTurn(combatant=t.ids["Farthan"]))
    announce(t, "Lief", "Farthan")
    parries = {x["command"]["defense"].get("weapon") for x in of(offered(t), "defend")}
    assert parries == {"short sword", "fist", None}  # None: Block or Dodge


def test_given_an_invisible_attack_when_asking_then_no_defense_is_offered():
    """WIT-ATK-2 (Default WIT-AMB-21): he defends only against a blow he can see."""
    t = duel()
    announce(t, "Lief", "Farthan", visible=False)
    assert types(t, offered(t), "Farthan") == []


# -- the GM's rulings and a player's token ------------------------------------------------


def test_given_a_hit_when_asking_then_the_gm_may_rule_a_knock_back_once():
    """WIT-CHG-4 (Default WIT-AMB-10): the struck one tests Strength, once per hit."""
    t = duel()
    announce(t, "Lief", "Farthan")
    t.run(wc.RollAttack(), attack=[3], damage=[2, 2])
    (knock,) = of(offered(t), "knock_back")
    assert knock["combatant"] == t.ids["Farthan"] and knock["rolls"] == ["strength"]
    assert knock["first_roll"]["label"] == (
        "Farthan's Strength test to stay on his feet, knocked back by Lief: 1d20, 12 or less"
    )
    t.run(wc.KnockBack(**{k: v for k, v in knock["command"].items() if k != "type"}), strength=[5])
    assert not of(offered(t), "knock_back")


def test_given_a_players_token_when_asking_then_he_sees_only_his_combatants_choices():
    """A player acts for his own: Farthan's token sees no Lief action, no GM ruling, and his
    own defenses when Lief attacks him; the GM's overrides are not his."""
    t = duel()
    answer = offered(t, "Farthan")
    assert answer["role"] == "player" and answer["choices"] == []
    assert answer["overrides"] == [] and answer["corrections"] == []
    announce(t, "Lief", "Farthan")
    answer = offered(t, "Farthan")
    assert set(answer["by_combatant"]) == {t.ids["Farthan"]}
    assert {x["type"] for x in answer["choices"]} == {"defend"}
    lief = offered(t, "Lief")
    assert [x["type"] for x in lief["choices"]] == ["roll_attack"]


def test_given_the_gm_when_asking_then_a_modifier_applies_to_no_ip():
    """WIT-ORD-1: the Wits order has no IP; the GM's set_modifier form says what it may
    apply to."""
    t = duel()
    forms = [x for x in offered(t)["overrides"] if x["type"] == "set_modifier"]
    assert forms and all(
        x["fields"]["applies_to"]["enum"] == ["ab", "def", "act", "damage"] for x in forms
    )


# -- the table's words ----------------------------------------------------------------------


def test_given_a_hit_when_the_d8_rolls_up_then_the_table_is_asked_to_roll_it_again():
    """WIT-DMG-3 (Default WIT-AMB-4): a d8 showing 8 rolls up; two faces are known to be
    needed (the reroll and the Base Damage d6), Lief rolls them."""
    t = duel()
    announce(t, "Lief", "Farthan")
    first = needed(t, wc.RollAttack(), attack=[3])
    assert first["roll"] == "damage" and first["count"] == 2 and first["for"] == t.ids["Lief"]
    assert first["label"] == (
        "Lief's short sword damage on Farthan, 1d8 short sword + 1d6 base damage: "
        "the d8 (short sword) — an 8 rolls up"
    )
    again = needed(t, wc.RollAttack(), attack=[3], damage=[8])
    assert again["die"] == 2 and again["sides"] == 8 and again["count"] == 2
    assert again["label"] == (
        "Lief's short sword damage on Farthan: the d8 (short sword) showed an 8: it rolls up "
        "— roll it again and add (another 8 rolls up again)"
    )
    twice = needed(t, wc.RollAttack(), attack=[3], damage=[8, 8])
    assert "showed an 8 again (8 + 8 so far)" in twice["label"]
    base = needed(t, wc.RollAttack(), attack=[3], damage=[8, 8, 1])
    assert base["sides"] == 6 and base["count"] == 1 and "the d6 (base damage)" in base["label"]


def test_given_3d6_tests_when_the_attack_is_rolled_then_three_faces_are_counted_down():
    """Default WIT-AMB-2: the test die as an option; each face says how many are left."""
    t = duel(test_die="3d6")
    announce(t, "Lief", "Farthan")
    counts = [needed(t, wc.RollAttack(), attack=[2] * n)["count"] for n in range(3)]
    assert counts == [3, 2, 1]
    assert needed(t, wc.RollAttack())["label"].endswith(": 3d6, 13 or less")


def test_given_a_roll_up_once_option_when_the_die_rolls_up_then_only_once():
    """Default WIT-AMB-4, option roll_up once: a single reroll, said so."""
    t = duel(roll_up="once")
    announce(t, "Lief", "Farthan")
    again = needed(t, wc.RollAttack(), attack=[3], damage=[8])
    assert again["label"].endswith("(this once only)")
    after = needed(t, wc.RollAttack(), attack=[3], damage=[8, 8])
    assert after["sides"] == 6  # the second 8 does not roll up
