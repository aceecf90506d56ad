"""What a token allows, read on the event loop (infra.access `GrantsOnLoop`, through
infra.loop_connections `AskedTogether`): on PostgreSQL, the tokens asked together read in
one query, each read answered by a query sent after it asked; on SQLite, or on a loop that
did not open the connection, left to the caller (who reads in a worker thread)."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Iterator

import pytest

from infra.access import Grant, token_id
from infra.app import Fraylog
from infra.settings import Settings
from tests.conftest import PG_URL


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


def read_on_loop(fraylog: Fraylog, tokens: list[str]) -> list[tuple[bool, Grant | None]]:
    """Each token's grant read on one event loop, all asking together."""

    async def read_all() -> list[tuple[bool, Grant | None]]:
        try:
            return await asyncio.gather(*(fraylog.access.grant_on_loop(t) for t in tokens))
        finally:
            await fraylog.close_reads_on_loop()

    return asyncio.run(read_all())


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
    assert 1 <= fraylog.access._on_loop.queries < len(asked)  # type: ignore[union-attr]


@pytest.mark.postgres
def test_given_a_token_revoked_between_two_reads_on_the_loop_then_the_second_finds_nothing(
    pg_fraylog: Fraylog,
) -> None:
    fraylog = pg_fraylog
    ((eid, _),) = tables(fraylog, 1)
    second = fraylog.access.mint(eid, "gm", label="co-GM")

    async def read_revoke_read() -> list[tuple[bool, Grant | None]]:
        try:
            before = await fraylog.access.grant_on_loop(second)
            with Fraylog(fraylog.settings) as elsewhere:  # another worker revokes it
                assert elsewhere.access.revoke(eid, token_id(second))
            return [before, await fraylog.access.grant_on_loop(second)]
        finally:
            await fraylog.close_reads_on_loop()

    # when
    (read, grant), after = asyncio.run(read_revoke_read())
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
