"""What is kept for reads stays bounded (infra.kept_reads): the narrative logs of at most
FRAYLOG_NARRATIVE_CACHE_SIZE encounters, the least recently read dropped; answers up to
FRAYLOG_ANSWER_CACHE_MB of bodies, the least recently read dropped, an encounter's answers
of an earlier version dropped when one of a later version is kept."""

from __future__ import annotations

from typing import Any
from uuid import UUID, uuid4

import pytest

from domain import commands as c
from infra.kept_reads import KeptAnswers, KeptNarratives
from infra.settings import Settings
from tests.builders import duel


def test_given_more_encounters_than_kept_when_read_then_the_least_recently_read_is_told_again() -> (
    None
):
    t = duel()
    events = list(t.encounter.pending_events)
    asked: list[tuple[UUID, int]] = []

    def events_after(encounter_id: UUID, after: int) -> list[Any]:
        asked.append((encounter_id, after))
        return events[after:]

    kept = KeptNarratives(2, events_after)
    a, b, c_ = uuid4(), uuid4(), uuid4()
    for encounter_id in (a, b, a, c_):  # b, the least recently read, goes when c comes
        with kept.told(encounter_id, "en") as log:
            assert log.version == len(events)
    with kept.told(a, "en"), kept.told(b, "en"):
        pass
    assert asked == [(a, 0), (b, 0), (a, len(events)), (c_, 0), (a, len(events)), (b, 0)]


def test_given_a_new_event_when_a_kept_log_is_read_then_only_it_is_read_and_told() -> None:
    t = duel()
    stored = list(t.encounter.pending_events)
    kept = KeptNarratives(5, lambda _, after: stored[after:])
    eid = uuid4()
    with kept.told(eid, "en") as log:
        first = log.told(None, 0, None, None)
    t.run(c.AdjustHits(combatant=t.ids["T"], amount=-2, reason="trap"))
    stored = list(t.encounter.pending_events)
    with kept.told(eid, "en") as log:
        longer = log.told(None, 0, None, None)
    assert longer[:-1] == first and longer[-1]["type"] == "HitsAdjusted"


def test_given_bodies_over_the_cap_when_kept_then_the_least_recently_read_go() -> None:
    answers = KeptAnswers(max_bytes=10)
    one, two = uuid4(), uuid4()
    answers.put(one, 1, (one, 1, "a"), b"1234", '"a"')
    answers.put(two, 1, (two, 1, "b"), b"1234", '"b"')
    assert answers.get((one, 1, "a")) == (b"1234", '"a"')  # now the most recently read
    answers.put(two, 1, (two, 1, "c"), b"1234", '"c"')
    assert answers.get((two, 1, "b")) is None
    assert answers.get((one, 1, "a")) is not None and answers.get((two, 1, "c")) is not None
    answers.put(one, 1, (one, 1, "big"), b"x" * 11, '"big"')  # over the cap alone: not kept
    assert answers.get((one, 1, "big")) is None


def test_given_a_later_version_when_kept_then_the_earlier_answers_go_and_older_are_refused() -> (
    None
):
    answers = KeptAnswers(max_bytes=1000)
    eid = uuid4()
    answers.put(eid, 3, (eid, 3, "log"), b"three", '"3"')
    answers.put(eid, 3, (eid, 3, "view"), b"three", '"3v"')
    answers.put(eid, 4, (eid, 4, "log"), b"four", '"4"')
    assert answers.get((eid, 3, "log")) is None and answers.get((eid, 3, "view")) is None
    answers.put(eid, 3, (eid, 3, "log"), b"three", '"3"')  # a slow reader of version 3
    assert answers.get((eid, 3, "log")) is None
    assert answers.get((eid, 4, "log")) == (b"four", '"4"')


@pytest.mark.parametrize(
    ("env", "value"), [("FRAYLOG_NARRATIVE_CACHE_SIZE", "-1"), ("FRAYLOG_ANSWER_CACHE_MB", "-1")]
)
def test_given_a_negative_kept_size_then_the_settings_refuse_it(
    monkeypatch: pytest.MonkeyPatch, env: str, value: str
) -> None:
    monkeypatch.setenv(env, value)
    with pytest.raises(ValueError, match=env):
        Settings.from_env()


def test_given_the_settings_then_the_kept_sizes_come_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FRAYLOG_NARRATIVE_CACHE_SIZE", "7")
    monkeypatch.setenv("FRAYLOG_ANSWER_CACHE_MB", "0.5")
    settings = Settings.from_env()
    assert settings.narrative_cache_size == 7 and settings.answer_cache_bytes == 2**19


def test_given_a_read_of_the_store_that_fails_when_told_on_then_the_log_is_told_anew() -> None:
    t = duel()
    stored = list(t.encounter.pending_events)
    failing = [False]
    asked: list[int] = []

    def events_after(_: UUID, after: int) -> Any:
        asked.append(after)
        for event in stored[after:]:
            if failing[0] and event.originator_version == len(stored):
                raise OSError("the store went away")
            yield event

    kept = KeptNarratives(5, events_after)
    eid = uuid4()
    with kept.told(eid, "en") as log:
        first = log.told(None, 0, None, None)
    t.run(c.AdjustHits(combatant=t.ids["T"], amount=-2, reason="trap"))
    t.run(c.AdjustHits(combatant=t.ids["T"], amount=-1, reason="trap"))
    stored, failing[0] = list(t.encounter.pending_events), True
    with pytest.raises(OSError), kept.told(eid, "en"):
        pass
    failing[0] = False
    with kept.told(eid, "en") as log:
        assert log.version == len(stored)
        assert log.told(None, 0, None, None)[: len(first)] == first
    assert asked == [0, len(first), 0]  # a fold that failed half-way is not told on from
