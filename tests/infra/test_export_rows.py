"""Exports made from the stored rows' JSON (infra.export_rows, what GET …/events?format=
ndjson|csv streams) are byte for byte those made from the domain events (projections.export):
on played fights of every rule book with a void, an undo and a redo, on SQLite and
PostgreSQL, the GM's and a player's (placeholders, concealed records), NDJSON and CSV,
whole and up to a position, across pages; on fights stored before an upcast too. And
`Fraylog.verify`, one pass over the stored rows, reports as the verification of the
records made from the events."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

from api import demo, demo_phantasia, demo_wits
from api.routes.reads import _export
from domain import commands as c
from domain.corrections import voided_by
from infra.access import PLAYER_ROLE, Grant
from infra.app import Fraylog
from infra.export_rows import StoredLog
from infra.settings import Settings
from projections.audit import NO_CHECKPOINT, verification
from projections.export import csv_records, ndjson_records, records, trailer
from projections.visibility import Sight, for_player

DEMOS = {"novus": demo, "wits": demo_wits, "phantasia": demo_phantasia}
PAGE = 7  # events a page: a fight's export crosses several
ODD = 'Zoë "the \\ Quick" \u2028 ☃ 🐉 \\u0041 <tab>\t'  # escapes the stored JSON must keep


def played(settings: Settings, ruleset: str) -> UUID:
    """A demo fight of the rule book, then a GM's note in odd characters, a void of its
    first roll, an undo and a redo."""
    book = DEMOS[ruleset]
    view, _ = book.play(settings, book.SEED, 2)
    eid = UUID(view["id"])
    with Fraylog(settings) as fraylog:
        first = next(x for x in view["combatants"])
        fraylog.execute(eid, c.TakeNote(text=ODD, combatant=first["id"]))
        rolled = next(e for e in fraylog.event_log(eid) if getattr(e, "rolls", None))
        fraylog.execute(eid, c.Void(target=rolled.originator_version, reason=ODD))
        fraylog.execute(eid, c.Undo())
        fraylog.execute(eid, c.Redo())
    return eid


def a_player(fraylog: Fraylog, eid: UUID) -> Sight:
    """A player acting for the first combatant, the last one hidden from him."""
    combatants = list(fraylog.state(eid).combatants)
    fraylog.execute(eid, c.HideCombatant(combatant=combatants[-1], until_acting=False))
    grant = Grant(str(eid), PLAYER_ROLE, frozenset({combatants[0]}), "player")
    return fraylog.sight(eid, grant)


def from_events(
    fraylog: Fraylog, eid: UUID, fmt: str, sight: Sight | None, until: int | None = None
) -> str:
    """The export as the route made it before: records of the domain events."""
    events = fraylog.event_log(eid, until)
    rows = for_player(records(events, voided_by(events)), sight)
    lines = csv_records(rows) if fmt == "csv" else ndjson_records(rows)
    latest = fraylog.checkpoints.latest(eid, events[-1].originator_version)
    return "".join(lines) + trailer(latest, fmt)


@pytest.fixture
def paged(own_settings: Settings) -> Settings:
    return replace(own_settings, page_size=PAGE)


@pytest.fixture(params=sorted(DEMOS))
def fight(request: pytest.FixtureRequest, paged: Settings) -> Iterator[tuple[Fraylog, UUID]]:
    eid = played(paged, request.param)
    with Fraylog(paged) as fraylog:
        yield fraylog, eid


@pytest.mark.parametrize("fmt", ["ndjson", "csv"])
def test_given_a_played_fight_with_corrections_when_exported_from_its_rows_then_byte_for_byte_as_from_its_events(  # noqa: E501
    fight: tuple[Fraylog, UUID], fmt: str
) -> None:
    fraylog, eid = fight
    last = len(fraylog.event_log(eid))
    player = a_player(fraylog, eid)
    assert fraylog.corrections(eid) and last > 3 * PAGE  # corrected, across pages

    for sight in (None, player):
        for until in (None, last // 2):
            made = "".join(_export(fraylog, eid, until, fmt, sight))
            assert made == from_events(fraylog, eid, fmt, sight, until), (sight, until)
    gm, theirs = (from_events(fraylog, eid, fmt, s) for s in (None, player))
    assert ('"redacted":true' if fmt == "ndjson" else ",Redacted,") in theirs  # the hidden one
    if fmt == "ndjson":
        assert json.dumps(ODD, ensure_ascii=False)[1:-1] in gm


def test_given_a_played_fight_when_its_store_is_verified_then_the_report_is_that_of_its_events_records(  # noqa: E501
    fight: tuple[Fraylog, UUID],
) -> None:
    fraylog, eid = fight
    player = a_player(fraylog, eid)
    for sight in (None, player):
        events = fraylog.event_log(eid)
        latest = fraylog.checkpoints.latest(eid, events[-1].originator_version)
        expected = verification(
            for_player(records(events), sight),
            NO_CHECKPOINT if latest is None else latest,
            fraylog.checkpoints.keys(),
        )
        report = fraylog.verify(eid, sight)
        assert report == expected
        assert report["ok"] and report["dice"]["checked"] > 0


def test_given_the_voids_of_a_fight_when_read_from_their_rows_alone_then_they_are_those_of_its_events(  # noqa: E501
    fight: tuple[Fraylog, UUID],
) -> None:
    fraylog, eid = fight
    log, events = StoredLog.of(fraylog), fraylog.event_log(eid)
    for until in (None, len(events) - 1, len(events) - 2):
        assert log.voided(eid, until) == voided_by(events[:until])
    assert log.voided(eid)  # the void and the redo void something


FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "spelled-defence.db"


def test_given_fights_stored_before_an_upcast_when_exported_from_their_rows_then_as_written(
    tmp_path: Path,
) -> None:
    copy = tmp_path / "old.db"
    shutil.copy(FIXTURE, copy)
    with Fraylog(Settings(sqlite_path=str(copy), page_size=PAGE)) as fraylog:
        for listed in fraylog.list_encounters():
            eid = UUID(listed["id"])
            for fmt in ("ndjson", "csv"):
                made = "".join(_export(fraylog, eid, None, fmt, None))
                assert made == from_events(fraylog, eid, fmt, None)
            assert fraylog.verify(eid)["ok"]
        written = "".join(_export(fraylog, eid, None, "ndjson", None))
    assert "defence" in written.lower()  # as written: what the hashes cover


def test_given_an_unknown_encounter_when_verified_then_not_found(fraylog: Fraylog) -> None:
    from infra.app import EncounterNotFound

    with pytest.raises(EncounterNotFound):
        fraylog.verify(UUID(int=7))


def test_given_a_played_fight_when_exported_then_only_its_creation_is_read_through_the_mapper(
    fight: tuple[Fraylog, UUID], monkeypatch: pytest.MonkeyPatch
) -> None:
    fraylog, eid = fight
    events = len(fraylog.event_log(eid))
    read: list[str] = []
    through = fraylog.mapper.to_domain_event

    def counted(stored: Any) -> Any:
        read.append(stored.topic)
        return through(stored)

    monkeypatch.setattr(fraylog.mapper, "to_domain_event", counted)
    lines = "".join(_export(fraylog, eid, None, "ndjson", None)).splitlines()
    assert len(lines) >= events > 1
    # the creation's row holds the aggregate's topic too: the mapper reads it
    assert [t.rsplit(":", 1)[1] for t in read] == ["EncounterCreated"]
