"""A command is decided on the encounter as this process keeps it, without a read of the
store first (infra.app.Fraylog.execute); another process's write is found when the save finds
its position taken, or when the command is refused, and the command is decided again on the
store's latest. What the cache keeps is never changed in place (SQLite and PostgreSQL)."""

from __future__ import annotations

import time
from typing import Any
from uuid import UUID

import pytest
from eventsourcing.persistence import IntegrityError

from domain import commands as c
from domain.errors import DomainError
from infra import app
from infra.app import Conflict, Fraylog
from tests.builders.novus import novus_stats


def an_encounter(fraylog: Fraylog) -> tuple[UUID, str]:
    eid = UUID(fraylog.create_encounter("Kept", "novus", "seeded", "s").state.id)
    a, _ = fraylog.add_combatant(eid, "A", "x", novus_stats(hits=30))
    return eid, a


def versions(fraylog: Fraylog, eid: UUID) -> list[int]:
    return [e.originator_version for e in fraylog.event_log(eid)]


def store_reads(fraylog: Fraylog, monkeypatch: pytest.MonkeyPatch) -> list[UUID]:
    """The encounters whose events `fraylog` reads from the store from now on."""
    reads: list[UUID] = []
    get = fraylog.events.get
    monkeypatch.setattr(
        fraylog.events,
        "get",
        lambda originator_id, **kw: reads.append(originator_id) or get(originator_id, **kw),
    )
    return reads


def test_given_a_kept_encounter_when_a_command_runs_then_the_store_is_not_read_first(
    fraylog: Fraylog, monkeypatch: pytest.MonkeyPatch
) -> None:
    eid, a = an_encounter(fraylog)
    fraylog.execute(eid, c.AdjustHits(combatant=a, amount=-1))
    reads = store_reads(fraylog, monkeypatch)
    # when
    recorded = fraylog.execute(eid, c.AdjustHits(combatant=a, amount=-2))
    # then: decided on what this process recorded last, and saved
    assert reads == []
    assert recorded.state.combatants[a].hits == 27
    monkeypatch.undo()
    assert fraylog.state(eid).combatants[a].hits == 27
    assert versions(fraylog, eid) == [1, 2, 3, 4]


def test_given_another_process_recorded_when_a_command_runs_here_then_it_follows_that_record(
    fraylog: Fraylog, other: Fraylog
) -> None:
    eid, a = an_encounter(fraylog)
    fraylog.execute(eid, c.AdjustHits(combatant=a, amount=-1))  # kept here at version 3
    other.execute(eid, c.AdjustHits(combatant=a, amount=-2))  # version 4, elsewhere
    # when: decided on version 3, its save finds position 4 taken, decided again on 4
    recorded = fraylog.execute(eid, c.AdjustHits(combatant=a, amount=-3))
    # then
    assert recorded.state.combatants[a].hits == 24
    assert recorded.events[0].originator_version == 5
    assert versions(fraylog, eid) == [1, 2, 3, 4, 5]
    assert other.state(eid).combatants[a].hits == 24


def test_given_another_process_added_a_combatant_when_a_command_names_it_here_then_it_runs(
    fraylog: Fraylog, other: Fraylog
) -> None:
    """Refused on what this process keeps (no such combatant there), accepted on the
    latest: the refusal is not the answer."""
    eid, a = an_encounter(fraylog)
    fraylog.execute(eid, c.AdjustHits(combatant=a, amount=-1))
    b, _ = other.add_combatant(eid, "B", "y", novus_stats(hits=20))
    # when
    recorded = fraylog.execute(eid, c.AdjustHits(combatant=b, amount=-5))
    # then
    assert recorded.state.combatants[b].hits == 15
    assert versions(fraylog, eid) == [1, 2, 3, 4, 5]


def test_given_another_process_recorded_when_the_expected_version_is_the_latest_then_it_runs(
    fraylog: Fraylog, other: Fraylog
) -> None:
    eid, a = an_encounter(fraylog)
    fraylog.execute(eid, c.AdjustHits(combatant=a, amount=-1))
    latest = other.execute(eid, c.AdjustHits(combatant=a, amount=-2)).state.version
    # when: the client read version 4 from the other process
    recorded = fraylog.execute(eid, c.AdjustHits(combatant=a, amount=-1, expected_version=latest))
    # then
    assert recorded.state.version == latest + 1
    # and an expected version behind the latest is refused as before, recording nothing
    with pytest.raises(Conflict):
        fraylog.execute(eid, c.AdjustHits(combatant=a, amount=-1, expected_version=latest))
    assert versions(fraylog, eid)[-1] == latest + 1


def test_given_another_process_recorded_when_a_command_is_refused_on_the_latest_too_then_nothing_is_recorded(  # noqa: E501
    fraylog: Fraylog, other: Fraylog
) -> None:
    eid, a = an_encounter(fraylog)
    fraylog.execute(eid, c.AdjustHits(combatant=a, amount=-1))
    other.execute(eid, c.AdjustHits(combatant=a, amount=-2))
    # when
    with pytest.raises(DomainError) as refused:
        fraylog.execute(eid, c.AdjustHits(combatant="nobody", amount=-1))
    # then
    assert refused.value.rule not in ("VERSION",)
    assert versions(fraylog, eid) == [1, 2, 3, 4]


def test_given_a_command_answered_when_this_process_catches_up_with_another_then_the_answer_stands(
    fraylog: Fraylog, other: Fraylog
) -> None:
    """The state a command answers with is what the cache keeps: fast-forwarding over
    another process's events makes a new copy, never changes it in place."""
    eid, a = an_encounter(fraylog)
    answered = fraylog.execute(eid, c.AdjustHits(combatant=a, amount=-1)).state
    other.execute(eid, c.AdjustHits(combatant=a, amount=-2))
    # when: a read here fast-forwards what this process keeps
    assert fraylog.state(eid).combatants[a].hits == 27
    # then
    assert answered.combatants[a].hits == 29
    assert answered.version == 3


def test_given_another_process_recorded_twice_lately_when_a_command_runs_here_then_it_reads_the_store_first(  # noqa: E501
    fraylog: Fraylog, other: Fraylog, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Workers sharing a busy encounter: deciding on what each keeps would lose most saves,
    so once another process's records are found twice within a minute, the store is read
    first again."""
    eid, a = an_encounter(fraylog)
    fraylog.execute(eid, c.AdjustHits(combatant=a, amount=-1))
    for amount in (-2, -3):
        other.execute(eid, c.AdjustHits(combatant=a, amount=amount))
        fraylog.execute(eid, c.AdjustHits(combatant=a, amount=-1))  # found out here
    reads = store_reads(fraylog, monkeypatch)
    # when
    recorded = fraylog.execute(eid, c.AdjustHits(combatant=a, amount=-4))
    # then
    assert reads == [eid]
    assert recorded.state.combatants[a].hits == 18


def test_given_another_process_found_twice_but_not_within_the_window_when_a_command_runs_here_then_it_is_decided_on_what_is_kept(  # noqa: E501
    fraylog: Fraylog, other: Fraylog, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two moves of a table between workers, further apart than ELSEWHERE_SECONDS (made
    short here), are two moves, not a shared encounter."""
    monkeypatch.setattr(app, "ELSEWHERE_SECONDS", 0.2)
    eid, a = an_encounter(fraylog)
    fraylog.execute(eid, c.AdjustHits(combatant=a, amount=-1))
    for _ in range(2):
        other.execute(eid, c.AdjustHits(combatant=a, amount=-1))
        fraylog.execute(eid, c.AdjustHits(combatant=a, amount=-1))  # found out here
        time.sleep(0.3)
    reads = store_reads(fraylog, monkeypatch)
    # when
    fraylog.execute(eid, c.AdjustHits(combatant=a, amount=-1))
    # then
    assert reads == []


def test_given_a_shared_encounter_when_the_window_passes_with_no_other_record_then_commands_are_decided_on_what_is_kept(  # noqa: E501
    fraylog: Fraylog, other: Fraylog, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(app, "ELSEWHERE_SECONDS", 0.2)
    eid, a = an_encounter(fraylog)
    fraylog.execute(eid, c.AdjustHits(combatant=a, amount=-1))
    for _ in range(2):  # found twice in a row: shared
        other.execute(eid, c.AdjustHits(combatant=a, amount=-1))
        fraylog.execute(eid, c.AdjustHits(combatant=a, amount=-1))
    reads = store_reads(fraylog, monkeypatch)
    fraylog.execute(eid, c.AdjustHits(combatant=a, amount=-1))
    assert reads == [eid]  # shared: read first
    # when: the window passes with only this process recording
    time.sleep(0.3)
    reads.clear()
    fraylog.execute(eid, c.AdjustHits(combatant=a, amount=-1))
    # then
    assert reads == []


def test_given_a_table_that_moved_here_from_another_process_when_a_command_runs_then_it_is_decided_on_what_is_kept(  # noqa: E501
    fraylog: Fraylog, other: Fraylog, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client whose connection now lands on this worker: the other worker's records are
    found once, when the first command here is decided again on the latest; the commands
    after it are decided on what this process keeps, without a read of the store first."""
    eid, a = an_encounter(fraylog)
    fraylog.execute(eid, c.AdjustHits(combatant=a, amount=-1))  # kept here
    for _ in range(3):  # the table played on the other worker a while
        other.execute(eid, c.AdjustHits(combatant=a, amount=-1))
    fraylog.execute(eid, c.AdjustHits(combatant=a, amount=-1))  # back here: found out
    reads = store_reads(fraylog, monkeypatch)
    # when
    recorded = fraylog.execute(eid, c.AdjustHits(combatant=a, amount=-2))
    # then
    assert reads == []
    assert recorded.state.combatants[a].hits == 23
    assert recorded.events[0].originator_version == 8


def test_given_a_commit_whose_answer_was_lost_when_its_retry_finds_its_positions_taken_then_it_is_recorded_once(  # noqa: E501
    fraylog: Fraylog, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A connection dropped after the commit: the recorder's retry finds the command's own
    events there (IntegrityError). The command was recorded: it is answered so, and it is
    not decided a second time."""
    eid, a = an_encounter(fraylog)
    fraylog.execute(eid, c.AdjustHits(combatant=a, amount=-1))
    record = fraylog._record
    calls = []

    def landed_then_lost(together: Any) -> Any:
        calls.append(together)
        recordings = record(together)
        if len(calls) == 1:
            raise IntegrityError("duplicate key: the retry of a commit that landed")
        return recordings

    monkeypatch.setattr(fraylog, "_record", landed_then_lost)
    # when
    recorded = fraylog.execute(eid, c.AdjustHits(combatant=a, amount=-5))
    # then: answered as recorded, and recorded once
    assert recorded.state.combatants[a].hits == 24
    assert versions(fraylog, eid) == [1, 2, 3, 4]
    assert fraylog.state(eid).combatants[a].hits == 24
