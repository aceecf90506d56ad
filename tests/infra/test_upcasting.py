"""Fights stored before `defence` became `defense` (tests/fixtures/spelled-defence.db: the
three demos written by the code of commit 8a4b54b, with snapshots taken mid-fight) still
load, fold, replay, verify and play on: read in today's words, exported as written."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from uuid import UUID

import pytest

from domain import commands as c
from domain.fold import fold
from infra.app import Fraylog
from infra.settings import Settings
from projections.export import records
from projections.narrative import narrative
from projections.view import encounter_view

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "spelled-defence.db"


@pytest.fixture
def old_store(tmp_path: Path) -> Settings:
    """Given a copy of the store written before the respelling."""
    copy = tmp_path / "old.db"
    shutil.copy(FIXTURE, copy)
    with sqlite3.connect(copy) as db:  # it really is the old spelling
        assert db.execute(
            "select count(*) from stored_events where topic like '%DefenceDeclared'"
        ).fetchone()[0]
        assert db.execute(
            "select count(*) from stored_snapshots where cast(state as text) like '%defence%'"
        ).fetchone()[0]
    return Settings(sqlite_path=str(copy), snapshot_interval=7)


def test_given_old_fights_when_read_then_every_version_folds_in_todays_words(
    old_store: Settings,
) -> None:
    with Fraylog(old_store) as fraylog:
        encounters = fraylog.list_encounters()
        assert {e["ruleset"] for e in encounters} == {"novus", "wits", "phantasia"}
        for e in encounters:
            eid = UUID(e["id"])
            log = fraylog.event_log(eid)
            for version in range(1, len(log) + 1):
                from_snapshots = encounter_view(fraylog.state(eid, version))
                folded = encounter_view(fold(log[:version]))
                assert from_snapshots == folded
                assert "defence" not in json.dumps(folded).lower()
            declared = [x for x in log if type(x).__name__ == "DefenseDeclared"]
            if e["ruleset"] == "wits":
                assert declared and all(
                    x.recorded_as["type"] == "DefenceDeclared" for x in declared
                )
                lines = [line["text"] for line in narrative(log)]
                assert any("Total Defense" in text for text in lines)


def test_given_old_fights_when_verified_or_exported_then_the_record_as_written_holds(
    old_store: Settings,
) -> None:
    with Fraylog(old_store) as fraylog:
        for e in fraylog.list_encounters():
            eid = UUID(e["id"])
            report = fraylog.verify(eid)
            assert report["ok"] and report["chain"]["ok"], report
            exported = json.dumps(list(records(fraylog.event_log(eid))))
            if e["ruleset"] != "novus":
                assert "defence" in exported.lower()  # as written, which the hashes cover


def test_given_an_old_fight_when_played_on_and_forked_then_new_events_are_in_todays_words(
    old_store: Settings,
) -> None:
    with Fraylog(old_store) as fraylog:
        wits = next(e for e in fraylog.list_encounters() if e["ruleset"] == "wits")
        eid = UUID(wits["id"])
        someone = next(iter(fraylog.state(eid).combatants))
        fraylog.execute(eid, c.AdjustHits(combatant=someone, amount=-1, reason="a late scratch"))
        assert fraylog.verify(eid)["ok"]
        fork = fraylog.fork(eid, 20, "What if")
        fork_id = UUID(fork.state.id)
        assert fraylog.verify(fork_id)["chain"]["ok"]
        copied = json.dumps(list(records(fraylog.event_log(fork_id))))
        assert "defence" not in copied.lower() and "DefenseDeclared" in copied
    with sqlite3.connect(old_store.sqlite_path) as db:
        (state,) = db.execute(
            "select state from stored_events where originator_id = ? "
            "order by originator_version desc limit 1",
            (eid.hex,),
        ).fetchone()
    assert json.loads(state)["class_version"] == 2
