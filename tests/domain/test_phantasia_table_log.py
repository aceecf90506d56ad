"""PHANTÄSIA read as a table would (issue 17, item 6): the Spanish log and refusals in the
book's words, a magic damage line that shows what was rolled and multiplied, the narrator's
characteristic for an end check (Default PHA-AMB-51), initiative entered with a tie order,
and a paralysed target's doubled automatic hit; in the domain and over HTTP."""

from __future__ import annotations

from typing import Any

import pytest

from domain import commands as c
from domain.errors import RuleViolation
from domain.rulesystems.phantasia import commands as ph
from projections.narrative import narrative
from tests.builders import Table, of_type
from tests.domain.test_phantasia import attack, creature, next_turn, pc, refused, table


def log(t: Any, kind: str, lang: str = "en") -> list[str]:
    return [x["text"] for x in narrative(t.history(), lang) if x["type"] == kind]


def status(t: Any, who: str, which: str, **kw: Any) -> list[Any]:
    return t.run(ph.ApplyStatus(combatant=t.ids[who], status=which, **kw))


# -- 1. the Spanish log and refusals in the book's words ------------------------------------


@pytest.mark.over_http
def test_given_a_poisoned_orc_when_its_end_check_is_rolled_then_the_spanish_log_names_veneno():
    t = table(("Orc", creature()), ("Endimion", pc()))
    status(t, "Orc", "poisoned")
    next_turn(t)
    next_turn(t)
    next_turn(t, end={"poisoned": [1]})
    (line,) = log(t, "CheckRolled", "es")
    assert "chequeo de VIT (fin de Veneno)" in line, line
    assert "end of" not in line and "poisoned" not in line


@pytest.mark.over_http
@pytest.mark.parametrize(
    "affinity, words",
    [("vulnerability", "vulnerable a fuego"), ("resistance", "resistente a fuego")],
)
def test_given_an_orc_with_a_fire_affinity_when_a_fire_power_hits_then_the_spanish_log_says_fuego(
    affinity: str, words: str
):
    power = {"name": "Llamarada", "damage": "1d6", "element": "fire"}
    t = table(("Endimion", pc(powers=[power])), ("Orc", creature(elements={"fire": affinity})))
    attack(t, "Endimion", "Orc", power="Llamarada", dice={"attack": [2]})
    t.run(ph.RollDamage(), damage=[6])
    (line,) = log(t, "DamageApplied", "es")
    assert words in line and "fire" not in line, line


def test_given_three_beneficial_statuses_when_a_fourth_comes_then_the_spanish_says_rapidez(
    through: str,
):
    t = table(("Endimion", pc()), ("Orc", creature()))
    status(t, "Endimion", "haste", turns=3)
    status(t, "Endimion", "invisible", turns=3)
    status(t, "Endimion", "magic", name="Escudo", beneficial=True, modifiers={"df": 1}, turns=1)
    e = refused("PHA-STK-3", status, t, "Endimion", "defense")
    if through == "domain":  # the HTTP problem carries the English detail
        assert "Rapidez" in e.detail_es and "haste" not in e.detail_es, e.detail_es
    status(t, "Endimion", "defense", replace="least_time")
    (line,) = log(t, "StatusEnded", "es")
    assert "termina para que Defensa funcione" in line, line


# -- 2. a magic damage line says what was rolled and multiplied ---------------------------


def test_given_a_1d10_times_level_magic_when_it_rolls_6_at_level_4_then_the_line_shows_both():
    power = {"name": "Rayo", "damage": "1d10", "per_level": True}
    t = table(("Endimion", pc(int=10, level=4, powers=[power])), ("Orc", creature(pv=60)))
    attack(t, "Endimion", "Orc", power="Rayo", dice={"attack": [2]})
    (damage,) = of_type(t.run(ph.RollDamage(), damage=[6]), "DamageApplied")
    assert damage.amount == 26
    (en,) = log(t, "DamageApplied")
    (es,) = log(t, "DamageApplied", "es")
    assert "26 (d10 6 × level 4 = 24, +2 INT adj)" in en, en
    assert "26 (d10 6 × nivel 4 = 24, +2 ajuste INT)" in es, es


# -- 3. the characteristic the power calls for ends Aturdido, Caos, Parálisis -------------


@pytest.mark.parametrize(
    "which, named, other",
    [("stunned", "int", "vit"), ("chaos", "ca", "int"), ("paralysed", "vit", "fue")],
)
def test_given_a_status_applied_with_its_end_check_then_that_characteristic_is_checked(
    which: str, named: str, other: str
):
    """PHA-STS-0, Default PHA-AMB-51: the narrator names the one the power calls for; the
    creature's other score is higher."""
    t = table(("Orc", creature(**{named: 4, other: 10})), ("Endimion", pc()))
    status(t, "Orc", which, end_check=named)
    assert t.who("Orc")["statuses"][which]["end_check"] == named
    next_turn(t)
    next_turn(t)
    events = next_turn(t, end={which: [12]})
    (check,) = of_type(events, "CheckRolled")
    assert check.characteristic == named


def test_given_a_status_applied_without_an_end_check_then_the_higher_score_is_checked():
    t = table(("Orc", creature(int=4, vit=10)), ("Endimion", pc()))
    status(t, "Orc", "stunned")
    next_turn(t)
    next_turn(t)
    (check,) = of_type(next_turn(t, end={"stunned": [12]}), "CheckRolled")
    assert check.characteristic == "vit"


@pytest.mark.parametrize(
    "which, named", [("stunned", "fue"), ("poisoned", "int"), ("blind", "int"), ("magic", "int")]
)
def test_given_an_end_check_the_status_does_not_offer_then_422_naming_it_and_nothing_recorded(
    which: str, named: str
):
    t = table(("Orc", creature()), ("Endimion", pc()))
    before = len(t.history())
    kw: dict[str, Any] = (
        {"name": "Hechizo", "beneficial": False, "modifiers": {"at": -1}}
        if which == "magic"
        else {}
    )
    e = refused("PHA-AMB-51", status, t, "Orc", which, end_check=named, **kw)
    assert e.field == "end_check"
    assert len(t.history()) == before


# -- 4. an entered initiative with a tie order; a group's roll and a tie order ------------


def three() -> Any:
    t = Table("phantasia")
    t.add("Endimion", pc(), side="heroes")
    t.add("Orc", creature(), side="foes")
    t.add("Goblin", creature(), side="foes")
    return t


def test_given_an_entered_ip_and_a_tie_order_when_it_ties_then_both_are_recorded():
    t = three()
    t.run(c.RollInitiative(combatant=t.ids["Orc"], ip=10))
    events = t.run(
        ph.RollInitiative(
            combatant=t.ids["Goblin"], ip=10, tie_order=[t.ids["Goblin"], t.ids["Orc"]]
        )
    )
    assert [type(e).__name__ for e in events] == ["InitiativeRolled", "TieBroken"]
    assert events[0].ip == 10 and events[0].entered
    assert events[1].order == [t.ids["Goblin"], t.ids["Orc"]] and events[1].entered
    assert t.state.combatants[t.ids["Goblin"]].ip == 10


def test_given_a_group_roll_and_a_tie_order_when_the_roll_ties_them_then_the_order_is_kept():
    t = three()
    events = t.run(
        ph.RollInitiative(
            group=[t.ids["Orc"], t.ids["Goblin"]], tie_order=[t.ids["Goblin"], t.ids["Orc"]]
        ),
        initiative=[5],
    )
    assert [type(e).__name__ for e in events] == ["InitiativeRolled"] * 2 + ["TieBroken"]
    assert events[-1].order == [t.ids["Goblin"], t.ids["Orc"]]


@pytest.mark.parametrize("entered", [True, False])
def test_given_a_tie_order_that_is_not_the_tie_the_roll_makes_then_422_and_nothing_recorded(
    entered: bool,
):
    t = three()
    t.run(c.RollInitiative(combatant=t.ids["Orc"], ip=10))
    before = len(t.history())
    order = [t.ids["Goblin"], t.ids["Orc"]]
    with pytest.raises(RuleViolation) as e:
        if entered:
            t.run(ph.RollInitiative(combatant=t.ids["Goblin"], ip=11, tie_order=order))
        else:
            t.run(ph.RollInitiative(combatant=t.ids["Goblin"], tie_order=order), initiative=[6])
    assert e.value.field == "tie_order"
    assert len(t.history()) == before


# -- 5. a paralysed target's automatic hit is doubled -------------------------------------


def test_given_a_paralysed_orc_when_hit_then_doubled_true_and_the_line_says_double_damage():
    t = table(("Endimion", pc()), ("Orc", creature(pv=99)))
    status(t, "Orc", "paralysed", turns=3)
    (checked,) = of_type(attack(t, "Endimion", "Orc", weapon="sword"), "AttackChecked")
    assert checked.results[0]["doubled"] is True
    (damage,) = of_type(t.run(ph.RollDamage(), damage=[6]), "DamageApplied")
    assert damage.breakdown["factor"] == 2 and damage.amount == 22  # ×2, not ×3
    (en,) = log(t, "AttackChecked")
    (es,) = log(t, "AttackChecked", "es")
    assert "double damage" in en and "daño doble" in es, (en, es)
