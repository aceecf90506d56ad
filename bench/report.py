"""The table, on the terminal (rich) and as markdown in docs/performance.md."""

from __future__ import annotations

import datetime as dt
import os
import platform
import sqlite3
from importlib.metadata import version
from typing import Any

from bench.timing import Row

HEADERS = ["Backend", "Measurement", "n", "p50 ms", "p99 ms", "Rate", "× baseline", "Note"]


def code_version() -> str:
    """The fraylog commit measured, marked when the working tree had changes."""
    import subprocess

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=root,
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        dirty = "".join(
            subprocess.run(
                ["git", "status", "--porcelain", *where],
                cwd=root,
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            for where in (["--untracked-files=no"], ["--untracked-files=all", "--", "bench"])
        )
    except (OSError, subprocess.CalledProcessError):
        return "unknown (no git)"
    changed = sorted({line[3:].split(" -> ")[-1] for line in dirty.splitlines() if line.strip()})
    changed = [path for path in changed if path != "docs/performance.md"]  # this output
    if not changed:
        return head
    if all(path.startswith("bench/") for path in changed):
        return f"{head} (with uncommitted changes to the benchmark only: {', '.join(changed)})"
    return f"{head} (with uncommitted changes)"


def machine_info() -> dict[str, str]:
    model = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    nproc = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return {
        "Date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "nproc": str(nproc),
        "CPU": model,
        "Python": f"{platform.python_version()} ({platform.python_implementation()})",
        "OS": f"{platform.system()} {platform.release()}",
        "Load average at start": load,
        "eventsourcing": version("eventsourcing"),
        "pydantic": version("pydantic"),
        "FastAPI / uvicorn / httpx": (
            f"{version('fastapi')} / {version('uvicorn')} / {version('httpx')}"
        ),
        "SQLite": sqlite3.sqlite_version,
        "fraylog commit": code_version(),
    }


def uvicorn_flavour() -> str:
    """Which event loop and HTTP parser uvicorn picks up ('auto' prefers the fast ones)."""
    from importlib.util import find_spec

    loop = "uvloop" if find_spec("uvloop") else "asyncio"
    parser = "httptools" if find_spec("httptools") else "h11"
    return f"{loop} + {parser}"


def _fmt_rate(r: Row) -> str:
    if r.rate is None:
        return ""
    return f"{r.rate:,.0f} {r.unit}"


def _fmt_ratio(r: Row) -> str:
    if r.ratio is None:
        return ""
    label = {"save": "saves", "replay": "replay"}.get(r.vs or "", "")
    return f"{r.ratio:.2f} ({label})" if r.ratio < 10 else f"{r.ratio:,.0f} ({label})"


def cells(r: Row) -> list[str]:
    return [
        r.backend,
        r.what,
        str(r.n),
        f"{r.p50_ms:.2f}",
        f"{r.p99_ms:.2f}",
        _fmt_rate(r),
        _fmt_ratio(r),
        r.note,
    ]


def print_table(rows: list[Row], title: str) -> None:
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:  # plain text
        print(title)
        for r in rows:
            print(" | ".join(cells(r)))
        return
    table = Table(title=title)
    for h in HEADERS:
        table.add_column(h, justify="left" if h in ("Backend", "Measurement", "Note") else "right")
    previous = None
    for r in rows:
        if previous is not None and r.backend != previous:
            table.add_section()
        previous = r.backend
        table.add_row(*cells(r))
    Console(width=240).print(table)


def markdown_table(rows: list[Row]) -> str:
    out = [
        "| " + " | ".join(HEADERS) + " |",
        "|" + "|".join([":--", ":--", "--:", "--:", "--:", "--:", "--:", ":--"]) + "|",
    ]
    for r in rows:
        out.append("| " + " | ".join(c.replace("|", "\\|") for c in cells(r)) + " |")
    return "\n".join(out)


def markdown(
    rows: list[Row], machine: dict[str, str], run: dict[str, Any], notes: list[str]
) -> str:
    info = "\n".join(f"- {k}: {v}" for k, v in machine.items())
    params = "\n".join(f"- {k}: {v}" for k, v in run.items())
    extra = "\n".join(f"- {n}" for n in notes)
    server = uvicorn_flavour()
    nproc = machine.get("nproc", "?")
    return f"""# Performance

Figures from one run of `make bench` (`.venv/bin/python -m bench`), written by the benchmark
itself; run it again to refresh them. Options: `--events`, `--commands`, `--reps`,
`--snapshot-interval`, `--long-events` (0 skips the long section), `--long-reps`,
`--void-reps`, `--no-postgres`, `--no-http`, `--profile`, `--docs PATH` (see
`python -m bench --help`).

## Machine

{info}

## Run

{params}

## Figures

{markdown_table(rows)}

## How to read it

- The machine is shared and noisy, so absolute numbers move from run to run (and within a
  run). Each row is therefore compared with a **baseline measured alongside it**: the
  eventsourcing library alone, with a plain `Aggregate` whose one event carries a dict shaped
  like fraylog's `HitsAdjusted`, in an `Application` given the persistence environment
  fraylog's `Settings` build, on the same database. Between a row's timed fraylog operations
  the benchmark runs as many baseline operations (saves next to commands, in blocks of 10;
  replays next to loads: one for one next to new-instance loads, in blocks of 5 otherwise),
  and the row's ratio is to the baseline rate of those interleaved operations (the Note
  column's "baseline alongside"). Blocks rather than strict alternation, because a
  1,000-event replay just before a 0.1 ms load evicts that load's data from the CPU caches
  and inflates it; in blocks only the first operation of each block pays that. The first
  rows of each backend are the baseline measured on its own. Read the **× baseline** column
  rather than the raw rates.
- **× baseline (saves)**: commands (or attacks) per second ÷ the library's saves per second
  (one event per save). 1.00 would mean a fraylog command costs no more than storing one
  event; 0.25 means it costs four times as much.
- **× baseline (replay)**: events per second ÷ the library's replay of an aggregate of the
  same length with its default projector and no snapshots, loaded the same way: on a new
  instance next to fraylog's cold loads, and as a cache miss on a running instance (evicted
  from its cache) next to every other load row. Above 1 means faster than replaying every
  event with the library (snapshots and the cache do that); below 1 means slower. A new
  instance runs `CREATE ... IF NOT EXISTS` statements that, on PostgreSQL, touch objects
  shared by every application in the schema, which is why rows on a running instance are not
  paired with new-instance replays.
- The baseline replay uses the library's default projector, `project_aggregate`, which runs
  `assert isinstance(event, CanMutateProtocol)` (a runtime-checkable Protocol) on every event;
  fraylog's `project_encounter` leaves that out. The row "projector without isinstance
  assert" replays the same aggregate without it, to show how much of a ratio that explains.
- Loads report the median (p50) and p99 of `n` loads (with n = 20 the p99 is about the
  maximum); their rate is events ÷ p50. For a past version the rate is the mean N ÷ p50 (an
  "effective" rate: with snapshots only the events after the nearest snapshot are replayed).
  "Cold" means a new `Fraylog` instance, as after a restart: empty aggregate cache and new
  database connections, whose first statements are prepared (the instance's construction is
  not timed). "Cache miss on a running instance" evicts the encounter from the cache of an
  instance that keeps its connections, as when the LRU cache drops it. "Warm" means the
  cache already holds the encounter's latest version. `state(id, version=N)` loads that version
  directly (nearest snapshot at or below N, then the events after it).
- Command rows time `Fraylog.execute` (or one HTTP request) per command, after a warm-up;
  the rate is commands ÷ the sum of their latencies (single client, nothing concurrent).
  An attack is `Declare` + `Resolve` of one combatant with manual dice
  `{{"attack": [5, 6]}}` and `boons=[]`; each round also has an untimed `EndRound`.
- HTTP rows run the client (httpx, one connection), the uvicorn server ({server}) and the
  database on the same {nproc} CPU(s), so they also measure contention between them.
- p99 on command rows includes the snapshot taken synchronously inside `save` every
  `snapshot_interval` events.
- **The long section** (rows named "10,000 events: ..." and the two baselines just above
  them) is a played fight rather than a run of AdjustHits: rounds in which two fighters
  each declare and resolve one melee attack with manual dice (`{{"attack": [5, 6]}}`,
  `boons=[]`: ActionsDeclared, AttackRolled, DamageApplied), then `EndRound`, with an
  AdjustHits every 25 rounds that gives back the hits lost and AdjustHits filling up to the
  exact length. It is built twice through `Fraylog.execute`: once by an instance with
  `snapshot_interval` 10⁹ (no snapshots), then once with snapshots (the Run section's
  interval). Its ratios are to the library replaying a baseline aggregate of the **same
  length**, and since such a replay takes a quarter of a second, only 5 replays are spread
  evenly over each row (after every n/5 of its operations) instead of one for one; so on
  the sub-millisecond rows (warm loads, loads from a snapshot) 5 of the n samples follow a
  replay and may be inflated by cold CPU caches, which moves the p99 more than the p50.
- In the long section, "state(id, version=N)" loads 4 × `--long-reps` random N on a
  running instance; "verify(id)" is `Fraylog.verify`, the work of
  `GET /encounters/{{id}}/verify` (read every event, recompute the SHA-256 chain, re-derive
  the dice; with manual dice that last step only counts the faces).
- Corrections: "execute Void(first AttackRolled)" alternately voids the encounter's first
  AttackRolled (its DamageApplied goes with it, by its cause) and voids that void, so
  the fight stays as played; "Undo() or Redo()" alternately undoes the last command and
  redoes it. Each one, whatever the snapshots, reads the whole history from the store and
  folds it without the voided events (`domain.corrections.fold_without`), so its rate is
  the history's length ÷ p50 and its ratio is to one replay of that many events. The
  encounter is in the cache when they run (the latest version was loaded first). Under the
  first void row, "of which cyclic garbage collection" is the time the collector ran
  during each void (`gc.callbacks`; no rate), and the two halves of a correction's work
  are timed apart in a loop of their own: reading the history
  (`list(events.get(id))`) and `fold_without`. The collector's time falls inside them.
  With n = 6 the p99 is the maximum.
- No figure here is asserted anywhere: the benchmark only measures.

## Notes from this run

{extra}
"""
