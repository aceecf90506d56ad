"""A correction refolds from the latest snapshot before the earliest event whose voided
status it changes (as of that snapshot), reading only the events after it, and records
what a refold of the whole history records."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest

from domain import commands as c
from domain.corrections import changes, fold_without, voided_by
from domain.fold import fold
from infra.app import Fraylog
from infra.settings import Settings
from tests.builders.novus import novus_stats
from tests.infra.test_upcasting import old_store  # noqa: F401 (a fixture)


def whole_refold_changes(fraylog: Fraylog, eid: UUID, correction: Any) -> list[dict[str, Any]]:
    """The changes a correction at its position records when the whole history is refolded."""
    n = correction.originator_version
    events = fraylog.event_log(eid, n)
    before = fold(events[: n - 1])
    assert before is not None
    whole = fold_without(events[: n - 1], voided_by(events))
    return changes(before.model_dump(), whole.model_dump())


class Reads:
    """The positions of the stored events read through `fraylog.events.get` while installed
    (the aggregate's load and the correction's own reads)."""

    def __init__(self, fraylog: Fraylog, monkeypatch: pytest.MonkeyPatch) -> None:
        self.positions: set[int] = set()
        real = fraylog.events.get

        def get(originator_id: UUID, **kw: Any) -> list[Any]:
            events = list(real(originator_id, **kw))
            self.positions.update(e.originator_version for e in events)
            return events

        monkeypatch.setattr(fraylog.events, "get", get)

    @property
    def earliest(self) -> int:
        return min(self.positions)


def fight(fraylog: Fraylog, adjustments: int, dice: str = "seeded") -> tuple[UUID, list[str]]:
    """A Novus fight whose initiative is rolled (one roll per combatant), then the GM's
    AdjustHits, one event each."""
    seed = "snap" if dice == "seeded" else None
    eid = UUID(fraylog.create_encounter("Snap", "novus", dice, seed).state.id)
    ids = [fraylog.add_combatant(eid, n, s, novus_stats())[0] for n, s in (("A", "a"), ("B", "b"))]
    fraylog.execute(eid, c.RollInitiative())
    adjust(fraylog, eid, ids, adjustments)
    return eid, ids


def adjust(fraylog: Fraylog, eid: UUID, ids: list[str], n: int) -> None:
    for i in range(n):
        fraylog.execute(eid, c.AdjustHits(combatant=ids[i % 2], amount=-1 - i % 3))


def rolls(fraylog: Fraylog, eid: UUID) -> list[int]:
    return [e.originator_version for e in fraylog.event_log(eid) if getattr(e, "rolls", None)]


def test_given_a_long_fight_when_the_last_command_is_undone_then_only_what_follows_the_snapshot_is_read(  # noqa: E501
    fraylog: Fraylog, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given a fight of 37 events, snapshots every 5
    eid, _ = fight(fraylog, 32)
    assert fraylog.state(eid).version == 37
    reads = Reads(fraylog, monkeypatch)
    # when the last command (event 37) is undone
    undo = fraylog.execute(eid, c.Undo()).events[0]
    # then nothing before the snapshot at 35 was read, and the changes are the whole refold's
    assert undo.cascade == [37]
    assert reads.earliest == 36
    assert undo.changes and undo.changes == whole_refold_changes(fraylog, eid, undo)


def test_given_a_roll_before_the_snapshots_when_voided_then_the_refold_starts_before_it(
    fraylog: Fraylog, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given a fight whose initiative rolls (events 4, 5) are followed by snapshots at 5 .. 30
    eid, _ = fight(fraylog, 28)
    first = rolls(fraylog, eid)[0]
    reads = Reads(fraylog, monkeypatch)
    # when the first roll is voided
    void = fraylog.execute(eid, c.Void(target=first, reason="off the table")).events[0]
    # then the events from the start were read (a snapshot after the roll holds it)
    assert reads.earliest == 1
    assert void.changes and void.changes == whole_refold_changes(fraylog, eid, void)


def test_given_a_void_when_it_is_voided_then_the_refold_starts_from_the_state_before_it(
    fraylog: Fraylog, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given a fight whose first roll is voided at event 33, after snapshots up to 30
    eid, _ = fight(fraylog, 27)
    hits_played = [x.hits for x in fraylog.state(eid).combatants.values()]
    ip_played = [x.ip for x in fraylog.state(eid).combatants.values()]
    void = fraylog.execute(eid, c.Void(target=rolls(fraylog, eid)[0], reason="x")).events[0]
    assert void.originator_version == 33
    reads = Reads(fraylog, monkeypatch)
    # when that void is voided (the roll restored)
    again = fraylog.execute(eid, c.Void(target=33, reason="it stood")).events[0]
    # then the refold started at 32, from the snapshot at 30, not before the roll
    assert reads.earliest == 31
    assert again.changes == whole_refold_changes(fraylog, eid, again)
    state = fraylog.state(eid)
    assert [x.ip for x in state.combatants.values()] == ip_played
    assert [x.hits for x in state.combatants.values()] == hits_played


def test_given_a_roll_voided_and_restored_when_voided_again_then_the_events_between_are_not_read(
    fraylog: Fraylog, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given the first roll (event 4) voided at 33, that void voided at 34
    eid, _ = fight(fraylog, 27)
    first = rolls(fraylog, eid)[0]
    void = fraylog.execute(eid, c.Void(target=first, reason="x")).events[0]
    fraylog.execute(eid, c.Void(target=void.originator_version, reason="y"))
    reads = Reads(fraylog, monkeypatch)
    # when the roll is voided again
    again = fraylog.execute(eid, c.Void(target=first, reason="z")).events[0]
    # then the roll alone was read, and the events from the snapshot at 30: the first void's
    # cascade holds its consequences up to 33, the state at 33 holds it voided
    assert (first, again.cascade) == (4, [4])
    assert reads.positions == {4, 31, 32, 33, 34}
    assert again.changes == whole_refold_changes(fraylog, eid, again)


def test_given_undo_and_redo_after_other_corrections_then_each_records_the_whole_refolds_changes(
    fraylog: Fraylog,
) -> None:
    # given a fight with a void, an undo, more commands
    eid, ids = fight(fraylog, 12)
    first, second = rolls(fraylog, eid)[:2]
    recorded = [fraylog.execute(eid, c.Void(target=first, reason="x")).events[0]]
    adjust(fraylog, eid, ids, 6)
    recorded.append(fraylog.execute(eid, c.Undo()).events[0])
    adjust(fraylog, eid, ids, 4)
    # when a second roll is voided, that void voided, the last command undone, then redone
    void = fraylog.execute(eid, c.Void(target=second, reason="z")).events[0]
    recorded.append(void)
    recorded.append(
        fraylog.execute(eid, c.Void(target=void.originator_version, reason="y")).events[0]
    )
    recorded.append(fraylog.execute(eid, c.Undo()).events[0])
    recorded.append(fraylog.execute(eid, c.Redo()).events[0])
    # then each recorded the changes of a refold of the whole history
    for correction in recorded:
        assert correction.changes == whole_refold_changes(fraylog, eid, correction)
    events = fraylog.event_log(eid)
    assert fraylog.state(eid).model_dump() == fold_without(events, voided_by(events)).model_dump()


def test_given_server_dice_revealed_mid_fight_when_a_later_roll_is_voided_then_the_dice_state_stays(
    fraylog: Fraylog,
) -> None:
    # given a fight on server dice whose initiative was rolled, then its secret revealed
    eid, ids = fight(fraylog, 3, dice="server")
    fraylog.execute(eid, c.RevealDice())
    adjust(fraylog, eid, ids, 9)
    before = fraylog.state(eid)
    # when a roll of the first epoch is voided
    void = fraylog.execute(eid, c.Void(target=rolls(fraylog, eid)[0], reason="x")).events[0]
    # then the changes are the whole refold's, and the dice epoch and commitment stay
    assert void.changes == whole_refold_changes(fraylog, eid, void)
    after = fraylog.state(eid)
    assert (after.dice_epoch, after.dice_commitment) == (before.dice_epoch, before.dice_commitment)
    assert after.dice_epoch == 1


def test_given_old_snapshots_when_the_last_command_is_undone_then_the_refold_respells_them(
    old_store: Settings,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # given the fights stored before `defense`, with snapshots in the old spelling: Wits's at
    # 12 and 56 (its last command: 56), PHANTÄSIA's at 29 and 70 (its last: 69, 70), Novus's
    # at 48 only (its last: 46 .. 48)
    earliest = {"wits": 13, "phantasia": 30, "novus": 1}
    with Fraylog(old_store) as fraylog:
        for e in fraylog.list_encounters():
            eid = UUID(e["id"])
            reads = Reads(fraylog, monkeypatch)
            # when the last command is undone
            undo = fraylog.execute(eid, c.Undo()).events[0]
            # then the refold started from the old snapshot before it (none for Novus's) and
            # recorded what the whole refold, in today's words, records
            assert reads.earliest == earliest[e["ruleset"]]
            assert undo.changes and undo.changes == whole_refold_changes(fraylog, eid, undo)
            monkeypatch.undo()
