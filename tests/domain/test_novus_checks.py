"""Refusals and edge cases: weapons per attack, running, disarmed, dead targets, stabilised."""

from __future__ import annotations

import pytest

from domain import commands as c
from domain.errors import RuleViolation
from domain.rulesystems.novus import commands as nc
from tests.builders import Table, duel, of_type
from tests.builders.novus import novus_stats, target_stats


def ready(**a_stats) -> Table:
    t = Table()
    t.add("A", novus_stats(**a_stats), side="heroes")
    t.add("B", novus_stats(), side="foes")
    t.ip("A", 19), t.ip("B", 12)
    t.declare("B")
    return t


@pytest.mark.over_http
@pytest.mark.parametrize(
    ("action", "rule"),
    [
        ({"kind": "unarmed_attack", "target": "B", "weapon": "sword"}, "NOV-AP-1"),
        ({"kind": "power_attack", "target": "B", "weapon": "bow"}, "NOV-AP-1"),
        ({"kind": "missile_attack", "target": "B", "weapon": "sword"}, "NOV-AP-1"),
        ({"kind": "melee_attack", "target": "B", "weapon": "mace", "move": "cut"}, "NOV-CMV-2"),
        (
            {"kind": "missile_attack", "target": "B", "weapon": "bow", "move": "all_out_attack"},
            "NOV-CMV-2",
        ),
        ({"kind": "run", "ap": 6}, "NOV-DECL-3"),
        ({"kind": "melee_attack", "target": "A", "weapon": "sword"}, "NOV-ATK-1"),
        ({"kind": "dodge", "into_melee": True}, "NOV-FIM-1"),
    ],
)
def test_given_a_wrong_action_when_declared_then_refused_by_its_rule(action, rule) -> None:
    t = ready()
    with pytest.raises(RuleViolation) as e:
        t.declare("A", action)
    assert e.value.rule == rule


@pytest.mark.over_http
def test_given_one_ap_run_alone_then_the_penalty_is_this_round_not_next() -> None:
    t = ready()
    events = t.declare("A", {"kind": "run", "ap": 1})
    assert events[0].effects[0]["first_round"] == 1 and events[0].effects[0]["value"] == -2


@pytest.mark.over_http
def test_given_disarmed_when_declaring_a_sword_attack_then_refused_until_cleared() -> None:
    t = ready()
    t.run(c.SetCondition(combatant=t.ids["A"], condition="disarmed"))
    with pytest.raises(RuleViolation):
        t.declare("A", {"kind": "melee_attack", "target": "B", "weapon": "sword"})
    t.run(c.ClearCondition(combatant=t.ids["A"], condition="disarmed"))
    t.declare("A", {"kind": "melee_attack", "target": "B", "weapon": "sword"})


def test_given_an_open_ended_daze_when_daze_foe_lands_then_it_is_not_shortened() -> None:
    t = duel(target=target_stats(def_=15, ar=0))
    t.run(c.SetCondition(combatant=t.ids["T"], condition="dazed"))
    events = t.resolve([10, 7, 2], boons=[nc.BoonSpec(name="daze_foe")])  # 19 + 9 = 28: 1 BP
    assert not of_type(events, "ConditionApplied")
    assert t.state.combatants[t.ids["T"]].conditions["dazed"].count is None


def test_given_a_dead_target_when_declaring_or_resolving_then_refused_or_lost() -> None:
    t = Table()
    t.add("A", novus_stats())
    t.add("B", novus_stats())
    t.add("Dead", target_stats(current_hits=-11))
    t.ip("A", 19), t.ip("B", 12)  # the dead roll no initiative
    t.declare("B")
    with pytest.raises(RuleViolation) as e:
        t.declare("A", {"kind": "melee_attack", "target": "Dead", "weapon": "sword"})
    assert e.value.rule == "NOV-HITS-5"
    t.declare("A", {"kind": "melee_attack", "target": "B", "weapon": "sword"})
    t.run(c.AdjustHits(combatant=t.ids["B"], amount=-50))
    lost = t.resolve()
    assert [(type(x).__name__, x.rule) for x in lost] == [("ActionLost", "NOV-HITS-5")]


def test_given_a_snag_on_a_foe_when_hitting_a_friend_then_only_own_side_accepted() -> None:
    t = Table()
    t.add("A", novus_stats(), side="heroes")
    t.add("Ally", target_stats(def_=10), side="heroes")
    t.add("T", target_stats(def_=30, ar=0), side="foes")
    t.add("Other", target_stats(), side="foes")
    t.ip("A", 19), t.ip("Ally", 3), t.ip("T", 12), t.ip("Other", 2)
    for name in ("Other", "Ally", "T"):
        t.declare(name)
    t.declare("A", {"kind": "melee_attack", "target": "T", "weapon": "sword"})
    t.resolve([1, 2, 7])  # 5 vs 30: 2 SP
    with pytest.raises(RuleViolation) as e:
        t.run(nc.SpendSnags(snags=[nc.SnagSpec(name="hit_friend", target=t.ids["Other"])]))
    assert e.value.rule == "NOV-SNAG-2"
    events = t.run(
        nc.SpendSnags(snags=[nc.SnagSpec(name="hit_friend", target=t.ids["Ally"], hit=False)]),
        friend_attack=[9, 9],
    )
    assert of_type(events, "AttackRolled")[0].hit is False  # the GM's override holds


def test_given_a_lightning_attack_when_rolled_then_its_cause_is_the_boon_purchase() -> None:
    t = duel(target=target_stats(def_=15, ar=0))
    bought = t.resolve([10, 10, 5, 1], boons=[nc.BoonSpec(name="lightning_attack")])
    spent = of_type(bought, "BoonsSpent")[0]
    assert spent.cause == of_type(bought, "AttackRolled")[0].originator_version
    follow_up = of_type(t.resolve([5, 5]), "AttackRolled")[0]
    assert follow_up.cause == spent.originator_version


def test_given_a_declared_attack_when_rolled_then_its_cause_is_the_declaration() -> None:
    t = duel()
    declared = t.state.actions[0]
    attack = of_type(t.resolve([5, 5]), "AttackRolled")[0]
    assert attack.cause == declared.origin


def test_given_stabilised_when_healed_above_0_then_stabilised_clears() -> None:
    t = Table()
    t.add("PC", novus_stats(current_hits=-3))
    t.run(c.SetCondition(combatant=t.ids["PC"], condition="stabilised"))
    t.run(c.AdjustHits(combatant=t.ids["PC"], amount=10))
    assert "stabilised" not in t.who("PC")["conditions"]
    t.run(c.AdjustHits(combatant=t.ids["PC"], amount=-10))
    assert t.who("PC")["dying"]
