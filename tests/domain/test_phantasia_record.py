"""PHANTÄSIA on the record: corrections (void, undo) of its rolls fold back to a state
that plays on, and the guards that keep a roll from being fished for or lost. Each test
runs in the domain and through the HTTP API with manual dice."""

from __future__ import annotations

import pytest

from domain import commands as c
from domain.errors import DomainError
from domain.rulesystems.phantasia import commands as ph
from tests.builders import Table, of_type
from tests.domain.test_phantasia import attack, creature, next_turn, pc, refused, table


@pytest.mark.over_http
def test_given_a_hit_whose_damage_roll_is_voided_then_pv_back_and_the_damage_rolls_again():
    """PHA-DMG-11 on the record: the damage roll roots what follows it (the settled attack,
    a death check), so voiding it reopens the attack."""
    t = table(("Endimion", pc(fue=10)), ("Orc", creature(pv=10)))
    attack(t, "Endimion", "Orc", weapon="sword", dice={"attack": [2]})
    events = t.run(ph.RollDamage(), damage=[8], death=[50])
    (damage,) = of_type(events, "DamageApplied")
    assert t.who("Orc")["unconscious"]
    t.run(c.Void(target=damage.originator_version, reason="the die fell off the table"))
    assert t.who("Orc")["pv"] == 10 and not t.who("Orc")["unconscious"]
    assert t.view["step"] == "attack"
    (damage,) = of_type(t.run(ph.RollDamage(), damage=[1]), "DamageApplied")
    assert damage.amount == 1 + 2 + 5 and t.who("Orc")["pv"] == 2


@pytest.mark.over_http
def test_given_a_fumbled_attack_when_voided_after_its_d6_then_the_mishap_goes_with_it():
    """PHA-CRIT-4, -5: the fumble's d6 follows from the attack it fumbled."""
    t = table(("Endimion", pc()), ("Orc", creature()))
    (checked,) = of_type(
        attack(t, "Endimion", "Orc", weapon="sword", dice={"attack": [12]}), "AttackChecked"
    )
    t.run(ph.RollFumble(), fumble=[2])
    assert "prone" in t.who("Endimion")["statuses"]
    t.run(c.Void(target=checked.originator_version, reason="disputed"))
    assert "prone" not in t.who("Endimion")["statuses"]
    assert t.who("Endimion")["actions_left"] == 2


@pytest.mark.over_http
def test_given_pm_spent_after_a_critical_when_the_critical_is_voided_then_pm_follows():
    """PHA-CRIT-3, PHA-PM-5: PM move by the changes events carry, so a void folds right."""
    bolt = {"name": "Rayo", "damage": "1d6", "pm_cost": 1}
    t = table(("Endimion", pc(pm=2, powers=[bolt])), ("Orc", creature(pv=99)))
    (checked,) = of_type(
        attack(t, "Endimion", "Orc", weapon="sword", dice={"attack": [1]}), "AttackChecked"
    )
    t.run(ph.RollDamage(), damage=[3])
    assert t.who("Endimion")["pm"] == 3
    attack(t, "Endimion", "Orc", power="Rayo", dice={"attack": [11]})
    assert t.who("Endimion")["pm"] == 2
    t.run(c.Void(target=checked.originator_version, reason="disputed"))
    assert t.who("Endimion")["pm"] == 1


def test_given_a_failed_fear_check_when_voided_then_his_actions_come_back():
    """PHA-STS-18: the lost actions follow from the failed CA check."""
    t = table(("Endimion", pc()), ("Orc", creature()))
    t.run(ph.ApplyStatus(combatant=t.ids["Orc"], status="fear", turns=3))
    events = next_turn(t, fear=[12])
    (fear,) = of_type(events, "CheckRolled")
    assert of_type(events, "ActionsLost")[0].actions == 2
    assert t.who("Orc")["actions_left"] == 0
    t.run(c.Void(target=fear.originator_version, reason="he was not afraid"))
    assert t.who("Orc")["actions_left"] == 2


def test_given_a_group_initiative_when_voided_then_every_member_rolls_again():
    """PHA-INIT-1: the group's one roll places all its members; voiding it unplaces all."""
    t = Table("phantasia")
    t.add("Gob1", creature(agi=5))
    t.add("Gob2", creature(agi=9))
    events = t.run(ph.RollInitiative(group=[t.ids["Gob1"], t.ids["Gob2"]]), initiative=[4])
    first = of_type(events, "InitiativeRolled")[0]
    t.run(c.Void(target=first.originator_version, reason="rolled off the table"))
    assert t.view["order"] == []
    t.run(ph.RollInitiative(group=[t.ids["Gob1"], t.ids["Gob2"]]), initiative=[7])
    assert len(t.view["order"]) == 2


def test_given_an_open_hit_then_the_turn_cannot_end_until_its_damage_is_rolled():
    """PHA-DMG-1: nothing is lost at a round's end."""
    t = table(("Orc", creature()), ("Endimion", pc()))
    attack(t, "Orc", "Endimion", weapon="axe", dice={"defense": [11]})
    refused("PHA-DMG-1", t.run, c.EndTurn(combatant=t.ids["Orc"]))
    t.run(ph.RollDamage(), damage=[3])
    t.run(c.EndTurn(combatant=t.ids["Orc"]))


def test_given_an_area_power_that_hits_one_and_fumbles_then_fumble_first_then_damage():
    """PHA-CRIT-2, -3, -4: one roll for every target: a natural 1 restores 1 PM once; a
    narrator's area power that the program rolls fumbles on a creature while a player's DM
    fails: its d6 is rolled, then the damage; neither is lost."""
    blast = {"name": "Estallido", "damage": "1d6"}
    t = table(
        ("Endimion", pc(pm=1, powers=[blast])),
        ("Orc", creature(pv=99)),
        ("Goblin", creature(pv=99)),
    )
    attack(t, "Endimion", "Orc", "Goblin", power="Estallido", dice={"attack": [1]})
    assert t.who("Endimion")["pm"] == 2  # one natural 1, one PM
    t.run(ph.RollDamage(), damage=[2])
    next_turn(t)
    ball = {"name": "Bola", "damage": "1d6"}
    t2 = table(("Shaman", creature(powers=[ball])), ("Endimion", pc()), ("Goblin", creature(pv=99)))
    attack(
        t2,
        "Shaman",
        "Endimion",
        "Goblin",
        power="Bola",
        dice={"defense:Endimion": [11], "attack": [12]},
    )
    refused("PHA-CRIT-4", t2.run, ph.RollDamage(), damage=[3])
    t2.run(ph.RollFumble(), fumble=[3])
    assert t2.view["step"] == "attack"
    events = t2.run(ph.RollDamage(), damage=[3])
    assert [e.combatant for e in of_type(events, "DamageApplied")] == [t2.ids["Endimion"]]
    assert t2.view["step"] == "turn"


@pytest.mark.over_http
def test_given_a_fumble_six_with_no_pm_when_asking_to_lose_pm_then_refused_before_the_d6():
    """PHA-CRIT-5: the choice is checked before the die is drawn, so no draw is lost."""
    t = table(("Endimion", pc(pm=0)), ("Orc", creature()))
    attack(t, "Endimion", "Orc", weapon="sword", dice={"attack": [12]})
    with pytest.raises(DomainError) as e:
        t.run(ph.RollFumble(choice="pm"))  # no face given: refused before any die
    assert e.value.rule == "PHA-CRIT-5"


@pytest.mark.parametrize("later", ["next_turn", "second_point"])
def test_given_a_miss_then_a_phantasia_point_rerolls_it_only_in_that_turn_and_once(later: str):
    """PHA-PP-2 a: a re-roll is made after seeing the check, in the turn it was rolled, and
    the second result stands."""
    t = table(("Endimion", pc(phantasia_points=1, level=10)), ("Orc", creature(pv=99)))
    attack(t, "Endimion", "Orc", weapon="sword", dice={"attack": [11]})
    if later == "next_turn":
        next_turn(t)
        refused(
            "PHA-PP-2",
            t.run,
            ph.SpendPhantasiaPoint(combatant=t.ids["Endimion"], use="reroll"),
            reroll=[2],
        )
        return
    t.run(ph.AwardPhantasiaPoint(combatant=t.ids["Endimion"]))
    t.run(ph.SpendPhantasiaPoint(combatant=t.ids["Endimion"], use="reroll"), reroll=[10])
    refused(
        "PHA-PP-2",
        t.run,
        ph.SpendPhantasiaPoint(combatant=t.ids["Endimion"], use="reroll"),
        reroll=[2],
    )


def test_given_death_rerolls_then_only_a_failed_check_once_and_only_for_an_ally():
    """PHA-DTH-6, PHA-PP-4: a failed death check may be re-rolled once with a point; a
    death set by the narrator had no check; an enemy is no ally."""
    t = table(("Endimion", pc(phantasia_points=1)), ("Orc", creature(pv=5)))
    t.run(c.SetCondition(combatant=t.ids["Endimion"], condition="dead"))
    refused(  # a death the narrator set had no death check
        "PHA-DTH-6",
        t.run,
        ph.SpendPhantasiaPoint(combatant=t.ids["Endimion"], use="death_reroll"),
        death=[50],
    )
    refused(
        "PHA-PP-4",
        t.run,
        ph.SpendPhantasiaPoint(
            combatant=t.ids["Endimion"], use="death_reroll", for_combatant=t.ids["Orc"]
        ),
        death=[50],
    )
    t2 = table(("Archer", creature(level=5)), ("Endimion", pc(current_pv=1, phantasia_points=1)))
    attack(t2, "Archer", "Endimion", weapon="bow", dice={"defense": [11]})
    t2.run(ph.RollDamage(), damage=[8], death=[3])
    assert t2.who("Endimion")["dead"]
    events = t2.run(
        ph.SpendPhantasiaPoint(combatant=t2.ids["Endimion"], use="death_reroll"), death=[40]
    )
    assert of_type(events, "DeathChecked")[0].reroll and not t2.who("Endimion")["dead"]
    t3 = table(
        ("Archer", creature(level=5)), ("Endimion", pc(current_pv=1, level=10, phantasia_points=2))
    )
    attack(t3, "Archer", "Endimion", weapon="bow", dice={"defense": [11]})
    t3.run(ph.RollDamage(), damage=[8], death=[3])
    t3.run(ph.SpendPhantasiaPoint(combatant=t3.ids["Endimion"], use="death_reroll"), death=[2])
    assert t3.who("Endimion")["dead"]
    refused(
        "PHA-DTH-6",
        t3.run,
        ph.SpendPhantasiaPoint(combatant=t3.ids["Endimion"], use="death_reroll"),
        death=[90],
    )


def test_given_bad_input_then_each_is_refused_and_nothing_recorded():
    """Bad dice on a power or a poison, a PM above the maximum, a cover outside 1..5, a
    shield broken without a fumble, a magic named like a computed part, a dead target, a
    grabbed jumper, PM bought at full: 422s, never a crash."""
    for sheet in (pc(powers=[{"name": "Rayo", "damage": "banana"}]), pc(pm=99)):
        with pytest.raises((DomainError, AssertionError)):  # the HTTP builder asserts 201
            Table("phantasia").add("X", sheet)
    t = table(("Endimion", pc(fue=10, phantasia_points=1)), ("Orc", creature(fue=6)))
    t.run(ph.ApplyStatus(combatant=t.ids["Orc"], status="poisoned", damage=" 1D6"))
    assert t.who("Orc")["statuses"]["poisoned"]["damage"] == "1d6"
    with pytest.raises((DomainError, ValueError)):
        attack(t, "Endimion", "Orc", weapon="sword", cover={"Orc": 0}, dice={"attack": [2]})
    magic = {"status": "magic", "modifiers": {"df": 1}, "beneficial": True}
    for name in ("protection", "FUE adj", "cover"):
        refused("PHA-STK-1", t.run, ph.ApplyStatus(combatant=t.ids["Orc"], name=name, **magic))
    refused("PHA-PM-3", t.run, ph.SpendPhantasiaPoint(combatant=t.ids["Endimion"], use="pm"))
    events = t.run(
        ph.Contest(
            combatant=t.ids["Orc"], kind="grab", target=t.ids["Endimion"], out_of_order=True
        ),
        attacker=[2],
        defender=[11],
    )
    assert of_type(events, "ContestRolled")[0].attacker_wins
    refused(
        "PHA-STS-1", t.run, ph.Jump(combatant=t.ids["Endimion"], kind="long", metres=2), jump=[2]
    )
    t.run(c.SetCondition(combatant=t.ids["Orc"], condition="dead"))
    refused(
        "PHA-STS-13",
        t.run,
        ph.Contest(combatant=t.ids["Endimion"], kind="escape", target=t.ids["Orc"]),
        attacker=[2],
        defender=[11],
    )


def test_given_a_block_that_failed_without_fumbling_then_the_shield_does_not_break():
    """PHA-DEF-3: only a fumbled block lets the shield break."""
    t = table(("Orc", creature()), ("Endimion", pc(shield={"df": 1})))
    attack(t, "Orc", "Endimion", weapon="axe", block=["Endimion"], dice={"defense": [11]})
    refused("PHA-DEF-3", t.run, ph.RollDamage(shield_breaks=[t.ids["Endimion"]]), damage=[3])


def test_given_the_fumble_five_free_attack_then_it_is_taken_at_once_or_lost():
    """PHA-CRIT-5 result 5 (Default PHA-AMB-23): immediate, or not at all."""
    t = table(("Endimion", pc()), ("Orc", creature(pv=99)))
    attack(t, "Endimion", "Orc", weapon="sword", dice={"attack": [12]})
    t.run(ph.RollFumble(), fumble=[5])
    assert t.who("Orc")["free_attack_on"] == t.ids["Endimion"]
    next_turn(t)
    assert t.who("Orc")["free_attack_on"] is None
    refused(
        "PHA-CRIT-5",
        attack,
        t,
        "Orc",
        "Endimion",
        weapon="axe",
        free=True,
        dice={"defense": [11]},
    )


def test_given_three_beneficial_statuses_then_the_defense_action_names_the_one_to_end():
    """PHA-STK-3, PHA-ACT-13: the Defense action can replace a beneficial status."""
    t = table(("Endimion", pc()), ("Orc", creature()))
    for status in ("haste", "invisible"):
        t.run(ph.ApplyStatus(combatant=t.ids["Endimion"], status=status, turns=3))
    magic = {"status": "magic", "modifiers": {"dm": 1}, "beneficial": True, "turns": 1}
    t.run(ph.ApplyStatus(combatant=t.ids["Endimion"], name="Escudo", **magic))
    refused("PHA-STK-3", t.run, ph.Act(combatant=t.ids["Endimion"], action="defense"))
    events = t.run(ph.Act(combatant=t.ids["Endimion"], action="defense", replace="least_time"))
    assert of_type(events, "StatusEnded")[0].status == "Escudo"
    assert "defense" in t.who("Endimion")["statuses"]


def test_given_the_agi_order_variant_then_a_group_roll_is_refused():
    """PHA-INIT-4: nothing is rolled in the variant."""
    t = Table("phantasia", {"initiative": "agi_order"})
    t.add("Gob1", creature())
    t.add("Gob2", creature())
    refused(
        "PHA-INIT-4",
        t.run,
        ph.RollInitiative(group=[t.ids["Gob1"], t.ids["Gob2"]]),
        initiative=[3],
    )


def test_given_a_failed_death_check_then_its_reroll_comes_at_once_or_not_at_all():
    """PHA-DTH-6: a failed death check is re-rolled with a point in the turn it was made."""
    t = table(("Archer", creature(level=5)), ("Endimion", pc(current_pv=1, phantasia_points=1)))
    attack(t, "Archer", "Endimion", weapon="bow", dice={"defense": [11]})
    t.run(ph.RollDamage(), damage=[8], death=[3])
    next_turn(t)
    refused(
        "PHA-DTH-6",
        t.run,
        ph.SpendPhantasiaPoint(combatant=t.ids["Endimion"], use="death_reroll"),
        death=[40],
    )
