"""Group commit: saves that wait for the store commit together, each keeping its own answer
(infra/group_commit.py); on SQLite and PostgreSQL through Fraylog."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any
from uuid import UUID

import pytest

from domain import commands as c
from domain.dice import ManualDice
from infra.app import Conflict, Fraylog
from infra.group_commit import GroupCommit
from infra.idempotency import KEYS
from infra.settings import Settings
from tests.builders.novus import novus_stats


class HeldStore:
    """A `record` that holds its first transaction open until `release()`, so the saves
    that arrive meanwhile queue behind it."""

    def __init__(self, record: Callable[[Sequence[Any]], None]) -> None:
        self.record = record
        self.batches: list[list[Any]] = []
        self.first = threading.Event()
        self.go = threading.Event()

    def __call__(self, batch: Sequence[Any]) -> None:
        self.batches.append(list(batch))
        if len(self.batches) == 1:
            self.first.set()
            assert self.go.wait(30)
        self.record(batch)

    def release(self) -> None:
        self.go.set()


def in_thread(run: Callable[[], Any]) -> tuple[threading.Thread, dict[str, Any]]:
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = run()
        except BaseException as e:
            outcome["error"] = e

    thread = threading.Thread(target=target)
    thread.start()
    return thread, outcome


def waiting(commits: GroupCommit, n: int) -> None:
    """Until `n` saves wait behind the one committing (no timing is asserted)."""
    for _ in range(3000):
        with commits._turn:
            if len(commits._waiting) >= n:
                return
        threading.Event().wait(0.01)
    raise AssertionError(f"{n} saves never queued")


def refusing(bad: str) -> Callable[[Sequence[Any]], None]:
    def record(batch: Sequence[Any]) -> None:
        if bad in batch:
            raise ValueError(f"{bad} breaks the transaction")

    return record


def saved_while_held(
    commits: GroupCommit, store: HeldStore, payloads: str | tuple[str, ...]
) -> dict[str, dict[str, Any]]:
    """Given a commit under way ("first"), when `payloads` are saved meanwhile: each one's
    outcome once all are done."""
    first, _ = in_thread(lambda: commits.commit("first"))
    assert store.first.wait(30)
    others = {x: in_thread(lambda x=x: commits.commit(x)) for x in payloads}
    waiting(commits, len(payloads))
    store.release()
    for thread, _ in [(first, None), *others.values()]:
        thread.join(30)
    return {x: outcome for x, (_, outcome) in others.items()}


def test_given_a_commit_under_way_when_three_saves_arrive_then_they_commit_in_one_transaction():
    store = HeldStore(refusing("none"))
    commits = GroupCommit(store)

    outcomes = saved_while_held(commits, store, "abc")

    assert store.batches[0] == ["first"]
    assert sorted(store.batches[1]) == ["a", "b", "c"] and len(store.batches) == 2
    assert all("error" not in outcome for outcome in outcomes.values())
    assert (commits.batches, commits.saved) == (1, 3)


def test_given_a_batch_one_save_breaks_when_committed_then_only_that_save_fails():
    store = HeldStore(refusing("bad"))
    commits = GroupCommit(store)

    outcomes = saved_while_held(commits, store, ("a", "bad", "c"))

    assert isinstance(outcomes["bad"].get("error"), ValueError)
    assert "error" not in outcomes["a"] and "error" not in outcomes["c"]
    # the batch rolled back, then each was committed alone
    assert sorted(store.batches[1]) == ["a", "bad", "c"]
    assert sorted(map(tuple, store.batches[2:])) == [("a",), ("bad",), ("c",)]


def test_given_a_batch_limit_when_more_saves_wait_then_each_transaction_holds_at_most_it():
    store = HeldStore(refusing("none"))
    commits = GroupCommit(store, most=2)

    saved_while_held(commits, store, "abcde")

    assert max(len(b) for b in store.batches) == 2
    assert sorted(x for b in store.batches[1:] for x in b) == list("abcde")


@pytest.fixture(params=[False, True], ids=["insert", "db_functions"])
def keyed_store(request: pytest.FixtureRequest, settings: Settings) -> Iterator[Fraylog]:
    """The store; on PostgreSQL once more with the recorder's insert function, whose marks
    are written around the function's call."""
    if request.param and settings.backend != "postgres":
        pytest.skip("FRAYLOG_PG_DB_FUNCTIONS is PostgreSQL's")
    app = Fraylog(dataclasses.replace(settings, pg_db_functions=request.param))
    yield app
    app.close()


def test_given_eight_tables_when_keyed_commands_wait_then_one_transaction_marks_each_own(
    keyed_store: Fraylog,
) -> None:
    fraylog = keyed_store
    fights = []
    for i in range(8):
        eid = UUID(fraylog.create_encounter(f"Table {i}", "novus", "seeded", "s").state.id)
        who, _ = fraylog.add_combatant(eid, "A", "x", novus_stats())
        fraylog.execute(eid, c.AdjustHits(combatant=who, amount=-1))  # not at the same positions
        for _ in range(i % 3):
            fraylog.execute(eid, c.AdjustHits(combatant=who, amount=-1))
        fights.append((eid, who))
    store = HeldStore(fraylog._record_together)
    fraylog.commits._record = store
    blocker, _ = in_thread(
        lambda: fraylog.execute(fights[0][0], c.AdjustHits(combatant=fights[0][1], amount=1))
    )
    assert store.first.wait(30)

    def keyed(eid: UUID, who: str) -> Any:
        lease = fraylog.keys.reserve(eid, "k", "digest", fraylog.state(eid).version).lease
        assert lease is not None
        mark = fraylog.keys.mark(eid, "k", lease)
        return fraylog.execute(eid, c.AdjustHits(combatant=who, amount=-2), idempotency=mark)

    racing = [in_thread(lambda f=f: keyed(*f)) for f in fights[1:]]
    waiting(fraylog.commits, 7)
    store.release()
    blocker.join(30)
    for thread, _ in racing:
        thread.join(30)

    assert [o.get("error") for _, o in racing] == [None] * 7
    assert len(store.batches) == 2 and len(store.batches[1]) == 7
    rows = fraylog.keys.execute(
        f"SELECT encounter_id, recorded_from, recorded_to FROM {fraylog.keys.table(KEYS)}"
    )
    marked = {UUID(r[0]): (r[1], r[2]) for r in rows}
    for (eid, who), (_, outcome) in zip(fights[1:], racing, strict=True):
        position = outcome["value"].state.version
        assert marked[eid] == (position, position)  # its own event, not another encounter's
        assert (
            fraylog.state(eid).combatants[who].hits
            == fraylog.state(eid).combatants[who].max_hits - 1 - (fights.index((eid, who)) % 3) - 2
        )


def test_given_two_commands_on_one_version_when_saved_together_then_the_second_conflicts(
    fraylog: Fraylog,
) -> None:
    eid = UUID(fraylog.create_encounter("Race", "novus", "seeded", "s").state.id)
    other = UUID(fraylog.create_encounter("Elsewhere", "novus", "seeded", "s").state.id)
    third = UUID(fraylog.create_encounter("Bystander", "novus", "seeded", "s").state.id)
    a, _ = fraylog.add_combatant(eid, "A", "x", novus_stats())
    b, _ = fraylog.add_combatant(other, "B", "x", novus_stats())
    d, _ = fraylog.add_combatant(third, "D", "x", novus_stats())
    store = HeldStore(fraylog._record_together)
    fraylog.commits._record = store
    blocker, _ = in_thread(lambda: fraylog.execute(other, c.AdjustHits(combatant=b, amount=-1)))
    assert store.first.wait(30)
    # both decided on version 2 before either is recorded
    mine, theirs = fraylog.encounter(eid), fraylog.encounter(eid)
    mine.execute(c.AdjustHits(combatant=a, amount=-1), dice=ManualDice({}))
    theirs.execute(c.AdjustHits(combatant=a, amount=-2), dice=ManualDice({}))
    saves = [in_thread(lambda e=e: fraylog._save(e)) for e in (mine, theirs)]
    bystander = in_thread(lambda: fraylog.execute(third, c.AdjustHits(combatant=d, amount=-1)))
    waiting(fraylog.commits, 3)
    store.release()
    for thread, _ in [(blocker, None), *saves, bystander]:
        thread.join(30)

    errors = [o.get("error") for _, o in saves]
    assert sum(isinstance(e, Conflict) for e in errors) == 1 and errors.count(None) == 1
    assert "error" not in bystander[1]
    assert [e.originator_version for e in fraylog.event_log(eid)] == [1, 2, 3]
    assert fraylog.state(third).version == 3 and fraylog.state(other).version == 3


@pytest.mark.parametrize("level, pragma", [("FULL", 2), ("NORMAL", 1)])
def test_given_a_synchronous_setting_when_sqlite_opens_then_every_connection_has_it(
    tmp_path, level: str, pragma: int
) -> None:
    from infra.sqlite_tuning import synchronous_of

    app = Fraylog(Settings(sqlite_path=str(tmp_path / "s.db"), sqlite_synchronous=level))
    try:
        app.create_encounter("Synced", "novus")
        assert set(synchronous_of(app.recorder.datastore.pool)) == {pragma}  # type: ignore[attr-defined]
    finally:
        app.close()


def test_given_off_as_the_synchronous_setting_then_refused_at_start(tmp_path) -> None:
    with pytest.raises(ValueError, match="FRAYLOG_SQLITE_SYNCHRONOUS"):
        Settings(sqlite_path=str(tmp_path / "s.db"), sqlite_synchronous="OFF")


def test_given_a_command_in_commit_when_another_comes_for_that_table_then_it_takes_its_turn(
    fraylog: Fraylog,
) -> None:
    eid = UUID(fraylog.create_encounter("Turns", "novus", "seeded", "s").state.id)
    a, _ = fraylog.add_combatant(eid, "A", "x", novus_stats())
    store = HeldStore(fraylog._record_together)
    fraylog.commits._record = store
    first = in_thread(lambda: fraylog.execute(eid, c.AdjustHits(combatant=a, amount=-1)))
    assert store.first.wait(30)
    second = in_thread(lambda: fraylog.execute(eid, c.AdjustHits(combatant=a, amount=-2)))
    for _ in range(3000):  # until the second waits for its turn (no timing is asserted)
        if fraylog.turns.waiting(eid) == 2:
            break
        threading.Event().wait(0.01)
    assert fraylog.turns.waiting(eid) == 2

    store.release()
    for thread, _ in (first, second):
        thread.join(30)

    # decided on what the first recorded, not on the same version: no 409
    assert "error" not in first[1] and "error" not in second[1]
    assert [e.originator_version for e in fraylog.event_log(eid)] == [1, 2, 3, 4]
    assert fraylog.state(eid).combatants[a].hits == 27
    assert fraylog.turns.waiting(eid) == 0


def test_given_many_concurrent_loads_when_sqlite_gives_connections_back_then_it_keeps_them(
    tmp_path,
) -> None:
    app = Fraylog(Settings(sqlite_path=str(tmp_path / "k.db")))
    try:
        eid = UUID(app.create_encounter("Kept", "novus").state.id)
        pool = app.recorder.datastore.pool  # type: ignore[attr-defined]
        opened = []
        real = pool._create_connection

        def counted() -> Any:
            opened.append(1)
            return real()

        pool._create_connection = counted
        held = [pool.get_connection(is_writer=False) for _ in range(12)]  # 12 at once
        for conn in held:
            pool.put_connection(conn)
        held = [pool.get_connection(is_writer=False) for _ in range(12)]
        for conn in held:
            pool.put_connection(conn)
        app.state(eid)
        assert len(opened) <= 12  # the second twelve were those given back, kept
    finally:
        app.close()


def test_given_a_batch_when_the_store_fails_for_all_then_each_save_gets_that_error_at_once():
    store = HeldStore(refusing("b"))
    commits = GroupCommit(store, own=(KeyError,))  # a ValueError is not one save's doing

    outcomes = saved_while_held(commits, store, "abc")

    assert all(isinstance(o.get("error"), ValueError) for o in outcomes.values())
    assert len(store.batches) == 2  # not retried one by one


def test_given_many_commands_waiting_for_one_encounter_when_one_more_comes_then_it_is_busy():
    from infra.group_commit import Busy, Turns

    turns = Turns(most=2)
    holding = threading.Event()
    release = threading.Event()

    def hold() -> None:
        with turns.of("e"):
            holding.set()
            release.wait(30)

    waiters = [threading.Thread(target=hold) for _ in range(3)]  # one turn, two waiting
    for w in waiters:
        w.start()
    assert holding.wait(30)
    for _ in range(3000):
        if turns.waiting("e") == 3:
            break
        threading.Event().wait(0.01)

    with pytest.raises(Busy), turns.of("e"):
        pass
    release.set()
    for w in waiters:
        w.join(30)
    assert turns.waiting("e") == 0


def handed_over(
    commits: GroupCommit, payloads: Sequence[str], then: Callable[[str, Any], Any]
) -> list[Any]:
    """Each payload handed over from one event loop at once, `then(payload, error)` what
    follows its commit; each one's answer (None, or the error its future raised)."""

    async def all_at_once() -> list[Any]:
        futures = [commits.submit(x, then=lambda e, x=x: then(x, e)) for x in payloads]
        return await asyncio.gather(*futures, return_exceptions=True)

    return asyncio.run(all_at_once())


def test_given_saves_handed_over_from_a_loop_when_committed_then_each_is_answered_after_its_then():
    store = HeldStore(refusing("none"))
    commits = GroupCommit(store)
    first, _ = in_thread(lambda: commits.commit("first"))  # the writer waits behind it
    assert store.first.wait(30)
    done: list[tuple[str, Any]] = []
    release = threading.Timer(0.0, lambda: (waiting(commits, 3), store.release()))
    release.start()
    # when
    answers = handed_over(commits, "abc", lambda x, e: done.append((x, e)) or e)
    # then: one transaction, `then` told each commit's outcome before its answer
    first.join(30)
    assert answers == [None, None, None]
    assert sorted(store.batches[1]) == ["a", "b", "c"] and len(store.batches) == 2
    assert sorted(done) == [("a", None), ("b", None), ("c", None)]
    commits.close()


def test_given_saves_handed_over_from_one_loop_when_committed_together_then_it_is_woken_once():
    store = HeldStore(refusing("none"))
    commits = GroupCommit(store)
    first, _ = in_thread(lambda: commits.commit("first"))  # the writer waits behind it
    assert store.first.wait(30)
    wakes: list[str] = []

    async def all_at_once() -> list[Any]:
        loop = asyncio.get_running_loop()
        wake = loop.call_soon_threadsafe

        def counted(callback: Any, *args: Any, **kwargs: Any) -> Any:
            wakes.append(getattr(callback, "__module__", ""))  # the thread hop's too
            return wake(callback, *args, **kwargs)

        loop.call_soon_threadsafe = counted  # type: ignore[method-assign]
        futures = [commits.submit(x) for x in "abcd"]
        await asyncio.to_thread(waiting, commits, 4)
        store.release()
        return await asyncio.wait_for(asyncio.gather(*futures, return_exceptions=True), 30)

    # when
    answers = asyncio.run(all_at_once())
    # then: one transaction, one wake of the loop for its four answers, each answered
    first.join(30)
    assert answers == [None] * 4 and sorted(store.batches[1]) == list("abcd")
    assert wakes.count("infra.group_commit") == 1
    commits.close()


def test_given_a_batch_when_one_answer_cannot_be_given_then_the_others_are_answered(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # given: three saves committed together, the second's answer one asyncio will not set
    store = HeldStore(refusing("none"))
    commits = GroupCommit(store)
    first, _ = in_thread(lambda: commits.commit("first"))  # the writer waits behind it
    assert store.first.wait(30)
    release = threading.Timer(0.0, lambda: (waiting(commits, 3), store.release()))
    release.start()

    async def all_at_once() -> list[Any]:
        futures = [
            commits.submit(x, then=lambda e, x=x: StopIteration() if x == "b" else e) for x in "abc"
        ]
        return await asyncio.wait_for(asyncio.gather(*futures, return_exceptions=True), 30)

    # when
    answers = asyncio.run(all_at_once())
    # then: the others answered as committed; that one an error, logged
    first.join(30)
    assert answers[0] is None and answers[2] is None
    assert isinstance(answers[1], RuntimeError) and "StopIteration" in str(answers[1])
    assert any("could not be given" in r.getMessage() for r in caplog.records)
    commits.close()


class Interrupted(BaseException):
    """Not an Exception: what follows a commit may raise anything."""


def test_given_handed_over_saves_when_one_breaks_the_batch_or_its_then_fails_then_only_it_fails():
    commits = GroupCommit(refusing("bad"), own=(ValueError,))
    told: dict[str, Any] = {}

    def then(x: str, error: Any) -> Any:
        told[x] = error
        if x == "late":
            raise Interrupted("committed, but what follows failed")
        return error

    # when
    answers = handed_over(commits, ["a", "bad", "late", "c"], then)
    # then: `then` ran for each, told its own outcome; each answer is its own
    assert answers[0] is None and answers[3] is None
    assert isinstance(answers[1], ValueError) and isinstance(told["bad"], ValueError)
    assert isinstance(answers[2], Interrupted) and told["late"] is None
    commits.close()


def test_given_a_save_handed_over_when_its_loop_closes_before_its_answer_then_what_follows_runs():
    store = HeldStore(refusing("none"))
    commits = GroupCommit(store)
    followed = threading.Event()

    async def hand_over_and_leave() -> None:
        commits.submit("orphan", then=lambda e: followed.set())
        assert await asyncio.to_thread(store.first.wait, 30)

    asyncio.run(hand_over_and_leave())  # its loop closed, the commit still held open
    # when
    store.release()
    # then: its `then` ran (the turn it holds is given back there), the writer goes on
    assert followed.wait(30)
    assert asyncio.run(hand_over_one(commits, "next")) is None
    assert store.batches == [["orphan"], ["next"]]
    commits.close()


def test_given_a_save_handed_over_when_the_store_closes_then_it_is_committed_first():
    store = HeldStore(refusing("none"))
    commits = GroupCommit(store)

    async def hand_over_then_close() -> Any:
        future = commits.submit("last")
        assert await asyncio.to_thread(store.first.wait, 30)
        closing = asyncio.ensure_future(asyncio.to_thread(commits.close))
        store.release()
        await closing
        return await future

    # when
    answer = asyncio.run(hand_over_then_close())
    # then: committed, answered, the writer gone; nothing more is taken
    assert answer is None and store.batches == [["last"]]
    assert commits._writer is not None and not commits._writer.is_alive()
    with pytest.raises(RuntimeError, match="closing"):
        asyncio.run(hand_over_one(commits, "too late"))


async def hand_over_one(commits: GroupCommit, payload: str) -> Any:
    return await commits.submit(payload)


def test_given_db_functions_when_another_transaction_holds_an_insert_then_a_save_waits_for_it(
    keyed_store: Fraylog,
) -> None:
    """With the recorder's insert function, a save takes the events table's lock as the
    library's own insert does (the function takes none): it waits for another process's
    transaction that inserted and has not committed, so notification ids commit in their
    order and a reader of the notification log never passes one that commits later."""
    import psycopg
    from psycopg import sql

    fraylog = keyed_store
    settings = fraylog.settings
    if settings.backend != "postgres":
        pytest.skip("SQLite has one writer and no table lock: the lock is PostgreSQL's recorder's")
    eid = UUID(fraylog.create_encounter("Locked", "novus", "seeded", "s").state.id)
    who, _ = fraylog.add_combatant(eid, "A", "x", novus_stats())
    table = sql.Identifier(settings.postgres_schema, fraylog.recorder.events_table_name)  # type: ignore[attr-defined]
    assert settings.database_url is not None
    with (
        psycopg.connect(settings.database_url) as other,
        psycopg.connect(settings.database_url, autocommit=True) as watcher,
    ):
        # given: another transaction inserted an event and holds it, uncommitted
        other.execute(
            sql.SQL(
                "INSERT INTO {} (originator_id, originator_version, topic, state) "
                "VALUES (%s, 1, 'elsewhere', %s)"
            ).format(table),
            (UUID(int=1), b"{}"),
        )
        # when
        saving, outcome = in_thread(
            lambda: fraylog.execute(eid, c.AdjustHits(combatant=who, amount=-1))
        )
        # then: the save waits for the table's lock (no timing asserted: it is seen waiting)
        waits = sql.SQL(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
            "AND datname = current_database() AND pid <> pg_backend_pid()"
        )
        seen = False
        for _ in range(3000):
            row = watcher.execute(waits).fetchone()
            if row is not None and row[0] > 0:
                seen = True
                break
            if not saving.is_alive():
                break
            threading.Event().wait(0.01)
        other.rollback()
    saving.join(30)
    assert seen, "the save did not wait for the table's lock"
    assert outcome.get("error") is None
    assert fraylog.state(eid).version == 3


def test_given_db_functions_when_the_roster_shares_the_schema_then_each_save_lands_in_its_table(
    keyed_store: Fraylog,
) -> None:
    """The library names its insert function by the id type alone, so the roster's recorder
    (another table of the schema) replaced the encounters' one with its own: an encounter's
    events went to the roster's table. Each recorder of fraylog's has its own function."""
    import psycopg
    from psycopg import sql

    from infra.campaigns import Campaigns

    fraylog = keyed_store
    settings = fraylog.settings
    if settings.backend != "postgres":
        pytest.skip("SQLite has no insert function: FRAYLOG_PG_DB_FUNCTIONS is PostgreSQL's")
    # given: the roster's application made after the encounters' (its tables and function)
    roster = Campaigns(settings)
    try:
        # when
        eid = UUID(fraylog.create_encounter("Shared", "novus", "seeded", "s").state.id)
        who, _ = fraylog.add_combatant(eid, "A", "x", novus_stats())
        fraylog.execute(eid, c.AdjustHits(combatant=who, amount=-1))
        # then: the encounter's three events in its own table, none in the roster's
        counts = []
        assert settings.database_url is not None
        with psycopg.connect(settings.database_url, autocommit=True) as conn:
            for recorder in (fraylog.recorder, roster.recorder):
                name = recorder.events_table_name  # type: ignore[attr-defined]
                table = sql.Identifier(settings.postgres_schema, name)
                query = sql.SQL("SELECT count(*) FROM {} WHERE originator_id = %s").format(table)
                row = conn.execute(query, (eid,)).fetchone()
                counts.append(row[0] if row else None)
    finally:
        roster.close()
    assert counts == [3, 0]
    assert fraylog.state(eid).version == 3


class Gathering:
    """The writer's wait for more saves (`GroupCommit._write`), for a test: each wait noted,
    and what `during` does run in it, in the writer's thread, the store's turn given up."""

    def __init__(self, commits: GroupCommit) -> None:
        self.waits: list[float] = []
        self.during: Callable[[], None] = lambda: None
        commits._sleep = self

    def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.during()


def test_given_a_writer_under_load_when_fewer_saves_come_than_last_then_it_waits_for_more():
    store = HeldStore(refusing("none"))
    commits = GroupCommit(store, gather=0.25)
    gathering = Gathering(commits)

    async def played() -> list[Any]:
        loop = asyncio.get_running_loop()
        a = commits.submit("a")  # given: the writer commits it, held, while two more queue
        await asyncio.to_thread(store.first.wait, 30)
        bc = [commits.submit(x) for x in "bc"]
        await asyncio.to_thread(waiting, commits, 2)
        store.release()
        await asyncio.wait_for(asyncio.gather(a, *bc), 30)  # a batch of two: under load
        later: list[asyncio.Future[None]] = []

        def another_comes() -> None:  # while the writer waits: the next table's save
            loop.call_soon_threadsafe(lambda: later.append(commits.submit("e")))
            waiting(commits, 2)

        gathering.during = another_comes
        # when: one save comes, then another while the writer waits
        d = commits.submit("d")
        await asyncio.wait_for(d, 30)
        return await asyncio.wait_for(asyncio.gather(*later), 30)

    answers = asyncio.run(played())
    # then: it waited once, as long as set, and the two were committed together
    assert answers == [None]
    assert gathering.waits == [0.25]
    assert [sorted(b) for b in store.batches] == [["a"], ["b", "c"], ["d", "e"]]
    commits.close()


def test_given_one_save_at_a_time_when_each_is_handed_over_then_the_writer_never_waits():
    store = HeldStore(refusing("none"))
    store.release()  # nothing held
    commits = GroupCommit(store, gather=0.25)
    gathering = Gathering(commits)

    async def one_after_another() -> None:
        for x in "abcd":
            await asyncio.wait_for(commits.submit(x), 30)

    # when
    asyncio.run(one_after_another())
    # then: each committed alone, at once
    assert store.batches == [["a"], ["b"], ["c"], ["d"]]
    assert gathering.waits == []
    commits.close()


def test_given_a_writer_waiting_for_more_when_a_caller_leads_meanwhile_then_each_save_is_answered():
    store = HeldStore(refusing("none"))
    commits = GroupCommit(store, gather=0.25)
    gathering = Gathering(commits)
    led: dict[str, Any] = {}

    def a_caller_leads() -> None:  # a worker thread's command, while the writer waits
        thread, outcome = in_thread(lambda: commits.commit("x"))
        thread.join(30)
        led.update(outcome, done=not thread.is_alive())

    async def played() -> Any:
        a = commits.submit("a")
        await asyncio.to_thread(store.first.wait, 30)
        bc = [commits.submit(x) for x in "bc"]
        await asyncio.to_thread(waiting, commits, 2)
        store.release()
        await asyncio.wait_for(asyncio.gather(a, *bc), 30)
        gathering.during = a_caller_leads
        # when: the writer waits for more; the caller leads, with the save waiting
        answer = await asyncio.wait_for(commits.submit("d"), 30)
        gathering.during = lambda: None
        await asyncio.wait_for(commits.submit("f"), 30)  # then one save alone
        return answer

    answer = asyncio.run(played())
    # then: both committed, together, by the caller; the writer led nothing after, and
    # waits no more for the save that came alone (not under load, as far as it knows)
    assert answer is None and led == {"value": None, "done": True}
    assert [sorted(b) for b in store.batches] == [["a"], ["b", "c"], ["d", "x"], ["f"]]
    assert gathering.waits == [0.25]
    commits.close()
