"""The narrative log reads as a Novus table would say it."""

from __future__ import annotations

from domain import commands as c
from projections.narrative import narrative
from projections.view import view_of
from tests.builders import Table, duel, novus_stats


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
    from domain import events
    from projections.narrative import _LINES

    kinds = {
        name
        for name, cls in vars(events).items()
        if isinstance(cls, type)
        and issubclass(cls, events.EncounterEvent)
        and name not in ("EncounterEvent", "EncounterCreated", "Correction")
    }
    assert kinds <= set(_LINES), kinds - set(_LINES)
