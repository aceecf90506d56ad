"""The yardsticks section of `python -m bench` on one backend: its rows (`Yard`) and the
targets of issue 19, items 2 and 3, judged against yardsticks of the same run; a missed
target names a py-spy profile of the server under the same wrk load.

Targets: at 16 connections, fraylog's commands ≥ 0.5 × the bare FastAPI endpoint and
p99 ≤ 20 ms; throughput that does not fall as connections rise (each step ≥ 0.95 × the one
before: less is beyond the noise of a median of 3 runs); on PostgreSQL `--workers 2` ≥ 1.8
× one worker; the view and the log of a 1,000-event fight ≥ 2,000 answers/s."""

from __future__ import annotations

import itertools
import statistics
from typing import Any

from bench import profile as prof
from bench import wrk_runs
from bench.baseline import Pacer
from bench.long_runs import build_fight
from bench.raw_driver import RawDriver
from bench.timing import Target
from bench.yardsticks import CONNECTIONS, Measured, Yard, measure, of_runs
from domain import commands as c
from infra.app import Fraylog

P99_MS = 20.0
NOT_FALLING = 0.95  # a step down to no less than this is within the noise of 3 runs
READS_PER_S = 2_000.0
WORKERS_2 = 1.8  # two workers against one, on PostgreSQL
BARE = "bare FastAPI endpoint (framework's ceiling)"
PROFILE_S = 3.0  # py-spy at 200 Hz: some 600 samples a busy thread, enough to rank


def stored_hits_adjusted(fraylog: Fraylog) -> tuple[str, bytes]:
    """The topic and stored state of one HitsAdjusted as fraylog records it."""
    from bench.fraylog_runs import new_fight

    eid, a, _ = new_fight(fraylog)
    (event,) = fraylog.execute(eid, c.AdjustHits(combatant=a, amount=1)).events
    stored = fraylog.mapper.to_stored_event(event)
    return stored.topic, stored.state


def section(b: Any, pacer: Pacer, log: Any) -> None:
    """Measure, then rows, targets and (for a miss) profiles, into `b.out`."""
    args = b.args
    http = wrk_runs.wrk_path() is not None
    if not http:
        print(wrk_runs.INSTALL)
        b.out.notes.append(f"{b.name}: {wrk_runs.INSTALL}; the HTTP yardsticks are skipped.")
    with Fraylog(b.server) as fraylog:
        topic, state = stored_hits_adjusted(fraylog)
        fight: tuple[Any, str] = (None, "")
        if http:
            log(f"[{b.name}] yardsticks: a played {args.events:,}-event fight for the reads ...")
            eid = build_fight(fraylog, args.events).eid
            fight = (eid, fraylog.access.mint(eid, "gm"))
    raw = RawDriver(b.server, topic, state)
    try:
        measure(
            b.server,
            pacer,
            raw,
            fight,
            args,
            b.pg,
            lambda m: log(f"[{b.name}] yardsticks:{m}"),
            lambda m: judge(b, m, len(state)),
            http=http,
        )
    except wrk_runs.WrkFailed as e:  # the other sections still run; the note says why
        log(f"[{b.name}] yardsticks: {e}")
        b.out.notes.append(f"{b.name}: the yardsticks stopped, their targets unmeasured: {e}")
    finally:
        raw.close()


def judge(b: Any, m: Measured, state_bytes: int) -> None:
    """The rows, then the targets (each miss profiled while the servers are still up)."""
    library = statistics.median(m.library)
    b.out.yardsticks += saves_rows(b.name, m, library, state_bytes)
    if not m.commands:
        return
    b.out.yardsticks += http_rows(b.name, m, library, b.args.events)
    b.out.targets += targets(b, m)
    fray = {n: runs["fraylog"] for n, runs in m.commands.items()}
    per_run = "; ".join(
        f"{n}: {', '.join(f'{r.rate:,.0f}' for r in fray[n].runs)}" for n in CONNECTIONS
    )
    b.out.notes.append(
        f"{b.name}, yardsticks: wrk {len(fray[1].runs)} runs of {b.args.wrk_seconds:g} s per "
        f"configuration, after an untimed 1 s; fraylog's cmds/s run by run, by connections: "
        f"{per_run}."
    )


def saves_rows(name: str, m: Measured, library: float, state_bytes: int) -> list[Yard]:
    driver = statistics.median(m.driver)
    return [
        Yard(
            name,
            "eventsourcing library: save one HitsAdjusted-shaped event per save",
            None,
            library,
            min(m.library),
            max(m.library),
            "saves/s",
            vs_library=1.0,
            note="bench.baseline's Pacer.save, one caller, in the benchmark's process; a "
            "turn after each round of wrk runs",
        ),
        Yard(
            name,
            f"raw driver: INSERT one row ({state_bytes} bytes of state), one commit",
            None,
            driver,
            min(m.driver),
            max(m.driver),
            "saves/s",
            vs_library=driver / library,
            note="plain sqlite3/psycopg, the library's columns; a turn after the row above's",
        ),
    ]


def http_rows(name: str, m: Measured, library: float, events: int) -> list[Yard]:
    rows = []
    bare = {n: runs["bare"] for n, runs in m.commands.items()}
    for n in CONNECTIONS:
        fray = m.commands[n]["fraylog"]
        rows.append(
            of_runs(name, BARE, n, bare[n], "answers/s", vs_bare=1.0, note=bare[n].cpu_note)
        )
        rows.append(
            of_runs(
                name,
                "fraylog serve: POST …/commands adjust_hits, GM token",
                n,
                fray,
                "cmds/s",
                vs_bare=fray.rate / bare[n].rate,
                vs_library=fray.rate / library,
                note="; ".join(filter(None, ("a connection an encounter", fray.cpu_note))),
            )
        )
    top = max(CONNECTIONS)
    two = m.commands[top].get("workers 2")
    if two is not None:
        rows.append(
            of_runs(
                name,
                "fraylog serve --workers 2: the same",
                top,
                two,
                "cmds/s",
                vs_bare=two.rate / bare[top].rate,
                vs_library=two.rate / library,
                note="; ".join(
                    filter(
                        None,
                        (
                            f"{two.rate / m.commands[top]['fraylog'].rate:.2f}× one worker",
                            two.cpu_note,
                        ),
                    )
                ),
            )
        )
    for what, runs in m.reads.items():
        rows.append(
            of_runs(
                name,
                f"fraylog serve: {what}, {events:,}-event fight",
                top,
                runs,
                "answers/s",
                vs_bare=runs.rate / bare[top].rate,
                note=runs.cpu_note,
            )
        )
    return rows


def targets(b: Any, m: Measured) -> list[Target]:
    """Issue 19, items 2 and 3, at the most connections; a miss names its profile."""
    name, top = b.name, max(CONNECTIONS)
    fray = {n: runs["fraylog"] for n, runs in m.commands.items()}
    bare = {n: runs["bare"] for n, runs in m.commands.items()}

    def spy(key: str, tables: list[wrk_runs.Table], what: str) -> str:
        if not b.wants("profiles"):
            return ""
        if prof.pyspy_path() is None:
            return b.profile(None)
        server, seconds = m.servers[key], min(PROFILE_S, b.args.wrk_seconds)
        watch = prof.Spy(server.proc.pid, seconds)
        wrk_runs.run(server.url, tables, top, seconds)
        note = "Every thread (and worker) of `fraylog serve`, idle excluded, under wrk."
        return b.profile(watch.result(f"{name}: `fraylog serve` under wrk, {what}", note))

    steps = [fray[hi].rate / fray[lo].rate for lo, hi in itertools.pairwise(CONNECTIONS)]
    commands = [
        Target(
            name,
            f"commands at {top} connections ≥ 0.5 × the bare FastAPI endpoint",
            "≥ 0.5×",
            f"{fray[top].rate:,.0f} vs {bare[top].rate:,.0f} /s",
            fray[top].rate / bare[top].rate,
            0.5,
        ),
        Target(
            name,
            f"p99 ≤ {P99_MS:.0f} ms at {top} connections",
            f"≤ {P99_MS:.0f} ms",
            f"p99 {fray[top].p99_ms:.1f} ms, p50 {fray[top].p50_ms:.1f} ms at "
            f"{fray[top].rate:,.0f} cmds/s",
            fray[top].p99_ms,
            P99_MS,
            at_least=False,
        ),
        Target(
            name,
            f"throughput does not fall as connections rise ({' → '.join(map(str, CONNECTIONS))})",
            f"≥ {NOT_FALLING}× each step",
            " → ".join(f"{fray[n].rate:,.0f}" for n in CONNECTIONS) + " cmds/s "
            f"(bare: {' → '.join(f'{bare[n].rate:,.0f}' for n in CONNECTIONS)})",
            min(steps),
            NOT_FALLING,
        ),
    ]
    if any(not t.met for t in commands):
        title = spy("fraylog", m.tables["fraylog"], f"{top} connections, adjust_hits")
        for t in commands:
            t.profile = title
    out = commands
    two = m.commands[top].get("workers 2")
    if two is not None:
        t = Target(
            name,
            f"--workers 2 ≥ {WORKERS_2}× one worker at {top} connections",
            f"≥ {WORKERS_2}×",
            f"{two.rate:,.0f} vs {fray[top].rate:,.0f} cmds/s",
            two.rate / fray[top].rate,
            WORKERS_2,
        )
        if not t.met:
            t.profile = spy("workers 2", m.tables["workers 2"], f"{top} connections, 2 workers")
        out.append(t)
    for what in [k for k in m.reads if "If-None-Match" not in k]:
        runs = m.reads[what]
        t = Target(
            name,
            f"{what} of a {b.args.events:,}-event fight ≥ {READS_PER_S:,.0f}/s ({top} connections)",
            f"≥ {READS_PER_S:,.0f}/s",
            f"{runs.rate:,.0f}/s, p50 {runs.p50_ms:.1f} ms, p99 {runs.p99_ms:.1f} ms",
            runs.rate,
            READS_PER_S,
        )
        if not t.met:
            t.profile = spy("fraylog", m.tables[what], what)
        out.append(t)
    return out
