"""PHANTÄSIA: the rules of docs/rules/phantasia.md's rule map that the test vectors
(tests/domain/test_phantasia.py, test_phantasia_core.py) do not already exercise, each test
run in the domain and through the HTTP API with manual dice (tests/domain/conftest.py)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from domain import commands as c
from domain.rulesystems.phantasia import commands as ph
from domain.rulesystems.phantasia.stats import PhantasiaStats
from tests.builders import Table, of_type
from tests.domain.test_phantasia import attack, creature, next_turn, pc, refused, statuses, table


def parts_of(events: list[Any], n: int = 0) -> dict[str, int]:
    return of_type(events, "AttackChecked")[0].results[n]["parts"]


def result_of(events: list[Any], n: int = 0) -> dict[str, Any]:
    return of_type(events, "AttackChecked")[0].results[n]


def status(t: Any, who: str, which: str, **kw: Any) -> list[Any]:
    return t.run(ph.ApplyStatus(combatant=t.ids[who], status=which, **kw))


def act(t: Any, who: str, action: str, **kw: Any) -> list[Any]:
    dice = kw.pop("dice", {})
    return t.run(ph.Act(combatant=t.ids[who], action=action, **kw), **dice)


def contest(t: Any, who: str, kind: str, target: str, **kw: Any) -> list[Any]:
    dice = kw.pop("dice", {})
    return t.run(ph.Contest(combatant=t.ids[who], kind=kind, target=t.ids[target], **kw), **dice)


# -- turn order ------------------------------------------------------------------------------


@pytest.mark.over_http
def test_given_the_agi_order_variant_then_turns_go_by_agi_score_and_a_pc_wins_a_tie():
    """PHA-INIT-4 (Default PHA-AMB-7): no roll; the AGI score places each combatant; at equal
    AGI the player character goes before the narrator's enemy; an entered ip is refused."""
    t = Table("phantasia", {"initiative": "agi_order"})
    t.add("Orc", creature(agi=8), side="foes")
    t.add("Endimion", pc(agi=8), side="heroes")
    t.add("Goblin", creature(agi=11), side="foes")
    refused("PHA-INIT-4", t.run, c.RollInitiative(combatant=t.ids["Orc"], ip=12))
    events = t.run(c.RollInitiative())
    assert sorted(e.ip for e in of_type(events, "InitiativeRolled")) == [8, 8, 11]
    assert not of_type(events, "TieBroken")
    assert t.view["order"] == [t.ids["Goblin"], t.ids["Endimion"], t.ids["Orc"]]


@pytest.mark.over_http
def test_given_initiative_rolled_then_not_again_and_a_late_joiner_is_inserted_by_his_result():
    """PHA-INIT-5 (Default PHA-AMB-6), PHA-INIT-1, PHA-INIT-2: initiative is rolled once a
    combat; a combatant who joins rolls on arrival and takes his place by his result;
    no turn starts before he has rolled."""
    t = Table("phantasia")
    t.add("Endimion", pc(agi=8), side="heroes")
    t.add("Orc", creature(agi=6), side="foes")
    t.run(c.RollInitiative(), **{"initiative:Endimion": [5], "initiative:Orc": [3]})
    refused("PHA-INIT-5", t.run, c.RollInitiative(combatant=t.ids["Endimion"]))
    refused("PHA-INIT-5", t.run, c.RollInitiative())
    t.run(ph.StartTurn())
    t.add("Goblin", creature(agi=6), side="foes")
    assert t.view["step"] == "initiative"
    t.run(c.EndTurn(combatant=t.ids["Endimion"]))
    refused("PHA-INIT-1", t.run, ph.StartTurn())
    (rolled,) = of_type(
        t.run(c.RollInitiative(combatant=t.ids["Goblin"]), initiative=[5]), "InitiativeRolled"
    )
    assert rolled.ip == 11
    assert t.view["order"] == [t.ids["Endimion"], t.ids["Goblin"], t.ids["Orc"]]
    t.run(ph.StartTurn())
    assert t.view["acting"] == t.ids["Goblin"]


def test_given_a_surprise_then_each_surprising_combatant_acts_once_before_initiative():
    """PHA-SURP-1 (Default PHA-AMB-39): the narrator declares it; each one named takes
    exactly one action before initiative is rolled, which is refused meanwhile; no surprise
    once initiative is rolled."""
    t = Table("phantasia")
    t.add("Endimion", pc(), side="heroes")
    t.add("Orc", creature(), side="foes")
    t.add("Goblin", creature(), side="foes")
    t.run(ph.DeclareSurprise(combatants=[t.ids["Orc"], t.ids["Goblin"]]))
    assert t.view["step"] == "surprise"
    refused("PHA-SURP-1", t.run, c.RollInitiative())
    for name in ("Orc", "Goblin"):
        (started,) = of_type(t.run(ph.StartTurn()), "TurnStarted")
        assert started.surprise and started.combatant == t.ids[name]
        assert t.who(name)["actions_left"] == 1
        act(t, name, "move", metres=3)
        refused("PHA-ACT-1", act, t, name, "move", metres=1)
        assert not of_type(t.run(c.EndTurn(combatant=t.ids[name])), "RoundEnded")
    assert t.view["step"] == "initiative"
    t.run(
        c.RollInitiative(),
        **{"initiative:Endimion": [9], "initiative:Orc": [2], "initiative:Goblin": [1]},
    )
    assert t.view["step"] == "between_turns"
    refused("PHA-SURP-1", t.run, ph.DeclareSurprise(combatants=[t.ids["Endimion"]]))
    t.run(ph.StartTurn())
    assert t.who("Endimion")["actions_left"] == 2 and t.view["step"] == "turn"


def test_given_creature_against_creature_then_the_program_rolls_the_attack_or_the_gm_enters_it():
    """PHA-DEF-6 (Default PHA-AMB-50): two narrator's creatures: the attacker's AT is rolled
    (`attack`); `hit` entered instead rolls nothing; a player character's attack takes no
    `hit`. Option who_rolls=attacker: the narrator's creature rolls its own AT against a
    player character."""
    t = table(("Orc", creature()), ("Goblin", creature()), ("Endimion", pc()))
    refused("PHA-AMB-50", attack, t, "Orc", "Endimion", weapon="axe", hit=True)
    r = result_of(attack(t, "Orc", "Goblin", weapon="axe", dice={"attack": [11]}))
    assert r["rolled_by"] == "program" and r["check"] == "AT"
    r = result_of(attack(t, "Orc", "Goblin", weapon="axe", hit=False))
    assert r["rolled_by"] == "gm" and r["hit"] is False
    t = table(("Orc", creature()), ("Endimion", pc()), who_rolls="attacker")
    r = result_of(attack(t, "Orc", "Endimion", weapon="axe", dice={"attack": [11]}))
    assert r["rolled_by"] == "attacker" and r["check"] == "AT"


# -- the action list -------------------------------------------------------------------------


def test_given_actions_the_narrator_calls_offensive_then_they_count_for_the_repeat_penalty():
    """PHA-ACT-2, PHA-ACT-12, PHA-ACT-19, PHA-ACT-3: a characteristic check as an action is
    offensive only when the narrator says so; then it takes the −3 of a second offensive
    action; a harmful item used counts; a non-offensive check takes nothing."""
    t = table(("Endimion", pc()), ("Orc", creature(pv=99)))
    attack(t, "Endimion", "Orc", weapon="sword", dice={"attack": [11]})
    events = t.run(
        ph.Check(
            combatant=t.ids["Endimion"],
            characteristic="fue",
            as_action=True,
            offensive=True,
            purpose="tears the orc's net",
        ),
        check=[3],
    )
    (check,) = of_type(events, "CheckRolled")
    assert check.check["parts"] == {"FUE": 7, "repeated offensive action": -3}
    assert check.check["target_number"] == 4 and t.who("Endimion")["actions_left"] == 0
    next_turn(t)
    next_turn(t)
    events = t.run(
        ph.Check(combatant=t.ids["Endimion"], characteristic="agi", as_action=True), check=[3]
    )
    assert of_type(events, "CheckRolled")[0].check["parts"] == {"AGI": 8}
    act(t, "Endimion", "use_item", what="throws a flask of oil", offensive=True)
    assert t.who("Endimion")["offensive_actions"] == 1
    next_turn(t)
    next_turn(t)
    act(t, "Endimion", "use_item", what="throws a flask of oil", offensive=True)
    events = attack(t, "Endimion", "Orc", weapon="sword", dice={"attack": [11]})
    assert parts_of(events)["repeated offensive action"] == -3


@pytest.mark.parametrize(("reduction", "penalty"), [(3, None), (2, -1)])
def test_given_multiataque_then_the_repeat_penalty_is_reduced(reduction: int, penalty: Any):
    """PHA-ACT-4: a power such as Multiataque reduces the −3 of the second attack."""
    t = table(("Endimion", pc(repeat_reduction=reduction)), ("Orc", creature(pv=99)))
    attack(t, "Endimion", "Orc", weapon="sword", dice={"attack": [11]})
    events = attack(t, "Endimion", "Orc", weapon="sword", dice={"attack": [11]})
    assert parts_of(events).get("repeated offensive action") == penalty


def test_given_a_grab_won_then_the_target_cannot_move_until_it_wins_the_escape():
    """PHA-ACT-7, PHA-STS-1, PHA-CHK-4 (Default PHA-AMB-5): each side picks FUE or AGI; the
    grabbed orc's Move is refused; its escape (an action) wins on the larger margin."""
    t = table(("Endimion", pc()), ("Orc", creature(pv=99)))
    events = contest(
        t,
        "Endimion",
        "grab",
        "Orc",
        characteristic="agi",
        target_characteristic="fue",
        dice={"attacker": [3], "defender": [5]},
    )
    (rolled,) = of_type(events, "ContestRolled")
    assert rolled.attacker_check["margin"] == 5 and rolled.defender_check["margin"] == 1
    assert rolled.attacker_wins and "grabbed" in statuses(t, "Orc")
    next_turn(t)
    refused("PHA-STS-1", act, t, "Orc", "move", metres=2)
    events = contest(
        t,
        "Orc",
        "escape",
        "Endimion",
        target_characteristic="agi",
        dice={"attacker": [2], "defender": [8]},
    )
    assert of_type(events, "ContestRolled")[0].attacker_wins
    assert "grabbed" not in statuses(t, "Orc") and t.who("Orc")["offensive_actions"] == 0
    act(t, "Orc", "move", metres=2)


def test_given_a_grab_on_a_creature_twice_the_size_then_it_still_moves_freely():
    """PHA-ACT-7 (Default PHA-AMB-25: size entered): twice the grabber's size or more."""
    t = table(("Endimion", pc(size=2)), ("Troll", creature(size=4, pv=99)))
    events = contest(t, "Endimion", "grab", "Troll", dice={"attacker": [2], "defender": [12]})
    assert of_type(events, "ContestRolled")[0].effect == {"moves_freely": True}
    next_turn(t)
    act(t, "Troll", "move", metres=4)


@pytest.mark.parametrize(("defender", "wins"), [(12, True), (1, False)])
def test_given_a_snatch_then_the_attacker_takes_the_object_if_his_check_beats_the_defenders(
    defender: int, wins: bool
):
    """PHA-ACT-8, PHA-CHK-4: an opposed FUE-or-AGI check, offensive."""
    t = table(("Endimion", pc()), ("Orc", creature()))
    events = contest(
        t,
        "Endimion",
        "snatch",
        "Orc",
        item="the key",
        dice={"attacker": [4], "defender": [defender]},
    )
    (rolled,) = of_type(events, "ContestRolled")
    assert rolled.attacker_wins is wins
    assert rolled.effect == ({"item": "the key"} if wins else {})
    assert t.who("Endimion")["offensive_actions"] == 1


def test_given_switch_weapon_then_it_spends_an_action_point():
    """PHA-ACT-9: drawing a secondary weapon uses one action."""
    t = table(("Endimion", pc()), ("Orc", creature()))
    (spent,) = of_type(act(t, "Endimion", "switch_weapon", weapon="dagger"), "ActionSpent")
    assert spent.action == "switch_weapon" and not spent.offensive
    assert t.who("Endimion")["actions_left"] == 1
    refused("PHA-ACT-9", act, t, "Endimion", "switch_weapon", weapon="halberd")


@pytest.mark.parametrize(
    ("power", "target"),
    [
        ({"name": "Rayo", "damage": "1d6"}, 6 + 3 - 2),
        ({"name": "Garra", "damage": "1d6", "characteristic": "agi"}, 6 + 1 - 2),
        ({"name": "Don", "damage": "1d6", "am": 10}, 10 - 2),
    ],
)
def test_given_a_power_then_the_am_check_is_the_am_figure_minus_the_targets_dm(
    power: dict[str, Any], target: int
):
    """PHA-ACT-11, PHA-MAG-1 (Default PHA-AMB-3, PHA-AMB-46): AM = 6 + INT adjustment (or
    the characteristic the power names, or an AM figure entered) − the target's DM; a player
    character rolls it. PHA-ACT-10: a weapon attack is the AT check, against DF."""
    t = table(
        ("Endimion", pc(int=12, powers=[power])),
        ("Orc", creature(figures={"dm": 2, "df": 1})),
    )
    r = result_of(attack(t, "Endimion", "Orc", power=power["name"], dice={"attack": [12]}))
    assert r["check"] == "AM" and r["target_number"] == target and r["roller"] == t.ids["Endimion"]
    t.run(ph.RollFumble(), fumble=[4])
    r = result_of(attack(t, "Endimion", "Orc", weapon="sword", dice={"attack": [11]}))
    assert r["check"] == "AT" and r["target_number"] == 6 + 0 - 1 - 3 - 3
    assert r["parts"]["fumble_attack"] == -3


def test_given_a_second_power_in_the_turn_then_it_takes_the_repeat_penalty():
    """PHA-MAG-3, PHA-ACT-3: further offensive powers in the same turn take −3."""
    rayo = {"name": "Rayo", "damage": "1d6"}
    t = table(("Endimion", pc(powers=[rayo])), ("Orc", creature(pv=99)))
    first = attack(t, "Endimion", "Orc", power="Rayo", dice={"attack": [11]})
    second = attack(t, "Endimion", "Orc", power="Rayo", dice={"attack": [11]})
    assert "repeated offensive action" not in parts_of(first)
    assert parts_of(second)["repeated offensive action"] == -3


def test_given_a_beneficial_magic_cast_then_no_am_check_an_action_and_its_pm():
    """PHA-ACT-15, PHA-MAG-2, PHA-PM-5: a beneficial magic is cast with an action and no AM
    check (the recipient accepts it); its entered PM cost is paid; Mute blocks magic
    (PHA-STS-12, Default PHA-AMB-38), not a power that is not magic."""
    powers = [
        {"name": "Bendición", "pm_cost": 2, "magic": True},
        {"name": "Grito"},  # untagged: allowed under Mute (Default PHA-AMB-38)
    ]
    t = table(("Endimion", pc(powers=powers)), ("Orc", creature()))
    assert t.who("Endimion")["pm"] == 7
    events = act(t, "Endimion", "cast_power", power="Bendición")
    assert not of_type(events, "AttackChecked") and not of_type(events, "CheckRolled")
    assert of_type(events, "ActionSpent")[0].details["power"] == "Bendición"
    assert t.who("Endimion")["pm"] == 5 and t.who("Endimion")["actions_left"] == 1
    status(t, "Endimion", "mute", turns=2)
    refused("PHA-STS-12", act, t, "Endimion", "cast_power", power="Bendición")
    act(t, "Endimion", "cast_power", power="Grito")


@pytest.mark.parametrize(
    ("movement", "terrain", "most"), [(8, "normal", 8), (7, "climb", 3), (1, "swim", 1)]
)
def test_given_a_move_then_up_to_mo_metres_halved_when_climbing_swimming_or_stealthy(
    movement: int, terrain: str, most: int
):
    """PHA-ACT-16 (Default PHA-AMB-26: halved, rounded down, minimum 1 m)."""
    t = table(("Endimion", pc(movement=movement)), ("Orc", creature()))
    (spent,) = of_type(act(t, "Endimion", "move", terrain=terrain), "ActionSpent")
    assert spent.details["metres"] == most
    refused("PHA-ACT-16", act, t, "Endimion", "move", terrain=terrain, metres=most + 1)


def test_given_reload_then_only_a_crossbow_or_firearm_and_it_costs_an_action():
    """PHA-ACT-17."""
    crossbow = {"name": "crossbow", "code": "AP", "damage": "1d10", "crossbow_or_firearm": True}
    t = table(("Endimion", pc(weapons=[*pc()["weapons"], crossbow])), ("Orc", creature()))
    refused("PHA-ACT-17", act, t, "Endimion", "reload", weapon="sword")
    act(t, "Endimion", "reload", weapon="crossbow")
    assert t.who("Endimion")["actions_left"] == 1


def test_given_a_knock_down_won_then_prone_with_its_modifiers_until_it_stands_up():
    """PHA-ACT-18, PHA-STS-19 (Default PHA-AMB-24): the target is Prone; an adjacent
    attacker gets +3; attacking from the ground is −3 (mirrored on the player's DF, PHA-DEF-6),
    but not with a crossbow; standing up is an action."""
    crossbow = {"name": "crossbow", "code": "AP", "damage": "1d10", "crossbow_or_firearm": True}
    t = table(
        ("Endimion", pc()), ("Orc", creature(pv=99, weapons=[*creature()["weapons"], crossbow]))
    )
    contest(t, "Endimion", "knock_down", "Orc", dice={"attacker": [2], "defender": [10]})
    assert "prone" in statuses(t, "Orc")
    events = attack(t, "Endimion", "Orc", weapon="sword", dice={"attack": [11]})
    assert parts_of(events)["target prone, adjacent"] == 3
    next_turn(t)
    events = attack(t, "Orc", "Endimion", weapon="axe", dice={"defense": [2]})
    assert parts_of(events)["attacker attacking from the ground"] == 3
    events = attack(t, "Orc", "Endimion", weapon="crossbow", dice={"defense": [2]})
    assert "attacker attacking from the ground" not in parts_of(events)
    next_turn(t)
    next_turn(t)
    events = act(t, "Orc", "stand_up")
    assert of_type(events, "StatusEnded")[0].status == "prone"
    refused("PHA-STS-19", act, t, "Orc", "stand_up")


def test_given_a_dropped_weapon_then_picking_it_up_is_a_use_item_action():
    """PHA-ACT-19, PHA-CRIT-5 result 1 (Default PHA-AMB-23): the fumbler drops his sword; he
    cannot attack or switch to it until a Use Item action picks it up."""
    t = table(("Endimion", pc()), ("Orc", creature(pv=99)))
    attack(t, "Endimion", "Orc", weapon="sword", dice={"attack": [12]})
    t.run(ph.RollFumble(), fumble=[1])
    assert t.who("Endimion")["dropped"] == "sword"
    refused("PHA-CRIT-5", attack, t, "Endimion", "Orc", weapon="sword", dice={"attack": [3]})
    refused("PHA-CRIT-5", act, t, "Endimion", "switch_weapon", weapon="sword")
    refused("PHA-ACT-19", act, t, "Endimion", "use_item", weapon="dagger")
    act(t, "Endimion", "use_item", weapon="sword", what="picks up his sword")
    assert t.who("Endimion")["dropped"] is None


# -- checks, criticals and fumbles -------------------------------------------------------------


def test_given_weakness_then_at_checks_roll_a_d20_that_fumbles_only_on_20():
    """PHA-CHK-3, PHA-CRIT-6 (Default PHA-AMB-10), PHA-STS-5: Weakness puts AT, DF, AM and
    DM checks on 1d20; a 12 is a plain miss, a 20 the fumble; characteristic checks keep
    the d12."""
    t = table(("Endimion", pc()), ("Orc", creature(pv=99)))
    status(t, "Endimion", "weakness", turns=3)
    r = result_of(attack(t, "Endimion", "Orc", weapon="sword", dice={"attack": [12]}))
    assert r["die"] == 20 and not r["fumble"] and not r["hit"]
    r = result_of(attack(t, "Endimion", "Orc", weapon="sword", dice={"attack": [20]}))
    assert r["fumble"]
    t.run(ph.RollFumble(), fumble=[2])
    events = t.run(ph.Check(combatant=t.ids["Endimion"], characteristic="fue"), check=[12])
    check = of_type(events, "CheckRolled")[0].check
    # a characteristic check is plain roll-under: no fumble (criticals and fumbles are the
    # AT, AM, DF and DM checks', PHA-CRIT-1, -4, -7)
    assert check["die"] == 12 and not check["fumble"] and not check["success"]


def test_given_curse_then_characteristic_checks_roll_a_d20_and_at_checks_a_d12():
    """PHA-STS-11, PHA-CHK-3 (Default PHA-AMB-16): only FUE, AGI, INT, VIT, SUE and CA
    checks use the d20."""
    t = table(("Endimion", pc()), ("Orc", creature(pv=99)))
    status(t, "Endimion", "curse", turns=3)
    events = t.run(ph.Check(combatant=t.ids["Endimion"], characteristic="vit"), check=[19])
    assert of_type(events, "CheckRolled")[0].check["die"] == 20
    r = result_of(attack(t, "Endimion", "Orc", weapon="sword", dice={"attack": [11]}))
    assert r["die"] == 12


@pytest.mark.parametrize("state", ["paralysed", "asleep"])
def test_given_a_paralysed_or_asleep_target_then_the_attack_hits_without_a_roll_for_double(
    state: str,
):
    """PHA-ATK-4 (Default PHA-AMB-43), PHA-STS-14, PHA-STS-17, PHA-STS-21: no d12 (no
    critical, no fumble); ×2 damage; the sleeper wakes on damage and stays Prone
    (Default PHA-AMB-33)."""
    t = table(("Endimion", pc()), ("Orc", creature(pv=99)))
    status(t, "Orc", state, turns=3)
    r = result_of(attack(t, "Endimion", "Orc", weapon="sword"))
    assert r["automatic"] and r["hit"] and r["check"] is None
    (damage,) = of_type(t.run(ph.RollDamage(), damage=[6]), "DamageApplied")
    assert damage.breakdown["rolled"] == 11 and damage.amount == 22
    orc = statuses(t, "Orc")
    if state == "asleep":
        assert "asleep" not in orc and "prone" in orc
    else:
        assert "paralysed" in orc


def test_given_paralysis_without_a_duration_then_no_actions_and_a_vit_or_fue_check_ends_it():
    """PHA-STS-14, PHA-ACT-6, PHA-STS-0 (Default PHA-AMB-11): at the end of each of its turns
    (not the turn it came in), the higher of VIT and FUE; passed, it ends."""
    t = table(("Orc", creature(vit=5, fue=9)), ("Endimion", pc()))
    status(t, "Orc", "paralysed")
    assert t.who("Orc")["actions_left"] == 0
    refused("PHA-ACT-6", act, t, "Orc", "move")
    next_turn(t)
    next_turn(t)
    assert t.who("Orc")["actions_left"] == 0
    events = next_turn(t, end={"paralysed": [10]})
    (check,) = of_type(events, "CheckRolled")
    assert check.characteristic == "fue" and not check.check["success"]
    events = next_turn(t)
    events = next_turn(t, end={"paralysed": [9]})
    assert of_type(events, "StatusEnded")[0].status == "paralysed"


@pytest.mark.over_http
def test_given_a_player_defending_then_a_successful_df_check_avoids_the_attack():
    """PHA-DEF-1, PHA-CORE-2: the DF check passed, the attack deals nothing; no damage is
    rolled."""
    t = table(("Orc", creature()), ("Endimion", pc()))
    events = attack(t, "Orc", "Endimion", weapon="axe", dice={"defense": [6]})
    r = result_of(events)
    assert r["check"] == "DF" and r["success"] and not r["hit"]
    assert t.view["pending_attack"] is None and t.view["step"] == "turn"
    refused("PHA-DMG-1", t.run, ph.RollDamage())


@pytest.mark.parametrize("block", [True, False])
def test_given_a_natural_1_on_a_df_check_then_avoided_one_pm_and_a_push_back_if_blocking(
    block: bool,
):
    """PHA-DEF-4 (Default: a declared block), PHA-CRIT-3, PHA-PM-2: a critical DF check
    restores 1 PM and, blocking with a shield, pushes the enemy back 1 m."""
    t = table(("Orc", creature()), ("Endimion", pc(pm=3, shield={"df": 1})))
    blocking = ["Endimion"] if block else []
    r = result_of(attack(t, "Orc", "Endimion", weapon="axe", block=blocking, dice={"defense": [1]}))
    assert r["critical"] and not r["hit"] and r["pushes_back"] is block
    assert t.who("Endimion")["pm"] == 4


@pytest.mark.parametrize(
    ("cover", "options", "bonus"), [(None, {}, 3), (None, {"cover": 5}, 5), (2, {}, 2)]
)
def test_given_a_target_in_cover_then_its_df_rises_by_the_narrators_amount(
    cover: int | None, options: dict[str, Any], bonus: int
):
    """PHA-DEF-5 (Default PHA-AMB-35: +3 with no value; option `cover`): against the
    attacker's AT, and on the player's own DF check."""
    t = table(("Endimion", pc()), ("Orc", creature(pv=99)), **options)
    events = attack(
        t, "Endimion", "Orc", weapon="sword", cover={"Orc": cover}, dice={"attack": [11]}
    )
    assert parts_of(events)["target cover"] == -bonus
    next_turn(t)
    events = attack(
        t, "Orc", "Endimion", weapon="bow", cover={"Endimion": cover}, dice={"defense": [2]}
    )
    assert parts_of(events)["cover"] == bonus


def test_given_a_critical_area_power_then_only_the_chosen_target_takes_double_damage():
    """PHA-CRIT-2 (Default: the attacker picks), PHA-CRIT-1: one roll for every target."""
    ball = {"name": "Bola de fuego", "damage": "1d6"}
    t = table(("Endimion", pc(int=7, powers=[ball])), ("Orc", creature()), ("Goblin", creature()))
    refused(
        "PHA-CRIT-2", attack, t, "Endimion", "Orc", "Goblin", weapon="sword", dice={"attack": [1]}
    )
    refused(
        "PHA-CRIT-2",
        attack,
        t,
        "Endimion",
        "Orc",
        power="Bola de fuego",
        critical_target=t.ids["Goblin"],
        dice={"attack": [1]},
    )
    events = attack(
        t,
        "Endimion",
        "Orc",
        "Goblin",
        power="Bola de fuego",
        critical_target=t.ids["Goblin"],
        dice={"attack": [1]},
    )
    assert [r["doubled"] for r in of_type(events, "AttackChecked")[0].results] == [False, True]
    damage = of_type(t.run(ph.RollDamage(), damage=[5]), "DamageApplied")
    assert [(d.combatant, d.amount) for d in damage] == [(t.ids["Orc"], 5), (t.ids["Goblin"], 10)]


# -- damage, death ------------------------------------------------------------------------------


def test_given_weakness_and_curse_on_the_attacker_then_his_damage_drops_and_he_takes_half():
    """PHA-DMG-10, PHA-STS-5, PHA-STS-11, PHA-DMG-11: the Weakness power's reduction comes
    off after the doublings and halvings; cursed, he takes half of what he dealt, rounded
    down."""
    t = table(("Endimion", pc()), ("Orc", creature(pv=99)))
    status(t, "Endimion", "weakness", reduction=4, turns=3)
    status(t, "Endimion", "curse", turns=3)
    attack(t, "Endimion", "Orc", weapon="sword", dice={"attack": [2]})
    events = t.run(ph.RollDamage(), damage=[6])
    dealt, backlash = of_type(events, "DamageApplied")
    assert dealt.breakdown["rolled"] == 11 and dealt.amount == 7
    assert backlash.combatant == t.ids["Endimion"] and backlash.amount == 3


def test_given_a_failed_death_check_then_a_phantasia_point_re_rolls_it():
    """PHA-DTH-6, PHA-PP-2 (c): the point re-rolls the check that killed him; passed, he is
    no longer dead (still unconscious)."""
    t = table(("Orc", creature()), ("Endimion", pc(current_pv=2, phantasia_points=1)))
    attack(t, "Orc", "Endimion", weapon="axe", dice={"defense": [11]})
    events = t.run(ph.RollDamage(), damage=[8], death=[5])
    assert of_type(events, "DeathChecked")[0].dies and t.who("Endimion")["dead"]
    events = t.run(
        ph.SpendPhantasiaPoint(combatant=t.ids["Endimion"], use="death_reroll"), death=[50]
    )
    (death,) = of_type(events, "DeathChecked")
    assert death.reroll and not death.dies
    e = t.who("Endimion")
    assert not e["dead"] and e["unconscious"] and e["phantasia_points"] == 0
    refused(
        "PHA-DTH-6", t.run, ph.SpendPhantasiaPoint(combatant=t.ids["Endimion"], use="death_reroll")
    )


def test_given_a_sustained_power_when_its_caster_takes_damage_then_a_vit_check_or_it_is_lost():
    """PHA-CONC-1, PHA-CORE-4: a VIT check for each damage; failed, the power is
    interrupted."""
    shield = {"name": "Escudo arcano"}
    t = table(("Endimion", pc(pv=60, powers=[shield])), ("Orc", creature()))
    act(t, "Endimion", "cast_power", power="Escudo arcano", sustain=True)
    assert t.who("Endimion")["sustaining"] == "Escudo arcano"
    next_turn(t)
    attack(t, "Orc", "Endimion", weapon="axe", dice={"defense": [11]})
    events = t.run(ph.RollDamage(), damage=[3], concentration=[6])
    assert of_type(events, "CheckRolled")[0].purpose == "concentration"
    assert t.who("Endimion")["sustaining"] == "Escudo arcano"
    attack(t, "Orc", "Endimion", weapon="axe", dice={"defense": [11]})
    t.run(ph.RollDamage(), damage=[3], concentration=[7])
    assert t.who("Endimion")["sustaining"] is None


# -- statuses --------------------------------------------------------------------------------


def test_given_a_status_for_n_turns_then_it_counts_the_creatures_own_turns_after_it_came():
    """PHA-STS-0 (Default PHA-AMB-11): applied in his turn, that turn does not count; it
    ends at the end of his N-th turn that starts afterwards; others' turns do not count."""
    t = table(("Endimion", pc()), ("Orc", creature()))
    status(t, "Endimion", "haste", turns=2)
    next_turn(t)
    assert statuses(t, "Endimion")["haste"]["turns"] == 2
    next_turn(t)
    assert t.who("Endimion")["actions_left"] == 3
    next_turn(t)
    assert statuses(t, "Endimion")["haste"]["turns"] == 1
    next_turn(t)
    events = next_turn(t)
    assert of_type(events, "StatusEnded")[0].status == "haste"


def test_given_stunned_then_no_actions_df_minus_3_and_an_int_or_vit_check_ends_it():
    """PHA-STS-2, PHA-STS-21, PHA-ACT-6: the higher of INT and VIT at the end of each of its
    turns."""
    t = table(("Endimion", pc()), ("Orc", creature(int=5, vit=8, pv=99)))
    status(t, "Orc", "stunned")
    events = attack(t, "Endimion", "Orc", weapon="sword", dice={"attack": [11]})
    assert parts_of(events)["target stunned"] == 3
    next_turn(t)
    assert t.who("Orc")["actions_left"] == 0 and t.who("Orc")["df"] == -3
    events = next_turn(t, end={"stunned": [9]})
    (check,) = of_type(events, "CheckRolled")
    assert check.characteristic == "vit" and not check.check["success"]
    next_turn(t)
    events = next_turn(t, end={"stunned": [8]})
    assert of_type(events, "StatusEnded")[0].status == "stunned"


def test_given_chaos_and_fascination_then_their_behaviour_is_recorded_and_chaos_ends_by_check():
    """PHA-STS-3, PHA-STS-7, PHA-STS-22 (Default PHA-AMB-37, -40): whom they attack or obey
    is the narrator's; Chaos ends on the higher of INT and CA at the end of its turn;
    Fascinado has no automatic effect."""
    t = table(("Endimion", pc()), ("Orc", creature(int=5, ca=9)))
    status(t, "Orc", "chaos", reason="Tybalt's Caos")
    status(t, "Orc", "fascinated", turns=3)
    orc = statuses(t, "Orc")
    assert orc["chaos"]["es"] == "Caos" and orc["fascinated"]["es"] == "Fascinado"
    next_turn(t)
    assert t.who("Orc")["actions_left"] == 2
    events = next_turn(t, end={"chaos": [9]})
    (check,) = of_type(events, "CheckRolled")
    assert check.characteristic == "ca" and check.check["success"]
    assert set(statuses(t, "Orc")) == {"fascinated"}


def test_given_blind_then_minus_3_to_at_and_df_and_no_power_aimed_at_a_creature():
    """PHA-STS-4: AT −3, DF −3 (the player's DF check too); a targeted power refused."""
    powers = [{"name": "Rayo", "damage": "1d6"}, {"name": "Niebla", "targeted": False}]
    t = table(("Endimion", pc(powers=powers)), ("Orc", creature(pv=99)))
    status(t, "Endimion", "blind", turns=3)
    events = attack(t, "Endimion", "Orc", weapon="sword", dice={"attack": [11]})
    assert parts_of(events)["blind"] == -3
    refused("PHA-STS-4", attack, t, "Endimion", "Orc", power="Rayo", dice={"attack": [3]})
    act(t, "Endimion", "cast_power", power="Niebla")
    next_turn(t)
    events = attack(t, "Orc", "Endimion", weapon="axe", dice={"defense": [2]})
    assert parts_of(events)["blind"] == -3


def test_given_invisible_then_plus_5_on_the_action_that_ends_it():
    """PHA-STS-9 (Default PHA-AMB-15): AT +5 on the offensive action, then it ends; a grab
    ends it too; DF +5 against the narrator's creatures while it lasts."""
    t = table(("Endimion", pc()), ("Orc", creature(pv=99, figures={"df": 3})))
    status(t, "Endimion", "invisible", turns=5)
    events = attack(t, "Endimion", "Orc", weapon="sword", dice={"attack": [11]})
    assert parts_of(events)["invisible"] == 5
    assert "invisible" not in statuses(t, "Endimion")
    status(t, "Endimion", "invisible", turns=5)
    events = contest(t, "Endimion", "grab", "Orc", dice={"attacker": [2], "defender": [12]})
    assert of_type(events, "StatusEnded")[0].status == "invisible"
    status(t, "Endimion", "invisible", turns=5)
    next_turn(t)
    events = attack(t, "Orc", "Endimion", weapon="axe", dice={"defense": [2]})
    assert parts_of(events)["invisible"] == 5


def test_given_slowness_then_one_action_a_turn_and_minus_1():
    """PHA-STS-10, PHA-ACT-6."""
    t = table(("Orc", creature(pv=99)), ("Endimion", pc()))
    status(t, "Endimion", "slowness", turns=2)
    next_turn(t)
    assert t.who("Endimion")["actions_left"] == 1
    events = attack(t, "Endimion", "Orc", weapon="sword", dice={"attack": [11]})
    assert parts_of(events)["slowness"] == -1
    refused("PHA-ACT-1", act, t, "Endimion", "move")


def test_given_dead_then_prone_no_turns_and_no_healing():
    """PHA-STS-13 (Default PHA-AMB-1), PHA-DTH-7: the dead lie prone, have no turns, and
    only a resurrection (the GM clearing the status) brings them back."""
    t = table(("Endimion", pc()), ("Orc", creature()))
    status(t, "Orc", "dead")
    assert {"dead", "prone"} <= set(statuses(t, "Orc"))
    refused("PHA-DTH-7", t.run, ph.Heal(combatant=t.ids["Orc"], amount=5))
    events = t.run(c.EndTurn(combatant=t.ids["Endimion"]))
    assert of_type(events, "RoundEnded")
    t.run(ph.StartTurn())
    assert t.view["acting"] == t.ids["Endimion"]


def test_given_petrified_then_no_actions_immune_to_damage_and_its_other_statuses_paused():
    """PHA-STS-15 (Default PHA-AMB-34, -36): it takes no action; damage is cancelled; time
    does not pass for it: its other statuses neither count down nor modify."""
    t = table(("Endimion", pc()), ("Orc", creature(pv=30)))
    status(t, "Orc", "blind", turns=1)
    status(t, "Orc", "petrified")
    events = attack(t, "Endimion", "Orc", weapon="sword", dice={"attack": [2]})
    assert "target blind" not in parts_of(events)
    (damage,) = of_type(t.run(ph.RollDamage(), damage=[8]), "DamageApplied")
    assert damage.amount == 0 and damage.breakdown["immune"] == "petrified"
    next_turn(t)
    assert t.who("Orc")["actions_left"] == 0
    next_turn(t)
    assert statuses(t, "Orc")["blind"]["turns"] == 1


def test_given_fear_then_a_ca_check_at_the_start_of_each_turn_and_no_actions_if_failed():
    """PHA-STS-18, PHA-ACT-6."""
    t = table(("Endimion", pc()), ("Orc", creature(ca=7)))
    status(t, "Orc", "fear", turns=3)
    events = next_turn(t, fear=[8])
    (check,) = of_type(events, "CheckRolled")
    assert check.purpose == "fear" and not check.check["success"]
    assert t.who("Orc")["actions_left"] == 0
    next_turn(t)
    next_turn(t, fear=[7])
    assert t.who("Orc")["actions_left"] == 2


def test_given_poison_then_a_vit_check_at_the_end_of_each_turn_1d6_on_failure_until_passed():
    """PHA-STS-20, PHA-STS-0: not at the end of the turn it came in; failed, 1d6 (`poison
    damage`); passed, it ends."""
    t = table(("Endimion", pc(vit=6)), ("Orc", creature()))
    status(t, "Endimion", "poisoned")
    assert not of_type(next_turn(t), "CheckRolled")
    next_turn(t)
    events = next_turn(t, end={"poisoned": [7], "poison damage": [4]})
    assert of_type(events, "DamageApplied")[0].amount == 4
    assert t.who("Endimion")["pv"] == 28
    next_turn(t)
    events = next_turn(t, end={"poisoned": [6]})
    assert of_type(events, "StatusEnded")[0].status == "poisoned"
    assert not of_type(events, "DamageApplied")


# -- PM and PHANTÄSIA points ------------------------------------------------------------------


def test_given_a_phantasia_point_then_it_restores_one_pm_never_above_the_maximum():
    """PHA-PM-3, PHA-PP-2 (d), PHA-PM-1."""
    t = table(("Endimion", pc(pm=3, phantasia_points=1)), ("Orc", creature()))
    t.run(ph.SpendPhantasiaPoint(combatant=t.ids["Endimion"], use="pm"))
    assert (t.who("Endimion")["pm"], t.who("Endimion")["phantasia_points"]) == (4, 0)
    refused("PHA-PP-2", t.run, ph.SpendPhantasiaPoint(combatant=t.ids["Endimion"], use="pm"))


def test_given_a_failed_df_check_then_an_allys_phantasia_point_re_rolls_it():
    """PHA-PP-2 (a), PHA-PP-4: after seeing it, before the damage; the second result
    stands; the ally pays."""
    t = table(
        ("Orc", creature()),
        ("Endimion", pc(phantasia_points=0)),
        ("Tybalt", pc(phantasia_points=1)),
    )
    attack(t, "Orc", "Endimion", weapon="axe", dice={"defense": [11]})
    refused("PHA-PP-2", t.run, ph.SpendPhantasiaPoint(combatant=t.ids["Endimion"], use="reroll"))
    events = t.run(
        ph.SpendPhantasiaPoint(
            combatant=t.ids["Tybalt"], use="reroll", for_combatant=t.ids["Endimion"]
        ),
        reroll=[2],
    )
    (rerolled,) = of_type(events, "CheckRerolled")
    assert not rerolled.results[0]["hit"] and t.view["pending_attack"] is None
    assert t.who("Tybalt")["phantasia_points"] == 0


def test_given_a_phantasia_point_on_a_characteristic_check_then_it_succeeds_without_a_roll():
    """PHA-PP-2 (b), PHA-PP-4: the ally's own point."""
    t = table(("Endimion", pc()), ("Tybalt", pc(phantasia_points=1)), ("Orc", creature()))
    events = t.run(
        ph.Check(
            combatant=t.ids["Endimion"],
            characteristic="fue",
            phantasia_point=True,
            helped_by=t.ids["Tybalt"],
            modifiers={"the door is barred": -10},
        )
    )
    check = of_type(events, "CheckRolled")[0].check
    assert check["success"] and check["automatic"] and check["roll"] is None
    assert t.who("Tybalt")["phantasia_points"] == 0


# -- the publisher's core (phantasia-core.md), beyond its vectors ----------------------------------


def test_given_a_blind_creature_attacking_a_player_then_its_minus_3_is_mirrored_on_the_df_check():
    """PHA-CORE-3, PHA-DEF-6 (Default PHA-AMB-2): the modifiers to the attacker's AT count
    with the opposite sign on the player's target."""
    t = table(("Orc", creature()), ("Endimion", pc(figures={"df": 2})))
    status(t, "Orc", "blind", turns=3)
    r = result_of(attack(t, "Orc", "Endimion", weapon="axe", dice={"defense": [2]}))
    assert r["parts"]["attacker blind"] == 3 and r["target_number"] == 6 + 2 + 3


def test_given_a_three_dice_magic_then_the_int_adjustment_is_added_once_and_two_attacks_allowed():
    """PHA-CORE-9: no INT adjustment per die, no once-per-turn limit on offensive actions
    (older editions)."""
    power = {"name": "Tormenta", "damage": "3d6"}
    t = table(("Endimion", pc(int=12, powers=[power])), ("Orc", creature(pv=99)))
    attack(t, "Endimion", "Orc", weapon="sword", dice={"attack": [11]})
    attack(t, "Endimion", "Orc", power="Tormenta", dice={"attack": [2]})
    (damage,) = of_type(t.run(ph.RollDamage(), damage=[2, 3, 4]), "DamageApplied")
    assert damage.amount == 9 + 3


@pytest.mark.parametrize(("fue", "change", "adj"), [(8, -2, 0), (2, -3, -3)])
def test_given_a_harmful_magic_on_a_score_then_the_adjustment_follows_the_new_score(
    fue: int, change: int, adj: int
):
    """PHA-CHAR-2 (Default PHA-AMB-51, PHA-AMB-44): FUE 8 −2 → 6 → 0; FUE 2 −3 → −1 → −3."""
    t = table(("Endimion", pc(fue=fue)), ("Orc", creature(pv=99)))
    status(
        t,
        "Endimion",
        "magic",
        name="Debilitar",
        modifiers={"fue": change},
        beneficial=False,
        turns=2,
    )
    events = attack(t, "Endimion", "Orc", weapon="sword", dice={"attack": [11]})
    assert parts_of(events)["FUE adj"] == adj


def test_given_the_sheet_then_agi_feeds_df_and_projectile_damage_int_feeds_am_and_dm():
    """PHA-CHAR-3, PHA-CHAR-4 (Default PHA-AMB-46), PHA-DMG-2: DF = AGI adjustment +
    protection; DM = INT adjustment + protection DM; AM = 6 + INT adjustment; a bow's damage
    adds the AGI adjustment, not FUE; an entered DF wins."""
    bow = {"name": "bow", "code": "AP", "damage": "1d6"}
    t = table(
        ("Endimion", pc(fue=12, agi=10, int=11, protection_df=1, protection_dm=1, weapons=[bow])),
        ("Orc", creature(pv=99, figures={"df": 5})),
    )
    e = t.who("Endimion")
    assert (e["df"], e["dm"], e["am"], e["at"]["bow"]) == (3, 3, 8, 8)
    assert t.who("Orc")["df"] == 5
    attack(t, "Endimion", "Orc", weapon="bow", dice={"attack": [2]})
    (damage,) = of_type(t.run(ph.RollDamage(), damage=[4]), "DamageApplied")
    assert damage.breakdown["AGI adj"] == 2 and "FUE adj" not in damage.breakdown


def test_given_a_power_used_several_times_a_day_then_the_vit_extra_uses_and_no_more():
    """PHA-CHAR-6 (Default PHA-AMB-45): VIT 10 (+2) adds 2 uses to a 2/day power, none to a
    1/day one."""
    powers = [{"name": "Luz", "uses_per_day": 2}, {"name": "Sol", "uses_per_day": 1}]
    t = table(("Endimion", pc(vit=10, powers=powers)), ("Orc", creature()))
    assert t.who("Endimion")["extra_uses"] == {"Luz": 2, "Sol": 0}
    act(t, "Endimion", "cast_power", power="Sol")
    refused("PHA-CHAR-6", act, t, "Endimion", "cast_power", power="Sol")
    for _ in range(2):
        act(t, "Endimion", "cast_power", power="Luz")
        next_turn(t)
        next_turn(t)
        act(t, "Endimion", "cast_power", power="Luz")
    refused("PHA-CHAR-6", act, t, "Endimion", "cast_power", power="Luz")


def test_given_a_thrown_weapon_then_it_is_ranged_by_its_code_unless_the_gm_says_otherwise():
    """PHA-WPN-2 (Default PHA-AMB-4), PHA-STS-19 (Default PHA-AMB-24): an AA weapon is
    ranged: against a prone target the target gets DF +3; entered as melee, the adjacent
    attacker gets +3; its damage adds FUE even when it attacks with AGI."""
    weapons = [
        {"name": "javelin", "code": "AA", "damage": "1d6"},
        {"name": "knife", "code": "AA", "damage": "1d4", "ranged": False},
    ]
    t = table(("Endimion", pc(fue=10, agi=12, weapons=weapons)), ("Orc", creature(pv=99)))
    status(t, "Orc", "prone")
    events = attack(
        t, "Endimion", "Orc", weapon="javelin", characteristic="agi", dice={"attack": [2]}
    )
    assert parts_of(events)["AGI adj"] == 3
    assert parts_of(events)["target prone against ranged"] == -3
    (damage,) = of_type(t.run(ph.RollDamage(), damage=[1]), "DamageApplied")
    assert damage.breakdown["FUE adj"] == 2
    events = attack(t, "Endimion", "Orc", weapon="knife", dice={"attack": [11]})
    assert parts_of(events)["target prone, adjacent"] == 3


def test_given_a_shield_then_it_counts_only_on_a_declared_block():
    """PHA-WPN-4, PHA-DEF-2 (Default PHA-AMB-31)."""
    t = table(("Orc", creature()), ("Endimion", pc(shield={"df": 2})), ("Lia", pc()))
    events = attack(t, "Orc", "Endimion", weapon="axe", dice={"defense": [2]})
    assert "shield (block)" not in parts_of(events)
    events = attack(t, "Orc", "Endimion", weapon="axe", block=["Endimion"], dice={"defense": [2]})
    assert parts_of(events)["shield (block)"] == 2
    for _ in range(3):
        next_turn(t)
    refused(
        "PHA-DEF-2", attack, t, "Orc", "Lia", weapon="axe", block=["Lia"], dice={"defense": [2]}
    )


def test_given_the_load_rule_then_a_sheet_over_fue_times_7_kg_is_overloaded_at_its_turn():
    """PHA-WPN-7 (Default PHA-AMB-53): off unless the encounter plays it; FUE 7 carrying 60
    kg (over 49): Weakness's d20 and MO −3 from the start of his turn."""
    off = table(("Endimion", pc()), ("Orc", creature()))
    refused("PHA-WPN-7", off.run, ph.SetLoad(combatant=off.ids["Endimion"], carried_kg=60))
    t = table(("Endimion", pc(carried_kg=60)), ("Orc", creature()), load_rule=True)
    e = t.who("Endimion")
    assert "overloaded" in e["statuses"] and e["movement"] == 8 - 3
    r = result_of(attack(t, "Endimion", "Orc", weapon="sword", dice={"attack": [15]}))
    assert r["die"] == 20


def test_given_the_stats_then_mo_is_movement_and_never_a_key_of_its_own():
    """PHA-WPN-9, PHA-CHAR-9: metres per Move action are `movement`; `mo` (gold coins) is
    not a stat."""
    sheet = pc(movement=5)
    assert PhantasiaStats.model_validate(sheet).movement == 5
    with pytest.raises(ValidationError):
        PhantasiaStats.model_validate({**sheet, "mo": 30})
    t = table(("Endimion", sheet), ("Orc", creature()))
    assert t.who("Endimion")["movement"] == 5


def test_given_a_large_creature_then_its_doubled_fue_adjustment_pushes_its_check_uses_the_score():
    """PHA-FOE-3 (Default PHA-AMB-48), PHA-ACT-14, PHA-CORE-4: ×2 → +4 → 4 m; its FUE check
    is on the score, 10; the narrator's creature rolls its own opposed check."""
    t = table(("Ogre", creature(fue=10, large=2)), ("Endimion", pc()))
    events = contest(t, "Ogre", "push", "Endimion", dice={"attacker": [2], "defender": [12]})
    (rolled,) = of_type(events, "ContestRolled")
    assert rolled.attacker_check["parts"] == {"FUE": 10} and rolled.effect == {"metres": 4}


def test_given_a_martial_level_8_enemy_then_at_and_df_plus_4_but_not_for_a_player_character():
    """PHA-FOE-4 (Default PHA-AMB-52): the narrator's enemies' increments only."""
    t = table(
        ("Orc", creature(level=8, enemy_type="martial")),
        ("Endimion", pc(level=8, enemy_type="martial")),
    )
    assert t.who("Orc")["df"] == 4 and t.who("Orc")["at"]["axe"] == 10
    assert t.who("Endimion")["df"] == 1


@pytest.mark.over_http
def test_given_a_power_with_cooldown_1_used_in_turn_1_then_refused_in_turn_2_usable_in_turn_3():
    """PHA-FOE-5 (Default PHA-AMB-49): counted in the creature's own turns."""
    breath = {"name": "Aliento", "damage": "1d6", "cooldown": 1}
    t = table(("Drake", creature(powers=[breath])), ("Endimion", pc(pv=60)))
    attack(t, "Drake", "Endimion", power="Aliento", dice={"defense": [2]})
    next_turn(t)
    next_turn(t)
    refused("PHA-FOE-5", attack, t, "Drake", "Endimion", power="Aliento", dice={"defense": [2]})
    next_turn(t)
    next_turn(t)
    attack(t, "Drake", "Endimion", power="Aliento", dice={"defense": [2]})


def test_given_an_out_of_order_attack_outside_his_turn_then_no_repeat_penalty():
    """PHA-ACT-5 (Default PHA-AMB-42): an offensive action outside his own turn, even one the
    GM lets him take out of order, takes no −3."""
    t = table(("Endimion", pc()), ("Orc", creature(pv=99)))
    attack(t, "Endimion", "Orc", weapon="sword", dice={"attack": [11]})
    attack(t, "Endimion", "Orc", weapon="sword", dice={"attack": [11]})
    next_turn(t)
    events = attack(t, "Endimion", "Orc", weapon="sword", out_of_order=True, dice={"attack": [11]})
    assert "repeated offensive action" not in parts_of(events)
