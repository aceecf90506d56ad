"""Fair yardsticks, all in the same run (issue 19, item 1): fraylog's command path over
HTTP against a bare FastAPI endpoint served the same way (the framework's ceiling), the
eventsourcing library's own save and the raw driver's insert; the load from `wrk`, a
separate process in C, at 1, 4 and 16 connections, each configuration run `--wrk-reps`
times taking turns with the others (bare, fraylog, bare, fraylog, ...) so that the
machine's drift falls on all of them alike; the figures are medians, the spread min-max.

Each connection is a table of its own: its encounter, its GM token, its fighter, and an
`adjust_hits` alternately +1 and -1 (always valid, one HitsAdjusted each time). Reads: GET
/encounters/{id} and GET /encounters/{id}/log of a played fight, plain and conditional
(If-None-Match of the current ETag, answered 304).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any
from uuid import UUID

import httpx

from bench import wrk_runs
from bench.baseline import Pacer
from bench.over_http import Server
from bench.raw_driver import RawDriver
from bench.server_cpu import cpu_of
from bench.timing import clock
from bench.workload import FIGHTERS, create_body
from bench.wrk_runs import Runs, Table

CONNECTIONS = (1, 4, 16)
WARMUP_S = 1.0  # an untimed wrk run before each configuration's first


@dataclass
class Yard:
    """One yardstick or fraylog figure: medians of repeated runs and the rate's spread."""

    backend: str
    what: str
    connections: int | None
    rate: float
    low: float
    high: float
    unit: str
    p50_ms: float | None = None
    p99_ms: float | None = None
    vs_bare: float | None = None
    vs_library: float | None = None
    note: str = ""


def of_runs(backend: str, what: str, n: int, runs: Runs, unit: str, **kw: Any) -> Yard:
    low, high = runs.spread
    return Yard(backend, what, n, runs.rate, low, high, unit, runs.p50_ms, runs.p99_ms, **kw)


def command_tables(url: str, n: int) -> list[Table]:
    """`n` tables made through the API: an encounter (its GM token) and one fighter each."""
    tables = []
    with httpx.Client(base_url=url, timeout=30.0) as client:
        for _ in range(n):
            r = client.post("/encounters", json=create_body())
            r.raise_for_status()
            eid, auth = r.json()["id"], f"Bearer {r.json()['gm_token']}"
            name, side, stats = FIGHTERS[0]
            r = client.post(
                f"/encounters/{eid}/combatants",
                json={"name": name, "side": side, "stats": stats},
                headers={"Authorization": auth},
            )
            r.raise_for_status()
            who = r.json()["id"]
            bodies = tuple(
                json.dumps({"type": "adjust_hits", "combatant": who, "amount": amount})
                for amount in (1, -1)
            )
            tables.append(Table("POST", f"/encounters/{eid}/commands", 200, auth, "", bodies))
    return tables


def read_tables(url: str, eid: UUID, token: str, n: int) -> dict[str, list[Table]]:
    """The reads of one encounter, `n` connections each: the view and the log with the GM's
    token, and the same with If-None-Match of their current ETag (304)."""
    auth = f"Bearer {token}"
    out: dict[str, list[Table]] = {}
    with httpx.Client(base_url=url, timeout=30.0, headers={"Authorization": auth}) as client:
        for path in (f"/encounters/{eid}", f"/encounters/{eid}/log"):
            r = client.get(path)
            r.raise_for_status()
            etag = r.headers["ETag"]
            assert client.get(path, headers={"If-None-Match": etag}).status_code == 304
            out[f"GET {path.replace(str(eid), '{id}')}"] = [Table("GET", path, 200, auth)] * n
            out[f"GET {path.replace(str(eid), '{id}')}, If-None-Match (304)"] = [
                Table("GET", path, 304, auth, etag)
            ] * n
    return out


Config = tuple[str, list[Table]]  # (url, tables)


def rotate(
    configs: dict[str, Config],
    connections: int,
    reps: int,
    seconds: float,
    between: Callable[[], None],
    pids: dict[str, int] | None = None,
) -> dict[str, Runs]:
    """Each configuration warmed up once, then `reps` runs of each, taking turns; `between`
    after each round of turns. With its server's pid, a run notes the server's CPU."""
    for url, tables in configs.values():
        wrk_runs.run(url, tables, connections, WARMUP_S)
    runs = {k: Runs() for k in configs}
    for _ in range(reps):
        for k, (url, tables) in configs.items():
            runs[k].runs.append(with_cpu((pids or {}).get(k), url, tables, connections, seconds))
        between()
    return runs


def with_cpu(
    pid: int | None, url: str, tables: list[Table], connections: int, seconds: float
) -> wrk_runs.WrkRun:
    """A wrk run, with the CPU the server `pid` used on it per answer (bench.server_cpu)."""
    before = cpu_of(pid) if pid is not None else None
    run = wrk_runs.run(url, tables, connections, seconds)
    after = cpu_of(pid) if before is not None and pid is not None else None
    if before is not None and after is not None and run.requests:
        used = after - before
        per = 1e6 / run.requests
        return replace(run, loop_us=used.loop * per, threads_us=used.threads * per)
    return run


def turn_seconds(wrk_seconds: float) -> float:
    """How long each turn of the library's save and of the raw driver's lasts."""
    return max(0.5, wrk_seconds / 10)


@dataclass
class Saves:
    """Turns of the library's save (one HitsAdjusted-shaped event per save) and of the raw
    driver's (one row of the same bytes per commit), `seconds` each, between the wrk runs
    (not during them: they would compete with the servers for the CPUs)."""

    pacer: Pacer
    raw: RawDriver
    seconds: float
    library: list[float] = field(default_factory=list)
    driver: list[float] = field(default_factory=list)

    def __call__(self) -> None:
        self.pacer.saves = []
        for save, rates, take in (
            (self.pacer.save, self.library, self.pacer.take_save_rate),
            (self.raw.save, self.driver, self.raw.take_save_rate),
        ):
            end = clock() + int(self.seconds * 1e9)
            while clock() < end:
                save()
            rates.append(take())


@dataclass
class Measured:
    """What the targets and the report take from the section."""

    commands: dict[int, dict[str, Runs]]  # connections -> "bare" / "fraylog" / "workers 2"
    reads: dict[str, Runs]
    library: list[float]
    driver: list[float]
    tables: dict[str, list[Table]]  # "fraylog", "workers 2", reads by name
    servers: dict[str, Server]


def measure(
    server_settings: Any,
    pacer: Pacer,
    raw: RawDriver,
    fight: tuple[UUID, str],
    args: Any,
    pg: bool,
    log: Callable[[str], None],
    then: Callable[[Measured], None],
    http: bool = True,
) -> None:
    """Every run of the section with the servers up; `then` (profiles of the missed targets)
    runs before they stop. Without `http` (no wrk), the library and the raw driver only."""
    reps, seconds = args.wrk_reps, args.wrk_seconds
    saves = Saves(pacer, raw, turn_seconds(seconds))
    if not http:
        log(" the library's save and the raw driver's insert, taking turns ...")
        for _ in range(reps):
            saves()
        then(Measured({}, {}, saves.library, saves.driver, {}, {}))
        return
    with contextlib.ExitStack() as stack:
        servers = {"bare": stack.enter_context(Server(server_settings, bare=True))}
        servers["fraylog"] = stack.enter_context(Server(server_settings))
        if pg:
            servers["workers 2"] = stack.enter_context(Server(server_settings, workers=2))
        top = max(CONNECTIONS)
        tables = {k: command_tables(s.url, top) for k, s in servers.items() if k != "bare"}
        commands: dict[int, dict[str, Runs]] = {}
        for n in CONNECTIONS:
            configs = {"bare": (servers["bare"].url, tables["fraylog"])}
            configs["fraylog"] = (servers["fraylog"].url, tables["fraylog"])
            if pg and n == top:
                configs["workers 2"] = (servers["workers 2"].url, tables["workers 2"])
            log(f" wrk at {n} connection(s): {', '.join(configs)}, {reps} runs each ...")
            pids = {k: servers[k].proc.pid for k in configs}
            commands[n] = rotate(configs, n, reps, seconds, saves, pids)
        eid, token = fight
        reads = read_tables(servers["fraylog"].url, eid, token, top)
        log(f" wrk reads at {top} connections: {len(reads)} kinds, {reps} runs each ...")
        url = servers["fraylog"].url
        pids = dict.fromkeys(reads, servers["fraylog"].proc.pid)
        read_runs = rotate({k: (url, t) for k, t in reads.items()}, top, reps, seconds, saves, pids)
        then(Measured(commands, read_runs, saves.library, saves.driver, tables | reads, servers))
