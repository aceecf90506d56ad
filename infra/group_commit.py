"""Group commit: the saves that wait for the store are recorded together, in one transaction.

A store takes one writer at a time (SQLite's lock, or the rows an encounter's next
positions take on PostgreSQL), and a commit waits for the disk (fsync). A command that
arrives while another commits would wait its turn, then pay its own fsync. Instead, the
first save to find the store free commits everything waiting when it starts (leader and
followers, as PostgreSQL's own commit does): while it commits, the next ones queue, and
the next leader takes them all. One save alone commits at once, as before, on its own
thread. Only the writer thread (below) ever waits for a timer, and only under load: its
last batch held several saves, and fewer wait now; then it waits GATHER_SECONDS for the
others first.

What each save is promised stays its own: its events, its key's mark and its own write
(`also`) commit together or not at all. When a batch cannot commit as a whole (two saves
of one encounter decided on the same version, a mark taken over, an account's cap), the
batch rolls back and each save is committed alone, so each gets its own answer: the one
that broke the batch fails as it would have alone; the others commit. A save is answered
only after its commit.

A save may also be handed over from an event loop (`submit`), which does not wait: the
writer thread leads for it (or a waiting caller does, whichever is first). Once the batch's
transaction is over and the store is free for the next leader, what the save asked to follow
its commit runs (`then`, told the commit's error), and the loop's future is answered. A
command decided on the event loop (infra.app `Fraylog.execute_on_loop`) is recorded this
way on SQLite, so no worker thread waits for it. On PostgreSQL the loop commits such saves
itself (`LoopCommits`, below), and hands the writer those it could not.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from domain.errors import DomainError
from infra.loop_connections import LoopConnection

log = logging.getLogger("fraylog.commits")

# how long the writer, under load, waits for more saves before it leads (`GroupCommit._write`)
GATHER_SECONDS = 0.0003


Then = Callable[[BaseException | None], BaseException | None]  # a commit's error -> the answer


@dataclass(eq=False)
class Saving:
    """One save waiting to be committed: what the store is given (`payload`), and, once
    done, its error (None: committed). One handed over from an event loop has the loop's
    `future` to answer and what follows its commit (`then`: told the commit's error, it
    returns the save's answer), run once the store is free for the next batch."""

    payload: Any
    done: bool = False
    error: BaseException | None = None
    future: asyncio.Future[None] | None = None
    then: Then | None = None
    handed: bool = False  # given by an event loop's commits to the writer (`LoopCommits`)


class GroupCommit:
    """Commits saves together (`record(batch)`, one transaction), or each alone
    (`record([one])`) when a batch fails with an error one of its saves may have caused
    (`own`: a position taken, a key taken over, a cap); at most `most` a transaction. Any
    other error (the store locked or unreachable) is every save's in the batch: committing
    them one by one would make each wait for the store again, in turn."""

    def __init__(
        self,
        record: Callable[[Sequence[Any]], None],
        most: int = 64,
        own: tuple[type[BaseException], ...] = (Exception,),
        gather: float = GATHER_SECONDS,
    ) -> None:
        self._record = record
        self._gather = gather  # the writer's wait for more saves, under load (`_write`)
        self._sleep = time.sleep
        self._own = own  # errors one save can cause; any other is the whole batch's
        self._most = max(1, most)
        self._turn = threading.Condition()  # guards what follows; a commit ending wakes all
        self._waiting: list[Saving] = []
        self._committing = False  # a leader is in the store
        self.batches = 0  # transactions that held more than one save (for `make bench`)
        self.saved = 0  # saves that went in them
        self._writer: threading.Thread | None = None  # leads for the saves handed over
        self._closing = False

    def commit(self, payload: Any) -> None:
        """Record `payload` (with whatever waits with it); raises what its own commit
        raised. Returns once it is committed."""
        mine = Saving(payload)
        with self._turn:
            self._waiting.append(mine)
            while not mine.done:
                if self._committing:
                    self._turn.wait()
                    continue
                self._lead()  # this save leads: it takes all that wait
        if mine.error is not None:
            raise mine.error

    def submit(self, payload: Any, then: Then | None = None) -> asyncio.Future[None]:
        """Hand `payload` over to be recorded, from an event loop, without waiting. Once its
        commit is over, `then(error)` runs on the committing thread (always, whatever the
        commit did; what it returns, or raises, is the save's answer), then the future is
        answered on its loop: None, or that error raised."""
        mine = Saving(payload, future=asyncio.get_running_loop().create_future(), then=then)
        with self._turn:
            if self._closing:
                raise RuntimeError("the store is closing")
            self._start_writer()
            self._waiting.append(mine)
            self._turn.notify_all()
        return mine.future

    def hand_over(self, savings: Sequence[Saving]) -> None:
        """Take saves an event loop's own commits (`LoopCommits`) could not commit there:
        each is committed here as if `submit` had taken it, what follows its commit run and
        its future answered on its loop. Once the store is closing (its writer may be gone),
        the caller leads for them itself, as `commit` does, and returns once they are
        committed."""
        with self._turn:
            self._waiting.extend(savings)
            if not self._closing:
                self._start_writer()
                self._turn.notify_all()
                return
            while not all(one.done for one in savings):
                if self._committing:
                    self._turn.wait()
                    continue
                self._lead()

    def _start_writer(self) -> None:
        """The writer's thread, started on the first save handed over (the lock held)."""
        if self._writer is None:
            self._writer = threading.Thread(target=self._write, name="fraylog writer", daemon=True)
            self._writer.start()

    def _write(self) -> None:
        """The writer's thread: leads whenever saves wait and no one commits, until closed
        with nothing waiting.

        Under load (its last batch held several saves), woken by fewer saves than that, it
        waits `gather` seconds for the others before it leads: the event loop is deciding
        the commands of the other tables, whose saves come a moment later. Fewer, larger
        transactions mean fewer commits, fewer wakes of this thread and of the loop, and
        fewer passes of the interpreter's lock between them: A/B over HTTP (wrk, 16
        connections) 1.19× the commands on SQLite and 1.23× on PostgreSQL; each save waits
        0.3 ms more, then, like any thread, for the interpreter's lock (docs/scaling.md).
        One save at a time (one table, a quiet server) never waits: the last batch held
        one."""
        last = 1  # saves the last batch held
        with self._turn:
            while True:
                while self._committing or not self._waiting:
                    if self._closing and not self._waiting:
                        return
                    self._turn.wait()
                if last > 1 and len(self._waiting) < last and not self._closing:
                    self._turn.release()
                    try:
                        self._sleep(self._gather)
                    finally:
                        self._turn.acquire()
                    if self._committing or not self._waiting:
                        last = 1  # a caller led meanwhile (`commit`), with these saves
                        continue
                last = min(len(self._waiting), self._most)
                self._lead()

    def _lead(self) -> None:
        """Commit what waits, the lock held on entry and on return: the store taken for the
        batch, given up for the next leader, then what follows the handed-over saves' commit
        and their answers, outside the store's turn."""
        self._committing = True
        batch, self._waiting = self._waiting[: self._most], self._waiting[self._most :]
        self._turn.release()
        try:
            self._commit(batch)
        finally:
            self._turn.acquire()
            self._committing = False
            self._turn.notify_all()
        handed = [one for one in batch if one.future is not None]
        if handed:
            self._turn.release()
            try:
                _answer(handed)
            finally:
                self._turn.acquire()

    def close(self) -> None:
        """Stop the writer once what waits is committed (the app's shutdown)."""
        with self._turn:
            self._closing = True
            self._turn.notify_all()
            writer = self._writer
        if writer is not None:
            writer.join()

    def _commit(self, batch: list[Saving]) -> None:
        """Each save of the batch settled: committed, or its error (never raises)."""
        try:
            self._record([s.payload for s in batch])
        except BaseException as e:
            if len(batch) == 1 or not isinstance(e, self._own):
                for one in batch:  # the store's trouble (locked, gone): each would meet it
                    self._settle(one, e)
                return
            for one in batch:  # the batch rolled back: each alone gets its own answer
                try:
                    self._record([one.payload])
                except BaseException as alone:
                    self._settle(one, alone)
                else:
                    self._settle(one, None)
            return
        if len(batch) > 1:
            self.batches += 1
            self.saved += len(batch)
        for one in batch:
            self._settle(one, None)

    @staticmethod
    def _settle(one: Saving, error: BaseException | None) -> None:
        one.error = error
        one.done = True


def _answer(handed: list[Saving]) -> None:
    """The handed-over saves' answers, on the committing thread: what follows each one's
    commit, then their futures answered on their loops, each loop woken once for all of
    its saves (a wake is a write to the loop's own socket and a turn of it: one a save cost
    the loop and the writer a wake each). Never raises: every save is answered."""
    woken: dict[
        asyncio.AbstractEventLoop, list[tuple[asyncio.Future[None], BaseException | None]]
    ] = {}
    for one in handed:
        future = one.future
        assert future is not None
        woken.setdefault(future.get_loop(), []).append((future, _followed(one)))
    for loop, answers in woken.items():
        try:
            loop.call_soon_threadsafe(_answered, answers)
        except RuntimeError:  # its loop is closed
            log.warning("%d saves' answers found their event loop closed", len(answers))


def _followed(one: Saving) -> BaseException | None:
    """What follows a save's commit (`then`, told its error), run: the save's answer."""
    if one.then is None:
        return one.error
    try:
        return one.then(one.error)
    except BaseException as e:
        return e


def _answered(answers: list[tuple[asyncio.Future[None], BaseException | None]]) -> None:
    """On the loop: each future's answer; for one cancelled (its waiter gave up), a failure
    is logged, as nobody will read it. An answer a future refuses (a StopIteration, which
    asyncio will not set) is logged and the future given an error instead: the others of
    the batch are answered all the same."""
    for future, error in answers:
        if future.done():
            if error is not None:
                log.warning("a save whose waiter gave up ended with %r", error)
            continue
        try:
            if error is None:
                future.set_result(None)
            else:
                future.set_exception(error)
        except Exception:
            log.exception("a save's answer could not be given: %r", error)
            future.set_exception(RuntimeError(f"the save's answer could not be given: {error!r}"))


class LoopCommits(LoopConnection):
    """Saves handed over on an event loop, committed there, without the writer thread
    (PostgreSQL: infra.app `Fraylog.execute_on_loop`): a connection of the loop's own
    (psycopg's AsyncConnection, autocommit), each batch's transaction one query that the
    loop sends and awaits (`statement`, with `params` made from the batch's payloads; the
    recorder's `at_once`), saves that come while one is out going in the next. The loop
    goes on deciding other tables' commands while PostgreSQL commits, where the writer
    thread, needing the interpreter's lock to start, waited for the loop to fall idle: a
    table's commands then came and went in waves, and the loop and the writer each waited
    for the other (docs/scaling.md).

    A batch that fails here (a position taken, the connection lost, PostgreSQL refusing)
    is handed to the writer thread (`GroupCommit.hand_over`), which commits it as it
    commits any: together, else each alone, retrying the store, and finding out whether a
    commit whose answer was lost landed. The failure is logged, and the connection rolled
    back; one lost (or that could not be opened: libpq's keepalives find one that died on
    the way, infra.loop_connections) is dropped, and for `REST_SECONDS` the
    batches go straight to the writer before a new one is opened. What follows a save's
    commit (`then`) runs on the loop once its batch is committed, then its future is
    answered: a save is answered only after its commit.

    The connection belongs to the loop that opened it (or, once that loop is closed, to the
    next); on another loop, or once closing, `submit` takes nothing (None) and the caller
    hands its save to the writer thread. Saves that a loop left (stopped before its
    committer ran, or closed while one was out) go to the writer: on the next loop's first
    save, or at the application's close (`forget`). Each save is handed over once."""

    REST_SECONDS = 1.0  # after a connection lost, the writer commits the batches meanwhile

    def __init__(
        self,
        url: str,
        statement: Any,
        params: Callable[[list[Any]], Any],
        writer: GroupCommit,
        most: int = 64,
        name: str = "fraylog commits",
    ) -> None:
        super().__init__(url, name, statement)
        self._params = params
        self._writer = writer  # where a batch goes that cannot commit here
        self._most = max(1, most)
        self._waiting: list[Saving] = []
        self._sending: list[Saving] = []  # the batch out, till it is answered or handed over
        self._committer: asyncio.Task[None] | None = None  # sends the batches while saves wait
        self._closing = False
        self._resting_until = 0.0  # after a failure here (time.monotonic)
        self.batches = 0  # transactions here that held more than one save (tests, benches)
        self.saved = 0  # saves committed here
        self.handed_over = 0  # saves handed to the writer thread

    def submit(self, payload: Any, then: Then) -> asyncio.Future[None] | None:
        """Take `payload` to commit on this loop; `then(error)` runs once it is committed
        (always None here: a failed batch goes to the writer thread, which runs `then` with
        its own outcome). None, having taken nothing: another loop's, or closing."""
        loop = asyncio.get_running_loop()
        if self._loop is None or self._loop.is_closed():  # the first loop, or its successor
            self.forget()
            self._loop, self._committer = loop, None
        if loop is not self._loop or self._closing:
            return None
        mine = Saving(payload, future=loop.create_future(), then=then)
        self._waiting.append(mine)
        if self._committer is None or self._committer.done():  # none, or cancelled unstarted
            self._committer = loop.create_task(self._commit_waiting())
        return mine.future

    async def _commit_waiting(self) -> None:
        """Commit what waits, a batch at a time, until nothing does (or the saves are
        another loop's: this one was left)."""
        import psycopg

        mine = self._loop
        try:
            while self._waiting and self._loop is mine:
                batch, self._waiting = self._waiting[: self._most], self._waiting[self._most :]
                self._sending = batch
                if time.monotonic() < self._resting_until:
                    self._hand_over(batch)
                    continue
                conn = self._conn
                try:
                    conn = conn or await self._open()
                    params = self._params([one.payload for one in batch])
                    await psycopg.AsyncClientCursor(conn).execute(self._statement, params)
                except BaseException as e:
                    # whether a commit cut off landed is found out where the batch goes
                    self._hand_over(batch)
                    if not isinstance(e, Exception):
                        raise  # cancelled, or closed: no await here
                    log.warning(
                        "%d saves could not be committed on the event loop (%r): the writer "
                        "thread commits them",
                        len(batch),
                        e,
                    )
                    if not await self._reset(conn, e):  # the connection lost, or none
                        self._resting_until = time.monotonic() + self.REST_SECONDS
                    continue
                self.saved += len(batch)
                if len(batch) > 1:
                    self.batches += 1
                for one in batch:
                    one.done = True
                self._sending = []
                _answered([(one.future, _followed(one)) for one in batch])  # type: ignore[misc]
        finally:  # cancelled, or the coroutine closed: what is not committed goes to the writer
            if self._loop is mine:
                self._committer = None
                self._hand_over(self._sending + self._waiting)

    def _hand_over(self, savings: list[Saving]) -> None:
        """Hand to the writer the saves neither committed here nor handed over before."""
        fresh = [one for one in savings if not one.done and not one.handed]
        if not fresh:
            return
        for one in fresh:
            one.handed = True
        self._sending = [one for one in self._sending if not one.handed]
        self._waiting = [one for one in self._waiting if not one.handed]
        self.handed_over += len(fresh)
        self._writer.hand_over(fresh)

    async def _reset(self, conn: Any, error: BaseException) -> bool:
        """After a failed batch: its transaction rolled back on the connection, kept (True);
        or the connection dropped (lost, never opened, or cut off in a way it does not
        tell)."""
        import psycopg

        if conn is not None and isinstance(error, psycopg.DatabaseError) and not conn.broken:
            with contextlib.suppress(Exception):  # else dropped
                await conn.rollback()
                return True
        await self._drop(conn)
        return False

    def forget(self) -> None:
        """What a loop left, where that loop cannot finish it (closed, or not running: the
        application's close): the saves it did not commit handed to the writer (a batch out
        only once the loop is closed: a loop that runs again would finish it), and its
        connection's socket closed at once, as it cannot be awaited."""
        loop = self._loop
        if loop is not None and loop.is_running():
            return
        gone = loop is None or loop.is_closed()
        self._hand_over(self._sending + self._waiting if gone else list(self._waiting))
        self._finish()

    async def close(self) -> None:
        """Commit what waits, then close the connection, on its own loop (the app's
        shutdown, before the writer thread closes); later saves go to the writer."""
        if self._loop is not asyncio.get_running_loop():
            return
        self._closing = True
        try:
            if self._committer is not None:
                await asyncio.shield(self._committer)
        finally:
            await self._drop(self._conn)


class Busy(DomainError):
    """Raised when more commands wait for one encounter's turn than a process holds."""

    status = 409
    title = "Encounter busy"


class Turns:
    """One write at a time per encounter in this process: a command waits for the one
    before it on the same encounter to be committed, then loads what it recorded, rather
    than deciding on the same version and losing the race with a 409 (which a group
    commit, holding a save a little longer, would make more likely). Other encounters'
    commands do not wait. Another process's write is still a 409, as before."""

    def __init__(self, most: int = 16) -> None:
        self._guard = threading.Lock()
        self._held: dict[Any, tuple[threading.Lock, int]] = {}  # lock, its users
        self._most = most  # waiting with the one whose turn it is; past it, Busy

    @contextmanager
    def of(self, encounter_id: Any) -> Iterator[None]:
        with self._guard:
            lock, users = self._held.get(encounter_id, (None, 0))
            if users > self._most:  # each waits on a worker thread: keep some for the rest
                raise Busy(
                    "BUSY",
                    f"more than {self._most} commands are waiting for this encounter; "
                    "try again in a moment",
                )
            lock = lock or threading.Lock()
            self._held[encounter_id] = (lock, users + 1)
        try:
            with lock:
                yield
        finally:
            with self._guard:
                self._leave(encounter_id)

    def take_now(self, encounter_id: Any) -> Callable[[], None] | None:
        """The encounter's turn if no one holds or waits for it (else None), without
        waiting: for the event loop, which must not block. Returns what gives it back."""
        with self._guard:
            if encounter_id in self._held:
                return None
            lock = threading.Lock()
            lock.acquire()
            self._held[encounter_id] = (lock, 1)

        def give_back() -> None:
            with self._guard:
                self._leave(encounter_id)
            lock.release()

        return give_back

    def _leave(self, encounter_id: Any) -> None:
        """One user fewer of the encounter's turn (the guard held); the last removes it."""
        lock, users = self._held[encounter_id]
        if users == 1:
            del self._held[encounter_id]
        else:
            self._held[encounter_id] = (lock, users - 1)

    def waiting(self, encounter_id: Any) -> int:
        """How many writes hold or wait for this encounter's turn (for tests)."""
        with self._guard:
            return self._held.get(encounter_id, (None, 0))[1]
