"""PHANTÄSIA: every test vector of shared/rules/phantasia-core.md (PHA-TV-31..48), each test
run in the domain and through the HTTP API with manual dice (tests/domain/conftest.py).

Vectors about what the combat log does not do (character creation, money, traps, PV
guidance: OUT or RECORD) test what the log does instead: it takes the sheet as entered,
refuses what is not part of it, and lets the GM enter the trap's modifier."""

from __future__ import annotations

from typing import Any

import pytest

from domain import commands as c
from domain.errors import DiceError, RuleViolation
from domain.rulesystems.phantasia import commands as ph
from tests.builders import DomainTable, HttpTable, Table, of_type
from tests.domain.test_phantasia import attack, creature, next_turn, pc, refused, statuses, table


def result(events: list[Any]) -> dict[str, Any]:
    """The one target's result of the one attack check among `events`."""
    (checked,) = of_type(events, "AttackChecked")
    (r,) = checked.results
    return r


def add_refused(t: DomainTable, name: str, stats: dict[str, Any]) -> dict[str, Any]:
    """Adding this combatant is refused: a 422 over HTTP, a RuleViolation in the domain."""
    if isinstance(t, HttpTable):
        r = t.client.post(
            f"/encounters/{t.eid}/combatants", json={"name": name, "side": "", "stats": stats}
        )
        assert r.status_code == 422, r.text
        return r.json()
    with pytest.raises(RuleViolation) as e:
        t.add(name, stats)
    assert e.value.status == 422
    return {"rule": e.value.rule, "field": e.value.field, "detail": e.value.detail}


def cast(t: DomainTable, who: str, power: str) -> list[Any]:
    return t.run(ph.Act(combatant=t.ids[who], action="cast_power", power=power))


# -- PHA-TV-31, -33: score → adjustment ----------------------------------------------------

TABLE = {1: -3, 2: -2, 3: -2, 4: -1, 5: -1, 6: 0, 7: 0, 8: 1, 9: 1, 10: 2, 11: 2, 12: 3}


@pytest.mark.over_http
@pytest.mark.parametrize("score", range(1, 13))
def test_given_a_score_1_to_12_when_entered_then_its_adjustment_is_the_publishers_table(score: int):
    """PHA-TV-31 (PHA-CHAR-2, PHA-CHAR-3, PHA-CHAR-4): 1, 2, 3, 5, 6, 7, 8, 10, 11, 12 →
    −3, −2, −2, −1, 0, 0, +1, +2, +2, +3; floor(s / 2) − 3 agrees for every score 1–12.
    The adjustment feeds the figures: AT 6 + FUE adj, DF = AGI adj, DM = INT adj, AM 6 +
    INT adj."""
    assert TABLE[score] == score // 2 - 3
    scores = {ch: score for ch in ("fue", "agi", "int", "vit", "sue", "ca")}
    t = table(("Endimion", pc(**scores)), ("Orc", creature()))
    e = t.who("Endimion")
    assert e["adjustments"] == dict.fromkeys(scores, TABLE[score])
    assert e["at"]["sword"] == 6 + TABLE[score]
    assert (e["df"], e["dm"], e["am"]) == (TABLE[score], TABLE[score], 6 + TABLE[score])


@pytest.mark.over_http
def test_given_scores_0_and_13_when_entered_then_minus_3_and_plus_3():
    """PHA-TV-33 (PHA-CHAR-2; Defaults PHA-AMB-44, PHA-AMB-51): outside 1–12 the adjustment
    stays −3 or +3, also when a magic pushes a score out of the table (FUE 12 + 4 = 16, where
    floor(16 / 2) − 3 would give +5)."""
    t = table(("Endimion", pc(fue=0, agi=13)), ("Orc", creature()), ("Tybalt", pc(fue=12)))
    assert t.who("Endimion")["adjustments"]["fue"] == -3
    assert t.who("Endimion")["adjustments"]["agi"] == 3
    assert t.who("Endimion")["df"] == 3
    t.run(
        ph.ApplyStatus(
            combatant=t.ids["Tybalt"],
            status="magic",
            name="Fuerza",
            modifiers={"fue": 4},
            beneficial=True,
            turns=3,
        )
    )
    assert t.who("Tybalt")["at"]["sword"] == 6 + 3


# -- PHA-TV-32, -33: VIT extra uses --------------------------------------------------------

POWERS = [{"name": "Tres", "uses_per_day": 3}, {"name": "Una", "uses_per_day": 1}]


def test_given_vit_10_when_powers_are_used_then_5_uses_of_a_3_a_day_power_and_1_of_a_1_a_day():
    """PHA-TV-32 (PHA-CHAR-6, PHA-CORE-7): VIT 10 → +2 → the 3/day power can be used 5
    times in the day, the 6th is refused; the 1/day power once. (The uses coming back after
    a long overnight rest is outside the combat: a new encounter starts with none spent.)"""
    t = table(("Endimion", pc(vit=10, powers=POWERS)), ("Orc", creature()))
    assert t.who("Endimion")["extra_uses"] == {"Tres": 2, "Una": 0}
    for turn in range(3):
        if turn:
            next_turn(t)
            next_turn(t)
        cast(t, "Endimion", "Tres")
        if turn < 2:
            cast(t, "Endimion", "Tres")
    refused("PHA-CHAR-6", cast, t, "Endimion", "Tres")  # the 6th use
    cast(t, "Endimion", "Una")
    next_turn(t)
    next_turn(t)
    refused("PHA-CHAR-6", cast, t, "Endimion", "Una")


def test_given_vit_4_when_a_3_a_day_power_is_used_then_3_uses_no_extra_and_none_removed():
    """PHA-TV-33 (PHA-CHAR-2, PHA-CHAR-6; Default PHA-AMB-45): VIT 4 → −1: a 3/day power
    is still usable 3 times, and no more."""
    t = table(("Endimion", pc(vit=4, powers=POWERS)), ("Orc", creature()))
    assert t.who("Endimion")["adjustments"]["vit"] == -1
    assert t.who("Endimion")["extra_uses"] == {"Tres": 0, "Una": 0}
    cast(t, "Endimion", "Tres")
    cast(t, "Endimion", "Tres")
    next_turn(t)
    next_turn(t)
    cast(t, "Endimion", "Tres")
    refused("PHA-CHAR-6", cast, t, "Endimion", "Tres")


# -- PHA-TV-34: character creation is outside the log --------------------------------------


@pytest.mark.parametrize(("fue", "adjustment"), [(11, 2), (10, 2)])
def test_given_a_level_1_fue_of_11_when_the_sheet_is_entered_then_the_log_takes_it_as_is(
    fue: int, adjustment: int
):
    """PHA-TV-34 (PHA-CHAR-10 is OUT; PHA-CHAR-1, PHA-CHAR-2): 9 rolled + origin 1 + class 1
    = 11 is above the level-1 maximum of 10, a matter for the sheet, not the combat log: a
    level-1 sheet with FUE 11 is accepted as entered (and 10 of course)."""
    t = table(("Endimion", pc(level=1, fue=fue)), ("Orc", creature()))
    e = t.who("Endimion")
    assert (e["level"], e["scores"]["fue"], e["adjustments"]["fue"]) == (1, fue, adjustment)


# -- PHA-TV-35: who rolls ------------------------------------------------------------------


def test_given_a_goblin_when_it_swings_and_casts_at_a_pc_then_she_rolls_df_dm_and_her_own_at():
    """PHA-TV-35 (PHA-CORE-1, PHA-CORE-2, PHA-DEF-6, PHA-INIT-1): the PC rolls DF against the
    goblin's swing, DM against its harmful power and AT for her own attack; the narrator
    rolls only the goblin's initiative and damage dice. The goblin rolls no to-hit die,
    so it can neither critical nor fumble: her 12 is her own fumble (double damage), her 1
    her own critical (+1 PM)."""
    hex_ = {"name": "Hex", "damage": "1d6"}
    t = Table("phantasia")
    t.add("Lyra", pc(pm=3), side="heroes")
    t.add("Goblin", creature(powers=[hex_]), side="foes")
    events = t.run(c.RollInitiative(), **{"initiative:Lyra": [2], "initiative:Goblin": [9]})
    assert {e.combatant: e.raw for e in of_type(events, "InitiativeRolled")} == {
        t.ids["Lyra"]: 2,
        t.ids["Goblin"]: 9,
    }
    t.run(ph.StartTurn())
    assert t.view["acting"] == t.ids["Goblin"]
    # the goblin has no attack roll to make: a face for it is refused as unrolled
    with pytest.raises(DiceError) as e:
        attack(t, "Goblin", "Lyra", weapon="axe", dice={"attack": [1], "defense": [5]})
    assert e.value.roll == "attack"
    r = result(attack(t, "Goblin", "Lyra", weapon="axe", dice={"defense": [12]}))
    assert (r["check"], r["rolled_by"], r["roller"]) == ("DF", "defender", t.ids["Lyra"])
    assert r["fumble"] and r["hit"] and r["doubled"]  # her fumble: double damage
    refused("PHA-CRIT-4", t.run, ph.RollFumble(), fumble=[3])  # nobody fumbled an attack
    (damage,) = of_type(t.run(ph.RollDamage(), damage=[4]), "DamageApplied")
    assert damage.breakdown["factor"] == 2 and damage.amount == (4 + 0 + 1) * 2
    r = result(attack(t, "Goblin", "Lyra", power="Hex", dice={"defense": [1]}))
    assert (r["check"], r["rolled_by"], r["roller"]) == ("DM", "defender", t.ids["Lyra"])
    assert not r["hit"] and r["critical"] and not r["doubled"]
    assert t.who("Lyra")["pm"] == 4  # PHA-CRIT-3: her natural 1
    refused("PHA-DMG-1", t.run, ph.RollDamage(), damage=[3])  # avoided: nothing to roll
    next_turn(t)
    r = result(attack(t, "Lyra", "Goblin", weapon="sword", dice={"attack": [2]}))
    assert (r["check"], r["rolled_by"], r["roller"]) == ("AT", "attacker", t.ids["Lyra"])
    assert r["hit"]


# -- PHA-TV-36, -37: the martial enemy of level 4 ------------------------------------------


def level_4_martial(**overrides: Any) -> dict[str, Any]:
    """Martial, level 4 (AT +2, DF +2), FUE 8 (+1), AGI 6 (0), no protection, AMM axe."""
    return creature(level=4, enemy_type="martial", fue=8, **overrides)


@pytest.mark.parametrize(("first", "second"), [(12, 1), (1, 12)])
def test_given_a_level_4_martial_enemy_when_it_attacks_a_df_3_pc_twice_then_df_targets_6_and_9(
    first: int, second: int
):
    """PHA-TV-36 (PHA-CORE-2, PHA-CORE-3, PHA-CHAR-4, PHA-FOE-4, PHA-ACT-3, PHA-DEF-6,
    PHA-CRIT-3, PHA-CRIT-7): PC AGI 10 (+2) and protection DF +1 → DF 3; the enemy's attack
    bonus FUE adj 1 + level increment 2 = 3. First attack: the PC's DF target 6 + 3 − 3 = 6;
    the second in the same turn, its −3 mirrored: 9. A 12 on either: fumble, double damage;
    a 1: avoided, +1 PM."""
    t = table(("Brute", level_4_martial()), ("Endimion", pc(agi=10, protection_df=1, pm=3)))
    assert t.who("Endimion")["df"] == 3
    pm = 3
    for face, target in ((first, 6), (second, 9)):
        r = result(attack(t, "Brute", "Endimion", weapon="axe", dice={"defense": [face]}))
        assert (r["rolled_by"], r["check"], r["target_number"]) == ("defender", "DF", target)
        assert r["parts"]["attacker FUE adj"] == -1
        assert r["parts"]["attacker level increments"] == -2
        if target == 9:
            assert r["parts"]["attacker repeated offensive action"] == 3
        if face == 12:
            assert r["fumble"] and r["hit"] and r["doubled"]
            (damage,) = of_type(t.run(ph.RollDamage(), damage=[5]), "DamageApplied")
            assert damage.breakdown["rolled"] == 5 + 1 + 4  # dice + FUE adj + level
            assert damage.amount == 20
        else:
            assert r["critical"] and not r["hit"]
            pm += 1
        assert t.who("Endimion")["pm"] == pm


@pytest.mark.parametrize(("face", "hits"), [(6, True), (7, False)])
def test_given_fue_9_and_an_item_1_amm_when_attacking_the_df_2_enemy_then_at_8_target_6(
    face: int, hits: bool
):
    """PHA-TV-37 (PHA-CHAR-4, PHA-ATK-1, PHA-FOE-4): the enemy of TV-36 has AGI 6 (0), no
    protection and level 4 → DF 2; the PC's AT figure 6 + FUE adj 1 + item 1 = 8; target
    8 − 2 = 6."""
    sword = {"name": "sword", "code": "AMM", "damage": "1d8", "item_bonus": 1}
    t = table(("Endimion", pc(fue=9, weapons=[sword])), ("Brute", level_4_martial()))
    assert t.who("Endimion")["at"]["sword"] == 8
    assert t.who("Brute")["df"] == 2
    r = result(attack(t, "Endimion", "Brute", weapon="sword", dice={"attack": [face]}))
    assert (r["check"], r["target_number"], r["hit"]) == ("AT", 6, hits)
    assert r["parts"]["target level increments"] == -2


# -- PHA-TV-38: a large creature -----------------------------------------------------------


def test_given_a_large_x2_fue_10_creature_when_it_attacks_then_adj_4_df_target_3_fue_check_10():
    """PHA-TV-38 (PHA-FOE-3, PHA-DMG-2, PHA-DMG-3, PHA-CHAR-4; Default PHA-AMB-48): FUE 10
    (+2) × 2 = +4 everywhere the adjustment is used; level 3 with no type entered: no level
    increments; the PC's DF 1 → target 6 + 1 − 4 = 3; damage 1d10 + 4 + 3; a FUE check
    still uses the score 10."""
    club = {"name": "club", "code": "AMG", "damage": "1d10"}
    t = table(
        ("Ogre", creature(fue=10, large=2, level=3, weapons=[club])),
        ("Endimion", pc(agi=8)),
    )
    assert t.who("Endimion")["df"] == 1
    ogre = t.who("Ogre")
    assert ogre["adjustments"]["fue"] == 4 and ogre["at"]["club"] == 10
    r = result(attack(t, "Ogre", "Endimion", weapon="club", dice={"defense": [4]}))
    assert r["target_number"] == 3 and r["hit"]
    assert r["parts"]["attacker FUE adj"] == -4
    assert "attacker level increments" not in r["parts"]
    (damage,) = of_type(t.run(ph.RollDamage(), damage=[7]), "DamageApplied")
    assert {k: damage.breakdown[k] for k in ("dice", "FUE adj", "level")} == {
        "dice": 7,
        "FUE adj": 4,
        "level": 3,
    }
    assert damage.amount == 14
    events = t.run(ph.Check(combatant=t.ids["Ogre"], characteristic="fue"), check=[10])
    (check,) = of_type(events, "CheckRolled")
    assert check.check["parts"] == {"FUE": 10} and check.check["success"]


# -- PHA-TV-39: level increments -----------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "level", "at_df", "am_dm"),
    [("martial", 1, 0, 0), ("martial", 5, 2, 0), ("martial", 6, 3, 0), ("magical", 6, 0, 3)],
)
def test_given_an_enemy_type_and_level_when_entered_then_its_increments_are_floor_level_over_2(
    kind: str, level: int, at_df: int, am_dm: int
):
    """PHA-TV-39 (PHA-FOE-4, PHA-CHAR-4): martial levels 1, 5, 6 → AT/DF +0, +2, +3;
    magical level 6 → AM +3, DM +3 and no AT/DF increment. Every score 6 (adjustment 0),
    so the figures are the increments."""
    bolt = {"name": "Bolt", "damage": "1d6"}
    t = table(
        ("Foe", creature(enemy_type=kind, level=level)),
        ("Endimion", pc(agi=6, int=6, powers=[bolt])),
    )
    foe = t.who("Foe")
    assert (foe["at"]["axe"], foe["df"]) == (6 + at_df, at_df)
    assert (foe["am"], foe["dm"]) == (6 + am_dm, am_dm)
    r = result(attack(t, "Foe", "Endimion", weapon="axe", dice={"defense": [2]}))
    assert r["target_number"] == 6 - at_df
    next_turn(t)
    r = result(attack(t, "Endimion", "Foe", power="Bolt", dice={"attack": [11]}))
    assert r["check"] == "AM" and r["target_number"] == 6 - am_dm


# -- PHA-TV-40, -46: initiative adds the AGI score -----------------------------------------


@pytest.mark.parametrize(("agi", "face", "ip"), [(8, 5, 13), (7, 4, 11)])
def test_given_an_agi_score_when_rolling_initiative_then_the_score_is_added_not_its_adjustment(
    agi: int, face: int, ip: int
):
    """PHA-TV-40 (PHA-CORE-5, PHA-INIT-1) and the initiative half of PHA-TV-46 (PHA-CORE-9):
    AGI 8 (adjustment +1) rolling 5 → 13, not 6; AGI 7 (adjustment 0) rolling 4 → 11, not
    4."""
    t = Table("phantasia")
    t.add("Endimion", pc(agi=agi))
    events = t.run(c.RollInitiative(combatant=t.ids["Endimion"]), initiative=[face])
    (rolled,) = of_type(events, "InitiativeRolled")
    assert (rolled.raw, rolled.ip, rolled.modifiers) == (face, ip, {"AGI": agi})
    assert t.who("Endimion")["initiative"] == ip


def test_given_fue_10_when_attacking_in_melee_then_the_at_contribution_is_2_not_10():
    """PHA-TV-46 (PHA-CORE-9, PHA-CHAR-2, PHA-ATK-1, PHA-DMG-2): no ×5 of the older
    edition: FUE 10 gives +2 to AT (target 6 + 2 − DF 0 = 8) and +2 to damage."""
    t = table(("Endimion", pc(fue=10, level=1)), ("Orc", creature()))
    r = result(attack(t, "Endimion", "Orc", weapon="sword", dice={"attack": [8]}))
    assert r["parts"] == {"base": 6, "FUE adj": 2} and r["target_number"] == 8 and r["hit"]
    (damage,) = of_type(t.run(ph.RollDamage(), damage=[3]), "DamageApplied")
    assert damage.breakdown["FUE adj"] == 2 and damage.amount == 3 + 2 + 1


# -- PHA-TV-41: magic attack and magic defense ---------------------------------------------


@pytest.mark.parametrize("figures", [{}, {"am": 8, "dm": 2}])
def test_given_int_11_and_a_level_4_magical_enemy_when_each_casts_then_am_6_and_dm_target_6(
    figures: dict[str, int],
):
    """PHA-TV-41 (PHA-CHAR-4, PHA-MAG-1, PHA-DEF-6, PHA-FOE-4, PHA-CORE-2): PC INT 11 (+2),
    no item → AM 8; the magical enemy INT 7 (0), level 4 (DM +2), no protection → DM 2; AM
    target 8 − 2 = 6. Its power against the PC: attack bonus 0 + 2 = 2, PC DM 2 → the PC's
    DM target 6 + 2 − 2 = 6. The GM may enter the enemy's AM 8 and DM 2 instead: the entered
    figures win, the level increments are not added on top."""
    bolt = {"name": "Bolt", "damage": "1d6"}
    hex_ = {"name": "Hex", "damage": "1d6"}
    witch = creature(int=7, level=4, enemy_type="magical", powers=[hex_], figures=figures)
    t = table(("Endimion", pc(int=11, powers=[bolt])), ("Witch", witch))
    assert (t.who("Endimion")["am"], t.who("Endimion")["dm"]) == (8, 2)
    assert (t.who("Witch")["am"], t.who("Witch")["dm"]) == (8, 2)
    r = result(attack(t, "Endimion", "Witch", power="Bolt", dice={"attack": [7]}))
    assert (r["check"], r["rolled_by"], r["target_number"]) == ("AM", "attacker", 6)
    assert not r["hit"]
    next_turn(t)
    r = result(attack(t, "Witch", "Endimion", power="Hex", dice={"defense": [6]}))
    assert (r["check"], r["rolled_by"], r["target_number"]) == ("DM", "defender", 6)
    assert not r["hit"]  # 6 ≤ 6: avoided
    assert r["parts"].get("attacker level increments", 0) == (0 if figures else -2)


# -- PHA-TV-42: load -----------------------------------------------------------------------


def test_given_fue_6_and_the_load_rule_when_carrying_50_kg_then_weakness_and_mo_5_until_40_kg():
    """PHA-TV-42 (PHA-WPN-7, PHA-CHAR-9, PHA-STS-5, PHA-CHK-3, PHA-CRIT-6; Default
    PHA-AMB-53): limit FUE 6 × 7 = 42 kg; 50 kg overloads him: d20 for his AT and DF
    checks, no damage reduction, MO 8 − 3 = 5. Down to 40 kg, both end."""
    t = table(("Endimion", pc(fue=6, movement=8)), ("Orc", creature(pv=60)), load_rule=True)
    assert t.who("Endimion")["movement"] == 8
    events = t.run(ph.SetLoad(combatant=t.ids["Endimion"], carried_kg=50))
    assert of_type(events, "StatusApplied")[0].status == "overloaded"
    assert t.who("Endimion")["movement"] == 5
    r = result(attack(t, "Endimion", "Orc", weapon="sword", dice={"attack": [5]}))
    assert r["die"] == 20 and r["target_number"] == 6 and r["hit"]
    (damage,) = of_type(t.run(ph.RollDamage(), damage=[4]), "DamageApplied")
    assert damage.breakdown["reduction"] == {} and damage.amount == 4 + 0 + 5
    refused("PHA-ACT-16", t.run, ph.Act(combatant=t.ids["Endimion"], action="move", metres=6))
    t.run(ph.Act(combatant=t.ids["Endimion"], action="move", metres=5))
    next_turn(t)
    r = result(attack(t, "Orc", "Endimion", weapon="axe", dice={"defense": [15]}))
    assert r["check"] == "DF" and r["die"] == 20 and r["hit"] and not r["fumble"]
    t.run(ph.RollDamage(), damage=[1])
    events = t.run(ph.SetLoad(combatant=t.ids["Endimion"], carried_kg=40))
    assert of_type(events, "StatusEnded")[0].status == "overloaded"
    assert "overloaded" not in statuses(t, "Endimion")
    assert t.who("Endimion")["movement"] == 8
    r = result(attack(t, "Orc", "Endimion", weapon="axe", dice={"defense": [3]}))
    assert r["die"] == 12


@pytest.mark.over_http
def test_given_the_load_rule_off_when_a_load_is_set_then_it_is_refused():
    """PHA-TV-42, the optional part (PHA-WPN-7): not applied unless the GM enables it."""
    t = table(("Endimion", pc(fue=6)), ("Orc", creature()))
    refused("PHA-WPN-7", t.run, ph.SetLoad(combatant=t.ids["Endimion"], carried_kg=50))


# -- PHA-TV-43: cooldown -------------------------------------------------------------------


def test_given_a_cooldown_2_power_when_used_in_turn_3_then_refused_in_turns_4_5_usable_in_6():
    """PHA-TV-43 (PHA-FOE-5; Default PHA-AMB-49): counted in the creature's own turns; used
    in its turn t, usable again from its turn t + n + 1 = 6."""
    breath = {"name": "Breath", "damage": "1d6", "cooldown": 2}
    t = table(("Wyrm", creature(powers=[breath])), ("Endimion", pc()))

    def breathe() -> list[Any]:
        return attack(t, "Wyrm", "Endimion", power="Breath", dice={"defense": [2]})

    for turn in range(1, 7):
        if turn > 1:
            next_turn(t)
            next_turn(t)
        assert t.who("Wyrm")["turn"] == turn
        if turn in (4, 5):
            refused("PHA-FOE-5", breathe)
        elif turn in (3, 6):
            assert not result(breathe())["hit"]


# -- PHA-TV-44: money is not MO ------------------------------------------------------------


def test_given_money_when_a_sheet_has_mo_then_422_and_movement_is_the_mo_figure():
    """PHA-TV-44 (PHA-WPN-8 is OUT, PHA-WPN-9, PHA-CHAR-9): 3d6 = 11 → 110 mo = 1,100 mp =
    11,000 mb is money, which the combat log does not keep. Movement is the stat
    `movement`; a stats key "mo" (gold coins, or MO misread) is refused with a 422."""
    t = Table("phantasia")
    t.add("Endimion", pc(movement=8))
    assert t.who("Endimion")["movement"] == 8
    for key in ("mo", "mp", "MO"):
        problem = add_refused(t, f"Tybalt {key}", pc(**{key: 110}))
        assert problem["rule"] == "PHANTASIA-STATS" and problem["field"] == f"stats.{key}"
    assert [x["name"] for x in t.view["combatants"]] == ["Endimion"]


# -- PHA-TV-45: traps ----------------------------------------------------------------------


@pytest.mark.parametrize(("face", "avoided"), [(4, True), (5, False)])
def test_given_a_poison_needle_trap_at_party_level_5_when_triggered_then_a_vit_check_at_minus_2(
    face: int, avoided: bool
):
    """PHA-TV-45 (PHA-FOE-8 is OUT; PHA-CHK-2, PHA-ACT-12, PHA-CHAR-5): the GM enters the
    trap's −2 (party levels 4–6) as a situational modifier on a VIT check: VIT 6 − 2 = 4.
    A trap that would replace the victim's personality is a CA check."""
    t = table(("Endimion", pc(vit=6, ca=7, level=5)), ("Orc", creature()))
    events = t.run(
        ph.Check(
            combatant=t.ids["Endimion"],
            characteristic="vit",
            purpose="poison needle trap",
            modifiers={"trap, party level 5": -2},
        ),
        check=[face],
    )
    (check,) = of_type(events, "CheckRolled")
    assert check.characteristic == "vit" and check.purpose == "poison needle trap"
    assert check.check["parts"] == {"VIT": 6, "trap, party level 5": -2}
    assert check.check["target_number"] == 4 and check.check["success"] is avoided
    events = t.run(
        ph.Check(combatant=t.ids["Endimion"], characteristic="ca", purpose="mind trap"),
        check=[7],
    )
    (check,) = of_type(events, "CheckRolled")
    assert check.characteristic == "ca" and check.check["target_number"] == 7
    assert check.check["success"]


# -- PHA-TV-47: a magic changing a score ---------------------------------------------------


def test_given_fue_7_when_a_magic_gives_fue_plus_2_for_3_turns_then_adj_1_until_it_ends():
    """PHA-TV-47 (PHA-CHAR-2, PHA-STK-1, PHA-STS-0; Defaults PHA-AMB-51, PHA-AMB-11): FUE 7
    (0) + 2 = 9 → +1 to melee AT and damage while the magic lasts; applied in his turn 1,
    it runs for his turns 2, 3 and 4 and ends at the end of turn 4; from turn 5 the
    adjustment is 0 again."""
    t = table(("Endimion", pc(fue=7)), ("Orc", creature(pv=200)))
    t.run(
        ph.ApplyStatus(
            combatant=t.ids["Endimion"],
            status="magic",
            name="Fuerza",
            modifiers={"fue": 2},
            beneficial=True,
            turns=3,
        )
    )
    check = of_type(
        t.run(ph.Check(combatant=t.ids["Endimion"], characteristic="fue"), check=[9]),
        "CheckRolled",
    )[0].check
    assert check["parts"] == {"FUE": 7, "Fuerza": 2} and check["success"]
    r = result(attack(t, "Endimion", "Orc", weapon="sword", dice={"attack": [2]}))
    assert r["parts"]["FUE adj"] == 1 and r["target_number"] == 7
    (damage,) = of_type(t.run(ph.RollDamage(), damage=[4]), "DamageApplied")
    assert damage.breakdown["FUE adj"] == 1 and damage.amount == 4 + 1 + 5
    e = t.who("Endimion")
    assert (e["scores"]["fue"], e["adjustments"]["fue"], e["at"]["sword"]) == (7, 1, 7)
    seen = {}
    for turn in range(2, 6):
        events = next_turn(t) + next_turn(t)
        assert t.who("Endimion")["turn"] == turn
        r = result(attack(t, "Endimion", "Orc", weapon="sword", dice={"attack": [11]}))
        seen[turn] = r["parts"]["FUE adj"]
        ended = [e for e in of_type(events, "StatusEnded") if e.status == "Fuerza"]
        assert bool(ended) is (turn == 5)  # it ended at the end of his turn 4
    assert seen == {2: 1, 3: 1, 4: 1, 5: 0}
    assert "Fuerza" not in statuses(t, "Endimion")
    assert (t.who("Endimion")["adjustments"]["fue"], t.who("Endimion")["at"]["sword"]) == (0, 6)


# -- PHA-TV-48: PV guidance ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("strength", "pv"),
    [("moderate", 15), ("moderate", 45), ("weak", 3), ("weak", 30), ("boss", 90)],
)
def test_given_a_level_3_enemy_when_the_narrator_enters_its_pv_then_it_is_kept_as_entered(
    strength: str, pv: int
):
    """PHA-TV-48 (PHA-FOE-2 is RECORD, PHA-FOE-7): guidance only — moderate 5–15 PV per
    level (15–45 at level 3), weak 1–10 (3–30), bosses more; the log takes the maximum PV
    the narrator enters, and does not check it against the guidance."""
    t = table(("Endimion", pc()), (f"Foe ({strength})", creature(level=3, pv=pv)))
    foe = t.who(f"Foe ({strength})")
    assert (foe["level"], foe["max_pv"], foe["pv"]) == (3, pv, pv)
