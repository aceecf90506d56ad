"""The narrative log kept (projections.kept_lines): told in parts, as events come, it holds
the lines the narrative tells of the whole history at once — as the GM reads them and as a
player reads them, whose sight of each combatant's health decides his line — and the log up
to `until` is its prefix."""

from __future__ import annotations

from typing import Any

import pytest

from domain import commands as c
from domain.errors import DamagedRecord
from domain.fold import evolve
from projections.kept_lines import KeptLines
from projections.narrative import narrative
from projections.visibility import Sight, departed, sight_of
from tests.builders import DomainTable, duel
from tests.builders.phantasia import PC


def _fight() -> tuple[DomainTable, list[Any]]:
    """A duel: an attack resolved, health shown to the players, a hidden combatant, a GM's
    note and hits, a round's end, an undo."""
    t = duel()
    t.resolve([10, 3, 4])
    t.run(c.ShowHealth(shown="exact", combatant=t.ids["T"]))
    t.encounter.add_combatant(
        "Zqx Lurker", "foes", t.state.combatants[t.ids["T"]].stats, hidden=True
    )
    t.ids["Zqx Lurker"] = next(i for i, w in t.state.combatants.items() if w.name == "Zqx Lurker")
    t.run(c.TakeNote(text="Zqx waits", combatant=t.ids["Zqx Lurker"]))
    t.run(c.AdjustHits(combatant=t.ids["T"], amount=-2, reason="trap"))
    t.run(c.ShowHealth(shown="none", combatant=t.ids["T"]))
    t.run(c.AdjustHits(combatant=t.ids["A"], amount=-1, reason="trap"))
    t.run(c.EndRound())
    t.run(c.Undo())
    return t, list(t.encounter.pending_events)


def _sights(t: DomainTable, events: list[Any]) -> list[Sight | None]:
    """The GM's (None), and players' as things stand: A's player, and a player of none."""
    state = None
    for event in events:
        state = evolve(state, event)
    assert state is not None
    gone = departed(e for e in events if type(e).__name__ in ("RollVoided", "CommandUndone"))
    return [None] + [sight_of(state, mine, (), gone) for mine in ([t.ids["A"]], [])]


def test_given_a_fight_told_in_parts_then_its_lines_are_the_narrative_of_it_all() -> None:
    t, events = _fight()
    kept = KeptLines("en")
    for start, stop in ((0, 1), (1, 6), (6, 7), (7, len(events))):
        kept.extend(events[start:stop])
    assert kept.version == len(events)
    texts = set()
    for sight in _sights(t, events):
        told = kept.told(sight, 0, None, None)
        expected = list(narrative(events, "en", sight))
        if sight is not None:
            readable = {line["position"] for line in told}
            expected = [line for line in expected if line["position"] in readable]
            assert "Zqx" not in str(told)
        assert told == expected
        texts.add(str(told))
    assert len(texts) == 3  # the GM, a player seeing T's health exact, one who does not
    assert any(line["voided_by"] for line in kept.told(None, 0, None, None))


def test_given_until_and_a_page_then_the_prefix_its_corrections_only() -> None:
    _, events = _fight()
    kept = KeptLines("en")
    kept.extend(events)
    until = len(events) - 1  # before the undo
    whole = kept.told(None, 0, None, until)
    assert whole == list(narrative(events[:until], "en"))
    assert not any(line["voided_by"] for line in whole)
    assert kept.told(None, 2, 5, until) == whole[2:5]
    assert kept.last(until) == until and kept.last(None) == len(events)


def test_given_an_event_that_does_not_follow_the_kept_ones_when_told_then_a_damaged_record():
    _, events = _fight()
    kept = KeptLines("en")
    kept.extend(events[:3])
    with pytest.raises(DamagedRecord, match=r"position 4 is missing \(the next one stored is 5\)"):
        kept.extend(events[4:5])
    assert kept.version == 3


def test_given_spanish_then_the_kept_lines_are_the_spanish_narrative() -> None:
    t = DomainTable("phantasia")
    t.add(
        "Endimion",
        dict(PC),
        side="héroes",
    )
    t.run(c.AdjustHits(combatant=t.ids["Endimion"], amount=-3, reason="trampa"))
    events = list(t.encounter.pending_events)
    kept = KeptLines("es")
    kept.extend(events)
    assert kept.told(None, 0, None, None) == list(narrative(events, "es"))
    assert "Narrador" in kept.told(None, 0, None, None)[-1]["text"]
