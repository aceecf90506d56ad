"""The view and the log answered from what is kept (infra.kept_reads, projections.kept_lines)
send the very bytes the full rebuild sends — every line told from event 1, the sight read
from the store — over played fights of each rule book with hidden combatants, health shown
by the GM, notes and corrections: for the GM and for players, in English and in Spanish, the
whole log, its pages and the log up to `until`. A read asked again reads no event from the
store; a longer log reads only the events after the kept ones. On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Iterator
from typing import Any
from uuid import UUID, uuid4

import pytest
from fastapi.testclient import TestClient
from pydantic import TypeAdapter

from api import schemas as s
from api.etag import json_bytes
from api.main import create_app
from api.routes.common import player_sight
from domain import commands as c
from domain.corrections import voided_by
from infra.access import Grant
from infra.app import Fraylog
from infra.settings import Settings
from projections.export import record_of
from projections.narrative import narrative
from projections.view import encounter_view
from projections.visibility import for_player, view_for_player
from tests.api.test_etag_and_log_pages import HIT, _phantasia_fight, _token
from tests.api.test_lang import novus_table
from tests.api.test_visibility_property import BOOKS, seeded_encounter
from tests.builders import add_combatant, command
from tests.builders.novus import novus_stats
from tests.conftest import PG_URL, cut_off
from tests.tokens import TokenJar

_LOG: TypeAdapter[Any] = TypeAdapter(s.NarrativeLog)
_VIEW: TypeAdapter[Any] = TypeAdapter(s.EncounterPublic)


# -- the full rebuild: the log and the view as they were made before anything was kept ----


def rebuilt_log(
    fraylog: Fraylog,
    eid: str,
    grant: Grant | None,
    lang: str = "en",
    until: int | None = None,
    after: int | None = None,
    limit: int | None = None,
) -> bytes:
    encounter_id = UUID(eid)
    events = fraylog.event_log(encounter_id, until)
    sight = player_sight(fraylog, encounter_id, grant)
    end = None
    if after is not None or limit is not None:
        size = min(limit or fraylog.settings.page_size, fraylog.settings.page_size)
        end = (after or 0) + size
    told = events if end is None else [e for e in events if e.originator_version <= end]
    page = [e for e in told if e.originator_version > (after or 0)]
    kept = {r["position"] for r in for_player(map(record_of, page), sight) if "type" in r}
    voided = voided_by(events)
    lines = [
        {**line, "voided_by": voided.get(line["position"])}
        for line in narrative(told, lang, sight)  # type: ignore[arg-type]
        if line["position"] in kept
    ]
    last = events[-1].originator_version
    log = {"lines": lines, "next_after": end if end is not None and end < last else None}
    return json_bytes(_LOG, log)


def rebuilt_view(fraylog: Fraylog, eid: str, grant: Grant | None, version: int | None) -> bytes:
    state = fraylog.state(UUID(eid), version)
    sight = player_sight(fraylog, UUID(eid), grant)
    return json_bytes(_VIEW, view_for_player(encounter_view(state), sight))


# -- a played fight ---------------------------------------------------------------------


def _add(client: TestClient, eid: str, name: str, stats: dict[str, Any], **kw: Any) -> str:
    r = client.post(f"/encounters/{eid}/combatants", json={"name": name, "stats": stats, **kw})
    assert r.status_code == 201, r.text
    return r.json()["id"]


def _readers(client: TestClient, fraylog: Fraylog, eid: str, tokens: list[str]) -> list[Any]:
    """(headers, grant) of the GM (None: the client's own token) and of each player."""
    readers: list[Any] = [(None, None)]
    for token in tokens:
        readers.append(({"Authorization": f"Bearer {token}"}, fraylog.access.grant(token)))
    return readers


def _same_as_rebuilt(
    client: TestClient, fraylog: Fraylog, eid: str, readers: list[Any], langs: list[str]
) -> int:
    """Every read of the log and the view by each reader equals the full rebuild's bytes
    (asked twice: the kept answer too); the number of reads compared."""
    last = len(client.get(f"/encounters/{eid}/events").json()["events"])
    asks: list[dict[str, Any]] = [{}, {"until": max(1, last // 2)}, {"until": last + 5}]
    asks += [{"after": 0, "limit": 3}, {"after": last // 3, "limit": 4}, {"after": last - 2}]
    asks += [{"limit": 5, "until": max(1, last - 3)}, {"after": last + 1}]
    compared = 0
    for headers, grant in readers:
        as_reader: dict[str, Any] = {"headers": headers, "auth": None} if headers else {}
        for lang in langs:
            for params in asks:
                expected = rebuilt_log(fraylog, eid, grant, lang, **params)
                for _ in range(2):
                    r = client.get(
                        f"/encounters/{eid}/log", params={"lang": lang, **params}, **as_reader
                    )
                    assert r.status_code == 200, r.text
                    assert r.content == expected, (lang, params, grant)
                compared += 1
        for version in (None, 1, max(1, last // 2), last + 3):
            expected = rebuilt_view(fraylog, eid, grant, version)
            params = {} if version is None else {"version": version}
            for _ in range(2):
                r = client.get(f"/encounters/{eid}", params=params, **as_reader)
                assert r.status_code == 200, r.text
                assert r.content == expected, (version, grant)
            compared += 1
    return compared


@pytest.mark.parametrize("book", sorted(BOOKS))
def test_given_played_fights_when_reading_then_the_kept_answers_are_the_rebuilt_bytes(
    client: TestClient, fraylog: Fraylog, book: str
) -> None:
    # given: a fight with a hero and his ally (each a player's), a foe and a hidden one
    hero_stats, foe_stats = BOOKS[book]
    eid = seeded_encounter(client, book, "Kept")
    hero = _add(client, eid, "Hero", hero_stats, side="a")
    ally = _add(client, eid, "Ally", hero_stats, side="a")
    foe = _add(client, eid, "Foe", foe_stats, side="b")
    _add(client, eid, "Zqx Lurker", foe_stats, side="b", hidden=True, until_acting=False)
    tokens = [_token(client, eid, [hero])["Authorization"].removeprefix("Bearer ")]
    langs = ["en", "es"] if book == "phantasia" else ["en"]
    dice = random.Random(book)
    compared = 0
    for step in range(18):
        # when: the fight goes on, the GM shows health, notes, reveals, corrects
        if step == 6:
            tokens.append(_token(client, eid, [ally])["Authorization"].removeprefix("Bearer "))
        extra = {
            3: {"type": "show_health", "shown": "exact", "combatant": foe},
            5: {"type": "take_note", "text": "Zqx is near", "combatant": foe},
            8: {"type": "undo"},
            11: {"type": "show_health", "shown": "none", "party": True},
            14: {"type": "void", "target": 9, "reason": "disputed"},
            15: {"type": "redo"},
        }
        body = extra.get(step)
        if body is None:
            offered = client.get(f"/encounters/{eid}/choices").json()["choices"]
            if not offered:
                break
            body = dice.choice(offered)["command"]
        r = client.post(f"/encounters/{eid}/commands", json=body)
        assert r.status_code in (200, 409, 422), r.text
        # then: every read equals the full rebuild, now and as it was
        if step % 3 == 2 or step in extra:
            readers = _readers(client, fraylog, eid, tokens)
            compared += _same_as_rebuilt(client, fraylog, eid, readers, langs)
    assert compared > 100
    types = {e["type"] for e in client.get(f"/encounters/{eid}/events").json()["events"]}
    assert {"HealthShown", "NoteTaken", "CommandUndone"} <= types


def test_given_a_phantasia_fight_with_an_undo_then_spanish_pages_are_the_rebuilt_bytes(
    client: TestClient, fraylog: Fraylog
) -> None:
    eid = _phantasia_fight(client)
    readers = _readers(client, fraylog, eid, [])
    assert _same_as_rebuilt(client, fraylog, eid, readers, ["en", "es"]) > 10


# -- what is read from the store ----------------------------------------------------------


def test_given_a_read_log_when_asked_again_and_then_after_an_event_then_only_new_events_read(
    client: TestClient, fraylog: Fraylog, monkeypatch: pytest.MonkeyPatch
) -> None:
    eid, brakka = novus_table(client)
    for _ in range(4):
        command(client, eid, HIT | {"combatant": brakka})
    asked: list[int] = []
    reading = fraylog.event_pages

    def event_pages(encounter_id: UUID, after: int = 0, until: int | None = None) -> Any:
        asked.append(after)
        return reading(encounter_id, after, until)

    monkeypatch.setattr(fraylog, "event_pages", event_pages)
    monkeypatch.setattr(fraylog, "event_log", None)  # the log never rereads the whole log
    first = client.get(f"/encounters/{eid}/log")
    assert first.status_code == 200, first.text
    assert asked == [0]
    again = client.get(f"/encounters/{eid}/log", headers={"If-None-Match": first.headers["etag"]})
    assert again.status_code == 304 and asked == [0]  # the kept answer: nothing read
    assert client.get(f"/encounters/{eid}/log").content == first.content and asked == [0]
    command(client, eid, HIT | {"combatant": brakka})
    last = len(first.json()["lines"])
    longer = client.get(f"/encounters/{eid}/log")
    assert asked == [0, last]  # told on from the last kept line
    assert len(longer.json()["lines"]) == last + 1
    assert longer.json()["lines"][:last] == first.json()["lines"]


def test_given_a_new_player_token_when_a_player_reads_the_log_again_then_the_party_shows(
    client: TestClient, fraylog: Fraylog
) -> None:
    """No event: the goblin joins the party when a token names him, and the party's health
    shows exact where the GM's combatants' is described (docs/visibility.md): his player's
    log tells the goblin's hits from then on, as a rebuild does."""
    eid, brakka = novus_table(client)
    goblin = add_combatant(client, eid, "Goblin", novus_stats(), side="héroes")
    command(client, eid, HIT | {"combatant": goblin})
    player = _token(client, eid, [brakka])
    grant = fraylog.access.grant(player["Authorization"].removeprefix("Bearer "))
    before = client.get(f"/encounters/{eid}/log", headers=player, auth=None)
    assert before.content == rebuilt_log(fraylog, eid, grant)
    _token(client, eid, [goblin])
    held = {"If-None-Match": before.headers["etag"]} | player
    after = client.get(f"/encounters/{eid}/log", headers=held, auth=None)
    assert after.status_code == 200, after.text
    assert after.content == rebuilt_log(fraylog, eid, grant) != before.content
    assert "29" in after.json()["lines"][-1]["text"] and "29" not in before.text


def test_given_a_correction_when_reading_the_log_again_then_the_voided_lines_are_marked(
    client: TestClient,
) -> None:
    eid, brakka = novus_table(client)
    command(client, eid, HIT | {"combatant": brakka})
    before = client.get(f"/encounters/{eid}/log").json()["lines"]
    assert before[-1]["voided_by"] is None
    command(client, eid, {"type": "undo"})
    after = client.get(f"/encounters/{eid}/log").json()["lines"]
    assert after[len(before) - 1]["voided_by"] == after[-1]["position"]
    as_it_was = client.get(f"/encounters/{eid}/log", params={"until": len(before)}).json()
    assert as_it_was["lines"] == before  # up to `until`: the correction after it counts not


def test_given_another_process_records_when_the_gm_and_a_player_read_again_then_they_see_it(
    client: TestClient, fraylog: Fraylog
) -> None:
    """Another process on the same store (another worker, the CLI) is heard by no listener
    here: each read asks the store for the encounter's last position."""
    eid, brakka = novus_table(client)
    player = _token(client, eid, [brakka])
    reads = [({}, "/log"), ({}, ""), ({"headers": player, "auth": None}, "/log")]
    before = [client.get(f"/encounters/{eid}{path}", **kw) for kw, path in reads]
    other = Fraylog(fraylog.settings)
    try:
        other.execute(UUID(eid), c.AdjustHits(combatant=brakka, amount=-3, reason="elsewhere"))
    finally:
        other.close()
    for (kw, path), was in zip(reads, before, strict=True):
        held = {"If-None-Match": was.headers["etag"]} | kw.pop("headers", {})
        now = client.get(f"/encounters/{eid}{path}", headers=held, **kw)
        assert now.status_code == 200, (path, now.status_code)
        assert "elsewhere" in now.text or now.json()["version"] == was.json()["version"] + 1


def test_given_the_store_when_asked_for_the_last_position_here_then_sqlite_files_only(
    fraylog: Fraylog,
) -> None:
    eid = UUID(fraylog.create_encounter("Here", "novus", "manual").state.id)
    here = fraylog.last_position_here(eid)
    if fraylog.settings.backend == "sqlite":
        assert here == fraylog.last_position(eid) == 1
        assert fraylog.last_position_here(uuid4()) is None
    else:
        assert here is None


def test_given_the_store_when_asked_for_the_last_position_on_the_loop_then_postgres_only(
    fraylog: Fraylog,
) -> None:
    """Awaited on the serving loop (infra.kept_reads.PositionsAsync): the store's position on
    PostgreSQL, on the loop that opened its connection (or, once that loop is closed, the
    next one); None elsewhere (the caller then reads through the store)."""
    eid = UUID(fraylog.create_encounter("On the loop", "novus", "manual").state.id)

    async def read(*ids: UUID) -> list[int | None]:
        return [await fraylog.last_position_async(i) for i in ids]

    serving = asyncio.new_event_loop()
    try:
        first = serving.run_until_complete(read(eid, uuid4()))
        another = asyncio.run(read(eid))  # while the serving loop is open
        serving.run_until_complete(fraylog.close_reads_on_loop())
    finally:
        serving.close()
    if fraylog.settings.backend == "sqlite":
        assert (first, another) == ([None, None], [None])
        return
    assert (first, another) == ([fraylog.last_position(eid), None], [None]) == ([1, None], [None])

    async def read_and_close() -> list[int | None]:
        try:
            return await read(eid)
        finally:
            await fraylog.close_reads_on_loop()

    assert asyncio.run(read_and_close()) == [1]  # the next loop, once the first is closed


@pytest.fixture
def pg_fraylog(pg_schema: str) -> Iterator[Fraylog]:
    """A Fraylog on PostgreSQL (skipped, with the reason, where it is not reachable)."""
    app = Fraylog(Settings(database_url=PG_URL, postgres_schema=pg_schema, snapshot_interval=5))
    yield app
    app.close()


@pytest.mark.postgres
def test_given_reads_asking_together_then_each_gets_its_encounters_position_from_fewer_queries(
    pg_fraylog: Fraylog,
) -> None:
    fraylog = pg_fraylog
    fights = [UUID(fraylog.create_encounter(f"F{i}", "novus", "manual").state.id) for i in range(5)]
    for n, eid in enumerate(fights):  # positions 1..5
        for i in range(n):
            fraylog.add_combatant(eid, f"C{i}", "x", novus_stats())
    asked = [*fights * 8, uuid4()]

    async def read_all() -> list[int | None]:
        try:
            return await asyncio.gather(*(fraylog.last_position_async(e) for e in asked))
        finally:
            await fraylog.close_reads_on_loop()

    answers = asyncio.run(read_all())
    assert answers == [*[1, 2, 3, 4, 5] * 8, None]
    assert 1 <= fraylog._positions_async.queries < len(asked)  # type: ignore[union-attr]


@pytest.mark.postgres
def test_given_reads_always_out_when_an_event_is_recorded_then_the_next_read_sees_it(
    pg_fraylog: Fraylog,
) -> None:
    """A read that asks while a query is out is answered by a later query: never by one
    sent before it asked, which may have missed an event recorded meanwhile."""
    fraylog = pg_fraylog
    eid = UUID(fraylog.create_encounter("Fresh", "novus", "manual").state.id)
    hero, _ = fraylog.add_combatant(eid, "Hero", "x", novus_stats(hits=30))

    async def watch() -> None:
        while True:
            await fraylog.last_position_async(eid)

    async def record_and_read() -> list[tuple[int, int | None]]:
        loop = asyncio.get_running_loop()
        watchers = [asyncio.create_task(watch()) for _ in range(8)]
        seen = []
        try:
            for _ in range(30):
                await asyncio.sleep(0.002)  # queries out, reads waiting
                done = await loop.run_in_executor(
                    None, fraylog.execute, eid, c.AdjustHits(combatant=hero, amount=-1, reason="")
                )
                seen.append((done.state.version, await fraylog.last_position_async(eid)))
        finally:
            for w in watchers:
                w.cancel()
            await asyncio.gather(*watchers, return_exceptions=True)
            await fraylog.close_reads_on_loop()
        return seen

    seen = asyncio.run(record_and_read())
    assert [read for _, read in seen] == [recorded for recorded, _ in seen]
    assert fraylog._positions_async.queries > 30  # type: ignore[union-attr]  # kept busy


@pytest.mark.postgres
def test_given_the_gms_read_connection_dropped_when_reading_then_answered_and_opened_again(
    pg_fraylog: Fraylog, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A PostgreSQL restart, say: the read that finds its connection gone, and those in the
    rest after it, are answered through the store; the next read after the rest opens a new
    one."""
    monkeypatch.setattr(type(pg_fraylog._positions_async), "REST_SECONDS", 0.2)
    with TestClient(create_app(fraylog=pg_fraylog)) as client:
        client.auth = TokenJar()
        eid, brakka = novus_table(client)
        assert client.get(f"/encounters/{eid}").status_code == 200
        assert _terminate_positions_reader(pg_fraylog) == 1
        command(client, eid, {"type": "adjust_hits", "combatant": brakka, "amount": -2})
        last = pg_fraylog.last_position(UUID(eid))
        assert client.get(f"/encounters/{eid}").json()["version"] == last
        assert client.get(f"/encounters/{eid}/log").json()["lines"][-1]["position"] == last
        assert _terminate_positions_reader(pg_fraylog) == 0  # resting: not opened again yet
        time.sleep(0.3)
        assert client.get(f"/encounters/{eid}").json()["version"] == last
        assert _terminate_positions_reader(pg_fraylog) == 1  # opened again


def _terminate_positions_reader(fraylog: Fraylog) -> int:
    """Ends the connection the GM's reads hold (found by its application name)."""
    return cut_off(fraylog._positions_async.application_name)  # type: ignore[union-attr]
