"""PHANTÄSIA: every test vector of shared/rules/phantasia.md (PHA-TV-1..30), each test run
in the domain and through the HTTP API with manual dice (tests/domain/conftest.py)."""

from __future__ import annotations

from typing import Any

import pytest

from domain import commands as c
from domain.errors import RuleViolation
from domain.rulesystems.phantasia import commands as ph
from tests.builders import DomainTable, Table, of_type


def pc(**overrides: Any) -> dict[str, Any]:
    """Endimion, a player character: FUE 7, AGI 8, INT 9, VIT 6, level 5, 32 PV."""
    stats: dict[str, Any] = {
        "controller": "player",
        "fue": 7,
        "agi": 8,
        "int": 9,
        "vit": 6,
        "sue": 6,
        "level": 5,
        "pv": 32,
        "movement": 8,
        "weapons": [
            {"name": "sword", "code": "AMM", "damage": "1d8"},
            {"name": "dagger", "code": "AMP", "damage": "1d6"},
        ],
    }
    stats.update(overrides)
    return stats


def creature(**overrides: Any) -> dict[str, Any]:
    """A narrator's creature: every score 6 (adjustment 0), level 1, 30 PV, no type."""
    stats: dict[str, Any] = {
        "fue": 6,
        "agi": 6,
        "int": 6,
        "vit": 6,
        "sue": 6,
        "level": 1,
        "pv": 30,
        "weapons": [
            {"name": "axe", "code": "AMM", "damage": "1d8"},
            {"name": "bow", "code": "AP", "damage": "1d8"},
        ],
    }
    stats.update(overrides)
    return stats


def table(*combatants: tuple[str, dict[str, Any]], **options: Any) -> DomainTable:
    """The combatants in this order of initiative (entered), the first one's turn begun."""
    t = Table("phantasia", options)
    for name, stats in combatants:
        t.add(name, stats, side="heroes" if stats.get("controller") == "player" else "foes")
    for i, (name, _) in enumerate(combatants):
        t.run(c.RollInitiative(combatant=t.ids[name], ip=30 - i))
    t.run(ph.StartTurn())
    return t


def attack(t: DomainTable, who: str, *targets: str, **kw: Any) -> list[Any]:
    dice = kw.pop("dice", {})
    for key in ("block", "shield_breaks"):
        if key in kw:
            kw[key] = [t.ids[n] for n in kw[key]]
    if "cover" in kw:
        kw["cover"] = {t.ids[n]: v for n, v in kw["cover"].items()}
    return t.run(
        ph.AttackCheck(combatant=t.ids[who], targets=[t.ids[n] for n in targets], **kw), **dice
    )


def next_turn(t: DomainTable, **dice: list[int]) -> list[Any]:
    """End the turn under way and start the next one."""
    acting = t.view["acting"]
    events = t.run(c.EndTurn(combatant=acting), **dice.pop("end", {}))
    return events + t.run(ph.StartTurn(), **dice)


def refused(rule: str, fn, *args: Any, **kw: Any) -> RuleViolation:
    with pytest.raises(RuleViolation) as e:
        fn(*args, **kw)
    assert e.value.rule == rule, e.value.detail
    return e.value


def statuses(t: DomainTable, who: str) -> dict[str, Any]:
    return t.who(who)["statuses"]


# -- PHA-TV-1: suffocation ------------------------------------------------------------------


@pytest.mark.over_http
def test_given_endimion_vit_6_in_toxic_smoke_when_turn_7_starts_then_a_vit_check_at_minus_1():
    """PHA-TV-1 (PHA-SUF-1, PHA-SUF-2, PHA-CHK-2; Default PHA-AMB-12): he holds his breath 6
    turns; at the start of turn 7 a VIT check at −1 (target 5): 4 succeeds and he acts;
    the next one is at −2 (target 4)."""
    t = Table("phantasia")
    t.add("Endimion", pc())
    t.run(c.RollInitiative(combatant=t.ids["Endimion"], ip=10))
    t.run(ph.ApplyStatus(combatant=t.ids["Endimion"], status="suffocating", reason="toxic smoke"))
    for _ in range(6):
        events = t.run(ph.StartTurn())
        assert not of_type(events, "CheckRolled")
        t.run(c.EndTurn(combatant=t.ids["Endimion"]))
    events = t.run(ph.StartTurn(), suffocation=[4])
    (check,) = of_type(events, "CheckRolled")
    assert check.check["target_number"] == 5 and check.check["success"]
    assert check.check["parts"]["suffocation"] == -1
    assert t.who("Endimion")["actions_left"] == 2
    t.run(c.EndTurn(combatant=t.ids["Endimion"]))
    events = t.run(ph.StartTurn(), suffocation=[4])
    (check,) = of_type(events, "CheckRolled")
    assert check.check["target_number"] == 4 and check.check["success"]


@pytest.mark.over_http
def test_given_a_failed_suffocation_check_then_pv_0_unconscious_and_5_negative_a_turn():
    """PHA-SUF-3, PHA-SUF-4 (Default PHA-AMB-12): a failed check sets PV to 0, Unconscious,
    with a death check that cannot kill at 0; from his next turn 5 negative damage a turn,
    not doubled though he is unconscious, each with a death check."""
    t = Table("phantasia")
    t.add("Endimion", pc(vit=1))
    t.run(c.RollInitiative(combatant=t.ids["Endimion"], ip=10))
    t.run(ph.ApplyStatus(combatant=t.ids["Endimion"], status="suffocating"))
    t.run(ph.StartTurn())
    t.run(c.EndTurn(combatant=t.ids["Endimion"]))
    events = t.run(ph.StartTurn(), suffocation=[9], death=[1])
    assert [type(e).__name__ for e in events][-4:] == [
        "HitsAdjusted",
        "StatusApplied",
        "StatusApplied",
        "DeathChecked",
    ]
    (death,) = of_type(events, "DeathChecked")
    assert death.negative_damage == 0 and not death.dies  # PHA-TV-15: d100 1 > 0
    assert t.who("Endimion")["pv"] == 0 and t.who("Endimion")["unconscious"]
    assert t.who("Endimion")["actions_left"] == 0
    t.run(c.EndTurn(combatant=t.ids["Endimion"]))
    events = t.run(ph.StartTurn(), death=[6])
    (damage,) = of_type(events, "DamageApplied")
    assert damage.amount == 5 and damage.breakdown["factor"] == 1
    (death,) = of_type(events, "DeathChecked")
    assert death.negative_damage == 5 and death.dies is False
    t.run(c.EndTurn(combatant=t.ids["Endimion"]))
    events = t.run(ph.StartTurn(), death=[10])
    assert of_type(events, "DeathChecked")[0].dies
    assert t.who("Endimion")["dead"]


# -- PHA-TV-2, -3: unconsciousness and death checks ----------------------------------------


def test_given_endimion_at_10_pv_when_an_arrow_deals_13_then_minus_3_unconscious_survives():
    """PHA-TV-2 (PHA-DTH-1, PHA-DTH-2; PHA-CORE-2): the archer (the narrator's creature)
    rolls nothing; Endimion fails his DF check and the narrator rolls the arrow's damage,
    1d8 8 + AGI adj 0 + level 5 = 13; PV −3, Unconscious; death check d100 54 > 3."""
    t = table(("Archer", creature(level=5)), ("Endimion", pc(current_pv=10)))
    events = attack(t, "Archer", "Endimion", weapon="bow", dice={"defense": [11]})
    (checked,) = of_type(events, "AttackChecked")
    assert checked.results[0]["rolled_by"] == "defender" and checked.results[0]["check"] == "DF"
    events = t.run(ph.RollDamage(), damage=[8], death=[54])
    (damage,) = of_type(events, "DamageApplied")
    assert damage.amount == 13 and damage.hits_after == -3
    (death,) = of_type(events, "DeathChecked")
    assert death.negative_damage == 3 and not death.dies
    e = t.who("Endimion")
    assert e["unconscious"] and not e["dead"] and e["negative_damage"] == 3
    assert "prone" in e["statuses"]  # PHA-STS-8


@pytest.mark.parametrize(("face", "dies"), [(23, True), (24, False)])
def test_given_endimion_unconscious_at_minus_3_when_hit_for_10_then_20_and_a_death_check(
    face: int, dies: bool
):
    """PHA-TV-3 (PHA-DTH-3, PHA-DTH-4): damage while unconscious is doubled, 20, added to
    the negative damage (23); a new death check: d100 ≤ 23 kills, otherwise he stays
    unconscious at −23."""
    t = table(("Archer", creature(level=5)), ("Endimion", pc(current_pv=10)))
    attack(t, "Archer", "Endimion", weapon="bow", dice={"defense": [11]})
    t.run(ph.RollDamage(), damage=[8], death=[54])
    next_turn(t)
    next_turn(t)  # the archer's next turn: DF 6 + 1 + 3 (prone, ranged) = 10; 11 fails
    attack(t, "Archer", "Endimion", weapon="bow", dice={"defense": [11]})
    events = t.run(ph.RollDamage(), damage=[5], death=[face])
    (damage,) = of_type(events, "DamageApplied")
    assert damage.breakdown["rolled"] == 10 and damage.breakdown["factor"] == 2
    assert damage.amount == 20 and damage.hits_after == -23
    (death,) = of_type(events, "DeathChecked")
    assert death.negative_damage == 23 and death.dies is dies
    assert t.who("Endimion")["dead"] is dies and t.who("Endimion")["unconscious"]


# -- PHA-TV-4..7: damage -------------------------------------------------------------------


def hit(t: DomainTable, who: str, target: str, **kw: Any) -> None:
    dice = kw.pop("dice", {"attack": [2]})
    attack(t, who, target, dice=dice, **kw)


def test_given_a_sword_1d8_rolling_6_with_fue_adj_2_at_level_5_then_damage_13():
    """PHA-TV-4 (PHA-DMG-1, PHA-DMG-2, PHA-DMG-3): 6 + 2 + 5 = 13."""
    t = table(("Endimion", pc(fue=10)), ("Orc", creature()))
    hit(t, "Endimion", "Orc", weapon="sword")
    (damage,) = of_type(t.run(ph.RollDamage(), damage=[6]), "DamageApplied")
    assert damage.amount == 13
    assert {k: damage.breakdown[k] for k in ("dice", "FUE adj", "level")} == {
        "dice": 6,
        "FUE adj": 2,
        "level": 5,
    }


def test_given_a_magic_1d10_times_level_rolling_6_at_level_5_with_int_adj_3_then_33():
    """PHA-TV-5 (PHA-DMG-4): (6 × 5) + 3 = 33: the INT adjustment after multiplying, no
    level."""
    power = {"name": "Rayo", "damage": "1d10", "per_level": True}
    t = table(("Endimion", pc(int=12, powers=[power])), ("Orc", creature(pv=60)))
    hit(t, "Endimion", "Orc", power="Rayo")
    (damage,) = of_type(t.run(ph.RollDamage(), damage=[6]), "DamageApplied")
    assert damage.amount == 33 and "level" not in damage.breakdown


def test_given_a_desperate_attack_and_a_natural_1_then_the_factor_is_3_not_4():
    """PHA-TV-6 (PHA-DMG-6, PHA-CRIT-1): two doubling effects give ×3."""
    t = table(("Endimion", pc(fue=10)), ("Orc", creature(pv=60)))
    attack(t, "Endimion", "Orc", weapon="sword", doublings=1, dice={"attack": [1]})
    (damage,) = of_type(t.run(ph.RollDamage(), damage=[6]), "DamageApplied")
    assert damage.breakdown["factor"] == 3 and damage.amount == 39


def test_given_a_fall_of_5_m_then_15_damage_and_prone():
    """PHA-TV-7 (PHA-DMG-8)."""
    t = table(("Endimion", pc()), ("Orc", creature()))
    events = t.run(ph.Fall(combatant=t.ids["Endimion"], metres=5))
    assert of_type(events, "DamageApplied")[0].amount == 15
    assert "prone" in statuses(t, "Endimion")


# -- PHA-TV-8, -9, -27: jumps --------------------------------------------------------------


@pytest.mark.parametrize(("face", "jumps"), [(5, True), (1, True), (7, False)])
def test_given_endimion_fue_7_long_jumping_5_m_then_a_fue_check_at_target_5(face: int, jumps: bool):
    """PHA-TV-8 (PHA-JMP-1, PHA-JMP-2, PHA-CHK-2): base floor(7/2) = 3 m, 2 m beyond → −2."""
    t = table(("Endimion", pc()), ("Orc", creature()))
    events = t.run(ph.Jump(combatant=t.ids["Endimion"], kind="long", metres=5), jump=[face])
    assert len(of_type(events, "CheckRolled")) == 1  # 7 fails by 2: no edge to catch
    check = of_type(events, "CheckRolled")[0].check
    assert check["target_number"] == 5 and check["success"] is jumps


@pytest.mark.parametrize(("edge", "falls"), [(8, False), (9, True)])
def test_given_the_jump_fails_by_exactly_1_then_an_agi_check_to_catch_the_edge(
    edge: int, falls: bool
):
    """PHA-TV-9 (PHA-JMP-4, PHA-DMG-8): d12 6 against 5 fails by 1: an AGI check (AGI 8) to
    catch the edge; failed, he falls (4 m: 12 damage, Prone)."""
    t = table(("Endimion", pc()), ("Orc", creature()))
    events = t.run(
        ph.Jump(combatant=t.ids["Endimion"], kind="long", metres=5, fall_m=4),
        jump=[6],
        edge=[edge],
    )
    checks = of_type(events, "CheckRolled")
    assert [ch.characteristic for ch in checks] == ["fue", "agi"]
    assert checks[1].check["target_number"] == 8
    assert bool(of_type(events, "DamageApplied")) is falls
    if falls:
        assert of_type(events, "DamageApplied")[0].amount == 12
        assert "prone" in statuses(t, "Endimion")


def test_given_fue_8_high_jumping_3_m_then_the_check_is_at_minus_1():
    """PHA-TV-27 (PHA-JMP-3): base floor(8/4) = 2 m; 1 m beyond → FUE check target 7; a
    metre short of the base would be +1 (Default PHA-AMB-29)."""
    t = table(("Endimion", pc(fue=8)), ("Orc", creature()))
    events = t.run(ph.Jump(combatant=t.ids["Endimion"], kind="high", metres=3), jump=[7])
    assert of_type(events, "CheckRolled")[0].check["target_number"] == 7
    events = t.run(ph.Jump(combatant=t.ids["Endimion"], kind="high", metres=1), jump=[9])
    assert of_type(events, "CheckRolled")[0].check["target_number"] == 9


# -- PHA-TV-10, -11: repeated offensive actions, prepared actions ------------------------------


def test_given_three_offensive_checks_in_one_turn_under_haste_then_0_minus_3_minus_6():
    """PHA-TV-10 (PHA-ACT-3, PHA-ACT-6, PHA-STS-16): Rapidez gives a third action; the
    penalties are 0, −3, −6."""
    t = Table("phantasia")
    t.add("Endimion", pc(), side="heroes")
    t.add("Orc", creature(pv=200), side="foes")
    t.run(ph.ApplyStatus(combatant=t.ids["Endimion"], status="haste", turns=3))
    t.run(c.RollInitiative(combatant=t.ids["Endimion"], ip=20))
    t.run(c.RollInitiative(combatant=t.ids["Orc"], ip=5))
    t.run(ph.StartTurn())
    assert t.who("Endimion")["actions_left"] == 3
    penalties = []
    for _ in range(3):
        (checked,) = of_type(
            attack(t, "Endimion", "Orc", weapon="sword", dice={"attack": [11]}), "AttackChecked"
        )
        penalties.append(checked.results[0]["parts"].get("repeated offensive action", 0))
    assert penalties == [0, -3, -6]
    refused("PHA-ACT-1", attack, t, "Endimion", "Orc", weapon="sword", dice={"attack": [11]})


def test_given_endimion_prepared_an_action_when_tybalt_casts_then_it_resolves_first_unpenalised():
    """PHA-TV-11 (PHA-RX-1, PHA-RX-2, PHA-RX-4, PHA-RX-5, PHA-ACT-5): preparing costs one of
    his two points; his attack as a reaction in Tybalt's turn takes no repeat penalty and is
    not counted; it uses his one reaction until his next turn; unused, it is lost then."""
    bolt = {"name": "Bolt", "damage": "1d6"}
    t = table(("Endimion", pc()), ("Tybalt", creature(pv=60, powers=[bolt])))
    t.run(
        ph.Act(
            combatant=t.ids["Endimion"],
            action="prepare",
            trigger="when Tybalt starts a magic",
            what="attack Tybalt",
        )
    )
    attack(t, "Endimion", "Tybalt", weapon="sword", dice={"attack": [11]})
    assert t.who("Endimion")["actions_left"] == 0
    next_turn(t)
    events = attack(t, "Endimion", "Tybalt", weapon="sword", reaction=True, dice={"attack": [11]})
    (checked,) = of_type(events, "AttackChecked")
    assert "repeated offensive action" not in checked.results[0]["parts"]
    assert t.who("Endimion")["reaction_used"] and t.who("Endimion")["offensive_actions"] == 1
    refused(
        "PHA-RX-1",
        attack,
        t,
        "Endimion",
        "Tybalt",
        weapon="sword",
        reaction=True,
        dice={"attack": [11]},
    )
    # Tybalt's magic comes after it, with the narrator's creature rolling nothing
    events = attack(t, "Tybalt", "Endimion", power="Bolt", dice={"defense": [2]})
    assert of_type(events, "AttackChecked")[0].results[0]["check"] == "DM"
    # a prepared action not used before his next turn is lost (PHA-RX-3)
    t.run(c.EndTurn(combatant=t.ids["Tybalt"]))
    t.run(ph.StartTurn())
    t.run(ph.Act(combatant=t.ids["Endimion"], action="prepare", trigger="when the orc moves"))
    next_turn(t)
    events = next_turn(t)
    (started,) = of_type(events, "TurnStarted")
    assert started.prepared_lost == "when the orc moves"
    assert not t.who("Endimion")["reaction_used"]


# -- PHA-TV-12, -13: the attack check ------------------------------------------------------


@pytest.mark.parametrize(
    ("face", "hit", "critical", "fumble"),
    [
        (7, True, False, False),
        (8, False, False, False),
        (1, True, True, False),
        (12, False, False, True),
    ],
)
def test_given_an_amm_weapon_fue_adj_2_item_1_against_df_2_then_at_7(
    face: int, hit: bool, critical: bool, fumble: bool
):
    """PHA-TV-12 (PHA-ATK-1, PHA-ATK-2, PHA-CRIT-1, PHA-CRIT-3, PHA-CRIT-4, PHA-CHK-1): AT 7;
    7 hits, 8 misses, 1 hits for ×2 and +1 PM, 12 fumbles: the d6 on the table."""
    sword = {"name": "sword", "code": "AMM", "damage": "1d8", "item_bonus": 1}
    t = table(
        ("Endimion", pc(fue=10, weapons=[sword], pm=3)),
        ("Orc", creature(figures={"df": 2})),
    )
    (checked,) = of_type(
        attack(t, "Endimion", "Orc", weapon="sword", dice={"attack": [face]}), "AttackChecked"
    )
    r = checked.results[0]
    assert r["target_number"] == 7 and r["check"] == "AT" and r["rolled_by"] == "attacker"
    assert (r["hit"], r["critical"], r["fumble"], r["doubled"]) == (hit, critical, fumble, critical)
    assert t.who("Endimion")["pm"] == (4 if critical else 3)
    if fumble:
        assert t.view["pending_attack"]["id"] == checked.action["id"]
        (fumbled,) = of_type(t.run(ph.RollFumble(), fumble=[2]), "FumbleRolled")
        assert fumbled.result == 2 and "prone" in statuses(t, "Endimion")


def test_given_an_amp_weapon_with_fue_adj_1_and_agi_adj_3_then_the_attacker_chooses_agi():
    """PHA-TV-13 (PHA-ATK-1): AT = 6 + 3 − 4 = 5; FUE would give 3; an AMM refuses AGI."""
    t = table(("Endimion", pc(fue=8, agi=12)), ("Orc", creature(figures={"df": 4})))
    (checked,) = of_type(
        attack(t, "Endimion", "Orc", weapon="dagger", characteristic="agi", dice={"attack": [11]}),
        "AttackChecked",
    )
    assert checked.results[0]["target_number"] == 5
    (checked,) = of_type(
        attack(t, "Endimion", "Orc", weapon="dagger", characteristic="fue", dice={"attack": [11]}),
        "AttackChecked",
    )
    assert (
        checked.results[0]["target_number"]
        - checked.results[0]["parts"]["repeated offensive action"]
        == 3
    )
    next_turn(t)
    next_turn(t)
    refused(
        "PHA-ATK-1",
        attack,
        t,
        "Endimion",
        "Orc",
        weapon="sword",
        characteristic="agi",
        dice={"attack": [11]},
    )


# -- PHA-TV-14: the Defense status ----------------------------------------------------------


def test_given_a_defender_in_defense_then_weapon_damage_13_is_halved_to_6_and_magic_13_is_not():
    """PHA-TV-14 (PHA-DMG-9, PHA-DMG-11, PHA-STS-6, PHA-ACT-13; Default PHA-AMB-32): the
    Defense action: DF +3 against weapons, halves weapon damage, rounded down; a power's
    13 damage stays 13 and Defense's DF +3 does not count against it."""
    magic = {"name": "Fuego", "damage": "1d8"}
    t = table(("Orc", creature(level=7, powers=[magic])), ("Endimion", pc(pv=60)))
    next_turn(t)
    t.run(ph.Act(combatant=t.ids["Endimion"], action="defense"))
    assert "defense" in statuses(t, "Endimion")
    next_turn(t)
    (checked,) = of_type(
        attack(t, "Orc", "Endimion", weapon="axe", dice={"defense": [11]}), "AttackChecked"
    )
    assert checked.results[0]["parts"]["defense"] == 3
    (damage,) = of_type(t.run(ph.RollDamage(), damage=[6]), "DamageApplied")
    assert damage.breakdown["rolled"] == 13 and damage.amount == 6
    (checked,) = of_type(
        attack(t, "Orc", "Endimion", power="Fuego", dice={"defense": [11]}), "AttackChecked"
    )
    assert "defense" not in checked.results[0]["parts"]
    (damage,) = of_type(t.run(ph.RollDamage(), damage=[6]), "DamageApplied")
    assert damage.breakdown["rolled"] == 6 + 0 and damage.amount == 6
    # the Defense status ends when his next turn begins
    events = next_turn(t)
    assert any(e.status == "defense" for e in of_type(events, "StatusEnded"))


def test_given_magic_damage_13_against_defense_then_13():
    """PHA-TV-14, the magic half (PHA-DMG-9): 1d8 7 + INT adj 0 ... with a power of 2d6
    rolling 13 and INT adjustment 0, Defense does not halve it."""
    magic = {"name": "Fuego", "damage": "2d8"}
    t = table(("Orc", creature(powers=[magic])), ("Endimion", pc(pv=60)))
    next_turn(t)
    t.run(ph.Act(combatant=t.ids["Endimion"], action="defense"))
    next_turn(t)
    attack(t, "Orc", "Endimion", power="Fuego", dice={"defense": [11]})
    (damage,) = of_type(t.run(ph.RollDamage(), damage=[6, 7]), "DamageApplied")
    assert damage.amount == 13 and damage.breakdown["halvings"] == []


# -- PHA-TV-15, -16, -18: at and below 0 PV ------------------------------------------------


def test_given_damage_to_exactly_0_pv_then_unconscious_and_the_death_check_is_always_passed():
    """PHA-TV-15 (PHA-DTH-2): negative damage 0; no d100 result is ≤ 0."""
    t = table(("Endimion", pc(fue=6, level=1)), ("Orc", creature(pv=7)))
    hit(t, "Endimion", "Orc", weapon="sword")
    events = t.run(ph.RollDamage(), damage=[6], death=[1])
    (death,) = of_type(events, "DeathChecked")
    assert death.negative_damage == 0 and not death.dies
    assert t.who("Orc")["pv"] == 0 and t.who("Orc")["unconscious"]


def test_given_unconscious_at_minus_23_when_healed_20_then_minus_3_and_still_unconscious():
    """PHA-TV-16 (PHA-DTH-5): healing pays off the negative PV first; he wakes only at 1 PV
    or more (24 → +1)."""
    t = table(("Endimion", pc(current_pv=-23)), ("Orc", creature()))
    t.run(ph.ApplyStatus(combatant=t.ids["Endimion"], status="unconscious"))
    t.run(ph.Heal(combatant=t.ids["Endimion"], amount=20))
    assert t.who("Endimion")["pv"] == -3 and t.who("Endimion")["unconscious"]
    t.run(c.Undo(reason="he was healed 24 instead"))
    events = t.run(ph.Heal(combatant=t.ids["Endimion"], amount=24))
    assert t.who("Endimion")["pv"] == 1 and not t.who("Endimion")["unconscious"]
    assert of_type(events, "StatusEnded")[0].status == "unconscious"
    assert "prone" in statuses(t, "Endimion")


def test_given_an_unarmed_hit_rolling_3_with_fue_adj_2_at_level_5_then_10():
    """PHA-TV-17 (PHA-DMG-5, PHA-ATK-3, PHA-WPN-5): 1d4 + FUE adjustment + level."""
    t = table(("Endimion", pc(fue=10)), ("Orc", creature()))
    hit(t, "Endimion", "Orc")
    (damage,) = of_type(t.run(ph.RollDamage(), damage=[3]), "DamageApplied")
    assert damage.amount == 10
    assert damage.rolls["damage"]["sides"] == [4]


def test_given_a_critical_sword_hit_of_13_on_an_unconscious_target_then_39_and_one_death_check():
    """PHA-TV-18 (PHA-DMG-6, PHA-DTH-3): a critical and damage to the unconscious: ×3."""
    t = table(("Endimion", pc(fue=10)), ("Orc", creature(current_pv=-1)))
    t.run(ph.ApplyStatus(combatant=t.ids["Orc"], status="unconscious"))
    attack(t, "Endimion", "Orc", weapon="sword", dice={"attack": [1]})
    events = t.run(ph.RollDamage(), damage=[6], death=[90])
    (damage,) = of_type(events, "DamageApplied")
    assert damage.breakdown["rolled"] == 13 and damage.breakdown["factor"] == 3
    assert damage.amount == 39 and damage.hits_after == -40
    assert len(of_type(events, "DeathChecked")) == 1


# -- PHA-TV-19..21: resources, status checks against powers ------------------------------


@pytest.mark.parametrize(("level", "points"), [(9, 1), (10, 2), (19, 2), (20, 3)])
def test_given_a_level_then_the_phantasia_point_maximum(level: int, points: int):
    """PHA-TV-19 (PHA-PP-3)."""
    t = table(("Endimion", pc(level=level)), ("Orc", creature()))
    assert t.who("Endimion")["max_phantasia_points"] == points


def test_given_vit_6_at_level_10_then_max_pm_8():
    """PHA-TV-20 (PHA-PM-1, PHA-CHAR-8; Default PHA-AMB-27)."""
    t = table(("Endimion", pc(level=10)), ("Orc", creature()))
    assert t.who("Endimion")["max_pm"] == 8 and t.who("Endimion")["pm"] == 8


def test_given_a_level_5_users_power_against_a_level_8_enemy_then_plus_3_on_its_check():
    """PHA-TV-21 (PHA-CHK-5, PHA-CORE-6, PHA-CORE-4): the narrator's creature rolls its own
    check to resist the status."""
    t = table(("Endimion", pc()), ("Orc", creature(level=8, vit=6)))
    events = t.run(
        ph.ApplyStatus(
            combatant=t.ids["Orc"], status="stunned", resist="vit", by=t.ids["Endimion"]
        ),
        resist=[9],
    )
    (check,) = of_type(events, "CheckRolled")
    assert check.check["parts"]["levels above the power's user"] == 3
    assert check.check["target_number"] == 9 and check.check["success"]
    assert "stunned" not in statuses(t, "Orc")


# -- PHA-TV-22, -29: stacking -------------------------------------------------------------


def test_given_blind_and_slowed_then_at_minus_3_only_and_magics_plus_2_plus_1_and_a_ring_plus_1():
    """PHA-TV-22 (PHA-STK-1, PHA-STK-2, PHA-STK-4): the worst penalty counts (AT −3); the
    best beneficial magic (FUE +2) plus the ring's +1: FUE 7 → 10, adjustment +2."""
    t = table(("Endimion", pc()), ("Orc", creature(pv=99)))
    for status in ("blind", "slowness"):
        t.run(ph.ApplyStatus(combatant=t.ids["Endimion"], status=status, turns=5))
    for name, value, item in (("Fuerza", 2, False), ("Vigor", 1, False), ("Anillo", 1, True)):
        t.run(
            ph.ApplyStatus(
                combatant=t.ids["Endimion"],
                status="magic",
                name=name,
                modifiers={"fue": value},
                beneficial=True,
                item=item,
                turns=5,
            )
        )
    (checked,) = of_type(
        attack(t, "Endimion", "Orc", weapon="sword", dice={"attack": [11]}), "AttackChecked"
    )
    parts = checked.results[0]["parts"]
    assert parts["blind"] == -3 and "slowness" not in parts
    assert parts["FUE adj"] == 2  # FUE 7 + 2 + 1 = 10 → +2 (Default PHA-AMB-51)
    events = t.run(ph.Check(combatant=t.ids["Endimion"], characteristic="fue"), check=[10])
    check = of_type(events, "CheckRolled")[0].check
    assert check["parts"] == {"FUE": 7, "Fuerza": 2, "Anillo": 1}


def test_given_three_beneficial_statuses_when_a_fourth_arrives_then_one_must_end_first():
    """PHA-TV-29 (PHA-STK-3): Rapidez (2 turns left), Invisible (5), Defensa: a fourth is
    refused until the player ends one of his choice or lets the one with least time left
    (Defensa) end."""
    t = table(("Endimion", pc()), ("Orc", creature()))
    t.run(ph.ApplyStatus(combatant=t.ids["Endimion"], status="haste", turns=2))
    t.run(ph.ApplyStatus(combatant=t.ids["Endimion"], status="invisible", turns=5))
    t.run(ph.Act(combatant=t.ids["Endimion"], action="defense"))
    new = {
        "combatant": t.ids["Endimion"],
        "status": "magic",
        "name": "Inmunizar",
        "modifiers": {"dm": 2},
        "beneficial": True,
        "turns": 3,
    }
    refused("PHA-STK-3", t.run, ph.ApplyStatus(**new))
    events = t.run(ph.ApplyStatus(**new, replace="least_time"))
    assert of_type(events, "StatusEnded")[0].status == "defense"
    assert set(statuses(t, "Endimion")) == {"haste", "invisible", "Inmunizar"}
    events = t.run(ph.ApplyStatus(**{**new, "name": "Impetus"}, replace="invisible"))
    assert of_type(events, "StatusEnded")[0].status == "invisible"


# -- PHA-TV-23: push ------------------------------------------------------------------------


@pytest.mark.parametrize(("fue", "metres"), [(10, 2), (6, 1)])
def test_given_a_push_won_with_fue_adjustment_then_the_target_moves_that_many_metres(
    fue: int, metres: int
):
    """PHA-TV-23 (PHA-ACT-14, PHA-CHK-4; Default PHA-AMB-5): FUE adj +2 → 2 m; 0 → 1 m."""
    t = table(("Endimion", pc(fue=fue)), ("Orc", creature()))
    events = t.run(
        ph.Contest(combatant=t.ids["Endimion"], kind="push", target=t.ids["Orc"]),
        attacker=[2],
        defender=[12],
    )
    (contest,) = of_type(events, "ContestRolled")
    assert contest.attacker_wins and contest.effect == {"metres": metres}


# -- PHA-TV-24: fumble result 6 -------------------------------------------------------------


@pytest.mark.parametrize(("choice", "pv", "pm"), [("pv", 23, 5), ("pm", 30, 4)])
def test_given_fumble_result_6_with_max_pv_30_and_pm_then_lose_7_pv_or_1_pm(
    choice: str, pv: int, pm: int
):
    """PHA-TV-24 (PHA-CRIT-5; Default PHA-AMB-23): floor(30 / 4) = 7 PV, or 1 PM."""
    t = table(("Endimion", pc(pv=30, pm=5)), ("Orc", creature()))
    attack(t, "Endimion", "Orc", weapon="sword", dice={"attack": [12]})
    events = t.run(ph.RollFumble(choice=choice), fumble=[6])
    assert of_type(events, "FumbleRolled")[0].result == 6
    assert (t.who("Endimion")["pv"], t.who("Endimion")["pm"]) == (pv, pm)


# -- PHA-TV-25: elements ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("affinity", "pv_after"),
    [("resistance", 93), ("vulnerability", 70), ("immunity", 100), ("affinity", 100)],
)
def test_given_15_fire_damage_then_resistance_7_vulnerability_30_immunity_0_affinity_heals(
    affinity: str, pv_after: int
):
    """PHA-TV-25 (PHA-DMG-7, PHA-FOE-6; Default PHA-AMB-18): 7 (rounded down) / 30 / 0 /
    heals 15 (from 85, capped by nothing: PV may not exceed... the heal is the full 15)."""
    fire = {"name": "Llama", "damage": "2d10", "element": "fire"}
    start = 85 if affinity == "affinity" else 100
    t = table(
        ("Endimion", pc(int=7, powers=[fire])),
        ("Salamander", creature(pv=100, current_pv=start, elements={"fire": affinity})),
    )
    hit(t, "Endimion", "Salamander", power="Llama")
    events = t.run(ph.RollDamage(), damage=[10, 5])
    assert t.who("Salamander")["pv"] == pv_after
    if affinity == "affinity":
        assert of_type(events, "Healed")[0].rolls["damage"]["faces"] == [10, 5]


# -- PHA-TV-26: initiative ties ---------------------------------------------------------------


def test_given_pc_7_plus_agi_4_and_enemy_9_plus_agi_2_then_11_each_and_the_pc_acts_first():
    """PHA-TV-26 (PHA-INIT-1, PHA-INIT-2, PHA-INIT-3, PHA-CORE-5): the AGI score is added,
    not its adjustment; the tie goes to the higher AGI score."""
    t = Table("phantasia")
    t.add("Endimion", pc(agi=4))
    t.add("Orc", creature(agi=2))
    events = t.run(c.RollInitiative(), **{"initiative:Endimion": [7], "initiative:Orc": [9]})
    assert [e.ip for e in of_type(events, "InitiativeRolled")] == [11, 11]
    assert not of_type(events, "TieBroken")
    assert t.view["order"] == [t.ids["Endimion"], t.ids["Orc"]]


# -- PHA-TV-28: Defense and offensive actions in one turn ------------------------------------


@pytest.mark.over_http
def test_given_the_defense_action_then_an_attack_is_refused_and_after_an_attack_defense_is():
    """PHA-TV-28 (PHA-ACT-13; Default PHA-AMB-41)."""
    t = table(("Endimion", pc()), ("Orc", creature(pv=99)))
    t.run(ph.Act(combatant=t.ids["Endimion"], action="defense"))
    refused("PHA-ACT-13", attack, t, "Endimion", "Orc", weapon="sword", dice={"attack": [3]})
    next_turn(t)
    next_turn(t)
    attack(t, "Endimion", "Orc", weapon="sword", dice={"attack": [11]})
    refused("PHA-ACT-13", t.run, ph.Act(combatant=t.ids["Endimion"], action="defense"))


# -- PHA-TV-30: the narrator's orc attacks a blocking player character -------------------------


@pytest.mark.parametrize("shield_breaks", [False, True])
def test_given_an_orc_attacking_a_blocking_pc_then_the_pc_rolls_df_at_8_then_11(
    shield_breaks: bool,
):
    """PHA-TV-30 (PHA-DEF-2, PHA-DEF-3, PHA-DEF-6, PHA-CRIT-7, PHA-ACT-3, PHA-CORE-1): the
    narrator does not roll; the PC's DF target 6 + 3 + 1 − 2 = 8; 12 fumbles: double damage,
    or the shield destroyed for normal damage. The orc's second attack: its −3 becomes +3,
    target 11."""
    t = table(
        ("Orc", creature(fue=10)),
        ("Endimion", pc(pv=60, figures={"df": 3}, shield={"df": 1})),
    )
    (checked,) = of_type(
        attack(t, "Orc", "Endimion", weapon="axe", block=["Endimion"], dice={"defense": [12]}),
        "AttackChecked",
    )
    r = checked.results[0]
    assert r["rolled_by"] == "defender" and r["target_number"] == 8
    assert r["fumble"] and r["hit"] and r["doubled"]
    breaks = ["Endimion"] if shield_breaks else []
    (damage,) = of_type(
        t.run(ph.RollDamage(shield_breaks=[t.ids[n] for n in breaks]), damage=[5]), "DamageApplied"
    )
    assert damage.breakdown["rolled"] == 5 + 2 + 1
    assert damage.amount == (8 if shield_breaks else 16)
    if shield_breaks:
        refused(
            "PHA-DEF-2",
            attack,
            t,
            "Orc",
            "Endimion",
            weapon="axe",
            block=["Endimion"],
            dice={"defense": [11]},
        )
    block = ["Endimion"] if not shield_breaks else []
    (checked,) = of_type(
        attack(t, "Orc", "Endimion", weapon="axe", block=block, dice={"defense": [11]}),
        "AttackChecked",
    )
    assert checked.results[0]["target_number"] == (11 if not shield_breaks else 10)


def test_given_a_fumbled_dm_check_when_the_power_stuns_then_its_duration_is_doubled():
    """PHA-CRIT-7: the defender's fumble doubles the damage and any duration in the power's
    effects."""
    stun = {"name": "Aturdir", "damage": "1d4"}
    t = table(("Tybalt", creature(powers=[stun])), ("Endimion", pc()))
    (checked,) = of_type(
        attack(t, "Tybalt", "Endimion", power="Aturdir", dice={"defense": [12]}),
        "AttackChecked",
    )
    action = checked.action["id"]
    assert checked.results[0]["check"] == "DM" and checked.results[0]["doubled"]
    t.run(ph.RollDamage(), damage=[2])
    events = t.run(
        ph.ApplyStatus(combatant=t.ids["Endimion"], status="stunned", turns=2, from_attack=action)
    )
    assert of_type(events, "StatusApplied")[0].turns == 4
    assert statuses(t, "Endimion")["stunned"]["turns"] == 4


def test_given_a_petrified_creature_then_immune_unless_the_narrator_names_what_harms_it():
    """PHA-STS-15 (Default PHA-AMB-36, PHA-AMB-34): immune to damage unless the narrator
    marks the damage type as able to harm it, then half damage; it takes no actions."""
    t = table(("Endimion", pc(fue=10)), ("Golem", creature()))
    t.run(ph.ApplyStatus(combatant=t.ids["Golem"], status="petrified"))
    hit(t, "Endimion", "Golem", weapon="sword")
    (damage,) = of_type(t.run(ph.RollDamage(), damage=[6]), "DamageApplied")
    assert damage.amount == 0 and damage.breakdown["immune"] == "petrified"
    t.run(c.ClearCondition(combatant=t.ids["Golem"], condition="petrified"))
    t.run(ph.ApplyStatus(combatant=t.ids["Golem"], status="petrified", harmed_by="weapons"))
    hit(t, "Endimion", "Golem", weapon="sword", dice={"attack": [3]})
    (damage,) = of_type(t.run(ph.RollDamage(), damage=[6]), "DamageApplied")
    assert damage.breakdown["rolled"] == 13 and damage.amount == 6


def test_given_a_grabbed_fighter_then_no_move_and_no_two_handed_weapon():
    """PHA-STS-1, PHA-ACT-7: grabbed, he may not move nor wield a two-handed weapon."""
    greatsword = {"name": "mandoble", "code": "AMG", "damage": "2d6", "two_handed": True}
    t = table(("Orc", creature()), ("Endimion", pc(weapons=[greatsword])))
    events = t.run(
        ph.Contest(combatant=t.ids["Orc"], kind="grab", target=t.ids["Endimion"]),
        attacker=[2],
        defender=[11],
    )
    assert of_type(events, "ContestRolled")[0].attacker_wins
    next_turn(t)
    refused("PHA-STS-1", t.run, ph.Act(combatant=t.ids["Endimion"], action="move", metres=2))
    refused("PHA-STS-1", attack, t, "Endimion", "Orc", weapon="mandoble", dice={"attack": [2]})
    events = t.run(
        ph.Contest(combatant=t.ids["Endimion"], kind="escape", target=t.ids["Orc"]),
        attacker=[2],
        defender=[11],
    )
    assert of_type(events, "StatusEnded")[0].status == "grabbed"


def test_given_a_group_of_goblins_then_the_narrator_rolls_once_and_they_share_the_result():
    """PHA-INIT-1: a group of enemies shares one result (1d12 + the highest AGI among
    them); among themselves the higher AGI first (PHA-INIT-3). Novus and Wits refuse a
    group."""
    t = Table("phantasia")
    t.add("Endimion", pc(agi=8))
    for name, agi in (("Gob1", 5), ("Gob2", 9), ("Gob3", 7)):
        t.add(name, creature(agi=agi))
    events = t.run(
        ph.RollInitiative(group=[t.ids["Gob1"], t.ids["Gob2"], t.ids["Gob3"]]), initiative=[4]
    )
    assert [e.ip for e in of_type(events, "InitiativeRolled")] == [13, 13, 13]
    refused("PHA-INIT-1", t.run, ph.RollInitiative(group=[t.ids["Endimion"], t.ids["Gob1"]]))
    t.run(c.RollInitiative(combatant=t.ids["Endimion"]), initiative=[3])
    assert t.view["order"] == [t.ids[n] for n in ("Gob2", "Gob3", "Gob1", "Endimion")]
    w = Table("wits")
    w.add("A", {"wits": 10, "move": 10, "strength": 10, "base_damage": "1d6", "health": 10})
    w.add("B", {"wits": 10, "move": 10, "strength": 10, "base_damage": "1d6", "health": 10})
    refused("WITS-CMD", w.run, ph.RollInitiative(group=[w.ids["A"], w.ids["B"]]))


def test_given_phantasia_when_the_gm_sets_a_generic_modifier_then_refused_for_a_status():
    """PHA-STK-1: a lasting modifier is a status that stacks by the book, not a generic one."""
    t = table(("Endimion", pc()), ("Orc", creature()))
    refused(
        "PHA-STK-1",
        t.run,
        c.SetModifier(combatant=t.ids["Endimion"], name="bless", applies_to="ab", value=2),
    )


def test_given_poison_from_a_power_with_turns_then_it_still_hurts_until_a_vit_check_passes():
    """PHA-STS-20: a poisoned creature checks VIT at the end of each of its turns; failed,
    1d6 poison damage; passed, the poison ends."""
    t = table(("Endimion", pc()), ("Orc", creature()))
    t.run(ph.ApplyStatus(combatant=t.ids["Endimion"], status="poisoned", turns=5))
    events = t.run(c.EndTurn(combatant=t.ids["Endimion"]))
    assert not of_type(events, "CheckRolled")  # poisoned in this turn: first check next
    t.run(ph.StartTurn())
    next_turn(t)
    dice = {"poisoned": [9], "poison damage": [4]}
    events = t.run(c.EndTurn(combatant=t.ids["Endimion"]), **dice)
    assert of_type(events, "DamageApplied")[0].amount == 4
    assert statuses(t, "Endimion")["poisoned"]["turns"] == 4  # and its duration runs
    t.run(ph.StartTurn())
    next_turn(t)
    events = t.run(c.EndTurn(combatant=t.ids["Endimion"]), poisoned=[3])
    assert of_type(events, "StatusEnded")[0].status == "poisoned"


def test_given_an_affinity_then_the_healing_never_passes_maximum_pv_and_items_are_not_statuses():
    """PHA-DMG-7 (Default PHA-AMB-18), PHA-STK-1, PHA-STK-3: an affinity heals up to the
    maximum; an item's bonus adds and is not one of the three beneficial statuses."""
    fire = {"name": "Llama", "damage": "2d10", "element": "fire"}
    t = table(
        ("Endimion", pc(int=7, powers=[fire])),
        ("Salamander", creature(pv=100, current_pv=95, elements={"fire": "affinity"})),
    )
    hit(t, "Endimion", "Salamander", power="Llama")
    (healed,) = of_type(t.run(ph.RollDamage(), damage=[10, 5]), "Healed")
    assert healed.amount == 5 and t.who("Salamander")["pv"] == 100
    for status in ("haste", "invisible"):
        t.run(ph.ApplyStatus(combatant=t.ids["Endimion"], status=status, turns=3))
    ring = {"status": "magic", "modifiers": {"fue": 1}, "beneficial": True, "item": True}
    t.run(ph.ApplyStatus(combatant=t.ids["Endimion"], name="Anillo", **ring))
    next_turn(t)
    next_turn(t)  # a new turn of his, without an offensive action yet
    t.run(ph.Act(combatant=t.ids["Endimion"], action="defense"))
    assert set(statuses(t, "Endimion")) == {"haste", "invisible", "Anillo", "defense"}


def test_given_a_tie_the_narrator_lets_act_at_once_then_the_second_acts_before_results_hold():
    """PHA-INIT-3 (Default PHA-AMB-8): tied on initiative and AGI, the narrator may let them
    act at the same time instead of re-rolling: in entry order, and what the first does to
    the second (Unconscious here) takes hold only when the second's turn is over."""
    t = Table("phantasia")
    t.add("Endimion", pc(fue=10, agi=6))
    t.add("Orc", creature(agi=6, pv=5))
    events = t.run(
        ph.RollInitiative(simultaneous=True),
        **{"initiative:Endimion": [5], "initiative:Orc": [5]},
    )
    (tie,) = of_type(events, "TieBroken")
    assert tie.simultaneous and tie.rolls == {}
    assert t.who("Endimion")["simultaneous_with"] == [t.ids["Orc"]]
    t.run(ph.StartTurn())
    attack(t, "Endimion", "Orc", weapon="sword", dice={"attack": [2]})
    t.run(ph.RollDamage(), damage=[5], death=[90])
    orc = t.who("Orc")
    assert orc["pv"] < 0 and orc["statuses"]["unconscious"]["deferred"]
    events = next_turn(t)
    assert of_type(events, "TurnStarted")[0].actions == 2  # he still acts, at the same time
    attack(t, "Orc", "Endimion", weapon="axe", dice={"defense": [11]})
    t.run(ph.RollDamage(), damage=[3])
    events = t.run(c.EndTurn(combatant=t.ids["Orc"]))
    assert [e.data for e in of_type(events, "StatusTicked")][:1] == [{"deferred": False}]
    assert t.who("Orc")["unconscious"] and not t.who("Orc")["statuses"]["unconscious"].get(
        "deferred"
    )
    events = t.run(ph.StartTurn())
    (started,) = of_type(events, "TurnStarted")
    assert started.combatant == t.ids["Endimion"]
    events = next_turn(t)
    assert of_type(events, "TurnStarted")[0].actions == 0  # now it holds
    w = Table("wits")
    w.add("A", {"wits": 10, "move": 10, "strength": 10, "base_damage": "1d6", "health": 10})
    refused("WITS-CMD", w.run, ph.RollInitiative(simultaneous=True))
