"""A long encounter (10,000 events by default) on one backend: random past versions, the
latest version cold and warm, `GET /encounters/{id}/verify`'s work, and the corrections that
refold the whole history (a void of an early roll, an undo), on an encounter with snapshots
and on one built separately without.

The encounter is a played fight: rounds in which two fighters each declare and resolve one
melee attack with manual dice (ActionsDeclared, then AttackRolled + DamageApplied), then
EndRound; every few rounds AdjustHits heal what they lost, and AdjustHits fill up to the
exact length. Ratios are to the eventsourcing library replaying an aggregate of the same
length (`Pacer.build_replay`), a few replays spread over each row (`Spread`).
"""

from __future__ import annotations

import gc
import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any
from uuid import UUID

from bench.baseline import Pacer, Spread, alongside
from bench.fraylog_runs import (
    NO_SNAPSHOTS,
    Between,
    _nothing,
    cold_loads,
    latest_snapshot_bytes,
    new_fight,
    past_versions,
    snapshot_count,
    warm_loads,
)
from bench.timing import Row, clock, percentile
from bench.workload import ATTACK_DICE
from domain import commands as c
from domain.corrections import fold_without, voided_by
from domain.rulesystems.novus import commands as nc
from infra.app import Fraylog
from infra.settings import Settings

BASE_OPS = 5  # baseline replays per row, spread over it (odd: its median is one replay)
HEAL_EVERY = 25  # rounds between the AdjustHits that give the fighters back what they lost
ROUND_EVENTS = 7  # 2 ActionsDeclared, 2 x (AttackRolled + DamageApplied), RoundEnded


@dataclass
class Fight:
    """A long encounter, as built."""

    eid: UUID
    commands: int
    seconds: float
    rounds: int
    kinds: Counter[str]
    first_attack: int  # the position of its first AttackRolled, the void's target


def build_fight(fraylog: Fraylog, events: int) -> Fight:
    """An encounter of exactly `events` events, played through `Fraylog.execute`."""
    t0 = clock()
    eid, a, b = new_fight(fraylog)
    kinds: Counter[str] = Counter({"EncounterCreated": 1, "CombatantAdded": 2})
    commands = 0

    def run(command: c.CommandBase) -> Any:
        nonlocal commands
        out = fraylog.execute(eid, command)
        commands += 1
        kinds.update(type(e).__name__ for e in out.events)
        return out

    run(c.RollInitiative(combatant=a, ip=20))
    version = run(c.RollInitiative(combatant=b, ip=10)).state.version
    lost = {a: 0, b: 0}
    first_attack = 0
    rounds = 0
    while events - version >= ROUND_EVENTS + 2:  # room for a round and its two heals
        for who, foe in ((b, a), (a, b)):  # lowest IP declares first
            run(nc.Declare(combatant=who, actions=[nc.ActionSpec(kind="melee_attack", target=foe)]))
        for _ in range(2):  # highest IP resolves first
            for e in run(nc.Resolve(dice=ATTACK_DICE, boons=[])).events:
                kind = type(e).__name__
                if kind == "AttackRolled" and not first_attack:
                    first_attack = e.originator_version
                elif kind == "DamageApplied":
                    lost[e.combatant] += e.amount
        version = run(c.EndRound()).state.version
        rounds += 1
        if rounds % HEAL_EVERY == 0:
            for who in (a, b):
                if lost[who]:
                    heal = c.AdjustHits(combatant=who, amount=lost[who], reason="bench: heal")
                    version = run(heal).state.version
                    lost[who] = 0
    i = 0
    while version < events:
        fill = c.AdjustHits(combatant=a if i % 2 else b, amount=-1 if i % 3 else 2)
        version = run(fill).state.version
        i += 1
    assert version == events and first_attack, (version, first_attack)
    return Fight(eid, commands, (clock() - t0) / 1e9, rounds, kinds, first_attack)


def build(settings: Settings, events: int) -> tuple[Fight, Fight, dict[str, Any]]:
    """The encounter without snapshots first (its own instance, a huge interval), then the
    one with snapshots every `settings.snapshot_interval` events; sizes as built."""
    with Fraylog(replace(settings, snapshot_interval=NO_SNAPSHOTS)) as fraylog:
        plain = build_fight(fraylog, events)
    with Fraylog(settings) as fraylog:
        snapped = build_fight(fraylog, events)
        assert fraylog.snapshots is not None
        latest = list(fraylog.snapshots.get(snapped.eid, desc=True, limit=1))
        sizes = [len(fraylog.mapper.to_stored_event(e).state) for e in fraylog.event_log(plain.eid)]
        info = {
            "snapshot_bytes": latest_snapshot_bytes(fraylog, snapped.eid),
            "snapshot_version": latest[0].originator_version if latest else 0,
            "snapshots_snapped": snapshot_count(fraylog, snapped.eid),
            "snapshots_plain": snapshot_count(fraylog, plain.eid),
            "event_bytes_mean": sum(sizes) / len(sizes),
            "event_bytes_total": sum(sizes),
        }
    return snapped, plain, info


# -- the timed operations -------------------------------------------------------------------


def verifies(fraylog: Fraylog, eid: UUID, reps: int, between: Between = _nothing) -> list[int]:
    """Fraylog.verify (what GET /encounters/{id}/verify runs): read every event, recompute
    the hash chain, re-derive the dice."""
    samples = []
    for _ in range(reps):
        t0 = clock()
        report = fraylog.verify(eid)
        samples.append(clock() - t0)
        assert report["ok"], report
        between()
    return samples


@dataclass
class Corrections:
    """Latencies of a loop of corrections and what they refolded."""

    samples: list[int]
    history: list[int]  # the length of the history each one refolded
    cascades: list[list[int]]
    changes: list[int]  # entries in each correction's `changes`
    gc: list[int]  # of each latency, the time the cyclic garbage collector ran


class GcClock:
    """Time spent in the cyclic garbage collector (via gc.callbacks) while installed."""

    def __init__(self) -> None:
        self.total = 0
        self._t0 = 0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._t0 = clock()
        else:
            self.total += clock() - self._t0

    def __enter__(self) -> GcClock:
        gc.callbacks.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self)


def _timed_correction(fraylog: Fraylog, eid: UUID, command: c.CommandBase, out: Corrections) -> Any:
    with GcClock() as collector:
        t0 = clock()
        recorded = fraylog.execute(eid, command)
        out.samples.append(clock() - t0)
    out.gc.append(collector.total)
    (event,) = recorded.events
    out.history.append(event.originator_version - 1)
    out.cascades.append(list(event.cascade))
    out.changes.append(len(event.changes))
    return event


def void_loop(
    fraylog: Fraylog,
    fight: Fight,
    reps: int,
    between: Between = _nothing,
) -> Corrections:
    """Void the first AttackRolled (and, by its cause chain, its DamageApplied), then void
    that void (restoring them), alternately; an odd count ends with an untimed void of the
    last void, so the encounter is left as it was played."""
    out = Corrections([], [], [], [], [])
    fraylog.state(fight.eid)  # the latest version cached, as on a running server
    last = 0
    for i in range(reps):
        target = fight.first_attack if i % 2 == 0 else last
        last = _timed_correction(
            fraylog, fight.eid, c.Void(target=target, reason="bench"), out
        ).originator_version
        between()
    if reps % 2:
        fraylog.execute(fight.eid, c.Void(target=last, reason="bench: restore"))
    return out


def undo_loop(
    fraylog: Fraylog, fight: Fight, reps: int, between: Between = _nothing
) -> Corrections:
    """Undo() (the last command that is not a correction), then Redo() (voids that undo),
    alternately; an odd count ends with an untimed Redo()."""
    out = Corrections([], [], [], [], [])
    fraylog.state(fight.eid)
    for i in range(reps):
        _timed_correction(fraylog, fight.eid, c.Redo() if i % 2 else c.Undo(), out)
        between()
    if reps % 2:
        fraylog.execute(fight.eid, c.Redo())
    return out


def history_parts(
    fraylog: Fraylog, eid: UUID, reps: int, between: Between = _nothing
) -> tuple[list[int], list[int]]:
    """The two halves of the work every correction repeats, timed apart (in their own loop:
    interleaved with the corrections, their garbage slows the next one): reading the whole
    history from the store, and folding it without the voided events."""
    read, fold = [], []
    for _ in range(reps):
        t0 = clock()
        history = list(fraylog.events.get(eid))
        read.append(clock() - t0)
        t0 = clock()
        fold_without(history, voided_by(history))
        fold.append(clock() - t0)
        del history
        between()
    return read, fold


# -- rows -----------------------------------------------------------------------------------


def _p50(samples: list[int]) -> float:
    return percentile([float(x) for x in samples], 0.5)


def long_rows(
    backend: str,
    settings: Settings,
    baseline_env: dict[str, str],
    events: int,
    reps: int,
    void_reps: int,
    seed: int,
    log: Callable[[str], None] = print,
    after: Callable[[Fraylog, Fight, Fight, list[Row]], list[Row]] | None = None,
    corrected: Callable[[Fraylog, Fight, Corrections, Corrections], None] | None = None,
) -> tuple[list[Row], str]:
    """Every row of the long-encounter section, and a note of sizes and counts; `after`
    (the running instance, the encounter with snapshots, the one without, the rows so far)
    adds its rows after the verify row, before the corrections change the encounters;
    `corrected` (the running instance, the encounter with snapshots, its voids and its
    undos/redos) is called once they are timed, the instance still open."""
    started = time.monotonic()
    interval = settings.snapshot_interval
    label = f"{events:,} events"
    rows: list[Row] = []

    log(f"[{backend}] {label}: baseline aggregate of the same length, replays ...")
    pacer = Pacer(baseline_env, events)
    try:
        pacer.build_replay()
        cold_base, running_base = [], []
        for _ in range(reps):
            cold_base.append(pacer.replay())
            running_base.append(pacer.replay_running())
        pacer.replays = []
        cold_rate = events / (_p50(cold_base) / 1e9)
        rows.append(
            Row(
                backend,
                f"baseline: cold replay of {events:,} events, no snapshots",
                cold_base,
                cold_rate,
                "events/s",
                "replay",
                1.0,
                "new instance (new connections) each",
            )
        )
        running_rate = events / (_p50(running_base) / 1e9)
        rows.append(
            Row(
                backend,
                f"baseline: the same {events:,}-event replay on a running instance (cache miss)",
                running_base,
                running_rate,
                "events/s",
                "replay",
                running_rate / cold_rate,
                "evicted from the cache; connections warm; interleaved",
            )
        )

        log(f"[{backend}] {label}: building two encounters (attack rounds) ...")
        snapped, plain, info = build(settings, events)
        rng = random.Random(seed)

        def spread(cold: bool, n: int) -> Spread:
            return Spread(pacer.replay if cold else pacer.replay_running, n, BASE_OPS)

        def add(
            what: str,
            samples: list[int],
            paced: Spread,
            events_each: float,
            note: str = "",
            base: float | None = None,
        ) -> float:
            """A row whose rate is `events_each` ÷ p50, its ratio to the baseline replays
            spread over it (or to `base`, for a part of the row above)."""
            if base is None:
                paced.flush()
                base = pacer.take_replay_rate()
            how = "new instance" if "cold" in what else "running instance"
            rate = events_each / (_p50(samples) / 1e9)
            pair = alongside(base, "ev/s", how)
            rows.append(
                Row(
                    backend,
                    what if what.startswith("  ") else f"{label}: {what}",
                    samples,
                    rate,
                    "events/s",
                    "replay",
                    rate / base,
                    f"{note}; {pair}" if note else pair,
                )
            )
            return base

        log(f"[{backend}] {label}: loads ...")
        encounters = ((snapped, f"snapshot every {interval}"), (plain, "no snapshots"))
        for fight, kind in encounters:
            note = "new instance (new connections)"
            if fight is snapped and info["snapshot_version"] == events:
                note += "; latest is a snapshot"
            p = spread(True, reps)
            add(
                f"cold load latest, {kind}",
                cold_loads(settings, fight.eid, reps, p),
                p,
                events,
                note,
            )
        with Fraylog(settings) as fraylog:
            for fight, kind in encounters:
                p = spread(False, 2 * reps)
                add(
                    f"warm load latest, {kind}",
                    warm_loads(fraylog, fight.eid, 2 * reps, p),
                    p,
                    events,
                    "cache hit: fast-forward query + deepcopy",
                )
            for fight, kind in encounters:
                p = spread(False, 4 * reps)
                samples, versions = past_versions(fraylog, fight.eid, events, 4 * reps, rng, p)
                add(
                    f"state(id, version=N), random N, {kind}",
                    samples,
                    p,
                    sum(versions) / len(versions),
                    "rate = mean N / p50",
                )
            p = spread(False, reps)
            add(
                "verify(id): hash chain + dice",
                verifies(fraylog, snapped.eid, reps, p),
                p,
                events,
                "GET /encounters/{id}/verify's work; reads every event",
            )

            if after is not None:
                rows += after(fraylog, snapped, plain, rows)

            log(f"[{backend}] {label}: void, undo and redo ...")
            voids: dict[str, Corrections] = {}
            undos: dict[str, Corrections] = {}
            p = spread(False, void_reps)
            voids["snapped"] = void_loop(fraylog, snapped, void_reps, p)
            base = _void_rows(add, voids["snapped"], p, snapped, f"snapshot every {interval}")
            rows.append(
                Row(
                    backend,
                    "  of which cyclic garbage collection",
                    voids["snapped"].gc,
                    note="time in the collector during each void (gc.callbacks); no rate",
                )
            )
            read, fold = history_parts(fraylog, snapped.eid, void_reps)
            add(
                "  of which reading the history: list(events.get(id))",
                read,
                p,
                events,
                "timed apart, in a loop of its own",
                base=base,
            )
            add(
                "  of which fold_without(history, voided_by(history))",
                fold,
                p,
                events,
                "timed apart, in a loop of its own",
                base=base,
            )
            p = spread(False, void_reps)
            undos["snapped"] = undo_loop(fraylog, snapped, void_reps, p)
            _undo_rows(add, undos["snapped"], p, f"snapshot every {interval}")
            if corrected is not None:
                corrected(fraylog, snapped, voids["snapped"], undos["snapped"])
        with Fraylog(replace(settings, snapshot_interval=NO_SNAPSHOTS)) as fraylog:
            p = spread(False, void_reps)
            voids["plain"] = void_loop(fraylog, plain, void_reps, p)
            _void_rows(add, voids["plain"], p, plain, "no snapshots")
            p = spread(False, void_reps)
            undos["plain"] = undo_loop(fraylog, plain, void_reps, p)
            _undo_rows(add, undos["plain"], p, "no snapshots")
    finally:
        pacer.close()

    v, u = voids["snapped"], undos["snapped"]
    note = (
        f"{backend}, {label}: {snapped.rounds:,} rounds of two attacks "
        f"({snapped.kinds['AttackRolled']:,} AttackRolled, "
        f"{snapped.kinds['DamageApplied']:,} DamageApplied, "
        f"{snapped.kinds['ActionsDeclared']:,} ActionsDeclared, "
        f"{snapped.kinds['RoundEnded']:,} RoundEnded) and "
        f"{snapped.kinds['HitsAdjusted']:,} HitsAdjusted, from {snapped.commands:,} commands; "
        f"a stored event is {info['event_bytes_mean']:,.0f} bytes of state on average "
        f"({info['event_bytes_total'] / 1e6:.1f} MB in all). The latest snapshot (version "
        f"{info['snapshot_version']:,}) is {info['snapshot_bytes']:,} bytes; snapshots stored: "
        f"{info['snapshots_snapped']} on the snapshotted encounter, {info['snapshots_plain']} "
        f"on the other. Building ran {plain.commands / plain.seconds:,.0f} commands/s without "
        f"snapshots, {snapped.commands / snapped.seconds:,.0f} with. The void of event "
        f"{snapped.first_attack} (the first AttackRolled) voids {v.cascades[0]} and records "
        f"{v.changes[0]} change(s); Undo() voids {u.cascades[0]} with {u.changes[0]} "
        f"change(s). Section done in {time.monotonic() - started:.0f} s."
    )
    return rows, note


Add = Callable[..., float]


def _void_rows(add: Add, v: Corrections, p: Spread, fight: Fight, kind: str) -> float:
    return add(
        f"execute Void(first AttackRolled), {kind}",
        v.samples,
        p,
        sum(v.history) / len(v.history),
        f"alternately Void({fight.first_attack}) and Void(that RollVoided); refolds the "
        "whole history; rate = history length / p50",
    )


def _undo_rows(add: Add, u: Corrections, p: Spread, kind: str) -> float:
    return add(
        f"execute Undo() or Redo(), alternately (each), {kind}",
        u.samples,
        p,
        sum(u.history) / len(u.history),
        "refolds the whole history; rate = history length / p50",
    )
