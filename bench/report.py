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


RATIO_LABELS = {
    "save": "saves",
    "replay": "replay",
    "same": "same events",
    "raw": "raw read",
    "empty": "empty store",
    "default": "default",
}


def _fmt_ratio(r: Row) -> str:
    if r.ratio is None:
        return ""
    label = RATIO_LABELS.get(r.vs or "", "")
    return f"{r.ratio:.2f} ({label})" if r.ratio < 10 else f"{r.ratio:,.0f} ({label})"


def cells(r: Row) -> list[str]:
    return [
        r.backend,
        r.what,
        *(  # a row of rates alone (medians of turns, its note says) has no latencies
            [str(r.n), f"{r.p50_ms:.2f}", f"{r.p99_ms:.2f}"] if r.samples_ns else ["", "", ""]
        ),
        _fmt_rate(r),
        _fmt_ratio(r),
        r.note,
    ]


TARGET_HEADERS = ["Backend", "Target", "Goal", "Measured", "Ratio or figure", "Met?"]
YARD_HEADERS = [
    "Backend",
    "Measurement",
    "Conns",
    "Rate (median)",
    "min–max",
    "p50 ms",
    "p99 ms",
    "× bare FastAPI",
    "× library save",
    "Note",
]


def _opt(x: float | None, fmt: str) -> str:
    return "" if x is None else format(x, fmt)


def yard_cells(y: Any) -> list[str]:
    return [
        y.backend,
        y.what,
        "" if y.connections is None else str(y.connections),
        f"{y.rate:,.0f} {y.unit}",
        f"{y.low:,.0f}–{y.high:,.0f}",
        _opt(y.p50_ms, ".1f"),
        _opt(y.p99_ms, ".1f"),
        _opt(y.vs_bare, ".2f"),
        _opt(y.vs_library, ".2f"),
        y.note,
    ]


LEVER_HEADERS = ["Backend", "Lever: setting", "n", "p50 ms", "p99 ms", "Rate", "× default", "Note"]


def _value(t: Any) -> str:
    if "ms" in t.goal:
        return f"{t.value:.2f} ms"
    if "×" in t.goal:
        return f"{t.value:.2f}×"
    return f"{t.value:,.0f}/s"


def target_cells(t: Any) -> list[str]:
    met = "met" if t.met else "**MISSED**"
    if not t.met and t.profile:
        met += f" (profile: {t.profile})"
    return [t.backend, t.name, t.goal, t.measured, _value(t), met]


def _rich_table(title: str, headers: list[str], rows: list[list[str]], backends: list[str]) -> Any:
    from rich.table import Table

    table = Table(title=title)
    left = ("Backend", "Measurement", "Note", "Target", "Measured", "Lever: setting", "min–max")
    for h in headers:
        table.add_column(h, justify="left" if h in left else "right")
    previous = None
    for cells_, backend in zip(rows, backends, strict=True):
        if previous is not None and backend != previous:
            table.add_section()
        previous = backend
        table.add_row(*(c.replace("**", "") for c in cells_))
    return table


def print_all(out: Any, title: str) -> None:
    try:
        from rich.console import Console
    except ImportError:  # plain text
        print(title)
        for t in out.targets:
            print(" | ".join(target_cells(t)))
        for y in out.yardsticks:
            print(" | ".join(yard_cells(y)))
        for r in out.levers + out.rows:
            print(" | ".join(cells(r)))
        return
    console = Console(width=240)
    if out.yardsticks:
        console.print(
            _rich_table(
                "Yardsticks (wrk; medians of repeated runs taking turns, the spread min–max)",
                YARD_HEADERS,
                [yard_cells(y) for y in out.yardsticks],
                [y.backend for y in out.yardsticks],
            )
        )
    console.print(
        _rich_table(
            f"{title}: figures",
            HEADERS,
            [cells(r) for r in out.rows],
            [r.backend for r in out.rows],
        )
    )
    if out.levers:
        console.print(
            _rich_table(
                "Levers, one at a time (× default: rate ÷ the default setting's rate)",
                LEVER_HEADERS,
                [cells(r) for r in out.levers],
                [r.backend for r in out.levers],
            )
        )
    console.print(
        _rich_table(
            "Targets",
            TARGET_HEADERS,
            [target_cells(t) for t in out.targets],
            [t.backend for t in out.targets],
        )
    )
    for n in out.notes:
        console.print(f"- {n}", highlight=False)


def _md(headers: list[str], align: list[str], rows: list[list[str]]) -> str:
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join(align) + "|"]
    for r in rows:
        out.append("| " + " | ".join(c.replace("|", "\\|") for c in r) + " |")
    return "\n".join(out)


def markdown_table(rows: list[Row]) -> str:
    align = [":--", ":--", "--:", "--:", "--:", "--:", "--:", ":--"]
    return _md(HEADERS, align, [cells(r) for r in rows])


def profiles_md(out: Any) -> str:
    from bench.profile import summary

    if not out.profiles:
        return "No target was missed, or profiles were skipped: none taken.\n"
    return "\n".join(summary(p) for p in out.profiles)


def markdown(out: Any, machine: dict[str, str], run: dict[str, Any]) -> str:
    info = "\n".join(f"- {k}: {v}" for k, v in machine.items())
    params = "\n".join(f"- {k}: {v}" for k, v in run.items())
    extra = "\n".join(f"- {n}" for n in out.notes)
    server = uvicorn_flavour()
    nproc = machine.get("nproc", "?")
    targets = _md(
        TARGET_HEADERS,
        [":--", ":--", ":--", ":--", "--:", ":--"],
        [target_cells(t) for t in out.targets],
    )
    missed = [t for t in out.targets if not t.met]
    verdict = (
        f"{len(out.targets) - len(missed)} of {len(out.targets)} targets met."
        if out.targets
        else "No target measured (sections skipped)."
    )
    yards = (
        _md(
            YARD_HEADERS,
            [":--", ":--", "--:", "--:", "--:", "--:", "--:", "--:", "--:", ":--"],
            [yard_cells(y) for y in out.yardsticks],
        )
        if out.yardsticks
        else "Not measured in this run (the section was skipped)."
    )
    levers = _md(
        LEVER_HEADERS,
        [":--", ":--", "--:", "--:", "--:", "--:", "--:", ":--"],
        [cells(r) for r in out.levers],
    )
    return f"""# Performance

Figures from one run of `make bench` (`.venv/bin/python -m bench`, then the crash test
`python -m bench.crash`, whose table is printed, not written here), written by the benchmark
itself; run it again to refresh them. It runs from a fresh clone on SQLite alone; PostgreSQL
is measured too when `FRAYLOG_DATABASE_URL` is set (it must then be reachable) or, when it is
not set, when `--postgres-url` (default `postgresql://postgres@127.0.0.1:5432/test`) can be
reached; otherwise its rows are skipped with a note. Everything on PostgreSQL is made in
schemas of its own (`--schema`, default `fraylog_bench`, and three more named after it),
dropped at the start and at the end. Sections can be skipped
(`--skip yardsticks,loads,commands,http,long,growth,levers,profiles`, `--no-postgres`, `--no-http`,
`--long-events 0`, `--growth-events 0`); `--quick` shrinks every size for a check that it
all runs; `--growth-events N` sets the size of the grown store (default 1,000,000); see
`python -m bench --help`. The default run takes about fifteen minutes on 2 cores (the
yardsticks need `wrk`: `apt-get install wrk`; without it they are skipped with a note).

## Machine

{info}

## Run

{params}

## Targets

{verdict} Each one is measured in this run, next to its yardstick where it is a ratio; a
missed one names the profile below that explains it.

{targets}

## Yardsticks

All in this run, on the same server settings (issue 19, item 1). The load comes from `wrk`
(Debian's package; `apt-get install wrk`), a separate process in C that uses little CPU:
one thread and one keep-alive connection per table (`-t N -c N`), a closed loop, at 1, 4
and 16 connections. Each configuration runs `--wrk-reps` times for `--wrk-seconds` after an
untimed 1 s, taking turns with the others at the same connection count (bare, fraylog,
bare, fraylog, ...; on PostgreSQL at 16 connections also two workers), so that the
machine's drift falls on them alike; rate, p50 and p99 are the medians of the runs (wrk's
own latency percentiles), min–max the spread of the rate.

- **bare FastAPI endpoint**: `bench/bare_app.py`, one `async def` POST at the path of
  fraylog's commands that validates a pydantic body shaped like `adjust_hits` and answers
  small JSON, served the way `fraylog serve` serves fraylog (uvicorn's defaults, access log
  on, one worker): the framework's ceiling.
- **fraylog serve**: each connection its own encounter, its GM token in `Authorization`, an
  `adjust_hits` of +1 then -1 on its fighter (always valid, one `HitsAdjusted` each);
  rate limits and the in-process read-model runner off. Reads: `GET /encounters/{{id}}` and
  `GET /encounters/{{id}}/log` of a played fight, plain (200) and with `If-None-Match` of the
  current ETag (304); every answer of another status stops the run.
- **eventsourcing library**: `Pacer.save` (one event shaped like `HitsAdjusted` per save),
  one caller in the benchmark's process; **raw driver**: sqlite3/psycopg inserting one row
  of the same bytes into a table with the library's columns, one transaction per save;
  a turn of each after every round of wrk runs (between them, not during: they would
  compete with the servers for the CPUs), their rates the medians of those turns.
- × bare FastAPI: fraylog's rate ÷ the bare endpoint's at the same connection count (reads:
  ÷ the bare POST at 16, for scale). × library save: ÷ the library's saves/s.

{yards}

## Levers

Each lever changed alone, on the same workload, the settings taking turns (a few rounds
each, in rotation) unless said otherwise; "× default" is the rate ÷ the default setting's
rate (above 1: faster than the default).

{levers}

## Figures

{markdown_table(out.rows)}

## Profiles of the missed targets

{profiles_md(out)}

## How to read it

- The machine is shared and noisy, so absolute numbers move from run to run (and within a
  run). Each row is therefore compared with a **baseline measured alongside it**: the
  eventsourcing library alone, in an `Application` given the persistence environment
  fraylog's `Settings` build, on the same database. Between a row's timed fraylog operations
  the benchmark runs baseline operations (saves next to commands, in blocks of 10; replays
  next to loads) and the row's ratio is to the baseline rate of those interleaved
  operations (the Note column's "alongside"). Read the ratio columns rather than the raw
  rates.
- **× (saves)**: commands per second ÷ the library's saves per second, one event per save,
  the event a dict shaped like fraylog's `HitsAdjusted`.
- **× (same events)**: commands per second ÷ the library's commands per second when it
  records **the same events** as an attack round's commands, one save per command: the
  stored state of fraylog's `ActionsDeclared`, `AttackRolled` + `DamageApplied`, and
  `RoundEnded` as dict payloads of a plain `Aggregate` (1, 1, 2, 2 and 1 events), timed from
  the triggers to the end of the save. This is the yardstick of the HTTP rows (the command
  path's targets are judged against the yardsticks above). Over HTTP
  the library runs for a few seconds right before and right after each load (not during
  it, so that it does not compete with the server for the CPUs), and the ratio is to the
  mean of the two.
- **× (replay)**: events per second ÷ the library's replay of an aggregate of the same
  length with its default projector and no snapshots, loaded the same way (new instance
  next to cold loads, cache miss on a running instance otherwise). The library's default
  projector, `project_aggregate`, runs `assert isinstance(event, CanMutateProtocol)` on every
  event; fraylog's `project_encounter` leaves it out (see the projector lever).
- **× (raw read)**: the full fold, `view_of(list(event_log(id)))` (the library reads the rows
  and its mapper makes domain events of them, then fraylog folds them and builds the view),
  ÷ a plain `SELECT state ... ORDER BY originator_version` of the same rows on a
  sqlite3/psycopg connection of its own and `json.loads` of each: the least any reader of
  the table must do. The two alternate, the garbage collected before each (a collection
  due from earlier runs fell in one or the other by chance).
- **× (empty store)**: the growth rows; see `bench/growth.py` for how a million events are
  stored in a minute (a played 1,000-event encounter whose rows the database copies under
  new ids, events and snapshots, in batches).
- Command rows: an attack round is the commands `declare` (b on a), `declare` (a on b),
  `resolve`, `resolve` (manual dice `{{"attack": [5, 6]}}`, `boons=[]`), `end_round`; every
  25 rounds an untimed `adjust_hits` gives the fighters back their hits. Rates are commands
  ÷ the sum of their latencies in-process (one caller), and commands completed ÷ the
  window over HTTP.
- **HTTP**: `fraylog serve` as a user runs it (tokens on: each client creates its encounter
  and sends its GM token as `Authorization: Bearer`; uvicorn's defaults, access log
  included; {server}) in a subprocess; the clients are threads of another process
  (`python -m bench.load`), one keep-alive `http.client` connection and one encounter
  each, a closed loop (each sends its next command when the last is answered). The p99 is
  the p99 of every command answered inside the window, so it is the latency **at the rate
  of that row**. Server, clients and database share the same {nproc} CPU(s).
- Loads: p50 and p99 of n loads; the rate is events ÷ p50 (for a past version the mean N ÷
  p50). "Cold" is a new `Fraylog` instance (empty cache, new connections); "cache miss on a
  running instance" evicts the encounter from the cache of an instance that keeps its
  connections; "warm" is a cache hit.
- The long section's encounter is a played fight (rounds of attacks, heals every 25
  rounds, AdjustHits filling up to the exact length), built twice through
  `Fraylog.execute`: without snapshots and with. Its baselines replay an aggregate of the
  same length, 5 replays spread over each row. Its corrections (voids, undo/redo) refold the
  whole history, so their rate is the history's length ÷ p50.
- Export + verify: the export is the code of `GET /encounters/{{id}}/events?format=ndjson`
  (the corrections for `voided_by`, then the log page by page through `ndjson_lines`), the
  verify is what `fraylog verify FILE` does with the file (`json.loads` of each line, then
  `verification`: the SHA-256 chain, the derived columns, the dice). Over HTTP, the same
  request to `fraylog serve` with the GM's token, read whole, then verified.
- Profiles: pyinstrument (1 ms interval) for work in the benchmark's process; py-spy
  (200 Hz, every thread and process of the server) for the server, less the samples of
  threads blocked waiting for work (a thread-pool thread in `Queue.get`, the feed's
  subscription between notifications), which py-spy does not count as idle. In a server
  profile, `Runner.run`'s own time is the event loop's native code (uvloop: reading and
  writing sockets, and waiting for them), `SQLiteConnection.commit` and psycopg's
  `Connection.wait` are waits for the database, and `ConnectionPool.get_connection` /
  `Semaphore.acquire` waits for a pooled connection (on SQLite: the one writer). "Own
  time" is time in a function itself; "total" includes what it calls; shares are of the
  samples kept.
- Targets are judged in this run only; nothing here is asserted by the test suite.

## Notes from this run

{extra}
"""
