"""A command decided on the event loop (infra.app `Fraylog.execute_on_loop`): on the
encounter as this process keeps it, its events handed to the writer thread. Where deciding
it would need the store, or it is refused, nothing is recorded and it is left to `execute`
in a worker thread (None). SQLite and PostgreSQL (where the loop commits its commands
itself by default: here the writer thread does, as with FRAYLOG_COMMIT_ON_LOOP=off;
tests/infra/test_loop_commits.py for the loop's own commits)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import threading
from collections.abc import Awaitable, Callable, Iterator
from typing import Any
from uuid import UUID

import pytest
from eventsourcing.persistence import IntegrityError

from domain import commands as c
from infra.app import Fraylog, Recorded
from infra.settings import Settings
from tests.builders.novus import novus_stats


@pytest.fixture
def fraylog(settings: Settings) -> Iterator[Fraylog]:
    app = Fraylog(dataclasses.replace(settings, commit_on_loop=False))
    yield app
    app.close()


def a_kept_encounter(fraylog: Fraylog, dice_source: str = "seeded") -> tuple[UUID, str]:
    """An encounter with one combatant, A (30 hits), as this process keeps it."""
    eid = UUID(fraylog.create_encounter("On the loop", "novus", dice_source, "s").state.id)
    a, _ = fraylog.add_combatant(eid, "A", "x", novus_stats(hits=30))
    return eid, a


def on_loop(fraylog: Fraylog, eid: UUID, command: Any) -> Recorded | None:
    return asyncio.run(fraylog.execute_on_loop(eid, command))


def versions(fraylog: Fraylog, eid: UUID) -> list[int]:
    return [e.originator_version for e in fraylog.event_log(eid)]


def test_given_a_kept_encounter_when_a_command_runs_on_the_loop_then_it_is_recorded_by_the_writer(
    fraylog: Fraylog, monkeypatch: pytest.MonkeyPatch
) -> None:
    eid, a = a_kept_encounter(fraylog)
    committing: list[str] = []
    record = fraylog.commits._record
    monkeypatch.setattr(
        fraylog.commits,
        "_record",
        lambda batch: committing.append(threading.current_thread().name) or record(batch),
    )
    told: list[str] = []
    fraylog.listeners.append(told.append)
    # when
    recorded = on_loop(fraylog, eid, c.AdjustHits(combatant=a, amount=-4))
    # then: answered once recorded, committed by the writer, no worker thread waiting
    assert recorded is not None
    assert recorded.state.combatants[a].hits == 26
    assert [e.originator_version for e in recorded.events] == [3]
    assert committing == ["fraylog writer"]
    assert versions(fraylog, eid) == [1, 2, 3]
    assert fraylog.state(eid).combatants[a].hits == 26
    assert told == [str(eid)]  # the feed is told, as after any save
    # and the next command is decided on what it recorded
    assert on_loop(fraylog, eid, c.AdjustHits(combatant=a, amount=-1)) is not None
    assert fraylog.state(eid).combatants[a].hits == 25


@pytest.mark.parametrize(
    "command",
    [
        pytest.param(c.AdjustHits(combatant="nobody", amount=-1), id="refused"),
        pytest.param(c.Undo(), id="a correction"),
        pytest.param(c.RevealDice(), id="a reveal"),
        pytest.param(c.AdjustHits(combatant="A", amount=-1, expected_version=1), id="stale"),
    ],
)
def test_given_a_command_the_loop_cannot_decide_when_run_there_then_nothing_is_recorded(
    fraylog: Fraylog, command: Any
) -> None:
    eid, a = a_kept_encounter(fraylog)
    if isinstance(command, c.AdjustHits) and command.combatant == "A":
        command = command.model_copy(update={"combatant": a})
    # when
    recorded = on_loop(fraylog, eid, command)
    # then: left to `execute`, which answers it as before
    assert recorded is None
    assert versions(fraylog, eid) == [1, 2]
    assert fraylog.turns.waiting(eid) == 0


def test_given_server_dice_when_a_command_draws_one_on_the_loop_then_it_is_left_to_a_worker(
    fraylog: Fraylog,
) -> None:
    """A server die's draw is counted in the store (a refused command burns it): not on the
    loop. Nothing was drawn there, so the worker's draw is the first."""
    eid, _ = a_kept_encounter(fraylog, dice_source="server")
    # when
    recorded = on_loop(fraylog, eid, c.RollInitiative())
    # then
    assert recorded is None
    assert versions(fraylog, eid) == [1, 2]
    assert fraylog.secrets.next_attempt(eid, 3) == 0  # no draw counted at position 3


def test_given_another_command_holds_the_turn_when_one_comes_on_the_loop_then_it_does_not_wait(
    fraylog: Fraylog,
) -> None:
    eid, a = a_kept_encounter(fraylog)
    with fraylog.turns.of(eid):
        # when
        recorded = on_loop(fraylog, eid, c.AdjustHits(combatant=a, amount=-1))
    # then
    assert recorded is None
    assert versions(fraylog, eid) == [1, 2]


def test_given_an_encounter_not_kept_here_when_a_command_comes_on_the_loop_then_it_is_left(
    fraylog: Fraylog, other: Fraylog
) -> None:
    eid, a = a_kept_encounter(other)  # recorded by the other process only
    # when
    recorded = on_loop(fraylog, eid, c.AdjustHits(combatant=a, amount=-1))
    # then
    assert recorded is None
    assert versions(fraylog, eid) == [1, 2]


def test_given_another_process_recorded_when_the_loop_saves_then_its_position_is_taken_and_nothing_is_recorded(  # noqa: E501
    fraylog: Fraylog, other: Fraylog
) -> None:
    eid, a = a_kept_encounter(fraylog)  # kept here at version 2
    other.execute(eid, c.AdjustHits(combatant=a, amount=-2))  # version 3, elsewhere
    # when: decided on version 2, its save finds position 3 taken
    recorded = on_loop(fraylog, eid, c.AdjustHits(combatant=a, amount=-3))
    # then: left to `execute`, which decides it again on the latest
    assert recorded is None
    assert versions(fraylog, eid) == [1, 2, 3]
    assert fraylog.turns.waiting(eid) == 0
    assert fraylog.execute(eid, c.AdjustHits(combatant=a, amount=-3)).state.combatants[a].hits == 25


def test_given_a_commit_whose_answer_was_lost_when_the_loop_saves_then_it_is_answered_as_recorded_once(  # noqa: E501
    fraylog: Fraylog, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The connection dropped after the commit, the recorder's retry found the command's own
    events there: recorded, so answered as recorded, never decided again."""
    eid, a = a_kept_encounter(fraylog)
    record = fraylog.commits._record

    def landed_then_lost(batch: Any) -> None:
        record(batch)
        raise IntegrityError("duplicate key: the retry of a commit that landed")

    monkeypatch.setattr(fraylog.commits, "_record", landed_then_lost)
    turn_held: list[int] = []
    landed = fraylog._landed
    monkeypatch.setattr(
        fraylog,
        "_landed",
        lambda e, pending: turn_held.append(fraylog.turns.waiting(e)) or landed(e, pending),
    )
    # when
    recorded = on_loop(fraylog, eid, c.AdjustHits(combatant=a, amount=-5))
    # then: found landed with the turn still held; kept before the turn was given back
    assert recorded is not None and recorded.state.combatants[a].hits == 25
    assert versions(fraylog, eid) == [1, 2, 3]
    assert turn_held == [1]
    assert fraylog.repository.cache.get(eid).version == 3 and fraylog.turns.waiting(eid) == 0
    monkeypatch.undo()
    assert on_loop(fraylog, eid, c.AdjustHits(combatant=a, amount=-1)) is not None  # kept
    assert versions(fraylog, eid) == [1, 2, 3, 4]


def test_given_a_commit_under_way_when_commands_on_other_tables_come_on_the_loop_then_the_writer_commits_them_together(  # noqa: E501
    fraylog: Fraylog, monkeypatch: pytest.MonkeyPatch
) -> None:
    tables = [a_kept_encounter(fraylog) for _ in range(6)]
    record = fraylog.commits._record
    batches: list[int] = []
    in_store, go = threading.Event(), threading.Event()

    def held(batch: Any) -> None:  # the first transaction held open until `go`
        batches.append(len(batch))
        if len(batches) == 1:
            in_store.set()
            assert go.wait(30)
        record(batch)

    monkeypatch.setattr(fraylog.commits, "_record", held)

    async def five_while_one_commits() -> list[Recorded | None]:
        (e, a), *others = tables
        first = asyncio.ensure_future(
            fraylog.execute_on_loop(e, c.AdjustHits(combatant=a, amount=-1))
        )
        assert await asyncio.to_thread(in_store.wait, 30)
        rest = [
            asyncio.ensure_future(fraylog.execute_on_loop(e, c.AdjustHits(combatant=a, amount=-1)))
            for e, a in others
        ]
        while len(fraylog.commits._waiting) < 5:  # each decided and handed over
            await asyncio.sleep(0.01)
        go.set()
        return await asyncio.gather(first, *rest)

    # when
    recorded = asyncio.run(five_while_one_commits())
    # then: one transaction for the five that came meanwhile, each its own answer
    assert batches == [1, 5]
    assert [
        r and r.state.combatants[a].hits for r, (_, a) in zip(recorded, tables, strict=True)
    ] == [29] * 6
    assert all(versions(fraylog, e) == [1, 2, 3] for e, _ in tables)


def a_commit_held(
    fraylog: Fraylog, monkeypatch: pytest.MonkeyPatch
) -> tuple[UUID, str, threading.Event, Callable[[], Awaitable[None]]]:
    """A kept encounter whose commits wait for the event returned, and a client that sends
    one command on the loop and gives up after 0.1 s, its commit still held."""
    eid, a = a_kept_encounter(fraylog)
    record, go = fraylog.commits._record, threading.Event()
    monkeypatch.setattr(fraylog.commits, "_record", lambda batch: go.wait(30) and record(batch))

    async def impatient() -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(
                fraylog.execute_on_loop(eid, c.AdjustHits(combatant=a, amount=-1)), 0.1
            )

    return eid, a, go, impatient


def test_given_a_waiter_gone_with_its_loop_when_its_commit_ends_then_the_turn_is_given_back(
    fraylog: Fraylog, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The client gave up and the loop closed while the commit was under way: the command
    is recorded, what follows runs and the turn is given back on the committing thread, so
    the next command on the encounter runs."""
    eid, a, go, impatient = a_commit_held(fraylog, monkeypatch)
    asyncio.run(impatient())  # its loop closed, the commit still waiting for `go`
    # when
    go.set()
    after: list[Any] = []
    next_one = threading.Thread(  # waits for the turn
        target=lambda: after.append(fraylog.execute(eid, c.AdjustHits(combatant=a, amount=-2))),
        daemon=True,
    )
    next_one.start()
    next_one.join(30)
    # then
    assert after, "the next command never got the turn"
    assert versions(fraylog, eid) == [1, 2, 3, 4]
    assert after[0].state.combatants[a].hits == 27
    assert fraylog.turns.waiting(eid) == 0


def test_given_a_waiter_cancelled_while_its_loop_runs_when_its_commit_ends_then_it_is_recorded(
    fraylog: Fraylog, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The client gave up (its request task cancelled) while the commit was under way, the
    loop still serving: the command is recorded all the same, the turn given back, and the
    next command on the encounter is decided on the loop from what it recorded."""
    eid, a, go, impatient = a_commit_held(fraylog, monkeypatch)

    async def impatient_then_next() -> Any:
        await impatient()
        # when
        go.set()
        while fraylog.turns.waiting(eid):  # what follows its commit gives the turn back
            await asyncio.sleep(0.01)
        return await fraylog.execute_on_loop(eid, c.AdjustHits(combatant=a, amount=-2))

    after = asyncio.run(asyncio.wait_for(impatient_then_next(), 30))
    # then
    assert after is not None, "the next command was not decided on the loop"
    assert after.state.combatants[a].hits == 27
    assert versions(fraylog, eid) == [1, 2, 3, 4]
    assert fraylog.turns.waiting(eid) == 0


def test_given_a_waiter_cancelled_when_what_follows_its_commit_fails_then_the_failure_is_logged(
    fraylog: Fraylog, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Nobody reads a cancelled waiter's answer: a failure after its commit is logged."""
    _, _, go, impatient = a_commit_held(fraylog, monkeypatch)

    def failing(*_: Any) -> None:
        raise RuntimeError("the snapshot could not be written")

    monkeypatch.setattr(fraylog, "_recorded", failing)

    async def gives_up_then_waits() -> None:
        await impatient()
        # when
        go.set()
        for _ in range(3000):  # until the answer's callback, posted to this loop, has run
            if any("waiter gave up" in r.getMessage() for r in caplog.records):
                return
            await asyncio.sleep(0.01)

    with caplog.at_level("WARNING", logger="fraylog.commits"):
        asyncio.run(asyncio.wait_for(gives_up_then_waits(), 30))
    # then
    assert any(
        "waiter gave up" in r.getMessage() and "AfterCommitFailed" in r.getMessage()
        for r in caplog.records
    ), caplog.text
