"""The eventsourcing library alone: a plain Aggregate whose one event carries a dict.

The payload mirrors a fraylog HitsAdjusted event (same keys and value sizes), and the
Application gets the same persistence environment fraylog builds from its Settings, so
the difference to fraylog's figures is what fraylog adds on top of the library.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any
from uuid import UUID, uuid4

from eventsourcing.application import Application
from eventsourcing.domain import Aggregate, event

from bench.timing import Row, clock


class Tally(Aggregate):
    """A trivial aggregate: it counts its events and keeps the last payload."""

    def __init__(self) -> None:
        self.count = 0
        self.last: dict[str, Any] = {}

    @event("Noted")
    def note(self, payload: dict[str, Any]) -> None:
        self.count += 1
        self.last = payload


class Baseline(Application[UUID]):
    """No snapshotting intervals: every load replays every event."""

    name = "baseline"  # PostgreSQL tables baseline_events, baseline_snapshots


def payload(i: int, combatant: str) -> dict[str, Any]:
    """What a HitsAdjusted event says, as a plain dict."""
    return {
        "actor": "gm",
        "cause": None,
        "combatant": combatant,
        "amount": -1,
        "hits_before": 10_000 - i,
        "hits_after": 9_999 - i,
        "reason": "GM adjustment",
    }


def project_without_assert(aggregate: Any, events: Any) -> Any:
    """The library's project_aggregate less its per-event
    `assert isinstance(event, CanMutateProtocol)` (a runtime-checkable Protocol check)."""
    for domain_event in events:
        aggregate = domain_event.mutate(aggregate)
    return aggregate


def stored_size(app: Application[UUID], domain_event: Any) -> int:
    """Bytes of the event's stored state (what goes into the database's state column)."""
    return len(app.mapper.to_stored_event(domain_event).state)


class Paced:
    """A `between` callable for a fraylog loop: after every `every` timed fraylog operations
    it runs `every` baseline operations. Blocks rather than strict alternation, because a
    1,000-event replay right before a 0.1 ms load evicts what that load had in the CPU
    caches and inflates it; in blocks only the first operation of each block pays that."""

    def __init__(self, op: Callable[[], Any], every: int) -> None:
        self.op = op
        self.every = every
        self.calls = 0

    def __call__(self) -> None:
        self.calls += 1
        if self.calls % self.every == 0:
            for _ in range(self.every):
                self.op()

    def flush(self) -> None:
        """Run the baseline operations the last, unfinished block still owes."""
        for _ in range(self.calls % self.every):
            self.op()
        self.calls = 0


class Spread:
    """A `between` callable for a row of `n` timed fraylog operations that runs only `ops`
    baseline operations, spread evenly over it (after operations n/ops, 2n/ops, ...): for
    rows whose baseline replay is long (a 10,000-event aggregate), where one for one would
    take most of the run."""

    def __init__(self, op: Callable[[], Any], n: int, ops: int) -> None:
        self.op = op
        self.n = max(1, n)
        self.ops = ops
        self.calls = 0
        self.done = 0

    def __call__(self) -> None:
        self.calls += 1
        due = min(self.ops, self.calls * self.ops // self.n)
        while self.done < due:
            self.op()
            self.done += 1

    def flush(self) -> None:
        """Run the baseline operations still owed (when the row ran fewer than `n`)."""
        while self.done < self.ops:
            self.op()
            self.done += 1


class Pacer:
    """The baseline again, interleaved with a fraylog row's operations.

    On a noisy machine a rate measured a minute earlier is a poor yardstick, so every fraylog
    row runs baseline saves or replays between its own timed operations (see `Paced`) and its
    ratio is to the baseline rate measured alongside it (`take_save_rate`,
    `take_replay_rate`).
    """

    def __init__(
        self, env: dict[str, str], events: int, groups: list[list[dict[str, Any]]] | None = None
    ) -> None:
        self.env = env
        self.events = events
        self.app = Baseline(env=env)
        self.combatant = str(uuid4())
        self.tally = Tally()
        self.app.save(self.tally)
        self.replay_id: UUID | None = None  # set once the replay aggregate is saved
        self.saves: list[int] = []
        self.replays: list[int] = []
        # The events of an attack round, command by command (see `same_events`).
        self.groups = groups or []
        self.same = Tally()
        self.app.save(self.same)
        self.same_next = 0
        self.same_saves: list[int] = []

    def save_same(self) -> None:
        """Record the events of the next command of an attack round (the same payloads
        fraylog stores for it) and save them in one save: the library doing what a command
        of the round does, without fraylog. Timed: the triggers and the save."""
        group = self.groups[self.same_next % len(self.groups)]
        self.same_next += 1
        t0 = clock()
        for p in group:
            self.same.note(p)
        self.app.save(self.same)
        self.same_saves.append(clock() - t0)

    def take_same_rate(self) -> float:
        """Commands/s of `save_same` since the last take, then start afresh."""
        samples, self.same_saves = self.same_saves, []
        return len(samples) / (sum(samples) / 1e9)

    def save(self) -> None:
        """Record one event on the baseline aggregate, one save."""
        self.tally.note(payload(self.tally.count, self.combatant))
        t0 = clock()
        self.app.save(self.tally)
        self.saves.append(clock() - t0)

    def replay(self, projector: Any = None) -> int:
        """Load the replay aggregate on a new instance (empty cache, new connections).

        A new instance runs its CREATE ... IF NOT EXISTS statements, which on PostgreSQL
        touch objects shared by every application in the schema: use it only next to loads
        that also make new instances (`replay_running` otherwise).
        """
        assert self.replay_id is not None
        with Baseline(env=self.env) as cold:
            t0 = clock()
            if projector is None:
                agg = cold.repository.get(self.replay_id)
            else:
                agg = cold.repository.get(self.replay_id, projector_func=projector)
            elapsed = clock() - t0
            assert agg.version == self.events, agg.version
        self.replays.append(elapsed)
        return elapsed

    def replay_running(self) -> int:
        """Load the replay aggregate on the running instance after evicting it from the
        cache: a cache miss with warm connections."""
        assert self.replay_id is not None
        cache = self.app.repository.cache
        if cache is not None:
            with contextlib.suppress(KeyError):
                cache.get(self.replay_id, evict=True)
        t0 = clock()
        agg = self.app.repository.get(self.replay_id)
        elapsed = clock() - t0
        assert agg.version == self.events, agg.version
        self.replays.append(elapsed)
        return elapsed

    def build_replay(self, batch: int = 100) -> None:
        """Save the replay aggregate with `events` events (its creation and `events - 1`
        notes) in saves of `batch` events: quicker to build than one per save, and stored
        the same (one row per event)."""
        tally = Tally()
        for i in range(self.events - 1):
            tally.note(payload(i, self.combatant))
            if len(tally.pending_events) >= batch:
                self.app.save(tally)
        self.app.save(tally)
        self.replay_id = tally.id

    def take_save_rate(self) -> float:
        """Saves/s since the last take, then start afresh."""
        samples, self.saves = self.saves, []
        return len(samples) / (sum(samples) / 1e9)

    def take_replay_rate(self) -> float:
        """Events/s of the median replay since the last take, then start afresh."""
        samples, self.replays = self.replays, []
        return self.events / (sorted(samples)[len(samples) // 2] / 1e9)

    def close(self) -> None:
        self.app.close()


def run(
    backend: str,
    env: dict[str, str],
    events: int,
    reps: int,
    commands: int,
    groups: list[list[dict[str, Any]]],
) -> tuple[dict[str, Row], dict[str, Any], Pacer]:
    """Saves/s (one event per save), cold replay of an `events`-event aggregate, and a
    library-only command (get from the cache, trigger, save) for comparison.

    Returns the rows, a few sizes, and the Pacer (open) for the fraylog rows to use.
    """
    pacer = Pacer(env, events, groups)
    app = pacer.app
    info: dict[str, Any] = {}
    combatant = pacer.combatant
    tally = Tally()
    app.save(tally)
    samples = []
    for i in range(events - 1):
        tally.note(payload(i, combatant))
        if i == 0:
            info["baseline_event_bytes"] = stored_size(app, tally.pending_events[-1])
        t0 = clock()
        app.save(tally)
        samples.append(clock() - t0)
    pacer.replay_id = tally.id
    for _ in range(commands):
        pacer.save_same()
    same = pacer.same_saves
    pacer.same_saves = []

    # A command made of library calls only: get (cache hit: fast-forward + deepcopy),
    # trigger one event, save. This is what Fraylog.execute does around its rules.
    other = Tally()
    app.save(other)
    cmd_samples = []
    between = Paced(pacer.save, 10)
    for i in range(commands):
        t0 = clock()
        agg = app.repository.get(other.id)
        agg.note(payload(i, combatant))
        app.save(agg)
        cmd_samples.append(clock() - t0)
        between()
    between.flush()
    cmd_pair = pacer.take_save_rate()

    replay, replay_no_assert, running = [], [], []
    for _ in range(reps):
        replay_no_assert.append(pacer.replay(project_without_assert))
        replay.append(pacer.replay())
        running.append(pacer.replay_running())

    save_rate = len(samples) / (sum(samples) / 1e9)
    replay_rate = events / (sorted(replay)[len(replay) // 2] / 1e9)
    pacer.replays = []
    rows = {
        "save": Row(
            backend, "baseline: save one event per save", samples, save_rate, "saves/s", "save", 1.0
        ),
        "replay": Row(
            backend,
            f"baseline: cold replay of {events:,} events, no snapshots",
            replay,
            replay_rate,
            "events/s",
            "replay",
            1.0,
            "new instance (new connections) each",
        ),
        "same": Row(
            backend,
            "baseline: the events of an attack round's commands, one save per command",
            same,
            len(same) / (sum(same) / 1e9),
            "cmds/s",
            "same",
            1.0,
            f"{sum(len(g) for g in groups)} events in {len(groups)} saves per round, the "
            "payloads fraylog stores for them",
        ),
        "command": Row(
            backend,
            "baseline: get (cached) + 1 event + save",
            cmd_samples,
            len(cmd_samples) / (sum(cmd_samples) / 1e9),
            "cmds/s",
            "save",
        ),
    }
    rows["running"] = Row(
        backend,
        "baseline: the same replay on a running instance (cache miss)",
        running,
        events / (sorted(running)[len(running) // 2] / 1e9),
        "events/s",
        "replay",
        note="evicted from the cache; connections warm; interleaved",
    )
    rows["running"].ratio = (rows["running"].rate or 0) / replay_rate
    rows["command"].ratio = (rows["command"].rate or 0) / cmd_pair
    rows["command"].note = alongside(cmd_pair, "saves/s")
    median = sorted(replay_no_assert)[len(replay_no_assert) // 2]
    rows["replay_no_assert"] = Row(
        backend,
        "baseline: the same replay, projector without isinstance assert",
        replay_no_assert,
        events / (median / 1e9),
        "events/s",
        "replay",
        note="like fraylog's project_encounter; interleaved",
    )
    rows["replay_no_assert"].ratio = (rows["replay_no_assert"].rate or 0) / replay_rate
    return rows, info, pacer


def concurrent_same_rate(pacer: Pacer, callers: int, seconds: float) -> float:
    """`save_same`'s work by `callers` threads at once, each on an aggregate of its own, for
    about `seconds`: commands/s of them all (what the library gives concurrent callers)."""
    import threading

    counts = [0] * callers
    aggregates = [Tally() for _ in range(callers)]
    for agg in aggregates:
        pacer.app.save(agg)
    start = threading.Barrier(callers + 1)
    stop = [0]

    def run(i: int) -> None:
        agg, k = aggregates[i], 0
        start.wait()
        while clock() < stop[0]:
            for p in pacer.groups[k % len(pacer.groups)]:
                agg.note(p)
            pacer.app.save(agg)
            counts[i] += 1
            k += 1

    threads = [threading.Thread(target=run, args=(i,)) for i in range(callers)]
    for t in threads:
        t.start()
    t0 = clock()
    stop[0] = t0 + int(seconds * 1e9)
    start.wait()
    for t in threads:
        t.join()
    return sum(counts) / ((clock() - t0) / 1e9)


def alongside(rate: float, unit: str, how: str = "") -> str:
    return f"baseline alongside{f' ({how})' if how else ''}: {rate:,.0f} {unit}"
