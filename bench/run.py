"""`python -m bench`: fraylog against the eventsourcing library alone, on SQLite and, when
it can be reached, PostgreSQL; targets met or missed, the levers one by one, and a profile
of each missed target.

Per backend, in one run: the library baseline (saves/s, the same events as an attack
round's commands, replays); the yardsticks (`bench.yardsticks`: `fraylog serve` against a
bare FastAPI endpoint served the same way, the library's save and the raw driver's insert,
the load from `wrk` at 1, 4 and 16 connections, repeated taking turns, and the reads of a
played fight); fraylog's command path in-process and over HTTP (attack rounds from
`bench.load`, with 1 client and with `--clients` concurrent ones); loads of a 1,000-event
encounter; a played 10,000-event encounter (random past versions with and without
snapshots, cold and warm loads, the full fold against a raw SELECT + json.loads of the same
rows, export + verify, voids and undos); the command path on a store already holding
1,000,000 events against an empty one
(`bench.growth` says how they are stored fast); the levers. Prints the tables and writes
them to docs/performance.md with the machine they ran on.

PostgreSQL: FRAYLOG_DATABASE_URL when set (then it must be reachable), else --postgres-url
(default postgresql://postgres@127.0.0.1:5432/test), skipped with a note when unreachable;
everything is made in its own schema (--schema), dropped at the start and at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from bench import baseline, folds, fraylog_runs, growth, levers, long_runs, report, wrk_runs
from bench import profile as prof
from bench.timing import Row, Target, percentile
from bench.yardsticks import turn_seconds
from infra.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/test"
SCHEMA = "fraylog_bench"
EXPORT_VS_RAW = 0.7  # issue 19, item 4: export + verify against the raw SELECT + decode
CORRECTION_MS = 20.0  # issue 19, item 5: a void or an undo, p50, on the long encounter
SECTIONS = ("yardsticks", "loads", "commands", "http", "long", "growth", "levers", "profiles")

# option: (default, under --quick)
SIZES: dict[str, tuple[Any, Any]] = {
    "events": (1000, 300),
    "commands": (300, 100),
    "reps": (20, 5),
    "warmup": (10, 5),
    "long_events": (10_000, 2_000),
    "long_reps": (10, 3),
    "void_reps": (6, 2),
    "growth_events": (1_000_000, 100_000),
    "growth_rounds": (60, 20),
    "clients": (4, 4),
    "http_seconds": (5.0, 3.0),
    "wrk_seconds": (5.0, 2.0),
    "wrk_reps": (3, 3),
    "lever_rounds": (40, 10),
    "lever_events": (1_500, 500),
}


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m bench",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )

    def sized(name: str, kind: type, text: str) -> None:
        full, quick = SIZES[name]
        p.add_argument(
            "--" + name.replace("_", "-"),
            type=kind,
            default=None,
            help=f"{text} (default {full:,}; --quick {quick:,})",
        )

    p.add_argument(
        "--quick",
        action="store_true",
        help="smaller sizes everywhere (a check that it all runs, in a few minutes)",
    )
    sized("events", int, "length of the 1,000-event section's encounters and baseline aggregate")
    sized("commands", int, "timed commands per in-process command row")
    sized("reps", int, "loads and folds per row of the 1,000-event section")
    sized("warmup", int, "untimed commands first")
    sized("long_events", int, "length of the played long encounters (0 skips the section)")
    sized("long_reps", int, "long section: cold loads, verifies, folds, exports per row")
    sized("void_reps", int, "long section: voids, and undos/redos, per row")
    sized("growth_events", int, "events already stored for the growth rows (0 skips them)")
    sized("growth_rounds", int, "growth: timed attack rounds on each store")
    sized("clients", int, "concurrent HTTP clients (threads of the load generator process)")
    sized("http_seconds", float, "seconds of each HTTP load")
    sized("wrk_seconds", float, "yardsticks: seconds of each wrk run")
    sized("wrk_reps", int, "yardsticks: runs of each configuration, taking turns (median)")
    sized("lever_rounds", int, "attack rounds per setting of the command-path levers")
    sized("lever_events", int, "length of the fights of the snapshot-interval lever")
    p.add_argument(
        "--snapshot-interval",
        type=int,
        default=Settings().snapshot_interval,
        help=f"fraylog's snapshot interval (default {Settings().snapshot_interval})",
    )
    p.add_argument(
        "--skip",
        default="",
        help=f"comma-separated sections to leave out: {', '.join(SECTIONS)}",
    )
    p.add_argument("--no-postgres", action="store_true", help="SQLite only")
    p.add_argument("--no-http", action="store_true", help="the same as --skip http,yardsticks")
    env_url = os.environ.get("FRAYLOG_DATABASE_URL") or ""
    p.add_argument(
        "--postgres-url",
        default=env_url or DEFAULT_URL,
        help="PostgreSQL to use (default: FRAYLOG_DATABASE_URL if set, which must then be "
        f"reachable, else {DEFAULT_URL}, skipped when unreachable)",
    )
    p.add_argument(
        "--schema",
        default=SCHEMA,
        help=f"PostgreSQL schema, dropped at start and end (default {SCHEMA}; the growth rows "
        "add two more, named after it)",
    )
    p.add_argument(
        "--docs",
        default=str(ROOT / "docs" / "performance.md"),
        help="markdown file to write ('' to skip; default docs/performance.md)",
    )
    p.add_argument("--json", default="", help="also write the raw samples to this JSON file")
    p.add_argument("--seed", type=int, default=7, help="seed of the random past versions")
    args = p.parse_args(argv)
    for name, (full, quick) in SIZES.items():
        if getattr(args, name) is None:
            setattr(args, name, quick if args.quick else full)
    args.skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    if args.no_http:
        args.skip |= {"http", "yardsticks"}
    unknown = args.skip - set(SECTIONS)
    if unknown:
        p.error(f"--skip: unknown section(s) {', '.join(sorted(unknown))}")
    if args.long_events == 0:
        args.skip.add("long")
    if args.growth_events == 0:
        args.skip.add("growth")
    if args.events < 10:
        p.error("--events must be at least 10")
    if args.commands < 10:
        p.error("--commands must be at least 10")
    if args.long_events and args.long_events < 50:
        p.error("--long-events must be 0 (skip) or at least 50")
    if min(args.long_reps, args.void_reps, args.reps, args.clients, args.lever_rounds) < 1:
        p.error("--reps, --long-reps, --void-reps, --clients and --lever-rounds: 1 or more")
    if args.wrk_reps < 1 or args.wrk_seconds < 1:
        p.error("--wrk-reps and --wrk-seconds: 1 or more")
    if args.snapshot_interval < 1:
        p.error("--snapshot-interval must be at least 1")
    if "bench" not in args.schema:
        p.error("--schema is dropped with CASCADE at start and end: its name must contain 'bench'")
    args.postgres_required = bool(env_url) and args.postgres_url == env_url
    return args


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# -- PostgreSQL -----------------------------------------------------------------------------


def postgres_version(url: str) -> str | None:
    """The server's version, or None when it cannot be reached."""
    try:
        import psycopg

        with psycopg.connect(url, connect_timeout=3) as conn:
            row = conn.execute("SHOW server_version").fetchone()
            return str(row[0]) if row else "?"
    except Exception as e:
        log(f"PostgreSQL at {url} is unreachable ({type(e).__name__}: {str(e).strip()[:200]})")
        return None


def drop_schema(url: str, schema: str) -> None:
    import psycopg
    from psycopg import sql

    with psycopg.connect(url, autocommit=True, connect_timeout=5) as conn:
        conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))


def create_schema(url: str, schema: str) -> None:
    import psycopg
    from psycopg import sql

    with psycopg.connect(url, autocommit=True, connect_timeout=5) as conn:
        conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema)))


# -- targets --------------------------------------------------------------------------------


@dataclass
class Results:
    rows: list[Row] = field(default_factory=list)
    levers: list[Row] = field(default_factory=list)
    yardsticks: list[Any] = field(default_factory=list)  # bench.yardsticks.Yard
    targets: list[Target] = field(default_factory=list)
    profiles: list[prof.Profile] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class Backend:
    """What one backend's sections share."""

    name: str
    settings: Settings  # the benchmark's own store
    server: Settings  # the store of the uvicorn runs
    baseline_env: dict[str, str]
    stores: Callable[[str], Settings]  # another fresh store, by name (growth)
    args: argparse.Namespace
    out: Results

    @property
    def pg(self) -> bool:
        return self.settings.database_url is not None

    def wants(self, section: str) -> bool:
        return section not in self.args.skip

    def profile(self, p: prof.Profile | None) -> str:
        if p is None:
            self.out.notes.append(
                f"{self.name}: no profile of a missed target: pyinstrument/py-spy are not "
                "installed (pip install -e '.[test]')"
            )
            return ""
        self.out.profiles.append(p)
        return p.title


# -- HTTP -----------------------------------------------------------------------------------


def http_section(b: Backend, pacer: baseline.Pacer) -> None:
    from bench.over_http import Server, load_row, load_run

    args = b.args
    base_s = min(2.0, max(0.5, args.http_seconds / 4))
    log(
        f"[{b.name}] HTTP: fraylog serve; load from a separate process (1, then "
        f"{args.clients} clients, {args.http_seconds:g} s each) ..."
    )
    with Server(b.server) as server:
        one = load_run(server, 1, args.http_seconds, 3, pacer.save_same, base_s)
        many = load_run(server, args.clients, args.http_seconds, 3, pacer.save_same, base_s)
    threaded = baseline.concurrent_same_rate(pacer, args.clients, 2 * base_s)
    how = "fraylog serve (1 worker), tokens"
    b.out.rows.append(load_row(b.name, "HTTP, 1 client: attack round commands", one, how))
    b.out.rows.append(
        load_row(
            b.name,
            f"HTTP, {args.clients} clients (separate process): attack round commands",
            many,
            f"{how}; the library with {args.clients} threads: {threaded:,.0f} cmds/s",
        )
    )
    if b.pg and b.wants("levers"):
        http_levers(b, pacer, many, base_s)


def http_levers(b: Backend, pacer: baseline.Pacer, default: Any, base_s: float) -> None:
    """Pool size under the same load, one run after the other (a server is started for
    each); × default is the rate ÷ the default run's. Two workers against one: the
    yardsticks (wrk, taking turns)."""
    from bench.over_http import Server, load_run

    args = b.args
    runs: list[tuple[str, str, Any]] = [
        ("connection pool (FRAYLOG_POOL_SIZE)", "5 (default), 1 worker", default)
    ]
    for size in (1, 10):
        log(f"[{b.name}] lever: pool size {size} under HTTP load ...")
        with Server(replace(b.server, pool_size=size)) as server:
            runs.append(
                (
                    "connection pool (FRAYLOG_POOL_SIZE)",
                    str(size),
                    load_run(server, args.clients, args.http_seconds, 3, pacer.save_same, base_s),
                )
            )
    for lever, setting, load in runs:
        b.out.levers.append(
            Row(
                b.name,
                f"{lever}: {setting}",
                load.samples,
                load.rate,
                "cmds/s",
                "default",
                load.rate / default.rate,
                f"{args.clients} HTTP clients, runs one after the other; {load.ratio:.2f}× the "
                f"library just before and after ({load.base:,.0f} cmds/s); workers answering: "
                f"{len(load.workers)}",
            )
        )


# -- the long encounter ---------------------------------------------------------------------


def long_section(b: Backend) -> None:
    args = b.args
    label = f"{args.long_events:,} events"

    def after(fraylog: Any, snapped: Any, plain: Any, so_far: list[Row]) -> list[Row]:
        past_target(b, fraylog, snapped.eid, so_far)
        rows: list[Row] = []
        log(f"[{b.name}] {label}: full fold against a raw SELECT + json.loads ...")
        fold_rows, f = folds.fold_vs_raw(
            b.name, label, fraylog, plain.eid, args.long_events, max(5, args.long_reps)
        )
        rows += fold_rows
        title = ""
        if f["fold_rate"] / f["raw_rate"] < 0.5 and b.wants("profiles"):
            title = b.profile(
                prof.in_process(
                    f"{b.name}: full fold of {label}, view_of(list(event_log(id))) x3",
                    lambda: [view_of_log(fraylog, plain.eid) for _ in range(3)],
                )
            )
        b.out.targets.append(
            Target(
                b.name,
                "full fold ≥ 0.5 × raw SELECT + JSON decode",
                "≥ 0.5×",
                f"{f['fold_rate']:,.0f} vs {f['raw_rate']:,.0f} events/s",
                f["fold_rate"] / f["raw_rate"],
                0.5,
                profile=title,
            )
        )

        log(f"[{b.name}] {label}: export + verify ...")
        ev_rows, rate, raw_rate = folds.export_verify(
            b.name, label, fraylog, snapped.eid, args.long_events, max(3, args.long_reps // 2)
        )
        rows += ev_rows
        title = ""
        if rate < EXPORT_VS_RAW * raw_rate and b.wants("profiles"):
            title = b.profile(
                prof.in_process(
                    f"{b.name}: export + verify of {label}, in-process x2",
                    lambda: [
                        folds.verify_lines(folds.export_lines(fraylog, snapped.eid))
                        for _ in range(2)
                    ],
                )
            )
        b.out.targets.append(
            Target(
                b.name,
                f"export + verify ≥ {EXPORT_VS_RAW} × the raw SELECT + decode of the same rows "
                "(in-process: the route's export code, then `fraylog verify FILE`'s)",
                f"≥ {EXPORT_VS_RAW}×",
                f"{rate:,.0f} vs {raw_rate:,.0f} events/s (taking turns)",
                rate / raw_rate,
                EXPORT_VS_RAW,
                profile=title,
            )
        )
        if b.wants("http"):
            rows += export_over_http(b, fraylog, snapped.eid, label, raw_rate)

        if b.wants("levers"):
            log(f"[{b.name}] lever: the projector ...")
            samples = folds.projector_lever(
                fraylog, plain.eid, args.long_events, max(3, args.long_reps // 2)
            )
            default_k = next(iter(samples))

            def rate_of(s: list[int]) -> float:
                return args.long_events / (percentile([float(x) for x in s], 0.5) / 1e9)

            for k, s in samples.items():
                b.out.levers.append(
                    levers.lever_row(
                        b.name,
                        "projector",
                        k,
                        s,
                        rate_of(s),
                        "events/s",
                        rate_of(samples[default_k]),
                        f"cache miss on a running instance, {label}, no snapshots; "
                        "alternated; rate = events / p50",
                    )
                )
        return rows

    def corrected(fraylog: Any, fight: Any, voids: Any, undos: Any) -> None:
        """Issue 19, item 5: a void and an undo on the encounter with snapshots, p50."""
        interval = b.settings.snapshot_interval
        for what, samples, loop in (
            ("a void (of the first attack roll, or of that void)", voids.samples, "void"),
            ("an undo or a redo", undos.samples, "undo"),
        ):
            ms = [x / 1e6 for x in samples]
            p50 = percentile(ms, 0.5)
            title = ""
            if p50 > CORRECTION_MS and b.wants("profiles"):
                run = long_runs.void_loop if loop == "void" else long_runs.undo_loop
                title = b.profile(
                    prof.in_process(
                        f"{b.name}: {what} on {label}, snapshots every {interval}, x4",
                        lambda run=run: run(fraylog, fight, 4),
                    )
                )
            b.out.targets.append(
                Target(
                    b.name,
                    f"{what} on a {label} encounter (snapshots every {interval}) ≤ "
                    f"{CORRECTION_MS:.0f} ms",
                    f"≤ {CORRECTION_MS:.0f} ms",
                    f"p50 {p50:.1f} ms, max {max(ms):.1f} ms over {len(ms)}",
                    p50,
                    CORRECTION_MS,
                    at_least=False,
                    profile=title,
                )
            )

    rows, note = long_runs.long_rows(
        b.name,
        b.settings,
        b.baseline_env,
        args.long_events,
        args.long_reps,
        args.void_reps,
        args.seed,
        log,
        after,
        corrected,
    )
    b.out.rows += rows
    b.out.notes.append(note)


def past_target(b: Backend, fraylog: Any, eid: Any, rows: list[Row]) -> None:
    """Any version of the long encounter in 5 ms: the p99 of its random past versions."""
    label = f"{b.args.long_events:,} events"
    interval = b.settings.snapshot_interval
    past = next(
        r for r in rows if "state(id, version=N)" in r.what and f"every {interval}" in r.what
    )
    worst = max(past.samples_ns) / 1e6
    title = ""
    if past.p99_ms > 5.0 and b.wants("profiles"):
        import random

        rng = random.Random(b.args.seed)
        title = b.profile(
            prof.in_process(
                f"{b.name}: state(id, version=N) of {label}, 100 random N",
                lambda: [
                    fraylog.state(eid, rng.randint(1, b.args.long_events)) for _ in range(100)
                ],
            )
        )
    b.out.targets.append(
        Target(
            b.name,
            f"any version of a {label} encounter ≤ 5 ms (snapshots every {interval})",
            "≤ 5 ms",
            f"p99 {past.p99_ms:.2f} ms, p50 {past.p50_ms:.2f} ms, max {worst:.2f} ms over "
            f"{past.n} random versions",
            past.p99_ms,
            5.0,
            at_least=False,
            profile=title,
        )
    )


def view_of_log(fraylog: Any, eid: Any) -> Any:
    from projections.view import view_of

    return view_of(list(fraylog.event_log(eid)))


def export_over_http(b: Backend, fraylog: Any, eid: Any, label: str, raw_rate: float) -> list[Row]:
    from bench.over_http import Server

    log(f"[{b.name}] {label}: export over HTTP + verify ...")
    token = fraylog.access.mint(eid, "gm")
    reps = max(3, b.args.long_reps // 2)
    with Server(b.settings) as server:
        row, rate = folds.export_verify_http(
            b.name, label, server.url, token, eid, b.args.long_events, reps
        )
        title = ""
        if rate < EXPORT_VS_RAW * raw_rate and b.wants("profiles") and prof.pyspy_path():
            seconds = max(2.0, 2 * row.p50_ms / 1e3)
            spy = prof.Spy(server.proc.pid, seconds)
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                folds.export_verify_http(
                    b.name, label, server.url, token, eid, b.args.long_events, 1
                )
            title = b.profile(
                spy.result(
                    f"{b.name}: the server streaming GET …/events?format=ndjson of {label}",
                    "Every thread of `fraylog serve`, idle excluded; the client verifying in "
                    "another process is not in it.",
                )
            )
    b.out.targets.append(
        Target(
            b.name,
            f"export + verify ≥ {EXPORT_VS_RAW} × the raw SELECT + decode of the same rows "
            "(over HTTP: GET …/events?format=ndjson, each line verified once it has arrived, "
            "as `fraylog verify -` reads a pipe)",
            f"≥ {EXPORT_VS_RAW}×",
            f"{rate:,.0f} vs {raw_rate:,.0f} events/s (the raw read in-process, just before)",
            rate / raw_rate,
            EXPORT_VS_RAW,
            profile=title,
        )
    )
    return [row]


# -- growth ---------------------------------------------------------------------------------


def growth_section(b: Backend) -> None:
    args = b.args
    empty, grown = b.stores("empty"), b.stores("grown")
    rows, info = growth.growth_rows(
        b.name, empty, grown, args.growth_events, args.growth_rounds, log
    )
    b.out.rows += rows
    b.out.notes.append(
        f"{b.name}, growth: {info['stored']:,} events stored as a played {growth.TEMPLATE:,}-"
        f"event encounter ({info['played_s']:.1f} s) and {info['copies']:,} copies of its "
        f"rows made by the database ({info['copied_s']:.1f} s, {info['rows_per_s']:,.0f} "
        "events/s)."
    )
    title = ""
    if info["ratio"] < 0.8 and b.wants("profiles"):
        from bench.fraylog_runs import Table
        from infra.app import Fraylog

        for settings, what in ((grown, f"holding {info['stored']:,} events"), (empty, "empty")):
            with Fraylog(settings) as fraylog:
                table = Table(fraylog)
                profiled = b.profile(
                    prof.in_process(
                        f"{b.name}: 40 attack rounds in-process, the store {what}",
                        lambda table=table: [table.play() for _ in range(40)],
                        "Both stores are profiled, for comparison.",
                    )
                )
                title = title or profiled
    b.out.targets.append(
        Target(
            b.name,
            f"command path with {info['stored']:,} events stored ≥ 0.8 × an empty store",
            "≥ 0.8×",
            f"{rows[1].rate:,.0f} vs {rows[0].rate:,.0f} cmds/s",
            info["ratio"],
            0.8,
            profile=title,
        )
    )


# -- levers ---------------------------------------------------------------------------------


def lever_section(b: Backend) -> None:
    args = b.args
    log(f"[{b.name}] levers: the aggregate cache ...")
    b.out.levers += levers.cache_lever(b.name, b.settings, args.lever_rounds)
    log(f"[{b.name}] levers: one save per command or per event ...")
    b.out.levers += levers.save_lever(b.name, b.settings, args.lever_rounds)
    if b.pg:
        log(f"[{b.name}] levers: database functions ...")
        b.out.levers += levers.db_functions_lever(b.name, b.settings, args.lever_rounds)
    from bench import command_levers

    log(f"[{b.name}] levers of the command path, in-process ...")
    for lever in command_levers.in_process(b.stores("lever_in_process"), 300, 3):
        b.out.levers += command_levers.rows(b.name, lever)
    if wrk_runs.wrk_path() is not None and not args.no_http:
        for lever in command_levers.over_http(b.stores, 3, args.wrk_seconds, 16, log):
            b.out.levers += command_levers.rows(b.name, lever)
    log(f"[{b.name}] levers: snapshot intervals 10, 100, 1000 ...")
    b.out.levers += levers.snapshot_lever(
        b.name, b.settings, args.lever_events, max(10, 2 * args.long_reps), args.seed
    )


# -- one backend ----------------------------------------------------------------------------


def run_backend(b: Backend) -> None:
    args = b.args
    t0 = time.monotonic()
    log(f"[{b.name}] baseline: eventsourcing alone ...")
    groups = fraylog_runs.round_payloads(b.stores("payloads"))
    base, info, pacer = baseline.run(
        b.name, b.baseline_env, args.events, args.reps, args.commands, groups
    )
    try:
        b.out.rows += [
            base[k] for k in ("save", "same", "replay", "replay_no_assert", "running", "command")
        ]
        if b.wants("yardsticks"):
            from bench import yard_section

            yard_section.section(b, pacer, log)
        if b.wants("commands"):
            log(f"[{b.name}] fraylog: in-process commands ...")
            b.out.rows += fraylog_runs.command_rows(
                b.name, b.settings, args.commands, args.warmup, pacer
            )
        if b.wants("http"):
            http_section(b, pacer)
        if b.wants("loads"):
            log(f"[{b.name}] fraylog: two {args.events}-event encounters, loading them ...")
            loads, built = fraylog_runs.load_rows(
                b.name, b.settings, args.events, args.reps, pacer, args.seed
            )
            b.out.rows += loads
            b.out.notes.append(
                f"{b.name}: a stored HitsAdjusted is {built['fraylog_event_bytes']} bytes of "
                f"state, a baseline event {info['baseline_event_bytes']}; the latest snapshot "
                f"is {built['snapshot_bytes']:,} bytes. Building the no-snapshot encounter ran "
                f"{built['build_cmds_per_s']:,.0f} AdjustHits/s."
            )
    finally:
        pacer.close()
    if b.wants("long"):
        long_section(b)
    if b.wants("growth"):
        growth_section(b)
    if b.wants("levers"):
        lever_section(b)
    b.out.notes.append(f"{b.name}: done in {time.monotonic() - t0:.0f} s.")


# -- main -----------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    started = time.monotonic()
    machine = report.machine_info()
    out = Results()
    every = args.snapshot_interval

    with tempfile.TemporaryDirectory(prefix="fraylog-bench-") as tmp:

        def sqlite_store(name: str) -> Settings:
            return Settings(sqlite_path=str(Path(tmp) / f"{name}.db"), snapshot_interval=every)

        sqlite = sqlite_store("fraylog")
        run_backend(
            Backend(
                "SQLite",
                sqlite,
                sqlite_store("server"),  # the uvicorn process's own file
                {**sqlite.eventsourcing_env(), "SQLITE_DBNAME": str(Path(tmp) / "base.db")},
                sqlite_store,
                args,
                out,
            )
        )

    pg_version = None if args.no_postgres else postgres_version(args.postgres_url)
    if args.no_postgres:
        out.notes.append("PostgreSQL: skipped (--no-postgres).")
    elif pg_version is None:
        if args.postgres_required:
            log("FRAYLOG_DATABASE_URL is set but PostgreSQL cannot be reached: stopping.")
            return 2
        print(f"PostgreSQL at {args.postgres_url} is unreachable: its rows are skipped.")
        out.notes.append(f"PostgreSQL: unreachable at {args.postgres_url}; its rows are skipped.")
    else:
        machine["PostgreSQL"] = f"{pg_version} (local, 127.0.0.1)"
        schemas = [args.schema, f"{args.schema}_empty", f"{args.schema}_grown", f"{args.schema}_p"]
        names = {"empty": schemas[1], "grown": schemas[2], "payloads": schemas[3]}

        def pg_store(name: str) -> Settings:
            return Settings(
                database_url=args.postgres_url,
                postgres_schema=names.get(name, args.schema),
                snapshot_interval=every,
            )

        for s in schemas:
            drop_schema(args.postgres_url, s)
        try:
            create_schema(args.postgres_url, args.schema)
            pg = pg_store("fraylog")
            run_backend(Backend("PostgreSQL", pg, pg, pg.eventsourcing_env(), pg_store, args, out))
        finally:
            for s in schemas:
                drop_schema(args.postgres_url, s)

    elapsed = time.monotonic() - started
    run_info = run_description(args, argv, elapsed)
    report.print_all(
        out, f"fraylog vs eventsourcing alone ({machine['CPU']}, nproc {machine['nproc']})"
    )
    print(f"Total run time {elapsed:.0f} s")
    if args.docs:
        path = Path(args.docs)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(report.markdown(out, machine, run_info))
        print(f"wrote {path}")
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "machine": machine,
                    "run": run_info,
                    "notes": out.notes,
                    "targets": [asdict(t) | {"met": t.met} for t in out.targets],
                    "rows": [asdict(r) for r in out.rows + out.levers],
                    "yardsticks": [asdict(y) for y in out.yardsticks],
                },
                indent=1,
            )
        )
    return 0


def run_description(
    args: argparse.Namespace, argv: list[str] | None, elapsed: float
) -> dict[str, str]:
    skipped = ", ".join(sorted(args.skip)) or "none"
    return {
        "Command": " ".join(["python -m bench", *(sys.argv[1:] if argv is None else argv)]),
        "Sections skipped": skipped,
        "Snapshot interval": str(args.snapshot_interval),
        "In-process command rows": f"{args.commands} timed commands (after {args.warmup})",
        "Yardsticks": f"wrk (`{wrk_runs.wrk_path() or 'not installed: apt-get install wrk'}`"
        f", -t N -c N, N = 1, 4, 16), {args.wrk_reps} runs of {args.wrk_seconds:g} s per "
        "configuration after an untimed 1 s, taking turns; the reads on a played "
        f"{args.events:,}-event fight at 16 connections; a turn of the library's save and "
        f"of the raw driver's ({turn_seconds(args.wrk_seconds):g} s each) after every round",
        "HTTP rows (attack rounds)": f"1 client, then {args.clients} concurrent clients "
        "(threads of one load generator process, `python -m bench.load`), "
        f"{args.http_seconds:g} s each, after 3 untimed rounds per client",
        "1,000-event section": f"{args.events:,} events, {args.reps} loads per row",
        "Long section": f"a played {args.long_events:,}-event encounter with snapshots and one "
        f"without; {args.long_reps} cold loads and verifies per row (warm loads "
        f"{2 * args.long_reps}, past versions {4 * args.long_reps}); {args.void_reps} voids "
        "and undos/redos per row",
        "Growth": f"{args.growth_events:,} events stored; {args.growth_rounds} timed attack "
        "rounds on each store",
        "Levers": f"{args.lever_rounds} attack rounds per setting; snapshot-interval fights of "
        f"{args.lever_events:,} events",
        "Total run time": f"{elapsed:.0f} s",
        "Load average at the end": ", ".join(f"{x:.2f}" for x in os.getloadavg()),
    }
