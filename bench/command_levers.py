"""The command path's levers (issue 19, item 2), one by one, each against its own absence in
the same run, taking turns; the figures are medians of the repeated turns.

In-process (CPU time per command through the ASGI app, no network, one command at a time):
- the command route's parameters read by hand (api/routes/command_route.py) against FastAPI's
  generic dependency solving of the same endpoint, in the same minimal app;
- a plain command answered by the command lane (api/routes/command_lane.py) before routing
  against the same command routed to that route;
- a command decided on the encounter as this process keeps it (infra.app `Fraylog._kept`)
  against the cached one fast-forwarded from the store first, as the library does;
- the copy of the cached encounter a command works on (domain/state.py `copied`,
  `Encounter.__deepcopy__`) against the generic deep copies it replaced;
- the answer's JSON encoded once by pydantic-core against the standard library's encoder.

Over HTTP (`wrk`, 16 connections, each its own table): commands decided on the event
loop and committed by one writer thread (FRAYLOG_DECIDE_ON_LOOP on against off: each in
a worker thread that waits for its commit), group commit
(FRAYLOG_COMMIT_GROUP_SIZE 64 against 1), the served process's threads where the system
puts them or on one CPU (FRAYLOG_CPU off against auto, infra/cpus.py) and SQLite's
`synchronous` (FULL against NORMAL).
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from copy import deepcopy
from dataclasses import dataclass, replace
from typing import Any
from uuid import UUID

from fastapi import Depends, FastAPI
from fastapi.routing import APIRoute
from pydantic_core import to_json

from api import problems
from api.clean_input import CleanInput
from api.deps import known_query
from api.routes.command_lane import CommandLane
from api.routes.command_route import CommandRoute
from api.routes.commands import _answer, run_command
from bench.timing import Row
from bench.workload import FIGHTERS
from domain import commands as c
from domain.encounter import Encounter, project_encounter
from domain.state import ActionState, EncounterState, Marks
from infra.app import Fraylog
from infra.settings import Settings

PATH = "/encounters/{encounter_id}/commands"


@dataclass
class Lever:
    """One lever: the rate with it and without it (medians), per second of CPU or wall."""

    name: str
    setting: str
    without: str
    rate_with: float
    rate_without: float
    unit: str
    n: int
    note: str = ""

    @property
    def gain(self) -> float:
        return self.rate_with / self.rate_without


def one_route_app(route_class: type[APIRoute], fraylog: Fraylog) -> FastAPI:
    """The command endpoint alone (with the app's query check and problem handlers), its
    parameters read by `route_class` (tests/api/test_command_route.py compares the two)."""
    app = FastAPI(dependencies=[Depends(known_query)])
    app.state.fraylog = fraylog
    problems.install(app)
    app.router.add_api_route(PATH, run_command, methods=["POST"], route_class_override=route_class)
    return app


async def _post(app: FastAPI, path: str, body: bytes, token: str) -> int:
    headers = [
        (b"host", b"bench"),
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"authorization", f"Bearer {token}".encode()),
    ]
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 2),
    }
    sent = False
    status = 0

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]

    await app(scope, receive, send)
    return status


def _table(fraylog: Fraylog) -> tuple[str, str, str]:
    eid = fraylog.create_encounter("Lever", "novus", "seeded", "levers").state.id
    name, side, stats = FIGHTERS[0]
    who, _ = fraylog.add_combatant(UUID(eid), name, side, stats)
    return eid, who, fraylog.access.mint(eid, "gm")


def served(fraylog: Fraylog, lane: bool) -> FastAPI:
    """The command route alone behind the app's input check, with the command lane
    (api/routes/command_lane.py) before it or not (tests/api/test_command_lane.py compares
    the two)."""
    app = one_route_app(CommandRoute, fraylog)
    if lane:
        app.add_middleware(CommandLane, fraylog=fraylog)
    app.add_middleware(CleanInput)
    return app


def asgi_lever(
    settings: Settings,
    names: tuple[str, str, str],
    apps: Callable[[Fraylog], tuple[FastAPI, FastAPI]],
    commands: int,
    reps: int,
) -> Lever:
    """CPU time per command through two apps of the same endpoint (`apps`: with the lever,
    without it), taking turns."""
    fraylog = Fraylog(settings)
    try:
        eid, who, token = _table(fraylog)
        with_app, without_app = apps(fraylog)
        bodies = [
            json.dumps({"type": "adjust_hits", "combatant": who, "amount": a}).encode()
            for a in (1, -1)
        ]
        path = PATH.replace("{encounter_id}", eid)

        async def turn(app: FastAPI) -> float:
            start = time.process_time()
            for i in range(commands):
                status = await _post(app, path, bodies[i % 2], token)
                assert status == 200, status
            return commands / (time.process_time() - start)

        rates: list[tuple[float, float]] = []
        for _ in range(reps + 1):  # the first round warms up and is dropped
            rates.append((asyncio.run(turn(with_app)), asyncio.run(turn(without_app))))
        name, setting, without = names
        return Lever(
            name,
            setting,
            without,
            statistics.median(r[0] for r in rates[1:]),
            statistics.median(r[1] for r in rates[1:]),
            "cmds per CPU second",
            reps,
            f"in-process ASGI, {commands} commands a turn, one at a time; the store's time "
            "is in both",
        )
    finally:
        fraylog.close()


def route_lever(settings: Settings, commands: int, reps: int) -> Lever:
    """The same endpoint, its parameters read by hand or by FastAPI."""
    return asgi_lever(
        settings,
        (
            "command route's parameters",
            "read by hand (CommandRoute)",
            "FastAPI's dependency solving",
        ),
        lambda f: (one_route_app(CommandRoute, f), one_route_app(APIRoute, f)),
        commands,
        reps,
    )


def lane_lever(settings: Settings, commands: int, reps: int) -> Lever:
    """A plain command answered by the command lane, or routed to the same endpoint."""
    return asgi_lever(
        settings,
        (
            "a plain command's way in",
            "the command lane, before routing (CommandLane)",
            "routed by FastAPI to the command route",
        ),
        lambda f: (served(f, lane=True), served(f, lane=False)),
        commands,
        reps,
    )


@contextmanager
def generic_copies() -> Iterator[None]:
    """The deep copies as they were: the library's for the aggregate, pydantic's for the
    state's models (CombatantState kept its own, which it had before)."""
    saved = {
        cls: cls.__dict__["__deepcopy__"] for cls in (Encounter, EncounterState, Marks, ActionState)
    }
    try:
        for cls in saved:
            delattr(cls, "__deepcopy__")
        yield
    finally:
        for cls, method in saved.items():
            cls.__deepcopy__ = method


def copy_lever(fraylog: Fraylog, eid: UUID, copies: int, reps: int) -> Lever:
    """Copies of a played encounter (the cached one a command copies) per CPU second."""
    encounter = fraylog.encounter(eid)

    def turn() -> float:
        start = time.process_time()
        for _ in range(copies):
            deepcopy(encounter)
        return copies / (time.process_time() - start)

    ours, generic = [], []
    for _ in range(reps):
        ours.append(turn())
        with generic_copies():
            generic.append(turn())
    return Lever(
        "copy of the cached encounter",
        "containers copied, strings and numbers shared",
        "generic deep copies",
        statistics.median(ours),
        statistics.median(generic),
        "copies per CPU second",
        reps,
        f"{len(encounter.state.combatants)} combatants, version {encounter.version}",
    )


@contextmanager
def store_read_first() -> Iterator[None]:
    """The command path as it was: the cached encounter fast-forwarded from the store (a
    read of the events after it, decoded and folded in place) before each command, and the
    command's own record not kept, so the next command reads it back."""
    saved = {name: Fraylog.__dict__[name] for name in ("_kept", "_keep", "_fold")}
    try:
        Fraylog._kept = lambda self, encounter_id, command: None  # type: ignore[method-assign]
        Fraylog._keep = lambda self, encounter: None  # type: ignore[method-assign]
        Fraylog._fold = lambda self, folded, events: project_encounter(folded, events)  # type: ignore[method-assign]
        yield
    finally:
        for name, method in saved.items():
            setattr(Fraylog, name, method)


def kept_lever(fraylog: Fraylog, eid: UUID, who: str, commands: int, reps: int) -> Lever:
    """Commands (adjust_hits, one at a time, saved) per CPU second."""

    def turn() -> float:
        start = time.process_time()
        for i in range(commands):
            fraylog.execute(eid, c.AdjustHits(combatant=who, amount=1 if i % 2 else -1))
        return commands / (time.process_time() - start)

    kept, read = [], []
    for _ in range(reps):
        kept.append(turn())
        with store_read_first():
            read.append(turn())
    return Lever(
        "what a command is decided on",
        "the encounter as this process keeps it",
        "fast-forwarded from the store first",
        statistics.median(kept),
        statistics.median(read),
        "cmds per CPU second",
        reps,
        f"in-process, {commands} adjust_hits a turn, one at a time, each saved",
    )


def json_lever(fraylog: Fraylog, eid: UUID, who: str, answers: int, reps: int) -> Lever:
    """A command's answer (its events and the view) encoded per CPU second."""
    recorded = fraylog.execute(eid, c.AdjustHits(combatant=who, amount=-1))
    answer = _answer(fraylog, None, recorded.events, recorded.state)
    assert json.loads(to_json(answer)) == answer

    def turn(encode: Callable[[Any], bytes]) -> float:
        start = time.process_time()
        for _ in range(answers):
            encode(answer)
        return answers / (time.process_time() - start)

    def stdlib(a: Any) -> bytes:
        return json.dumps(a, ensure_ascii=False, separators=(",", ":")).encode()

    ours, theirs = [], []
    for _ in range(reps):
        ours.append(turn(to_json))
        theirs.append(turn(stdlib))
    return Lever(
        "a command's answer as JSON",
        "pydantic-core, once",
        "json.dumps (JSONResponse)",
        statistics.median(ours),
        statistics.median(theirs),
        "answers per CPU second",
        reps,
        f"{len(to_json(answer)):,} bytes",
    )


def in_process(settings: Settings, commands: int, reps: int) -> list[Lever]:
    """The in-process levers on a store of their own (`settings`)."""
    levers = [route_lever(settings, commands, reps), lane_lever(settings, commands, reps)]
    fraylog = Fraylog(settings)
    try:
        eid, who, _ = _table(fraylog)
        for i in range(200):  # a fight with some history
            fraylog.execute(UUID(eid), c.AdjustHits(combatant=who, amount=1 if i % 2 else -1))
        levers.append(kept_lever(fraylog, UUID(eid), who, commands, reps))
        levers.append(copy_lever(fraylog, UUID(eid), 2000, reps))
        levers.append(json_lever(fraylog, UUID(eid), who, 5000, reps))
    finally:
        fraylog.close()
    return levers


def over_http(
    stores: Callable[[str], Settings],
    reps: int,
    seconds: float,
    connections: int,
    log: Callable[[str], None],
) -> list[Lever]:
    """Deciding on the loop, group commit, the served process's CPU, PostgreSQL's commits on
    the loop and SQLite's synchronous, each setting served by its own `fraylog serve`, the
    runs taking turns."""
    from bench import wrk_runs
    from bench.over_http import Server
    from bench.yardsticks import command_tables

    on, off = stores("lever_on"), stores("lever_off")  # a store each (SQLite: one writer)
    pairs = [
        (
            "commands decided on the event loop (FRAYLOG_DECIDE_ON_LOOP)",
            "on (default): on the loop, committed by one writer thread",
            "off: each in a worker thread, waiting for its commit, and no command lane",
            replace(on, decide_on_loop=True),
            replace(off, decide_on_loop=False),
        ),
        (
            "group commit (FRAYLOG_COMMIT_GROUP_SIZE)",
            "64 (default)",
            "1: each save alone",
            replace(on, commit_group_size=64),
            replace(off, commit_group_size=1),
        ),
        (
            "one CPU for the served process (FRAYLOG_CPU)",
            "off (default): the threads where the system puts them",
            "auto: on one CPU it claims",
            replace(on, cpu="off"),
            replace(off, cpu="auto"),
        ),
    ]
    if on.backend == "postgres":
        pairs.append(
            (
                "commits on the event loop (FRAYLOG_COMMIT_ON_LOOP)",
                "on (default): the loop's commands committed on its own connection",
                "off: committed by the writer thread",
                replace(on, commit_on_loop=True),
                replace(off, commit_on_loop=False),
            )
        )
    if on.backend == "sqlite":
        pairs.append(
            (
                "SQLite synchronous (FRAYLOG_SQLITE_SYNCHRONOUS)",
                "FULL (default)",
                "NORMAL",
                replace(on, sqlite_synchronous="FULL"),
                replace(off, sqlite_synchronous="NORMAL"),
            )
        )
    levers = []
    for name, setting, without, on, off in pairs:
        log(f" lever over HTTP: {name}, {setting} against {without} ...")
        with Server(on) as a, Server(off) as b:
            tables = {
                "on": command_tables(a.url, connections),
                "off": command_tables(b.url, connections),
            }
            urls = {"on": a.url, "off": b.url}
            for k in urls:
                wrk_runs.run(urls[k], tables[k], connections, 1.0)
            runs: dict[str, list[float]] = {"on": [], "off": []}
            p99: dict[str, list[float]] = {"on": [], "off": []}
            for _ in range(reps):
                for k in urls:
                    run = wrk_runs.run(urls[k], tables[k], connections, seconds)
                    runs[k].append(run.rate)
                    p99[k].append(run.p99_us / 1e3)
        levers.append(
            Lever(
                name,
                setting,
                without,
                statistics.median(runs["on"]),
                statistics.median(runs["off"]),
                "cmds/s",
                reps,
                f"wrk, {connections} connections; p99 {statistics.median(p99['on']):.1f} ms "
                f"against {statistics.median(p99['off']):.1f} ms",
            )
        )
    return levers


def rows(backend: str, lever: Lever) -> list[Row]:
    """The report's two lines of a lever: as shipped (× 1), and without it (its rate ÷ the
    shipped one's)."""
    note = f"{lever.note}; medians of {lever.n}, taking turns"
    return [
        Row(
            backend,
            f"{lever.name}: {lever.setting}",
            [],
            lever.rate_with,
            lever.unit,
            "default",
            1.0,
            note,
        ),
        Row(
            backend,
            f"{lever.name}: {lever.without}",
            [],
            lever.rate_without,
            lever.unit,
            "default",
            1 / lever.gain,
            note,
        ),
    ]
