"""What a token allows, read on the event loop (infra.access `GrantsOnLoop`, through
infra.loop_connections `AskedTogether`): on PostgreSQL, the tokens asked together read in
one query, each read answered by a query sent after it asked; on SQLite, or on a loop that
did not open the connection, left to the caller (who reads in a worker thread)."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar
from uuid import UUID

import pytest

from infra.access import Grant, token_id
from infra.app import Fraylog
from infra.settings import Settings
from tests.conftest import PG_URL, cut_off

T = TypeVar("T")


@pytest.fixture
def fraylog(settings: Settings) -> Iterator[Fraylog]:
    """As each of several workers is: every token read for every request."""
    app = Fraylog(dataclasses.replace(settings, grant_cache_seconds=0))
    yield app
    app.close()


@pytest.fixture
def pg_fraylog(pg_schema: str) -> Iterator[Fraylog]:
    """The same, on PostgreSQL (skipped, with the reason, where it is not reachable)."""
    app = Fraylog(Settings(database_url=PG_URL, postgres_schema=pg_schema, grant_cache_seconds=0))
    yield app
    app.close()


def tables(fraylog: Fraylog, n: int) -> list[tuple[str, str]]:
    """`n` encounters and a GM token of each."""
    made = []
    for i in range(n):
        eid = fraylog.create_encounter(f"T{i}", "novus", "manual").state.id
        made.append((eid, fraylog.access.mint(eid, "gm")))
    return made


def on_a_loop(fraylog: Fraylog, reads: Callable[[], Awaitable[T]]) -> T:
    """`reads` run on an event loop of their own, what they opened there closed after."""

    async def then_closed() -> T:
        try:
            return await reads()
        finally:
            await fraylog.close_reads_on_loop()

    return asyncio.run(then_closed())


def read_on_loop(fraylog: Fraylog, tokens: list[str]) -> list[tuple[bool, Grant | None]]:
    """Each token's grant read on one event loop, all asking together."""

    async def read_all() -> list[tuple[bool, Grant | None]]:
        return await asyncio.gather(*(fraylog.access.grant_on_loop(t) for t in tokens))

    return on_a_loop(fraylog, read_all)


def test_given_tokens_asked_together_on_the_loop_then_each_gets_its_grant_from_fewer_queries(
    fraylog: Fraylog,
) -> None:
    made = tables(fraylog, 4)
    asked = [t for _, t in made] * 6 + ["fl_gm_nobodyminteditxxxxxxxx"]
    # when
    answers = read_on_loop(fraylog, asked)
    # then
    if fraylog.settings.backend == "sqlite":  # read in a worker thread by the caller
        assert answers == [(False, None)] * len(asked)
        return
    assert [(read, g and g.encounter_id) for read, g in answers] == [
        *[(True, eid) for eid, _ in made] * 6,
        (True, None),
    ]
    assert all(g == fraylog.access.grant(t) for t, (_, g) in zip(asked, answers, strict=True))
    assert 1 <= fraylog.access._grants_on_loop.queries < len(asked)  # type: ignore[union-attr]


@pytest.mark.postgres
def test_given_a_token_revoked_between_two_reads_on_the_loop_then_the_second_finds_nothing(
    pg_fraylog: Fraylog,
) -> None:
    fraylog = pg_fraylog
    ((eid, _),) = tables(fraylog, 1)
    second = fraylog.access.mint(eid, "gm", label="co-GM")

    async def read_revoke_read() -> list[tuple[bool, Grant | None]]:
        before = await fraylog.access.grant_on_loop(second)
        with Fraylog(fraylog.settings) as elsewhere:  # another worker revokes it
            assert elsewhere.access.revoke(eid, token_id(second))
        return [before, await fraylog.access.grant_on_loop(second)]

    # when
    (read, grant), after = on_a_loop(fraylog, read_revoke_read)
    # then
    assert read and grant is not None and grant.label == "co-GM"
    assert after == (True, None)


@pytest.mark.postgres
def test_given_the_loop_that_opened_the_reads_when_another_loop_asks_then_it_is_left_to_the_caller(
    pg_fraylog: Fraylog,
) -> None:
    fraylog = pg_fraylog
    ((_, token),) = tables(fraylog, 1)
    serving = asyncio.new_event_loop()
    try:
        first = serving.run_until_complete(fraylog.access.grant_on_loop(token))
        # when: asked on another loop while the serving one is open
        another = asyncio.run(fraylog.access.grant_on_loop(token))
        serving.run_until_complete(fraylog.close_reads_on_loop())
    finally:
        serving.close()
    # then
    assert first[0] and first[1] is not None
    assert another == (False, None)


@pytest.mark.postgres
def test_given_a_token_revoked_here_while_its_read_is_out_then_it_is_not_kept(
    pg_schema: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The read found the token's row; the revocation came before it was kept: refused,
    and not kept for the cache's time."""
    settings = Settings(database_url=PG_URL, postgres_schema=pg_schema, grant_cache_seconds=60)
    with Fraylog(settings) as fraylog:
        ((eid, _),) = tables(fraylog, 1)
        second = fraylog.access.mint(eid, "gm", label="co-GM")
        reads = fraylog.access._grants_on_loop
        assert reads is not None
        found = reads.found

        def revoked_meanwhile(rows: list[tuple[Any, ...]]) -> dict[str, Grant]:
            assert fraylog.access.revoke(UUID(eid), token_id(second))
            return found(rows)

        monkeypatch.setattr(reads, "found", revoked_meanwhile)

        # when
        answer = on_a_loop(fraylog, lambda: fraylog.access.grant_on_loop(second))
        # then
        assert answer == (True, None)
        assert fraylog.access.cached_grant(second) == (False, None)


@pytest.mark.postgres
def test_given_a_failed_read_then_it_is_left_to_the_caller_and_the_next_reads_rest_then_reopen(
    pg_fraylog: Fraylog, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    fraylog = pg_fraylog
    ((_, token),) = tables(fraylog, 1)
    reads = fraylog.access._grants_on_loop
    assert reads is not None
    monkeypatch.setattr(reads, "REST_SECONDS", 0.2)

    async def broken_then_rested() -> list[tuple[bool, Grant | None]]:
        first = await fraylog.access.grant_on_loop(token)  # opens the connection
        assert cut_off(reads.application_name) == 1  # then it is cut off
        failed = await fraylog.access.grant_on_loop(token)
        resting = await fraylog.access.grant_on_loop(token)
        await asyncio.sleep(0.3)
        again = await fraylog.access.grant_on_loop(token)
        return [first, failed, resting, again]

    # when
    first, failed, resting, again = on_a_loop(fraylog, broken_then_rested)
    # then
    assert first[0] and again[0] and first == again
    assert failed == resting == (False, None)
    assert "a read failed" in caplog.text


@pytest.mark.postgres
def test_given_the_reads_closed_on_their_loop_when_a_late_request_asks_then_the_caller_reads(
    pg_fraylog: Fraylog,
) -> None:
    fraylog = pg_fraylog
    ((_, token),) = tables(fraylog, 1)

    async def read_close_read() -> list[tuple[bool, Grant | None]]:
        first = await fraylog.access.grant_on_loop(token)
        await fraylog.close_reads_on_loop()
        return [first, await fraylog.access.grant_on_loop(token)]

    # when
    first, late = asyncio.run(read_close_read())
    # then: nothing opened again after the close
    assert first[0] and first[1] is not None
    assert late == (False, None)
    assert fraylog.access._grants_on_loop._conn is None  # type: ignore[union-attr]
