"""The narrative log reads as a Novus table would say it."""

from __future__ import annotations

import re

from domain import commands as c
from projections.narrative import narrative
from projections.view import view_of
from tests.builders import Table, duel
from tests.builders.novus import novus_stats


def test_given_bleeding_and_stun_when_round_2_ends_then_log_reads_bleeds_and_stun_counts():
    t = Table()
    t.add("Brakka", novus_stats(hits=20))
    t.run(c.SetCondition(combatant=t.ids["Brakka"], condition="stunned", count=2))
    t.ip("Brakka", 10)
    t.run(c.EndRound())
    t.run(c.SetCondition(combatant=t.ids["Brakka"], condition="bleeding", rate=3))
    t.run(c.EndRound())
    lines = [x["text"] for x in narrative(t.encounter.collect_events())]
    assert "Round 2 upkeep: Brakka bleeds 3 (20 → 17)." in lines
    assert "Round 2 upkeep: Brakka stun 2 → 1." in lines


def test_given_an_exploding_hit_when_logged_then_chain_modifiers_and_damage_are_spelled_out():
    t = duel()
    t.resolve([10, 3, 4])  # 17 + 9 = 26 vs DEF 20
    lines = [x["text"] for x in narrative(t.encounter.collect_events())]
    assert (
        "Round 1: A attacks T: 10→4 + 3 = 17 +9 (skill ranks +7, dex bonus +2) = 26 "
        "[exploded] vs DEF 20: hit by 6, 0 Boon Points."
    ) in lines
    assert "T takes 10 (8 base + 6 scaled − 4 armour) (30 → 20)." in lines


def test_given_events_when_folding_a_prefix_then_view_is_that_version() -> None:
    t = duel()
    t.resolve([5, 5])
    events = t.encounter.collect_events()
    assert view_of(events[:4])["version"] == 4
    assert view_of(events)["combatants"][1]["hits"] == t.who("T")["hits"]


def test_given_every_event_type_then_the_narrative_has_a_line_for_it() -> None:
    """Every event class of the core and the built-in books has its line: the core's, or
    its book's (a book the tests register tells its own)."""
    from domain import events
    from domain.rulesystems.novus.narrative import LINES as NOVUS
    from domain.rulesystems.phantasia.narrative import LINES as PHANTASIA
    from domain.rulesystems.wits.narrative import LINES as WITS
    from projections.narrative import CORE

    def every(cls: type) -> set[type]:
        return {cls} | {k for sub in cls.__subclasses__() for k in every(sub)}

    kinds = {
        cls.__name__
        for cls in every(events.EncounterEvent)
        if cls.__module__.startswith("domain.")
        and cls.__name__ not in ("EncounterCreated", "Correction")
        and not cls.__name__.endswith("Event")
    }
    told = {*CORE.by_type, *NOVUS.by_type, *WITS.by_type, *PHANTASIA.by_type}
    assert kinds <= told, kinds - told


def test_given_an_implosion_and_hits_below_zero_when_logged_then_every_minus_is_a_true_one():
    # given: A's attack implodes below zero (1→9 + 5 = −3), the GM takes T below 0 hits
    t = duel()
    t.resolve([1, 5, 9])  # the 1 implodes with the 9
    t.run(c.AdjustHits(combatant=t.ids["T"], amount=-40, reason="a rockfall"))
    # when: the log is told
    lines = [x["text"] for x in narrative(t.encounter.collect_events())]
    # then: the negative figures print the minus sign the modifiers print (U+2212), none '-'
    assert any("1→9 + 5 = −3 +9 (skill ranks +7, dex bonus +2) = 6" in line for line in lines)
    assert "GM: T hits −40 (a rockfall) (30 → −10)." in lines
    assert not [line for line in lines if re.search(r"(^|[\s(/])-\d", line)]


def test_given_wits_health_below_zero_when_logged_then_the_figures_have_a_true_minus():
    # given: a Wits fighter taken below zero by the GM
    t = Table("wits")
    t.add("A", {"wits": 12, "move": 12, "health": 10, "skills": {}}, side="heroes")
    t.run(c.AdjustHits(combatant=t.ids["A"], amount=-14))
    # when / then: his Current Health reads −4, not -4
    (line,) = [x["text"] for x in narrative(t.encounter.collect_events())][-1:]
    assert line == "GM: A hits −14 (GM adjustment) (10 → −4)."


def test_given_conditions_set_and_cleared_when_logged_then_each_reads_as_a_sentence():
    # given: a Novus fighter hasted, then marked to reroll initiative; each cleared
    t = Table()
    t.add("Brakka", novus_stats(hits=20))
    for name in ("hasted", "reroll_initiative"):
        t.run(c.SetCondition(combatant=t.ids["Brakka"], condition=name, reason="GM"))
        t.run(c.ClearCondition(combatant=t.ids["Brakka"], condition=name, reason="GM"))
    # when: the log is told
    lines = [x["text"] for x in narrative(t.encounter.collect_events())]
    # then: the words a table says, not the names stored
    assert lines[-4:] == [
        "Brakka is hasted (GM).",
        "Brakka is no longer hasted (GM).",
        "Brakka is set to reroll initiative (GM).",
        "Brakka is no longer set to reroll initiative (GM).",
    ]


def test_given_a_wits_fighter_knocked_back_when_logged_then_the_condition_has_no_underscore():
    # given: a Wits fighter the GM rules knocked back, then fighting on
    t = Table("wits")
    t.add("A", {"wits": 12, "move": 12, "health": 10, "skills": {}}, side="heroes")
    for name in ("knocked_back", "fighting_on"):
        t.run(c.SetCondition(combatant=t.ids["A"], condition=name, reason="GM"))
    t.run(c.ClearCondition(combatant=t.ids["A"], condition="knocked_back", reason="he rises"))
    # when / then
    lines = [x["text"] for x in narrative(t.encounter.collect_events())]
    assert lines[-3:] == [
        "A is knocked back (GM).",
        "A is fighting on (GM).",
        "A is no longer knocked back (he rises).",
    ]


def test_given_a_condition_for_one_round_and_for_two_when_logged_then_round_or_rounds():
    # given: a Novus fighter dazed for 1 round, then for 2
    t = Table()
    t.add("Brakka", novus_stats(hits=20))
    for count in (1, 2):
        t.run(c.SetCondition(combatant=t.ids["Brakka"], condition="dazed", count=count))
    # when / then
    lines = [x["text"] for x in narrative(t.encounter.collect_events())]
    assert lines[-2:] == ["Brakka is dazed for 1 round (GM).", "Brakka is dazed for 2 rounds (GM)."]
