"""fraylog's SQLite recorder selects an encounter's events as the library's does (infra.idempotency
`MarkingSQLiteRecorder.select_events`: the shared id converted once): the same stored events,
for every combination of its arguments."""

from __future__ import annotations

import itertools
from uuid import UUID, uuid4

from eventsourcing.sqlite import SQLiteApplicationRecorder

from domain import commands as c
from infra.app import Fraylog
from infra.settings import Settings
from tests.builders.novus import novus_stats


def test_given_an_encounter_when_its_events_are_selected_then_the_rows_are_the_librarys(
    tmp_path,
) -> None:
    with Fraylog(Settings(sqlite_path=str(tmp_path / "select.db"))) as fraylog:
        eid = UUID(fraylog.create_encounter("Select", "novus", "seeded", "s").state.id)
        a, _ = fraylog.add_combatant(eid, "A", "x", novus_stats(hits=30))
        for _ in range(12):
            fraylog.execute(eid, c.AdjustHits(combatant=a, amount=-1))
        recorder = fraylog.recorder
        asked = itertools.product(
            [eid, eid.hex, uuid4(), "no such id"], [None, 3], [None, 9], [False, True], [None, 4]
        )
        for originator_id, gt, lte, desc, limit in asked:
            # when
            ours = recorder.select_events(originator_id, gt=gt, lte=lte, desc=desc, limit=limit)
            # then
            theirs = SQLiteApplicationRecorder.select_events(
                recorder, originator_id, gt=gt, lte=lte, desc=desc, limit=limit
            )
            assert ours == theirs, (originator_id, gt, lte, desc, limit)
        assert len(recorder.select_events(eid)) == 14
