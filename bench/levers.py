"""The levers, one at a time, each against fraylog's default on the same workload, the
instances taking turns (`fraylog_runs.interleaved`): the aggregate cache, the snapshot
interval, one save per command, the PostgreSQL recorder's database functions. (The
projector is in `bench.folds`; pool size and workers, under HTTP load, in `bench.run`.)"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from bench.fraylog_runs import Table, evicted_loads, interleaved, past_versions
from bench.timing import Row, percentile
from infra.app import Fraylog
from infra.settings import Settings


class EventByEvent(Fraylog):
    """fraylog saving a command's events one save each, instead of all in one save."""

    def save(self, *objs: Any, **kwargs: Any) -> list[Any]:
        recordings: list[Any] = []
        for obj in objs:
            events = list(obj.collect_events())
            for e in events:
                obj._pending_events.append(e)
                recordings += super().save(obj, **kwargs)
        return recordings


def lever_row(
    backend: str,
    lever: str,
    setting: str,
    samples: list[int],
    rate: float,
    unit: str,
    default_rate: float,
    note: str = "",
) -> Row:
    return Row(
        backend, f"{lever}: {setting}", samples, rate, unit, "default", rate / default_rate, note
    )


def _rate(samples: list[int]) -> float:
    return len(samples) / (sum(samples) / 1e9)


def command_lever(
    backend: str,
    lever: str,
    apps: dict[str, Callable[[], Fraylog]],
    rounds: int,
    note: str = "",
) -> list[Row]:
    """Attack rounds on each app in turn; the first app is the default."""
    made = {k: make() for k, make in apps.items()}
    try:
        samples = interleaved({k: Table(app) for k, app in made.items()}, rounds)
    finally:
        for app in made.values():
            app.close()
    default = next(iter(samples))
    base = _rate(samples[default])
    return [
        lever_row(backend, lever, k, v, _rate(v), "cmds/s", base, note) for k, v in samples.items()
    ]


def cache_lever(backend: str, settings: Settings, rounds: int) -> list[Row]:
    return command_lever(
        backend,
        "aggregate cache (FRAYLOG_CACHE_SIZE)",
        {
            f"{settings.cache_size} (default)": lambda: Fraylog(settings),
            "0 (no cache: every command loads from the store)": lambda: Fraylog(
                replace(settings, cache_size=0)
            ),
        },
        rounds,
        "in-process attack round commands",
    )


def save_lever(backend: str, settings: Settings, rounds: int) -> list[Row]:
    return command_lever(
        backend,
        "one save per command",
        {
            "all of a command's events in one save (default)": lambda: Fraylog(settings),
            "one save per event": lambda: EventByEvent(settings),
        },
        rounds,
        "in-process attack round commands (a resolve records 2 events)",
    )


def db_functions_lever(backend: str, settings: Settings, rounds: int) -> list[Row]:
    return command_lever(
        backend,
        "PostgreSQL database functions (FRAYLOG_PG_DB_FUNCTIONS)",
        {
            "off (default)": lambda: Fraylog(settings),
            "on (POSTGRES_ENABLE_DB_FUNCTIONS=y)": lambda: Fraylog(
                replace(settings, pg_db_functions=True)
            ),
        },
        rounds,
        "in-process attack round commands",
    )


def snapshot_lever(
    backend: str, settings: Settings, events: int, reps: int, seed: int
) -> list[Row]:
    """Three fights of about `events` events played in turn, snapshots every 10, 100 and
    1000 events; then random past versions and cache-miss loads of the latest on each."""
    intervals = [100, 10, 1000]  # the default first
    apps = {n: Fraylog(replace(settings, snapshot_interval=n)) for n in intervals}
    rows: list[Row] = []
    try:
        fights = {str(n): Table(app) for n, app in apps.items()}
        samples = interleaved(fights, max(2, events // 7))
        base = _rate(samples["100"])
        for n in intervals:
            label = f"{n}{' (default)' if n == 100 else ''}"
            rows.append(
                lever_row(
                    backend,
                    "snapshot interval (FRAYLOG_SNAPSHOT_INTERVAL)",
                    f"{label}: attack round commands",
                    samples[str(n)],
                    _rate(samples[str(n)]),
                    "cmds/s",
                    base,
                    "in-process, while the fights were played; a snapshot is taken inside save",
                )
            )
        versions: dict[int, tuple[list[int], float]] = {}
        latest: dict[int, list[int]] = {}
        for n, app in apps.items():
            fight = fights[str(n)]
            last = app.state(fight.eid).version
            got, ns = past_versions(app, fight.eid, last, reps, random.Random(seed))
            versions[n] = (got, sum(ns) / len(ns))
            latest[n] = evicted_loads(app, fight.eid, reps)

        def p50(s: list[int]) -> float:
            return percentile([float(x) for x in s], 0.5)

        v_base = versions[100][1] / (p50(versions[100][0]) / 1e9)
        l_base = 1e9 / p50(latest[100])
        for n in intervals:
            label = f"{n}{' (default)' if n == 100 else ''}"
            got, mean_n = versions[n]
            rows.append(
                lever_row(
                    backend,
                    "snapshot interval (FRAYLOG_SNAPSHOT_INTERVAL)",
                    f"{label}: state(id, version=N), random N",
                    got,
                    mean_n / (p50(got) / 1e9),
                    "events/s",
                    v_base,
                    f"same N for each interval; rate = mean N / p50; fight of ~{events:,} events",
                )
            )
        for n in intervals:
            label = f"{n}{' (default)' if n == 100 else ''}"
            rows.append(
                lever_row(
                    backend,
                    "snapshot interval (FRAYLOG_SNAPSHOT_INTERVAL)",
                    f"{label}: cache miss, load latest",
                    latest[n],
                    1e9 / p50(latest[n]),
                    "loads/s",
                    l_base,
                    "evicted from the cache of a running instance",
                )
            )
    finally:
        for app in apps.values():
            app.close()
    return rows
