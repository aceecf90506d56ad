"""fraylog itself: building long encounters, loading them, and running commands in-process."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any
from uuid import UUID

from bench.baseline import Paced, Pacer, alongside
from bench.timing import Row, clock
from domain import commands as c
from infra.app import Fraylog
from infra.settings import Settings
from projections.view import view_of

NO_SNAPSHOTS = 10**9  # an interval no encounter reaches

# Two Novus fighters from the demo party, with hits enough for hundreds of attacks.
FIGHTERS = [
    (
        "Brakka",
        "heroes",
        {
            "hits": 10_000,
            "bonuses": {"str": 2, "dex": 1, "spd": 1, "con": 2, "wil": 1, "wis": 0},
            "melee_ranks": 8,
            "shield": "normal",
            "ar": 6,
            "first_aid": 3,
            "weapons": [
                {
                    "name": "longsword",
                    "dr": 6,
                    "stat": "str",
                    "ranks": 8,
                    "size": "medium",
                    "damage_type": "slashing",
                }
            ],
        },
    ),
    (
        "Grukk",
        "raiders",
        {
            "hits": 10_000,
            "bonuses": {"str": 3, "dex": 0, "spd": 0, "con": 3, "wil": 0, "wis": 0},
            "melee_ranks": 6,
            "ar": 4,
            "weapons": [
                {
                    "name": "great axe",
                    "dr": 8,
                    "stat": "str",
                    "ranks": 6,
                    "size": "large",
                    "damage_type": "slashing",
                }
            ],
        },
    ),
]
ATTACK_DICE = {"attack": [5, 6]}  # manual faces: 2d10 showing 5 and 6, no explosion

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


def attack_loop(
    execute: Execute, eid: UUID, a: str, b: str, n: int, warmup: int, between: Between = _nothing
) -> tuple[list[int], list[int], int]:
    """Rounds of: b declares an attack on a, a on b (lowest IP declares first), both
    resolve with manual dice (boons=[]: no waiting on spend_boons), end round.

    Returns per-attack latencies (declare + resolve of one combatant), per-command latencies
    of those declares and resolves, and the events recorded per attack on average.
    """
    execute(eid, c.RollInitiative(combatant=a, ip=20))
    execute(eid, c.RollInitiative(combatant=b, ip=10))
    attacks, per_cmd = [], []
    recorded = 0
    rounds = warmup + max(1, n // 2)
    for r in range(rounds):
        t = {}
        for who, foe in ((b, a), (a, b)):
            t0 = clock()
            out = execute(
                eid,
                c.Declare(combatant=who, actions=[c.ActionSpec(kind="melee_attack", target=foe)]),
            )
            t[who] = [clock() - t0]
            recorded += _events_in(out)
        for who in (a, b):  # resolution: highest IP first
            t0 = clock()
            out = execute(eid, c.Resolve(dice=ATTACK_DICE, boons=[]))
            t[who].append(clock() - t0)
            recorded += _events_in(out)
        execute(eid, c.EndRound())
        if r >= warmup:
            for pair in t.values():
                attacks.append(sum(pair))
                per_cmd.extend(pair)
                between()
        else:
            recorded = 0
    return attacks, per_cmd, recorded // max(1, len(attacks))


def _events_in(out: Any) -> int:
    if isinstance(out, dict):  # an HTTP CommandResult
        return len(out["events"])
    return len(out.events)


def command_rows(backend: str, settings: Settings, n: int, warmup: int, pacer: Pacer) -> list[Row]:
    with Fraylog(settings) as fraylog:
        eid, a, b = new_fight(fraylog)
        p = Paced(pacer.save, 10)
        adjust = adjust_hits_loop(fraylog.execute, eid, a, n, warmup, p)
        p.flush()
        adjust_base = pacer.take_save_rate()
        eid, a, b = new_fight(fraylog)
        p = Paced(pacer.save, 10)
        attacks, per_cmd, per_attack = attack_loop(fraylog.execute, eid, a, b, n, warmup, p)
        p.flush()
        attack_base = pacer.take_save_rate()
    return command_result_rows(
        backend,
        "in-process execute",
        adjust,
        adjust_base,
        attacks,
        per_cmd,
        per_attack,
        attack_base,
    )


def command_result_rows(
    backend: str,
    how: str,
    adjust: list[int],
    adjust_base: float,
    attacks: list[int],
    per_cmd: list[int],
    per_attack: int,
    attack_base: float,
) -> list[Row]:
    """Rows whose ratios are to the baseline saves/s measured alongside each loop."""

    def row(what: str, samples: list[int], unit: str, base: float, note: str = "") -> Row:
        rate = len(samples) / (sum(samples) / 1e9)
        note = f"{note}; {alongside(base, 'saves/s')}" if note else alongside(base, "saves/s")
        return Row(backend, f"{how}: {what}", samples, rate, unit, "save", rate / base, note)

    return [
        row("AdjustHits", adjust, "cmds/s", adjust_base),
        row(
            "attack (declare + resolve)",
            attacks,
            "attacks/s",
            attack_base,
            f"2 commands, {per_attack} events",
        ),
        row("declare or resolve (each)", per_cmd, "cmds/s", attack_base),
    ]
