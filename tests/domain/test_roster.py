"""The roster entry's fold (domain.roster) and what each rule book carries from a fight
(domain/rulesystems/<book>/lasting.py)."""

from __future__ import annotations

from typing import Any

import pytest

from domain import commands as c
from domain.dice import ManualDice
from domain.encounter import Encounter
from domain.errors import RuleViolation
from domain.roster import (
    LastingStateCarried,
    RestTaken,
    RosterEntry,
    RosterEntryRetired,
    RosterEntrySaved,
    StatsRevised,
)
from domain.rulesystems import get_rule_system
from tests.builders.novus import novus_stats
from tests.builders.phantasia import PC
from tests.builders.wits import fighter


def _replayed(entry: RosterEntry) -> RosterEntry:
    """The entry folded again from its events alone, as the store gives it back."""
    events = list(entry.pending_events)
    again = None
    for event in events:
        again = event.mutate(again)
    assert again is not None
    return again


def _fight(ruleset: str, stats: dict[str, Any], options: dict[str, Any] | None = None):
    encounter = Encounter.start("Ford", ruleset, "manual", options=options)
    who = encounter.add_combatant("Brakka", "players", stats)
    return encounter, who


def _gm(encounter: Encounter, command: Any) -> None:
    encounter.execute(command, ManualDice({}))


def test_given_valid_novus_stats_when_saved_then_the_entry_holds_them_fresh() -> None:
    entry = RosterEntry.save("acct_1", "character", "novus", "Brakka", "players", novus_stats())
    assert entry.state.name == "Brakka"
    assert entry.state.kind == "character"
    assert entry.state.lasting is None
    assert entry.state.version == 1
    assert isinstance(entry.pending_events[0], RosterEntrySaved)


def test_given_stats_the_book_refuses_when_saved_then_the_field_is_named() -> None:
    with pytest.raises(RuleViolation) as refused:
        RosterEntry.save("acct_1", "character", "novus", "X", "", {"hits": -3})
    assert refused.value.rule == "NOVUS-STATS"
    assert refused.value.field == "stats.hits"


def test_given_an_unknown_kind_when_saved_then_refused_naming_kind() -> None:
    with pytest.raises(RuleViolation) as refused:
        RosterEntry.save("acct_1", "villain", "novus", "X", "", novus_stats())
    assert refused.value.field == "kind"


def test_given_an_entry_when_stats_revised_then_the_fold_keeps_the_new_ones() -> None:
    entry = RosterEntry.save("acct_1", "creature", "novus", "Goblin", "foes", novus_stats(12))
    entry.revise(novus_stats(15), name="Goblin chief", side=None)
    again = _replayed(entry)
    assert again.state.stats["hits"] == 15
    assert again.state.name == "Goblin chief"
    assert again.state.side == "foes"
    assert again.state.version == 2
    assert isinstance(entry.pending_events[-1], StatsRevised)


def test_given_revised_stats_the_book_refuses_when_revised_then_nothing_is_recorded() -> None:
    entry = RosterEntry.save("acct_1", "creature", "novus", "Goblin", "foes", novus_stats(12))
    with pytest.raises(RuleViolation):
        entry.revise({"hits": 0}, None, None)
    assert entry.version == 1


def test_given_a_wounded_novus_fighter_when_carried_then_hits_and_wounds_last() -> None:
    encounter, who = _fight("novus", novus_stats(30))
    _gm(encounter, c.AdjustHits(combatant=who, amount=-12))
    _gm(encounter, c.SetCondition(combatant=who, condition="bleeding", rate=2))
    _gm(encounter, c.SetCondition(combatant=who, condition="dazed", count=1))
    entry = RosterEntry.save("acct_1", "character", "novus", "Brakka", "players", novus_stats(30))
    entry.carry(encounter.state, encounter.state.combatants[who])
    again = _replayed(entry)
    assert again.state.lasting == {"hits": 18, "wounds": [{"rate": 2}], "stabilised": False}
    assert again.state.carried_from is not None
    assert again.state.carried_from.encounter == str(encounter.id)
    assert again.state.carried_from.position == encounter.version
    assert again.state.carried_from.ended is False
    assert isinstance(entry.pending_events[-1], LastingStateCarried)


def test_given_a_carried_state_when_copied_then_he_starts_from_it() -> None:
    encounter, who = _fight("novus", novus_stats(30))
    _gm(encounter, c.AdjustHits(combatant=who, amount=-12))
    _gm(encounter, c.SetCondition(combatant=who, condition="bleeding", rate=2))
    entry = RosterEntry.save("acct_1", "character", "novus", "Brakka", "players", novus_stats(30))
    entry.carry(encounter.state, encounter.state.combatants[who])
    copy = entry.copy("novus", None, None)
    assert copy.stats["current_hits"] == 18
    assert entry.state.stats.get("current_hits") is None  # the roster's block is untouched

    second = Encounter.start("Bridge", "novus", "manual")
    added = second.add_combatant(copy.name, copy.side, copy.stats)
    rules = get_rule_system("novus")
    for command in rules.lasting.commands(second.state.combatants[added], copy.lasting or {}):
        _gm(second, command)
    him = second.state.combatants[added]
    assert him.hits == 18
    assert [w.rate for w in him.wounds] == [2]


def test_given_another_books_encounter_when_copied_then_refused_naming_from_roster() -> None:
    entry = RosterEntry.save("acct_1", "character", "novus", "Brakka", "", novus_stats())
    with pytest.raises(RuleViolation) as refused:
        entry.copy("wits", None, None)
    assert (refused.value.rule, refused.value.field) == ("RULESET", "from_roster")


def test_given_a_carried_state_when_rested_then_the_next_copy_is_fresh() -> None:
    encounter, who = _fight("novus", novus_stats(30))
    _gm(encounter, c.AdjustHits(combatant=who, amount=-5))
    entry = RosterEntry.save("acct_1", "character", "novus", "Brakka", "", novus_stats(30))
    entry.carry(encounter.state, encounter.state.combatants[who])
    entry.rest("a night at the inn")
    again = _replayed(entry)
    assert again.state.lasting is None
    assert "current_hits" not in again.copy("novus", None, None).stats
    assert isinstance(entry.pending_events[-1], RestTaken)


def test_given_a_retired_entry_when_copied_or_revised_then_refused_and_history_kept() -> None:
    entry = RosterEntry.save("acct_1", "creature", "novus", "Goblin", "", novus_stats(12))
    entry.retire("slain for good")
    with pytest.raises(RuleViolation) as refused:
        entry.copy("novus", None, None)
    assert (refused.value.rule, refused.value.field) == ("RETIRED", "from_roster")
    with pytest.raises(RuleViolation):
        entry.revise(novus_stats(13), None, None)
    again = _replayed(entry)
    assert again.state.retired is True
    assert isinstance(entry.pending_events[-1], RosterEntryRetired)


def test_given_a_hurt_wits_fighter_when_carried_then_only_his_health_lasts() -> None:
    encounter, who = _fight("wits", fighter())
    before = encounter.state.combatants[who].hits
    _gm(encounter, c.AdjustHits(combatant=who, amount=-4))
    entry = RosterEntry.save("acct_1", "character", "wits", "Lief", "", fighter())
    entry.carry(encounter.state, encounter.state.combatants[who])
    assert entry.state.lasting == {"hits": before - 4}
    assert entry.copy("wits", None, None).stats["current_health"] == before - 4


def test_given_a_phantasia_fighter_when_carried_then_pv_pm_and_points_last() -> None:
    stats = dict(PC)
    encounter, who = _fight("phantasia", stats)
    before = encounter.state.combatants[who].hits
    _gm(encounter, c.AdjustHits(combatant=who, amount=-3))
    entry = RosterEntry.save("acct_1", "character", "phantasia", "Aria", "", stats)
    entry.carry(encounter.state, encounter.state.combatants[who])
    lasting = entry.state.lasting
    assert lasting is not None
    assert lasting["hits"] == before - 3
    assert {"pm", "phantasia_points"} <= lasting.keys()
    started = entry.copy("phantasia", None, None).stats
    assert started["current_pv"] == before - 3
    assert started["pm"] == lasting["pm"]


def test_given_a_book_without_lasting_rules_when_copied_then_hits_come_by_adjust_hits() -> None:
    from domain.rulesystems import register, unregister
    from tests.skirmish.system import SkirmishRules

    rules = register(SkirmishRules())
    try:
        wolf = {"fight": 3, "guard": 2, "hits": 3}
        encounter, who = _fight("skirmish", wolf)
        _gm(encounter, c.AdjustHits(combatant=who, amount=-2))
        entry = RosterEntry.save("acct_1", "creature", "skirmish", "Wolf", "wolves", wolf)
        entry.carry(encounter.state, encounter.state.combatants[who])
        assert entry.state.lasting == {"hits": 1}
        copy = entry.copy("skirmish", None, None)
        assert copy.stats == wolf  # the default has no stat to start the hits from
        second = Encounter.start("Den", "skirmish", "manual")
        added = second.add_combatant(copy.name, copy.side, copy.stats)
        for command in rules.lasting.commands(second.state.combatants[added], copy.lasting or {}):
            _gm(second, command)
        assert second.state.combatants[added].hits == 1
    finally:
        unregister(rules.name)


def test_given_stats_revised_below_the_carried_hits_when_copied_then_hits_capped() -> None:
    encounter, who = _fight("novus", novus_stats(30))
    _gm(encounter, c.AdjustHits(combatant=who, amount=-2))
    entry = RosterEntry.save("acct_1", "character", "novus", "Brakka", "", novus_stats(30))
    entry.carry(encounter.state, encounter.state.combatants[who])
    entry.revise(novus_stats(20), None, None)
    copy = entry.copy("novus", None, None)
    assert copy.stats["current_hits"] == 20
    assert entry.state.lasting == {"hits": 28, "wounds": [], "stabilised": False}


@pytest.mark.parametrize(
    ("ruleset", "stats", "field", "lowest"),
    [
        ("novus", novus_stats(30), "current_hits", -1000),
        ("wits", fighter(), "current_health", -10_000),
        ("phantasia", PC, "current_pv", -10_000),
    ],
)
def test_given_hits_carried_below_what_a_stat_block_takes_when_copied_then_at_its_lowest(
    ruleset: str, stats: dict[str, Any], field: str, lowest: int
) -> None:
    # given a body carried off far below what the book's stat block takes
    encounter, who = _fight(ruleset, stats)
    for _ in range(2):  # an adjustment moves 10,000 at most
        _gm(encounter, c.AdjustHits(combatant=who, amount=-10_000))
    entry = RosterEntry.save("acct_1", "character", ruleset, "Brakka", "", stats)
    entry.carry(encounter.state, encounter.state.combatants[who])
    assert entry.state.lasting["hits"] < lowest  # carried as it was
    # when copied into the next fight, then he starts at the lowest, and the copy is valid
    copy = entry.copy(ruleset, None, None)
    assert copy.stats[field] == lowest
    second = Encounter.start("Bridge", ruleset, "manual")
    added = second.add_combatant(copy.name, copy.side, copy.stats)
    assert second.state.combatants[added].hits == lowest
