"""`python -m bench`: fraylog against the eventsourcing library alone, on SQLite and PostgreSQL.

Per backend, in one run: the library baseline (saves/s, cold replay), fraylog loading a long
encounter (cold, past versions, full fold), command round trips in-process and over HTTP (a
uvicorn subprocess), and a played 10,000-event encounter (past versions, cold and warm
loads, verify, void and undo). Prints one table and writes it to docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from bench import baseline, fraylog_runs, long_runs, report
from bench.timing import Row
from infra.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/test"
SCHEMA = "fraylog_bench"


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m bench",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--events",
        type=int,
        default=1000,
        help="length of the encounters and of the baseline aggregate (default 1000)",
    )
    p.add_argument(
        "--commands",
        type=int,
        default=300,
        help="timed commands per command benchmark (default 300)",
    )
    p.add_argument(
        "--reps",
        type=int,
        default=20,
        help="loads and folds per row; warm loads and past versions use 2x (default 20)",
    )
    p.add_argument("--warmup", type=int, default=10, help="untimed commands first (default 10)")
    p.add_argument(
        "--snapshot-interval",
        type=int,
        default=Settings().snapshot_interval,
        help="events between snapshots on the snapshotted encounters (default "
        f"{Settings().snapshot_interval})",
    )
    p.add_argument(
        "--long-events",
        type=int,
        default=10_000,
        help="length of the played encounters of the long section (default 10000; 0 skips it)",
    )
    p.add_argument(
        "--long-reps",
        type=int,
        default=10,
        help="long section: cold loads and verifies per row; warm loads use 2x, past "
        "versions 4x (default 10)",
    )
    p.add_argument(
        "--void-reps",
        type=int,
        default=6,
        help="long section: voids, and undos/redos, per row (default 6)",
    )
    p.add_argument("--no-postgres", action="store_true", help="SQLite only")
    p.add_argument("--no-http", action="store_true", help="skip the uvicorn rows")
    p.add_argument("--postgres-url", default=DEFAULT_URL, help=f"default {DEFAULT_URL}")
    p.add_argument(
        "--schema",
        default=SCHEMA,
        help=f"PostgreSQL schema, dropped at start and end (default {SCHEMA})",
    )
    p.add_argument(
        "--docs",
        default=str(ROOT / "docs" / "performance.md"),
        help="markdown file to write ('' to skip; default docs/performance.md)",
    )
    p.add_argument("--json", default="", help="also write the raw samples to this JSON file")
    p.add_argument(
        "--profile",
        action="store_true",
        help="afterwards, cProfile an in-process command loop, a cold load and the voids "
        "and undos of the long section on SQLite and print the top functions (not written "
        "to the docs)",
    )
    p.add_argument("--seed", type=int, default=7, help="seed of the random past versions")
    args = p.parse_args(argv)
    if args.events < 10:
        p.error("--events must be at least 10")
    if args.commands < 2:
        p.error("--commands must be at least 2")
    if args.long_events and args.long_events < 50:
        p.error("--long-events must be 0 (skip) or at least 50")
    if args.long_reps < 1 or args.void_reps < 1:
        p.error("--long-reps and --void-reps must be at least 1")
    if args.snapshot_interval < 1:
        p.error("--snapshot-interval must be at least 1")
    if "bench" not in args.schema:
        p.error("--schema is dropped with CASCADE at start and end: its name must contain 'bench'")
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


# -- one backend ----------------------------------------------------------------------------


def run_backend(
    backend: str,
    settings: Settings,
    baseline_env: dict[str, str],
    server_settings: Settings,
    args: argparse.Namespace,
    notes: list[str],
) -> list[Row]:
    t0 = time.monotonic()
    log(f"[{backend}] baseline: eventsourcing alone ...")
    base, info, pacer = baseline.run(backend, baseline_env, args.events, args.reps, args.commands)
    try:
        rows = [base[k] for k in ("save", "replay", "replay_no_assert", "running", "command")]

        log(f"[{backend}] fraylog: building two {args.events}-event encounters, loading them ...")
        loads, built = fraylog_runs.load_rows(
            backend, settings, args.events, args.reps, pacer, args.seed
        )
        rows += loads

        log(f"[{backend}] fraylog: in-process commands ...")
        rows += fraylog_runs.command_rows(backend, settings, args.commands, args.warmup, pacer)

        if not args.no_http:
            from bench.over_http import http_rows

            log(f"[{backend}] fraylog: HTTP commands (uvicorn subprocess) ...")
            rows += http_rows(backend, server_settings, args.commands, args.warmup, pacer)
    finally:
        pacer.close()
    long_note = ""
    if args.long_events:
        long, long_note = long_runs.long_rows(
            backend,
            settings,
            baseline_env,
            args.long_events,
            args.long_reps,
            args.void_reps,
            args.seed,
            log,
        )
        rows += long

    notes.append(
        f"{backend}: a stored HitsAdjusted is {built['fraylog_event_bytes']} bytes of state, "
        f"a baseline event {info['baseline_event_bytes']}; the latest snapshot is "
        f"{built['snapshot_bytes']:,} bytes. Snapshots stored: {built['snapshots_snapped']} on "
        f"the snapshotted encounter, {built['snapshots_plain']} on the other. Building the "
        f"no-snapshot encounter ran {built['build_cmds_per_s']:,.0f} AdjustHits/s. "
        f"Backend done in {time.monotonic() - t0:.0f} s."
    )
    if long_note:
        notes.append(long_note)
    return rows


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    started = time.monotonic()
    machine = report.machine_info()
    rows: list[Row] = []
    notes: list[str] = []

    with tempfile.TemporaryDirectory(prefix="fraylog-bench-") as tmp:
        every = args.snapshot_interval
        sqlite = Settings(sqlite_path=str(Path(tmp) / "fraylog.db"), snapshot_interval=every)
        base_env = {**sqlite.eventsourcing_env(), "SQLITE_DBNAME": str(Path(tmp) / "base.db")}
        server = Settings(  # the uvicorn process's own file
            sqlite_path=str(Path(tmp) / "server.db"), snapshot_interval=every
        )
        rows += run_backend("SQLite", sqlite, base_env, server, args, notes)

    pg_version = None if args.no_postgres else postgres_version(args.postgres_url)
    if args.no_postgres:
        notes.append("PostgreSQL: skipped (--no-postgres).")
    elif pg_version is None:
        print(f"PostgreSQL at {args.postgres_url} is unreachable: its rows are skipped.")
        notes.append(f"PostgreSQL: unreachable at {args.postgres_url}; its rows are skipped.")
    else:
        machine["PostgreSQL"] = f"{pg_version} (local, 127.0.0.1)"
        pg = Settings(
            database_url=args.postgres_url,
            postgres_schema=args.schema,
            snapshot_interval=args.snapshot_interval,
        )
        drop_schema(args.postgres_url, args.schema)
        try:
            create_schema(args.postgres_url, args.schema)
            rows += run_backend("PostgreSQL", pg, pg.eventsourcing_env(), pg, args, notes)
        finally:
            drop_schema(args.postgres_url, args.schema)

    elapsed = time.monotonic() - started
    run_info: dict[str, Any] = {
        "Command": " ".join(["python -m bench", *(sys.argv[1:] if argv is None else argv)]),
        "Encounter / aggregate length": f"{args.events:,} events",
        "Timed commands per command row": f"{args.commands} (after {args.warmup} warm-up)",
        "Loads and folds per row": (f"{args.reps} (warm loads and past versions: {2 * args.reps})"),
        "Snapshot interval": str(args.snapshot_interval),
        "Long section": (
            f"a played {args.long_events:,}-event encounter with snapshots and one without; "
            f"cold loads and verifies per row: {args.long_reps} (warm loads "
            f"{2 * args.long_reps}, past versions {4 * args.long_reps}); voids and "
            f"undos/redos per row: {args.void_reps}; baseline replays per row: "
            f"{long_runs.BASE_OPS}"
            if args.long_events
            else "skipped (--long-events 0)"
        ),
        "Total run time": f"{elapsed:.0f} s",
        "Load average at the end": ", ".join(f"{x:.2f}" for x in os.getloadavg()),
    }
    title = f"fraylog vs eventsourcing alone ({args.events:,} events, {args.commands} commands)"
    report.print_table(rows, title)
    for n in notes:
        print(f"- {n}")
    print(f"Total run time {elapsed:.0f} s")
    if args.docs:
        path = Path(args.docs)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(report.markdown(rows, machine, run_info, notes))
        print(f"wrote {path}")
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "machine": machine,
                    "run": run_info,
                    "notes": notes,
                    "rows": [asdict(r) for r in rows],
                },
                indent=1,
            )
        )
    if args.profile:
        from bench.profile import profile

        profile(args)
    return 0
