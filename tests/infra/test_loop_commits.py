"""PostgreSQL: a command decided on the event loop is committed there too (infra.group_commit
`LoopCommits`): one query a batch, on a connection of the loop's own, the loop deciding
other tables' commands meanwhile. A batch that fails there goes to the writer thread, which
gives each save its own answer; what follows a commit that needs the store (a snapshot, a
checkpoint) stays with the writer."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from collections.abc import Iterator
from uuid import UUID

import psycopg
import pytest

from domain import commands as c
from infra.app import Fraylog, Recorded
from infra.settings import Settings
from tests.conftest import PG_URL
from tests.infra.test_commands_on_loop import a_kept_encounter, versions


@pytest.fixture
def pg_settings(pg_schema: str) -> Settings:
    return Settings(database_url=PG_URL, postgres_schema=pg_schema, snapshot_interval=1000)


@pytest.fixture
def fraylog(pg_settings: Settings) -> Iterator[Fraylog]:
    app = Fraylog(pg_settings)
    yield app
    app.close()


def each_minus_one(fraylog: Fraylog, tables: list[tuple[UUID, str]]) -> list[Recorded | None]:
    """Given `tables`, when each sends one command on the loop at the same moment."""

    async def together() -> list[Recorded | None]:
        return await asyncio.gather(
            *(fraylog.execute_on_loop(e, c.AdjustHits(combatant=a, amount=-1)) for e, a in tables)
        )

    return asyncio.run(together())


def hits(recorded: Recorded | None, who: str) -> int | None:
    return None if recorded is None else recorded.state.combatants[who].hits


async def minus_one(fraylog: Fraylog, e: UUID, a: str) -> int | None:
    """One command on the loop, one hit off `a`: the hits it answers with (None: left)."""
    return hits(await fraylog.execute_on_loop(e, c.AdjustHits(combatant=a, amount=-1)), a)


def test_given_several_tables_when_their_commands_come_on_the_loop_then_one_query_commits_them(
    fraylog: Fraylog,
) -> None:
    tables = [a_kept_encounter(fraylog) for _ in range(5)]
    told: list[str] = []
    fraylog.listeners.append(told.append)
    # when
    recorded = each_minus_one(fraylog, tables)
    # then: each answered as recorded; one transaction on the loop, no writer thread started
    assert [hits(r, a) for r, (_, a) in zip(recorded, tables, strict=True)] == [29] * 5
    assert fraylog.loop_commits is not None
    assert (fraylog.loop_commits.saved, fraylog.loop_commits.batches) == (5, 1)
    assert fraylog.commits._writer is None
    assert all(versions(fraylog, e) == [1, 2, 3] for e, _ in tables)
    assert sorted(told) == sorted(str(e) for e, _ in tables)  # the feed told of each
    assert all(fraylog.turns.waiting(e) == 0 for e, _ in tables)
    # and the next command of a table is decided on what was recorded
    assert hits(each_minus_one(fraylog, tables[:1])[0], tables[0][1]) == 28


def test_given_a_position_taken_elsewhere_when_a_batch_fails_on_the_loop_then_the_writer_answers(
    fraylog: Fraylog, other: Fraylog
) -> None:
    tables = [a_kept_encounter(fraylog) for _ in range(4)]
    taken, a = tables[2]
    other.execute(taken, c.AdjustHits(combatant=a, amount=-2))  # its position 3, elsewhere
    # when: the four in one batch, which the position taken fails
    recorded = each_minus_one(fraylog, tables)
    # then: the writer committed the three others; the fourth recorded nothing, left to
    # `execute`, which decides it again on the latest
    assert [hits(r, a) for r, (_, a) in zip(recorded, tables, strict=True)] == [29, 29, None, 29]
    assert fraylog.loop_commits is not None and fraylog.loop_commits.handed_over == 4
    assert versions(fraylog, taken) == [1, 2, 3]
    assert fraylog.state(taken).combatants[a].hits == 28
    assert all(fraylog.turns.waiting(e) == 0 for e, _ in tables)
    # and the loop commits the next at once, on its connection rolled back
    before = fraylog.loop_commits.saved
    assert hits(each_minus_one(fraylog, tables[:1])[0], tables[0][1]) == 28
    assert fraylog.loop_commits.saved == before + 1


def test_given_the_loops_connection_lost_when_the_next_command_commits_then_the_writer_records_it(
    fraylog: Fraylog,
) -> None:
    e, a = a_kept_encounter(fraylog)
    commits = fraylog.loop_commits
    assert commits is not None

    async def four_commands_the_connection_lost_after_the_first() -> list[int | None]:
        first = await minus_one(fraylog, e, a)
        assert commits._conn is not None
        backend = commits._conn.info.backend_pid
        with psycopg.connect(PG_URL, autocommit=True) as admin:
            ended = admin.execute("SELECT pg_terminate_backend(%s)", (backend,)).fetchall()
        assert ended == [(True,)]
        second = await minus_one(fraylog, e, a)
        third = await minus_one(fraylog, e, a)
        resting = commits.handed_over
        commits._resting_until = 0.0  # its rest over
        fourth = await minus_one(fraylog, e, a)
        return [first, second, third, fourth, resting]

    # when
    answers = asyncio.run(four_commands_the_connection_lost_after_the_first())
    # then: none lost, none twice; the second and, while the loop rests, the third by the
    # writer; after its rest the loop opens a connection again and commits the fourth
    assert answers == [29, 28, 27, 26, 2]
    assert versions(fraylog, e) == [1, 2, 3, 4, 5, 6]
    assert (commits.saved, commits.handed_over) == (2, 2)


def test_given_a_snapshot_due_when_a_command_comes_on_the_loop_then_the_writer_commits_it(
    pg_settings: Settings,
) -> None:
    fraylog = Fraylog(dataclasses.replace(pg_settings, snapshot_interval=3))
    try:
        e, a = a_kept_encounter(fraylog)  # at version 2: the next event is the third
        # when
        recorded = each_minus_one(fraylog, [(e, a)])
        # then: committed by the writer thread, which wrote the snapshot; the loop wrote none
        assert hits(recorded[0], a) == 29
        assert fraylog.loop_commits is not None and fraylog.loop_commits.saved == 0
        assert fraylog.commits._writer is not None
        assert [s.originator_version for s in fraylog.snapshots.get(e)] == [3]  # type: ignore[union-attr]
    finally:
        fraylog.close()


def test_given_commands_waiting_on_the_loop_when_the_app_closes_there_then_they_are_committed_first(
    fraylog: Fraylog,
) -> None:
    tables = [a_kept_encounter(fraylog) for _ in range(3)]

    async def close_while_they_wait() -> tuple[list[Recorded | None], int | None]:
        waiting = [
            asyncio.ensure_future(fraylog.execute_on_loop(e, c.AdjustHits(combatant=a, amount=-1)))
            for e, a in tables
        ]
        await asyncio.sleep(0)  # each decided and handed over
        await fraylog.close_on_loop()
        assert all(w.done() for w in waiting)  # committed and answered before it returned
        assert fraylog.loop_commits is not None and fraylog.loop_commits._conn is None
        e, a = tables[0]
        after = await minus_one(fraylog, e, a)
        return await asyncio.gather(*waiting), after

    # when
    recorded, after = asyncio.run(close_while_they_wait())
    # then: the three committed on the loop before it closed; a later one by the writer
    assert [hits(r, a) for r, (_, a) in zip(recorded, tables, strict=True)] == [29] * 3
    assert after == 28
    assert fraylog.loop_commits is not None and fraylog.loop_commits.saved == 3
    assert fraylog.commits._writer is not None


def test_given_commit_on_loop_off_or_sqlite_then_the_writer_commits_what_the_loop_decides(
    pg_settings: Settings, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FRAYLOG_COMMIT_ON_LOOP", "off")
    assert Settings.from_env().commit_on_loop is False
    for settings in (
        dataclasses.replace(pg_settings, commit_on_loop=False),
        Settings(sqlite_path=str(tmp_path / "f.db")),
    ):
        fraylog = Fraylog(settings)
        try:
            assert fraylog.loop_commits is None
            e, a = a_kept_encounter(fraylog)
            assert hits(each_minus_one(fraylog, [(e, a)])[0], a) == 29
            assert fraylog.commits._writer is not None
        finally:
            fraylog.close()


def test_given_the_loop_gone_without_closing_when_the_app_closes_then_its_connection_is_closed(
    pg_settings: Settings,
) -> None:
    fraylog = Fraylog(pg_settings)
    e, a = a_kept_encounter(fraylog)
    each_minus_one(fraylog, [(e, a)])  # its loop ended, `close_on_loop` never called
    assert fraylog.loop_commits is not None and fraylog.loop_commits._conn is not None
    backend = fraylog.loop_commits._conn.info.backend_pid
    # when
    fraylog.close()
    # then: PostgreSQL no longer holds the loop's connection
    with psycopg.connect(PG_URL, autocommit=True) as admin:
        for _ in range(100):  # the server ends the backend a moment after its socket
            if not admin.execute(
                "SELECT 1 FROM pg_stat_activity WHERE pid = %s", (backend,)
            ).fetchall():
                break
            admin.execute("SELECT pg_sleep(0.05)")
        else:
            raise AssertionError("the loop's connection is still open")


def test_given_a_commit_whose_answer_is_lost_on_the_loop_when_the_writer_retries_then_recorded_once(
    fraylog: Fraylog,
) -> None:
    e, a = a_kept_encounter(fraylog)
    commits = fraylog.loop_commits
    assert commits is not None

    async def the_second_commit_cut_off_after_it_landed() -> list[int | None]:
        first = await minus_one(fraylog, e, a)
        sent = commits._statement  # composed once the connection opened
        commits._statement = sent + b"; SELECT pg_terminate_backend(pg_backend_pid())"
        second = await minus_one(fraylog, e, a)
        commits._statement = sent
        commits._resting_until = 0.0  # the writer's second, over
        third = await minus_one(fraylog, e, a)
        return [first, second, third]

    # when: the second commits, then its connection ends before its answer is read
    answers = asyncio.run(the_second_commit_cut_off_after_it_landed())
    # then: the writer finds its events stored: answered as recorded, never twice
    assert answers == [29, 28, 27]
    assert versions(fraylog, e) == [1, 2, 3, 4, 5]
    assert (commits.saved, commits.handed_over) == (2, 1)
    assert fraylog.turns.waiting(e) == 0


def test_given_a_waiter_cancelled_when_its_save_is_on_the_loop_then_it_is_committed_all_the_same(
    fraylog: Fraylog,
) -> None:
    e, a = a_kept_encounter(fraylog)

    async def cancelled_once_handed_over() -> None:
        waiter = asyncio.ensure_future(
            fraylog.execute_on_loop(e, c.AdjustHits(combatant=a, amount=-1))
        )
        await asyncio.sleep(0)  # decided, its save waiting on the loop
        waiter.cancel()
        while fraylog.turns.waiting(e):  # its commit, and what follows it, still run
            await asyncio.sleep(0.01)

    # when
    asyncio.run(cancelled_once_handed_over())
    # then
    assert versions(fraylog, e) == [1, 2, 3]
    assert fraylog.state(e).combatants[a].hits == 29
    assert fraylog.loop_commits is not None and fraylog.loop_commits.saved == 1


def test_given_the_loops_committer_cancelled_before_it_ran_when_a_save_comes_then_both_commit(
    fraylog: Fraylog,
) -> None:
    (e, a), (f, b) = [a_kept_encounter(fraylog) for _ in range(2)]
    commits = fraylog.loop_commits
    assert commits is not None

    async def a_committer_cancelled_unstarted() -> list[int | None]:
        first = asyncio.ensure_future(
            fraylog.execute_on_loop(e, c.AdjustHits(combatant=a, amount=-1))
        )
        await asyncio.sleep(0)  # decided, its save waiting; the committer not yet run
        assert commits._committer is not None
        commits._committer.cancel()
        await asyncio.sleep(0)
        second = fraylog.execute_on_loop(f, c.AdjustHits(combatant=b, amount=-1))
        done = await asyncio.wait_for(asyncio.gather(first, second), 10)
        return [hits(done[0], a), hits(done[1], b)]

    # when / then: a new committer takes both
    assert asyncio.run(a_committer_cancelled_unstarted()) == [29, 29]
    assert commits.saved == 2


def test_given_a_save_a_closed_loop_left_when_the_next_loop_saves_then_the_writer_commits_it(
    fraylog: Fraylog,
) -> None:
    (e, a), (f, b) = [a_kept_encounter(fraylog) for _ in range(2)]
    commits = fraylog.loop_commits
    assert commits is not None

    left: list[asyncio.Future[Recorded | None]] = []

    async def left_with_its_save_waiting() -> None:
        command = c.AdjustHits(combatant=a, amount=-1)
        left.append(asyncio.ensure_future(fraylog.execute_on_loop(e, command)))
        await asyncio.sleep(0)  # decided, its save waiting on the loop
        assert commits._committer is not None
        commits._committer.cancel()  # as a loop's end cancels a task that has not run

    asyncio.run(left_with_its_save_waiting())
    assert versions(fraylog, e) == [1, 2] and fraylog.turns.waiting(e) == 1
    # when: the next loop's first save
    assert hits(each_minus_one(fraylog, [(f, b)])[0], b) == 29
    # then: the one left was handed to the writer, committed, its turn given back
    for _ in range(1000):
        if not fraylog.turns.waiting(e):
            break
        threading.Event().wait(0.01)
    assert versions(fraylog, e) == [1, 2, 3] and fraylog.turns.waiting(e) == 0
    assert commits.handed_over == 1
