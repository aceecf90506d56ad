"""Events outlive the process; racing writers never lose an event (SQLite and PostgreSQL)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest

from domain import commands as c
from domain.dice import ManualDice
from domain.encounter import Encounter
from infra.app import Conflict, Fraylog
from infra.idempotency import UNNUMBERED
from tests.builders.novus import novus_stats


def test_given_a_recorded_fight_when_the_app_restarts_then_every_event_is_still_there(
    fraylog: Fraylog,
) -> None:
    eid = UUID(fraylog.create_encounter("Kept", "novus", "seeded", "s").state.id)
    a, _ = fraylog.add_combatant(eid, "A", "x", novus_stats())
    for _ in range(12):  # past two snapshots (interval 5)
        fraylog.execute(eid, c.AdjustHits(combatant=a, amount=-1))
    again = Fraylog(fraylog.settings)
    try:
        state = again.state(eid)
        assert state.version == 14 and state.combatants[a].hits == 18
        assert [e.originator_version for e in again.event_log(eid)] == list(range(1, 15))
        # loaded from a snapshot, the next event still chains to the last one's hash
        again.execute(eid, c.AdjustHits(combatant=a, amount=-1))
        assert again.verify(eid)["chain"] == {
            "ok": True,
            "events": 15,
            "broken_at": None,
            "reason": "",
            "redacted": 0,
            "concealed": 0,
        }
    finally:
        again.close()


def test_given_two_encounters_events_when_inserted_together_then_each_row_as_sent_in_its_order(
    fraylog: Fraylog,
) -> None:
    # given: two fights' events, interleaved, as a group commit hands them to the recorder
    fights = [Encounter.start(f"Table {i}", "novus", "seeded", f"s{i}") for i in range(2)]
    for fight in fights:
        fight.add_combatant("A", "x", novus_stats())
        fight.add_combatant("B", "y", novus_stats())
    pending = [list(fight.collect_events()) for fight in fights]
    events = [e for pair in zip(*pending, strict=True) for e in pair]
    stored = [fraylog.mapper.to_stored_event(e) for e in events]
    # when
    ids = fraylog.recorder.insert_events(stored)
    # then: one row each, in the order sent, with the ids returned; each fight reads back whole
    assert ids is not None and ids == sorted(ids)
    rows = fraylog.recorder.select_notifications(start=ids[0], limit=len(stored))
    assert [r.id for r in rows] == ids
    assert [(r.originator_id, r.originator_version, r.topic, r.state) for r in rows] == [
        (s.originator_id, s.originator_version, s.topic, s.state) for s in stored
    ]
    for fight in fights:
        assert fraylog.state(fight.id).combatants.keys() == fight.state.combatants.keys()


def test_given_postgres_when_events_are_inserted_then_their_channel_is_notified(
    fraylog: Fraylog,
) -> None:
    if fraylog.settings.backend != "postgres":
        pytest.skip("SQLite has no LISTEN/NOTIFY: its readers poll")
    import psycopg

    # given: a listener on the events' channel, as the live feed's subscription listens
    assert fraylog.settings.database_url is not None
    with psycopg.connect(fraylog.settings.database_url, autocommit=True) as listener:
        listener.execute(f'LISTEN "{fraylog.recorder.channel_name}"')  # type: ignore[attr-defined]
        # when
        fraylog.create_encounter("Heard", "novus", "seeded", "s")
        # then
        heard = list(listener.notifies(timeout=10, stop_after=1))
    assert [n.channel for n in heard] == [fraylog.recorder.channel_name]  # type: ignore[attr-defined]


def postgres_only(fraylog: Fraylog) -> None:
    if fraylog.settings.backend != "postgres":
        pytest.skip("one query a batch is PostgreSQL's recorder's; SQLite's has no such path")


def interleaved(fraylog: Fraylog, n: int) -> list[Any]:
    """`n` new fights' events, interleaved, stored as a group commit hands them over."""
    fights = [Encounter.start(f"Table {i}", "novus", "seeded", f"s{i}") for i in range(n)]
    for fight in fights:
        fight.add_combatant("A", "x", novus_stats())
    pending = [list(fight.collect_events()) for fight in fights]
    return [fraylog.mapper.to_stored_event(e) for pair in zip(*pending, strict=True) for e in pair]


def recorded_after(fraylog: Fraylog, last: int | None) -> list[Any]:
    """The notifications recorded after id `last` (None: all)."""
    return list(fraylog.recorder.select_notifications(start=(last or 0) + 1, limit=1000))


def test_given_a_batch_no_caller_numbers_when_recorded_then_one_query_commits_and_notifies(
    fraylog: Fraylog, monkeypatch: pytest.MonkeyPatch
) -> None:
    postgres_only(fraylog)
    import psycopg
    from eventsourcing.postgres import PostgresApplicationRecorder

    # given: three fights' events; the library's insert (a pipeline of each statement and
    # two syncs) refuses, so only the one query can record them
    stored = interleaved(fraylog, 3)
    last = fraylog.recorder.max_notification_id()

    def refused(*_: Any, **__: Any) -> None:
        raise AssertionError("the library's insert was used")

    monkeypatch.setattr(PostgresApplicationRecorder, "insert_events", refused)
    assert fraylog.settings.database_url is not None
    with psycopg.connect(fraylog.settings.database_url, autocommit=True) as listener:
        listener.execute(f'LISTEN "{fraylog.recorder.channel_name}"')  # type: ignore[attr-defined]
        # when
        ids = fraylog.recorder.insert_events(stored, **{UNNUMBERED: True})
        heard = list(listener.notifies(timeout=10, stop_after=1))
    # then: no ids asked for, none returned; each row as sent, numbered in the order sent;
    # the channel notified, as the live feed and the read models' runner follow it
    assert ids is None
    rows = recorded_after(fraylog, last)
    assert [(r.originator_id, r.originator_version, r.state) for r in rows] == [
        (s.originator_id, s.originator_version, s.state) for s in stored
    ]
    assert [n.channel for n in heard] == [fraylog.recorder.channel_name]  # type: ignore[attr-defined]


def test_given_a_position_taken_in_a_batch_recorded_at_once_then_none_of_it_is_recorded(
    fraylog: Fraylog,
) -> None:
    postgres_only(fraylog)
    from eventsourcing.persistence import IntegrityError

    # given: a fight recorded, then a batch of two new fights and that fight's first event
    last = fraylog.recorder.max_notification_id()
    stored = interleaved(fraylog, 1)
    fraylog.recorder.insert_events(stored, **{UNNUMBERED: True})
    batch = [*interleaved(fraylog, 2), stored[0]]
    # when
    with pytest.raises(IntegrityError):
        fraylog.recorder.insert_events(batch, **{UNNUMBERED: True})
    # then: nothing of the batch recorded; without the event taken, it records
    assert len(recorded_after(fraylog, last)) == len(stored)
    fraylog.recorder.insert_events(batch[:-1], **{UNNUMBERED: True})
    assert len(recorded_after(fraylog, last)) == len(stored) + len(batch) - 1


def test_given_two_writers_on_one_encounter_when_both_save_then_second_gets_409(
    fraylog: Fraylog,
) -> None:
    eid = UUID(fraylog.create_encounter("Race", "novus", "seeded", "s").state.id)
    a, _ = fraylog.add_combatant(eid, "A", "x", novus_stats())
    other = Fraylog(fraylog.settings)
    try:
        mine = fraylog.encounter(eid)
        theirs = other.encounter(eid)
        mine.execute(c.AdjustHits(combatant=a, amount=-1), dice=ManualDice({}))
        theirs.execute(c.AdjustHits(combatant=a, amount=-2), dice=ManualDice({}))
        fraylog.save(mine)
        with pytest.raises(Conflict):
            other._save(theirs)
        # the loser reloads and retries: both changes are kept, no version gap
        other.execute(eid, c.AdjustHits(combatant=a, amount=-2))
        assert [e.originator_version for e in fraylog.event_log(eid)] == [1, 2, 3, 4]
        assert fraylog.state(eid).combatants[a].hits == 27
    finally:
        other.close()


def test_given_two_apps_with_different_snapshot_intervals_then_each_keeps_its_own(tmp_path):
    from infra.settings import Settings

    a = Fraylog(Settings(sqlite_path=str(tmp_path / "a.db"), snapshot_interval=3))
    b = Fraylog(Settings(sqlite_path=str(tmp_path / "b.db"), snapshot_interval=1000))
    try:
        eid = UUID(a.create_encounter("Snap", "novus", "seeded", "s").state.id)
        x, _ = a.add_combatant(eid, "X", "", novus_stats())
        for _ in range(5):
            a.execute(eid, c.AdjustHits(combatant=x, amount=-1))
        assert [s.originator_version for s in a.snapshots.get(eid)] == [3, 6]
    finally:
        a.close(), b.close()


@pytest.mark.parametrize(("field", "value"), [("snapshot_interval", 0), ("cache_size", -1)])
def test_given_nonsense_settings_then_refused_at_start(field: str, value: int) -> None:
    from infra.settings import Settings

    with pytest.raises(ValueError):
        Settings(**{field: value})
