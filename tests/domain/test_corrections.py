"""Void, undo and redo: the fold with corrections equals the fold without what they void."""

from __future__ import annotations

import pytest

from domain import commands as c
from domain.corrections import fold_without, voided_by
from domain.errors import RuleViolation
from domain.fold import fold
from domain.rulesystems.novus import commands as nc
from tests.builders import duel, of_type
from tests.builders.novus import target_stats


def bleeding_hit():
    """A hits T (DEF 18, AR 6) for 19 with a Bleeder, and the round ends: T 30 → 11 → 10."""
    t = duel(target=target_stats(def_=18, ar=6))
    events = t.resolve([10, 7, 9], boons=[nc.BoonSpec(name="bleeder")])
    t.run(c.SetCondition(combatant=t.ids["T"], condition="bleeding", rate=2))  # the GM's own
    t.run(c.EndRound())
    return t, events


@pytest.mark.over_http
def test_given_a_bleeding_hit_when_the_attack_roll_is_voided_then_damage_wound_and_ticks_go():
    t, events = bleeding_hit()
    assert (t.who("T")["hits"], t.who("T")["bleeding"]) == (30 - 19 - 1 - 2, 3)
    attack = of_type(events, "AttackRolled")[0].originator_version
    voided = t.run(c.Void(target=attack, reason="the die fell off the table"))[0]
    kinds = {type(e).__name__ for e in t.history() if e.originator_version in voided.cascade}
    assert kinds == {
        "AttackRolled",
        "BoonsSpent",
        "DamageApplied",
        "ConditionApplied",
        "UpkeepTicked",
    }
    assert (t.who("T")["hits"], t.who("T")["bleeding"]) == (30 - 2, 2)  # the GM's wound bled


@pytest.mark.over_http
def test_given_an_attack_this_round_when_voided_then_it_can_be_rolled_again() -> None:
    t = duel()
    events = t.resolve([8, 6])
    action = of_type(events, "AttackRolled")[0].action
    t.run(c.Void(target=of_type(events, "AttackRolled")[0].originator_version, reason="x"))
    assert (t.view["step"], t.view["next_to_resolve"]) == ("resolution", action)
    assert of_type(t.resolve([5, 5]), "AttackRolled")[0].action == action


@pytest.mark.over_http
def test_given_a_void_when_voided_itself_then_what_it_voided_counts_again() -> None:
    t, events = bleeding_hit()
    attack = of_type(events, "AttackRolled")[0].originator_version
    void = t.run(c.Void(target=attack, reason="dispute"))[0]
    t.run(c.Void(target=void.originator_version, reason="dispute settled"))
    assert (t.who("T")["hits"], t.who("T")["bleeding"]) == (8, 3)


def test_given_a_damage_event_when_voided_then_only_hits_return() -> None:
    t, events = bleeding_hit()
    damage = of_type(events, "DamageApplied")[0].originator_version
    t.run(c.Void(target=damage, reason="wrong armour"))
    assert (t.who("T")["hits"], t.who("T")["bleeding"]) == (30 - 1 - 2, 3)


@pytest.mark.over_http
def test_given_a_gm_adjustment_when_voided_then_refused_use_undo() -> None:
    t, _ = bleeding_hit()
    adjust = t.run(c.AdjustHits(combatant=t.ids["T"], amount=-3))[0]
    with pytest.raises(RuleViolation) as e:
        t.run(c.Void(target=adjust.originator_version, reason="x"))
    assert e.value.rule == "VOID"
    t.run(c.Undo())
    assert t.who("T")["hits"] == 8


def test_given_commands_when_undone_twice_and_redone_then_it_walks_back_and_forward() -> None:
    t, _ = bleeding_hit()
    t.run(c.AdjustHits(combatant=t.ids["T"], amount=-3))
    t.run(c.AdjustHits(combatant=t.ids["T"], amount=-4))
    assert t.who("T")["hits"] == 1
    t.run(c.Undo())
    assert t.who("T")["hits"] == 5
    t.run(c.Undo())
    assert t.who("T")["hits"] == 8
    t.run(c.Redo())
    assert t.who("T")["hits"] == 5
    t.run(c.Redo())
    assert t.who("T")["hits"] == 1
    with pytest.raises(RuleViolation):
        t.run(c.Redo())


def test_given_any_corrections_then_the_fold_equals_the_fold_without_the_voided() -> None:
    t, events = bleeding_hit()
    t.run(c.Void(target=of_type(events, "DamageApplied")[0].originator_version, reason="x"))
    t.run(c.Undo())
    history = list(t.history())
    streaming = fold(history)
    clean = fold_without(history, voided_by(history))
    assert streaming.model_dump() == clean.model_dump()


def test_given_an_attack_of_a_past_round_when_voided_then_its_action_does_not_linger() -> None:
    t, events = bleeding_hit()  # round 1 ended after the hit
    t.run(c.Void(target=of_type(events, "AttackRolled")[0].originator_version, reason="x"))
    assert t.state.round == 2 and t.state.actions == []


def test_given_a_retaken_roll_when_the_void_is_voided_then_refused() -> None:
    t = duel(target=target_stats(def_=18, ar=6))
    first = of_type(t.resolve([8, 6]), "AttackRolled")[0]
    void = t.run(c.Void(target=first.originator_version, reason="die off the table"))[0]
    t.resolve([8, 7])  # the reroll is a new command
    with pytest.raises(RuleViolation) as e:
        t.run(c.Void(target=void.originator_version, reason="changed our minds"))
    assert e.value.rule == "VOID"
    assert t.who("T")["hits"] == 30 - (8 + 7 + 9 - 18 + 8 - 6)


def test_given_a_new_command_after_an_undo_then_redo_is_refused() -> None:
    t, _ = bleeding_hit()
    t.run(c.AdjustHits(combatant=t.ids["T"], amount=-5))
    t.run(c.Undo())
    t.run(c.AdjustHits(combatant=t.ids["T"], amount=-6))
    with pytest.raises(RuleViolation) as e:
        t.run(c.Redo())
    assert e.value.rule == "REDO"
    assert t.who("T")["hits"] == 8 - 6
