"""PHANTÄSIA: what can happen now (`choices`) at each step of the book's step machine, kept
by the application where the rules accept them (in the domain, and through GET …/choices
over HTTP: tests/domain/conftest.py), and what the table is asked for one die at a time."""

from __future__ import annotations

from typing import Any

import pytest

from domain import commands as c
from domain.rulesystems.phantasia import commands as ph
from tests.builders import DomainTable, Table, of_type
from tests.choices_play import needed, of, offered, types
from tests.domain.test_phantasia import creature, pc


def fight(*combatants: tuple[str, dict[str, Any]], started: bool = True) -> DomainTable:
    """The combatants in this order of initiative (entered), the first one's turn begun."""
    t = Table("phantasia")
    for name, stats in combatants:
        t.add(name, stats, side="heroes" if stats.get("controller") == "player" else "foes")
    for i, (name, _) in enumerate(combatants):
        t.run(c.RollInitiative(combatant=t.ids[name], ip=30 - i))
    if started:
        t.run(ph.StartTurn())
    return t


def attacks_orc(t: DomainTable, face: int, weapon: str = "sword") -> None:
    """Endimion's AT on the Orc with `weapon`, the d12 showing `face`."""
    t.run(
        ph.AttackCheck(combatant=t.ids["Endimion"], targets=[t.ids["Orc"]], weapon=weapon),
        attack=[face],
    )


# -- before the fight ----------------------------------------------------------------------


@pytest.mark.over_http
def test_given_no_initiative_when_asked_then_surprise_and_initiative_are_offered_not_turns():
    """PHA-SURP-1, PHA-INIT-1: before initiative the narrator may declare a surprise, each
    rolls (or all at once, or the narrator's creatures as a group); no turn starts yet."""
    t = Table("phantasia")
    t.add("Endimion", pc(), side="heroes")
    t.add("Orc", creature(), side="foes")
    t.add("Goblin", creature(), side="foes")
    answer = offered(t)
    assert answer["step"] == "initiative"
    assert not of(answer, "start_turn") and not of(answer, "end_turn")
    assert {x["combatant"] for x in of(answer, "declare_surprise")} == set(t.ids.values())
    rolls = of(answer, "roll_initiative")
    assert {x["combatant"] for x in rolls} == {*t.ids.values(), None}
    group = [x for x in rolls if "group" in x["command"]]
    assert [sorted(x["command"]["group"]) for x in group] == [
        sorted([t.ids["Orc"], t.ids["Goblin"]])
    ]
    mine = next(x for x in rolls if x["combatant"] == t.ids["Endimion"])
    assert mine["first_roll"]["roll"] == "initiative"
    assert mine["label"] == "Roll Endimion's initiative: 1d12 + AGI 8"


@pytest.mark.over_http
def test_given_initiative_rolled_when_asked_then_only_the_first_in_the_order_may_start():
    t = fight(("Orc", creature()), ("Endimion", pc()), started=False)
    answer = offered(t)
    assert answer["step"] == "between_turns"
    (start,) = of(answer, "start_turn")
    assert start["combatant"] == t.ids["Orc"] and start["command"]["combatant"] == t.ids["Orc"]
    assert not of(answer, "declare_surprise")  # PHA-SURP-1: before initiative only
    assert not [x for x in of(answer, "roll_initiative") if x["combatant"]]


def test_given_two_tied_on_initiative_and_agi_then_the_narrator_may_order_them():
    """PHA-INIT-3: tied on the result and on AGI: the narrator's order, or at the same time."""
    t = Table("phantasia")
    t.add("Orc", creature(), side="foes")
    t.add("Goblin", creature(), side="foes")
    t.run(c.RollInitiative(combatant=t.ids["Orc"], ip=10))
    t.run(c.RollInitiative(combatant=t.ids["Goblin"], ip=10), **{"tie:Orc": [3], "tie:Goblin": [5]})
    ties = [x for x in of(offered(t), "roll_initiative") if "tie_order" in x["command"]]
    assert sorted(x["command"]["simultaneous"] for x in ties) == [False, True]


# -- a turn --------------------------------------------------------------------------------


def test_given_endimions_turn_then_he_may_attack_each_living_foe_with_each_weapon_not_the_dead():
    """PHA-ACT-10, -11: an AT with each weapon or bare hands, an AM with each power, on
    each living foe; a dead one (PHA-STS-13) is no target."""
    stats = pc(powers=[{"name": "Fuego", "damage": "1d6", "magic": True}])
    t = fight(("Endimion", stats), ("Orc", creature()), ("Goblin", creature()))
    t.run(c.SetCondition(combatant=t.ids["Goblin"], condition="dead"))
    answer = offered(t)
    assert answer["step"] == "turn" and answer["acting"] == t.ids["Endimion"]
    attacks = [x for x in of(answer, "attack_check", t.ids["Endimion"])]
    assert {x["command"]["targets"][0] for x in attacks} == {t.ids["Orc"]}
    means = sorted(x["command"].get("weapon") or x["command"].get("power") or "-" for x in attacks)
    assert means == ["-", "Fuego", "dagger", "sword"]
    assert {x["first_roll"]["roll"] for x in attacks} == {"attack"}  # the player rolls AT/AM
    dagger = next(x for x in attacks if x["command"].get("weapon") == "dagger")
    assert dagger["fields"]["characteristic"] == {"enum": ["fue", "agi"]}  # AMP: FUE or AGI
    assert "end_turn" in types(t, answer, "Endimion")
    assert "start_turn" not in answer["by_combatant"].get(t.ids["Orc"], [])
    assert not of(answer, "attack_check", t.ids["Goblin"])  # the dead act no more


def test_given_the_orc_attacks_a_player_with_a_shield_then_the_player_may_block_and_rolls_df():
    """PHA-CORE-1, PHA-DEF-2, -6: the player rolls DF against the narrator's creature, and
    may block with his shield."""
    t = fight(("Orc", creature()), ("Endimion", pc(shield={"name": "buckler", "df": 1})))
    attacks = of(offered(t), "attack_check", t.ids["Orc"])
    axe = [x for x in attacks if x["command"].get("weapon") == "axe"]
    assert sorted(x["command"].get("block", []) != [] for x in axe) == [False, True]
    assert {x["first_roll"]["roll"] for x in axe} == {"defense"}
    assert {x["first_roll"]["for"] for x in axe} == {t.ids["Endimion"]}


def test_given_a_spent_budget_then_no_action_but_a_jump_a_free_check_and_the_end_of_turn():
    """PHA-ACT-1: two action points; PHA-JMP: a jump spends none."""
    t = fight(("Endimion", pc()), ("Orc", creature()))
    for _ in range(2):
        t.run(ph.Act(combatant=t.ids["Endimion"], action="move"))
    answer = offered(t)
    assert sorted(types(t, answer, "Endimion")) == ["check", "end_turn", "jump"]
    (check,) = of(answer, "check", t.ids["Endimion"])
    assert "as_action" not in check["command"]  # the narrator's call, no action point
    assert t.who("Endimion")["actions_left"] == 0


def test_given_an_offensive_action_then_a_second_is_still_offered_and_defense_is_not():
    """PHA-ACT-3: a second offensive action takes −3 (still allowed); PHA-ACT-13: no
    Defense after an offensive action."""
    t = fight(("Endimion", pc()), ("Orc", creature()))
    t.run(
        ph.Contest(combatant=t.ids["Endimion"], kind="push", target=t.ids["Orc"]),
        attacker=[9],
        defender=[1],
    )
    answer = offered(t)
    acts = {x["command"]["action"] for x in of(answer, "act", t.ids["Endimion"])}
    assert "defense" not in acts and "move" in acts
    assert of(answer, "attack_check", t.ids["Endimion"])


def test_given_prone_and_grabbed_then_standing_up_and_breaking_free_of_the_grabber_are_offered():
    """PHA-STS-19: stand up (an action); PHA-STS-1: escape whoever holds him."""
    t = fight(("Endimion", pc()), ("Orc", creature()), ("Goblin", creature()))
    t.run(ph.ApplyStatus(combatant=t.ids["Endimion"], status="prone"))
    t.run(c.EndTurn(combatant=t.ids["Endimion"]))
    t.run(ph.StartTurn())
    t.run(
        ph.Contest(combatant=t.ids["Orc"], kind="grab", target=t.ids["Endimion"]),
        attacker=[1],
        defender=[12],
    )
    t.run(c.EndTurn(combatant=t.ids["Orc"]))
    t.run(ph.StartTurn())
    t.run(c.EndTurn(combatant=t.ids["Goblin"]))
    t.run(ph.StartTurn())
    answer = offered(t)
    acts = {x["command"]["action"] for x in of(answer, "act", t.ids["Endimion"])}
    assert "stand_up" in acts
    escapes = [
        x for x in of(answer, "contest", t.ids["Endimion"]) if x["command"]["kind"] == "escape"
    ]
    assert [x["command"]["target"] for x in escapes] == [t.ids["Orc"]]
    assert all(x["first_roll"]["roll"] == "attacker" for x in escapes)


def test_given_a_stunned_combatants_turn_then_only_its_end_is_offered_to_him():
    """PHA-ACT-6, PHA-STS-2: no actions while Stunned; the end of his turn rolls the check."""
    t = fight(("Orc", creature()), ("Endimion", pc()))
    t.run(ph.ApplyStatus(combatant=t.ids["Endimion"], status="stunned"))
    t.run(c.EndTurn(combatant=t.ids["Orc"]))
    t.run(ph.StartTurn())
    answer = offered(t)
    assert sorted(types(t, answer, "Endimion")) == ["check", "end_turn"]
    (end,) = of(answer, "end_turn")
    assert end["rolls"] == ["stunned"] and end["first_roll"]["roll"] == "stunned"
    assert end["first_roll"]["label"].startswith("Endimion's end-of-turn INT check against Stunned")


# -- an attack that hit or fumbled -----------------------------------------------------------


def test_given_a_hit_then_only_its_damage_follows_and_the_turn_may_not_end():
    """PHA-DMG-1: the damage of the attack that hit, before anything else offensive."""
    t = fight(("Endimion", pc()), ("Orc", creature()))
    attacks_orc(t, 2)
    answer = offered(t)
    assert answer["step"] == "attack"
    (damage,) = of(answer, "roll_damage")
    assert damage["combatant"] == t.ids["Endimion"] and damage["first_roll"]["roll"] == "damage"
    mine = types(t, answer, "Endimion")
    assert "end_turn" not in mine and "attack_check" not in mine


def test_given_a_fumble_then_its_d6_first_and_with_pm_the_choice_of_pm_on_a_6():
    """PHA-CRIT-4, -5: a fumble rolls the d6; result 6 costs PV, or 1 PM if he has one."""
    t = fight(("Endimion", pc()), ("Orc", creature()))
    attacks_orc(t, 12)
    answer = offered(t)
    fumbles = of(answer, "roll_fumble")
    assert sorted(x["command"].get("choice", "pv") for x in fumbles) == ["pm", "pv"]
    assert not of(answer, "roll_damage")
    assert fumbles[0]["first_roll"]["label"] == (
        "Endimion fumbled his attack with sword: 1d6 on the fumble table"
    )


def test_given_a_player_missed_with_a_phantasia_point_then_he_and_his_ally_may_reroll():
    """PHA-PP-2 a, PHA-PP-4: his point or an ally's re-rolls his AT in that turn."""
    t = fight(
        ("Endimion", pc(phantasia_points=1)),
        ("Lief", pc(phantasia_points=1)),
        ("Orc", creature()),
    )
    attacks_orc(t, 11)
    rerolls = [
        x for x in of(offered(t), "spend_phantasia_point") if x["command"]["use"] == "reroll"
    ]
    assert sorted(x["combatant"] for x in rerolls) == sorted([t.ids["Endimion"], t.ids["Lief"]])
    assert all(x["first_roll"]["roll"] == "reroll" for x in rerolls)


# -- who may see what ------------------------------------------------------------------------


def test_given_a_players_token_then_he_sees_only_his_characters_choices_and_no_narrators():
    t = fight(("Endimion", pc()), ("Lief", pc()), ("Orc", creature()))
    answer = offered(t, player="Lief")
    assert answer["role"] == "player"
    assert {x["combatant"] for x in answer["choices"]} == {t.ids["Lief"]}
    assert not answer["overrides"] and not answer["corrections"]
    assert {x["type"] for x in answer["choices"]} <= {"attack_check", "contest", "act", "check"}
    assert all(x["command"].get("reaction") or x["type"] == "check" for x in answer["choices"])


def test_given_the_narrator_then_his_forms_are_statuses_not_modifiers():
    """PHA-STK-1: a lasting change is a status (apply_status), never set_modifier."""
    t = fight(("Endimion", pc()), ("Orc", creature()))
    forms = offered(t)["overrides"]
    kinds = {f["type"] for f in forms}
    assert {"apply_status", "heal", "fall", "adjust_pm", "award_phantasia_point"} <= kinds
    assert "set_modifier" not in kinds and "set_load" not in kinds  # the load rule is off
    condition = next(f for f in forms if f["type"] == "set_condition")
    assert "magic" not in condition["fields"]["condition"]["enum"]


# -- the dice asked for, one at a time -----------------------------------------------------


# a test reading the Spanish words of a roll (`label_es`, which HTTP shows only as the label
# of a request in Spanish) runs in the domain alone
DOMAIN_ONLY = pytest.mark.parametrize("through", ["domain"])


@DOMAIN_ONLY
def test_given_a_tie_then_each_tied_one_is_asked_and_a_tie_again_says_why():
    """PHA-INIT-3: tied on the result and AGI, each rolls 1d12; tied again, again."""
    t = DomainTable("phantasia")
    t.add("Orc", creature(), side="foes")
    t.add("Goblin", creature(), side="foes")
    t.run(c.RollInitiative(combatant=t.ids["Orc"], ip=10))
    first = needed(t, c.RollInitiative(combatant=t.ids["Goblin"], ip=10))
    assert (first["roll"], first["for"]) == ("tie:Orc", t.ids["Orc"])
    assert first["label"] == (
        "Orc is tied with Goblin on initiative 10 and AGI 6: 1d12, the higher acts first"
    )
    again = needed(
        t,
        c.RollInitiative(combatant=t.ids["Goblin"], ip=10),
        **{"tie:Orc": [4], "tie:Goblin": [4]},
    )
    assert (again["roll"], again["die"]) == ("tie:Orc", 2)
    assert again["label"] == (
        "Orc is tied again with Goblin (each rolled 4): roll 1d12 again, the higher acts first"
    )
    assert again["label_es"].startswith("Orc vuelve a empatar con Goblin (todos sacaron 4)")


@DOMAIN_ONLY
def test_given_a_fumbled_df_then_the_critical_damage_and_the_death_check_are_asked_in_turn():
    """PHA-CRIT-7: a player's fumbled DF is hit for double damage; PHA-DTH-2: at 0 PV or
    less he falls unconscious and makes a death check at once."""
    t = fight(("Orc", creature()), ("Endimion", pc(current_pv=3)))
    df = needed(
        t, ph.AttackCheck(combatant=t.ids["Orc"], targets=[t.ids["Endimion"]], weapon="axe")
    )
    assert (df["roll"], df["for"], df["sides"]) == ("defense", t.ids["Endimion"], 12)
    assert df["label"] == (
        "Endimion's DF against Orc's attack (axe): 1d12, 7 or less; a 1 is a critical, "
        "a 12 a fumble"
    )
    assert df["label_es"] == (
        "DF de Endimion contra el ataque de Orc (axe): 1d12, 7 o menos; un 1 es crítico, "
        "un 12 es pifia"
    )
    t.run(
        ph.AttackCheck(combatant=t.ids["Orc"], targets=[t.ids["Endimion"]], weapon="axe"),
        defense=[12],
    )
    damage = needed(t, ph.RollDamage())
    assert (damage["roll"], damage["for"]) == ("damage", t.ids["Orc"])
    assert damage["label"] == "Orc's damage with axe on Endimion: 1d8 (double damage on Endimion)"
    death = needed(t, ph.RollDamage(), damage=[4])  # (4 + 0 + 1) × 2 = 10: 3 → −7 PV
    assert (death["roll"], death["sides"], death["for"]) == ("death", 100, t.ids["Endimion"])
    assert death["label"] == (
        "Endimion's death check (falls unconscious): 1d100, his negative damage or less kills him"
    )
    assert death["label_es"] == (
        "Chequeo de muerte de Endimion (cae inconsciente): 1d100, su daño negativo o menos lo mata"
    )
    events = t.run(ph.RollDamage(), damage=[4], death=[50])
    assert not of_type(events, "DeathChecked")[0].dies


def test_given_two_dice_of_damage_then_the_count_says_how_many_faces_are_left():
    t = fight(
        ("Endimion", pc(weapons=[{"name": "flail", "code": "AMG", "damage": "2d6"}])),
        ("Orc", creature()),
    )
    attacks_orc(t, 3, "flail")
    first = needed(t, ph.RollDamage())
    second = needed(t, ph.RollDamage(), damage=[5])
    assert (first["die"], first["count"], second["die"], second["count"]) == (1, 2, 2, 1)
    assert first["label"] == "Endimion's damage with flail on Orc: 2d6"


def test_given_a_jump_missed_by_one_then_the_edge_check_says_why():
    """PHA-JMP-4: failing by exactly 1, an AGI check to catch the edge."""
    t = fight(("Endimion", pc()), ("Orc", creature()))
    edge = needed(t, ph.Jump(combatant=t.ids["Endimion"], kind="long", metres=3), jump=[8])
    assert edge["roll"] == "edge"
    assert edge["label"] == (
        "Endimion's jump failed by 1: AGI check to catch the edge: 1d12, 8 or less"
    )
