"""Where a correction's refold starts (domain.corrections.refold_from): the latest version
whose state, as the aggregate folded it, already holds every event up to it as voided or
not as the new correction will have it."""

from __future__ import annotations

from typing import Any

from domain import commands as c
from domain.corrections import Held, consequences, refold_from, voided_by
from domain.rulesystems.novus import commands as nc
from tests.builders import DomainTable, duel, of_type
from tests.builders.novus import target_stats


def a_hit() -> tuple[DomainTable, int]:
    """A hits T, the round ends, the GM heals T: the table and the AttackRolled's position."""
    t = duel(target=target_stats(def_=18, ar=6))
    attack = of_type(t.resolve([10, 7, 9], boons=[]), "AttackRolled")[0].originator_version
    t.run(c.EndRound())
    t.run(c.AdjustHits(combatant=t.ids["T"], amount=2))
    return t, attack


def start_for(t: DomainTable, command: Any) -> int:
    """The refold start of `command` if it were recorded now, and then records it."""
    before = t.encounter.version
    history = Held(t.history())
    (recorded,) = t.run(command)
    voided = voided_by([*history.corrections, recorded])
    return refold_from(history.corrections, voided, before)


def test_given_a_roll_when_voided_then_the_refold_starts_just_before_it() -> None:
    t, attack = a_hit()
    assert start_for(t, c.Void(target=attack, reason="x")) == attack - 1


def test_given_a_void_when_it_is_voided_then_the_refold_starts_just_before_the_void() -> None:
    # given the attack voided, by the last event
    t, attack = a_hit()
    void = t.run(c.Void(target=attack, reason="x"))[0].originator_version
    # when the void is voided, then the state before the void already holds the attack
    assert start_for(t, c.Void(target=void, reason="it stood")) == void - 1


def test_given_a_void_voided_when_voided_again_then_the_first_voids_state_serves() -> None:
    # given the attack voided, then that void voided
    t, attack = a_hit()
    void = t.run(c.Void(target=attack, reason="x"))[0].originator_version
    t.run(c.Void(target=void, reason="y"))
    # when the attack is voided again, then the state right after the first void (the
    # attack voided then, as now) starts the refold, not the start of the fight
    assert start_for(t, c.Void(target=attack, reason="z")) == void


def test_given_a_roll_voided_later_when_an_event_between_is_undone_then_before_the_roll() -> None:
    # given the attack voided after a GM command
    t, attack = a_hit()
    t.run(c.AdjustHits(combatant=t.ids["T"], amount=-1))
    t.run(c.Void(target=attack, reason="x"))
    # when the GM command is undone: the versions between the attack and the void hold the
    # attack as not voided, so only a state before the attack serves
    assert start_for(t, c.Undo()) == attack - 1


def test_given_the_last_command_when_undone_then_the_refold_starts_just_before_it() -> None:
    t, _ = a_hit()
    last = t.run(c.AdjustHits(combatant=t.ids["T"], amount=-1))[0].originator_version
    assert start_for(t, c.Undo()) == last - 1


def test_given_a_roll_voided_and_restored_when_voided_again_then_later_consequences_go() -> None:
    # given a bleeding hit voided, then restored, then a round whose upkeep the wound ticks
    t = duel(target=target_stats(def_=18, ar=6))
    events = t.resolve([10, 7, 9], boons=[nc.BoonSpec(name="bleeder")])
    attack = of_type(events, "AttackRolled")[0].originator_version
    void = t.run(c.Void(target=attack, reason="x"))[0]
    t.run(c.Void(target=void.originator_version, reason="it stood"))
    tick = of_type(t.run(c.EndRound()), "UpkeepTicked")[0].originator_version
    # when the roll is voided again
    again = t.run(c.Void(target=attack, reason="after all"))[0]
    # then its cascade is the first void's and the tick since, as a read of the whole
    # history finds them
    assert again.cascade == [*void.cascade, tick]
    assert again.cascade == consequences(t.history()[: again.originator_version - 1], [attack])
