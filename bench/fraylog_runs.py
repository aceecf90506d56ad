"""fraylog itself: building long encounters, loading them, and running commands in-process."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any
from uuid import UUID

from bench.baseline import Paced, Pacer, alongside
from bench.timing import Row, clock
from bench.workload import FIGHTERS, HEAL_EVERY, round_bodies
from domain import commands as c
from domain.rulesystems import get_rule_system
from infra.app import Fraylog
from infra.settings import Settings
from projections.view import view_of

NO_SNAPSHOTS = 10**9  # an interval no encounter reaches
COMMAND = get_rule_system("novus").command_adapter()  # the bench plays Novus

Execute = Callable[[UUID, c.CommandBase], Any]


def new_fight(fraylog: Fraylog) -> tuple[UUID, str, str]:
    """An encounter with manual dice and two combatants; version 3."""
    eid = UUID(fraylog.create_encounter("Bench", "novus", "manual").state.id)
    ids = [fraylog.add_combatant(eid, name, side, stats)[0] for name, side, stats in FIGHTERS]
    return eid, ids[0], ids[1]


def build_long_encounter(fraylog: Fraylog, events: int) -> UUID:
    """An encounter of exactly `events` events: created, two combatants, then AdjustHits
    commands (each records one HitsAdjusted)."""
    eid, a, b = new_fight(fraylog)
    for i in range(events - 3):
        fraylog.execute(eid, c.AdjustHits(combatant=a if i % 2 else b, amount=-1 if i % 3 else 2))
    return eid


def snapshot_count(fraylog: Fraylog, eid: UUID) -> int:
    assert fraylog.snapshots is not None
    return len(list(fraylog.snapshots.get(eid)))


def latest_snapshot_bytes(fraylog: Fraylog, eid: UUID) -> int:
    assert fraylog.snapshots is not None
    latest = list(fraylog.snapshots.get(eid, desc=True, limit=1))
    return len(fraylog.mapper.to_stored_event(latest[0]).state) if latest else 0


def build(settings: Settings, events: int) -> tuple[UUID, UUID, dict[str, Any]]:
    """One encounter with snapshots every `settings.snapshot_interval` events, one without.

    Fraylog.__init__ sets `snapshotting_intervals` on the class, so the instance built last
    decides the interval of every live instance: the two are built one after the other and
    the snapshots each got are counted from the store.
    """
    with Fraylog(replace(settings, snapshot_interval=NO_SNAPSHOTS)) as fraylog:
        t0 = clock()
        plain = build_long_encounter(fraylog, events)
        build_s = (clock() - t0) / 1e9
    with Fraylog(settings) as fraylog:
        snapped = build_long_encounter(fraylog, events)
        info = {
            "build_cmds_per_s": (events - 3) / build_s,
            "snapshots_plain": snapshot_count(fraylog, plain),
            "snapshots_snapped": snapshot_count(fraylog, snapped),
            "fraylog_event_bytes": len(
                fraylog.mapper.to_stored_event(list(fraylog.event_log(snapped, 4))[-1]).state
            ),
            "snapshot_bytes": latest_snapshot_bytes(fraylog, snapped),
        }
    return snapped, plain, info


Between = Callable[[], Any]  # one baseline operation, run after each timed one


def _nothing() -> None:
    return None


def cold_loads(settings: Settings, eid: UUID, reps: int, between: Between = _nothing) -> list[int]:
    """Fraylog.state on a new instance each time (empty aggregate cache, new connections)."""
    samples = []
    for _ in range(reps):
        with Fraylog(settings) as fraylog:
            t0 = clock()
            fraylog.state(eid)
            samples.append(clock() - t0)
        between()
    return samples


def warm_loads(fraylog: Fraylog, eid: UUID, reps: int, between: Between = _nothing) -> list[int]:
    """Fraylog.state with the latest version in the cache (fast-forward + deepcopy)."""
    fraylog.state(eid)
    samples = []
    for _ in range(reps):
        t0 = clock()
        fraylog.state(eid)
        samples.append(clock() - t0)
        between()
    return samples


def evicted_loads(fraylog: Fraylog, eid: UUID, reps: int, between: Between = _nothing) -> list[int]:
    """Fraylog.state on a running instance after evicting the encounter from its cache:
    a cache miss with warm database connections (prepared statements and all)."""
    cache = fraylog.repository.cache
    assert cache is not None
    fraylog.state(eid)
    samples = []
    for _ in range(reps):
        cache.get(eid, evict=True)
        t0 = clock()
        fraylog.state(eid)
        samples.append(clock() - t0)
        between()
    return samples


def past_versions(
    fraylog: Fraylog,
    eid: UUID,
    events: int,
    reps: int,
    rng: random.Random,
    between: Between = _nothing,
) -> tuple[list[int], list[int]]:
    """Fraylog.state(id, version=N) for random N, on a warm instance (latest cached)."""
    fraylog.state(eid)
    samples, versions = [], []
    for _ in range(reps):
        n = rng.randint(1, events - 1)
        t0 = clock()
        state = fraylog.state(eid, n)
        samples.append(clock() - t0)
        assert state.version == n
        versions.append(n)
        between()
    return samples, versions


def full_folds(
    fraylog: Fraylog, eid: UUID, reps: int, between: Between = _nothing
) -> tuple[list[int], list[int], list[int]]:
    """view_of(list(event_log(id))) on a warm instance; also its two halves apart."""
    total, read, fold = [], [], []
    for _ in range(reps):
        t0 = clock()
        view = view_of(list(fraylog.event_log(eid)))
        total.append(clock() - t0)
        t0 = clock()
        events = list(fraylog.event_log(eid))
        read.append(clock() - t0)
        t0 = clock()
        view_of(events)
        fold.append(clock() - t0)
        assert view["version"] == len(events)
        between()
    return total, read, fold


def load_rows(
    backend: str, settings: Settings, events: int, reps: int, pacer: Pacer, seed: int
) -> tuple[list[Row], dict[str, Any]]:
    """Every load row; each one's ratio is to baseline replays interleaved with its loads:
    new-instance replays one for one next to new-instance loads, and cache-miss replays on a
    running baseline instance, in blocks of 5, next to loads on a running instance."""
    snapped, plain, info = build(settings, events)
    rng = random.Random(seed)
    interval = settings.snapshot_interval
    rows: list[Row] = []

    def cold() -> Paced:
        return Paced(pacer.replay, 1)

    def running() -> Paced:
        return Paced(pacer.replay_running, 5)

    def add(
        what: str,
        samples: list[int],
        paced: Paced | None,
        events_each: float,
        note: str = "",
        base: float | None = None,
    ) -> float:
        if paced is not None:
            paced.flush()
            base = pacer.take_replay_rate()
        assert base is not None
        how = "new instance" if what.startswith("cold") else "running instance"
        median = sorted(samples)[len(samples) // 2]
        rate = events_each / (median / 1e9)
        pair = alongside(base, "ev/s", how)
        rows.append(
            Row(
                backend,
                what,
                samples,
                rate,
                "events/s",
                "replay",
                rate / base,
                f"{note}; {pair}" if note else pair,
            )
        )
        return base

    p = cold()
    add(
        f"cold load latest, snapshot every {interval}",
        cold_loads(settings, snapped, reps, p),
        p,
        events,
        "new instance (new connections); latest is a snapshot",
    )
    p = cold()
    add(
        "cold load latest, no snapshots",
        cold_loads(settings, plain, reps, p),
        p,
        events,
        "new instance (new connections)",
    )
    with Fraylog(settings) as fraylog:
        p = running()
        add(
            "warm load latest: state(id), cached",
            warm_loads(fraylog, snapped, reps * 2, p),
            p,
            events,
            "cache hit: fast-forward query + deepcopy",
        )
        p = running()
        add(
            f"cache miss on a running instance, snapshot every {interval}",
            evicted_loads(fraylog, snapped, reps, p),
            p,
            events,
            "evicted from the cache; connections warm",
        )
        p = running()
        add(
            "cache miss on a running instance, no snapshots",
            evicted_loads(fraylog, plain, reps, p),
            p,
            events,
            "evicted from the cache; connections warm",
        )
        for eid, label in ((snapped, f"snapshot every {interval}"), (plain, "no snapshots")):
            p = running()
            samples, versions = past_versions(fraylog, eid, events, reps * 2, rng, p)
            add(
                f"state(id, version=N), random N, {label}",
                samples,
                p,
                sum(versions) / len(versions),
                "rate = mean N / p50",
            )
        p = running()
        total, read, fold = full_folds(fraylog, snapped, reps, p)
        base = add("view_of(list(event_log(id))): full fold", total, p, events)
        add("  of which list(event_log(id))", read, None, events, base=base)
        add("  of which view_of(events)", fold, None, events, base=base)
    return rows, info


# -- commands -----------------------------------------------------------------------------


def adjust_hits_loop(
    execute: Execute, eid: UUID, who: str, n: int, warmup: int, between: Between = _nothing
) -> list[int]:
    samples = []
    for i in range(warmup + n):
        cmd = c.AdjustHits(combatant=who, amount=-1 if i % 2 else 1)
        t0 = clock()
        execute(eid, cmd)
        if i >= warmup:
            samples.append(clock() - t0)
            between()
    return samples


def round_commands(a: str, b: str) -> list[Any]:
    """The commands of one attack round (`bench.workload.ROUND`), as the API parses them."""
    return [COMMAND.validate_python(body) for body in round_bodies(a, b)]


class Table:
    """One table in this process: an encounter played attack round after attack round."""

    def __init__(self, fraylog: Fraylog) -> None:
        self.fraylog = fraylog
        self.eid, self.a, self.b = new_fight(fraylog)
        fraylog.execute(self.eid, c.RollInitiative(combatant=self.a, ip=20))
        fraylog.execute(self.eid, c.RollInitiative(combatant=self.b, ip=10))
        self.commands = round_commands(self.a, self.b)
        self.rounds = 0
        self.events = 0
        self.lost = {self.a: 0, self.b: 0}

    def play(self, samples: list[int] | None = None, between: Between = _nothing) -> None:
        """One round; with `samples`, each command's latency appended and `between` run
        after it. Every HEAL_EVERY rounds an untimed AdjustHits gives back the hits lost."""
        for command in self.commands:
            t0 = clock()
            out = self.fraylog.execute(self.eid, command)
            elapsed = clock() - t0
            for e in out.events:
                if type(e).__name__ == "DamageApplied":
                    self.lost[e.combatant] += e.amount
            if samples is not None:
                samples.append(elapsed)
                self.events += len(out.events)
                between()
        self.rounds += 1
        if self.rounds % HEAL_EVERY == 0:
            for who, amount in self.lost.items():
                if amount:
                    self.fraylog.execute(
                        self.eid, c.AdjustHits(combatant=who, amount=amount, reason="bench: heal")
                    )
            self.lost = dict.fromkeys(self.lost, 0)


def interleaved(
    fights: dict[str, Table], rounds: int, warmup: int = 2, block: int = 2
) -> dict[str, list[int]]:
    """Each fight plays `rounds` timed rounds (after `warmup` untimed), `block` rounds at a
    time in rotation, so that a noisy moment of the machine falls on all of them alike."""
    for fight in fights.values():
        for _ in range(warmup):
            fight.play()
    samples: dict[str, list[int]] = {k: [] for k in fights}
    done = 0
    while done < rounds:
        for k, fight in fights.items():
            for _ in range(min(block, rounds - done)):
                fight.play(samples[k])
        done += block
    return samples


def round_payloads(settings: Settings) -> list[list[dict[str, Any]]]:
    """The stored state (less its timestamp) of each event of each command of one attack
    round, as fraylog records it: the library baseline saves these same payloads."""
    import json

    with Fraylog(settings) as fraylog:
        fight = Table(fraylog)
        fight.play()
        groups = []
        for command in fight.commands:
            out = fraylog.execute(fight.eid, command)
            group = []
            for e in out.events:
                state = json.loads(fraylog.mapper.to_stored_event(e).state)
                state.pop("timestamp", None)
                group.append(state)
            groups.append(group)
    return groups


def command_rows(backend: str, settings: Settings, n: int, warmup: int, pacer: Pacer) -> list[Row]:
    """AdjustHits (next to the library saving one event per save) and the commands of
    attack rounds (next to the library saving the same events per command), in-process."""
    with Fraylog(settings) as fraylog:
        eid, a, _ = new_fight(fraylog)
        p = Paced(pacer.save, 10)
        adjust = adjust_hits_loop(fraylog.execute, eid, a, n, warmup, p)
        p.flush()
        adjust_base = pacer.take_save_rate()
        fight = Table(fraylog)
        for _ in range(max(1, warmup // 5)):
            fight.play()
        p = Paced(pacer.save_same, 10)
        attack: list[int] = []
        while len(attack) < n:
            fight.play(attack, p)
        p.flush()
        attack_base = pacer.take_same_rate()
    adjust_rate = len(adjust) / (sum(adjust) / 1e9)
    attack_rate = len(attack) / (sum(attack) / 1e9)
    return [
        Row(
            backend,
            "in-process execute: AdjustHits",
            adjust,
            adjust_rate,
            "cmds/s",
            "save",
            adjust_rate / adjust_base,
            alongside(adjust_base, "saves/s"),
        ),
        Row(
            backend,
            "in-process execute: attack round commands (each)",
            attack,
            attack_rate,
            "cmds/s",
            "same",
            attack_rate / attack_base,
            f"{fight.events / len(attack):.1f} events/cmd; "
            + alongside(attack_base, "cmds/s", "same events, one save per command"),
        ),
    ]
