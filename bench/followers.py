"""`python -m bench.followers [--followers 5000 --encounters 500]`: many followers of the live
feed on one `fraylog serve` process (SQLite, tokens on, rate limits off, stream limits
raised by FRAYLOG_MAX_STREAMS_PER_TOKEN and FRAYLOG_MAX_STREAMS).

Each encounter has two heroes, each with his player's token, and a goblin the GM keeps
hidden; its followers take the GM's token and the two players' in turn, so players' pages
are redacted. The followers are raw asyncio sockets in a process of their own (`--child`),
which notes when each event's `id:` line arrives (CLOCK_MONOTONIC, shared by processes).
Once all have caught up, this process records `adjust_hits` commands at a steady rate,
round robin over the encounters, and measures for every event and follower the delay from
the command's send, and from its answer, to the follower's receipt; every event must
reach all its followers. The server's RSS (/proc/<pid>/status) is read before the
followers connect, once they have, and after the commands.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from bench.over_http import ROOT, Server, free_port, server_env
from bench.timing import percentile
from bench.workload import FIGHTERS
from infra.settings import Settings

IDLE_SECONDS = 5.0
clock = time.monotonic_ns  # CLOCK_MONOTONIC: the same clock in the followers' process


class StreamingServer(Server):
    """`fraylog serve` as `bench.over_http.Server` starts it, with the stream limits raised."""

    def __init__(self, settings: Settings, extra: dict[str, str]) -> None:
        self.port, self.workers = free_port(), 1
        self.url = f"http://127.0.0.1:{self.port}"
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 (closed in stop())
        self._tmp = tempfile.TemporaryDirectory()  # as Server's: where it claims its CPU
        serve = ["-c", "from api.cli import app; app()", "serve", "--host", "127.0.0.1"]
        self.proc = subprocess.Popen(
            [sys.executable, *serve, "--port", str(self.port), "--workers", "1"],
            cwd=ROOT,
            env=server_env(settings) | {"PYTHONUNBUFFERED": "1", "TMPDIR": self._tmp.name} | extra,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )

    def cpu_s(self) -> float:
        """The server's CPU time so far (user + system, /proc/<pid>/stat)."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rpartition(")")[2].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")


# -- the followers' process ---------------------------------------------------------------
async def _follow(port: int, spec: list[Any], got: list[tuple[int, int]], ready: Any) -> None:
    """One follower: GET the stream, then note (position, arrival) of each `id:` line."""
    path, token, caught_up = spec
    reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 20)
    writer.write(
        f"GET {path} HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer {token}\r\n"
        "Accept: text/event-stream\r\n\r\n".encode()
    )
    status = await reader.readline()
    if b" 200 " not in status:
        raise RuntimeError(f"the stream answered {status!r}")
    while await reader.readline() not in (b"\r\n", b""):
        pass  # the headers
    while line := await reader.readline():  # a chunk's size line never starts with "id:"
        if line.startswith(b"id:"):
            position = int(line[3:])
            got.append((position, clock()))
            if position == caught_up:
                ready()


async def _followers(port: int, specs: list[Any]) -> dict[str, Any]:
    got: list[list[tuple[int, int]]] = [[] for _ in specs]
    pending = len(specs)
    all_ready = asyncio.Event()

    def ready() -> None:
        nonlocal pending
        pending -= 1
        if pending == 0:
            all_ready.set()

    opening = asyncio.Semaphore(64)  # the server's accept backlog is finite

    async def one(i: int) -> None:
        async with opening:
            task = asyncio.create_task(_follow(port, specs[i], got[i], ready))
            while not got[i] and not task.done():
                await asyncio.sleep(0.01)
        await task

    tasks = [asyncio.create_task(one(i)) for i in range(len(specs))]
    started = clock()
    await asyncio.wait_for(all_ready.wait(), timeout=120)
    print(json.dumps({"ready_s": (clock() - started) / 1e9}), flush=True)
    loop = asyncio.get_running_loop()
    finals = json.loads(await loop.run_in_executor(None, sys.stdin.readline))
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(
        (g[-1][0] if g else 0) < finals[i] for i, g in enumerate(got)
    ):
        await asyncio.sleep(0.05)
    failed = [repr(t.exception()) for t in tasks if t.done() and t.exception()]
    for t in tasks:
        t.cancel()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {"got": got, "failed": failed[:5], "cpu_s": usage.ru_utime + usage.ru_stime}


def child() -> None:
    spec = json.loads(sys.stdin.readline())
    print(json.dumps(asyncio.run(_followers(spec["port"], spec["followers"]))), flush=True)


# -- the benchmark ------------------------------------------------------------------------
async def _encounter(http: httpx.AsyncClient) -> dict[str, Any]:
    """Two heroes with a player's token each, a goblin hidden: ids, tokens, version."""
    created = (await http.post("/encounters", json={"name": "Feed", "ruleset": "novus"})).json()
    eid, gm = created["id"], created["gm_token"]
    auth = {"Authorization": f"Bearer {gm}"}
    ids, tokens = [], [gm]
    for n, (name, side, stats) in enumerate([FIGHTERS[0], FIGHTERS[0], FIGHTERS[1]]):
        body = {"name": f"{name} {n}", "side": side, "stats": stats, "hidden": n == 2}
        r = await http.post(f"/encounters/{eid}/combatants", json=body, headers=auth)
        ids.append(r.raise_for_status().json()["id"])
    for hero in ids[:2]:
        r = await http.post(f"/encounters/{eid}/tokens", json={"combatants": [hero]}, headers=auth)
        tokens.append(r.raise_for_status().json()["token"])
    version = (await http.get(f"/encounters/{eid}", headers=auth)).json()["version"]
    return {"id": eid, "combatants": ids, "tokens": tokens, "version": version}


async def _setup(url: str, encounters: int) -> list[dict[str, Any]]:
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        made: list[dict[str, Any]] = []
        for at in range(0, encounters, 8):
            made += await asyncio.gather(
                *(_encounter(http) for _ in range(at, min(encounters, at + 8)))
            )
        return made


async def _commands(
    url: str, made: list[dict[str, Any]], rate: float, seconds: float
) -> list[tuple[int, int, int, list[int]]]:
    """`adjust_hits` at `rate` a second (open loop): (encounter, sent, answered, positions)."""
    done: list[tuple[int, int, int, list[int]]] = []
    conflicts: list[int] = []
    async with httpx.AsyncClient(
        base_url=url, timeout=60, limits=httpx.Limits(max_connections=32)
    ) as http:

        async def one(i: int) -> None:
            e = made[i % len(made)]
            whom = e["combatants"][(i // len(made)) % 3]
            body = {"type": "adjust_hits", "combatant": whom, "amount": -1}
            sent = clock()
            while True:  # a 409: another command on it was saved first (none is lost)
                r = await http.post(
                    f"/encounters/{e['id']}/commands",
                    json=body,
                    headers={"Authorization": f"Bearer {e['tokens'][0]}"},
                )
                if r.status_code != 409:
                    break
                conflicts.append(i)
            answered = clock()
            positions = [ev["position"] for ev in r.raise_for_status().json()["events"]]
            done.append((i % len(made), sent, answered, positions))

        start, tasks = clock(), []
        for i in range(int(rate * seconds)):
            await asyncio.sleep(max(0.0, (start + i * 1e9 / rate - clock()) / 1e9))
            tasks.append(asyncio.create_task(one(i)))
        await asyncio.gather(*tasks)
    note(
        f"{len(done)} commands in {(clock() - start) / 1e9:.1f} s, {len(conflicts)} retried on 409"
    )
    return done


def note(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def run(followers: int, encounters: int, rate: float, seconds: float) -> dict[str, Any]:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # for both children
    per = -(-followers // encounters)
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(sqlite_path=str(Path(tmp) / "fraylog.db"))
        extra = {
            "FRAYLOG_MAX_STREAMS_PER_TOKEN": str(per),
            "FRAYLOG_MAX_STREAMS": str(followers + 100),
        }
        with StreamingServer(settings, extra) as server:
            t0 = clock()
            made = asyncio.run(_setup(server.url, encounters))
            setup_s = (clock() - t0) / 1e9
            note(f"{encounters} encounters made in {setup_s:.1f} s")
            rss = {"before": server.rss_mb()}
            owner = [i % encounters for i in range(followers)]
            specs = [
                [
                    f"/encounters/{made[e]['id']}/stream",
                    made[e]["tokens"][i % 3],
                    made[e]["version"],
                ]
                for i, e in enumerate(owner)
            ]
            proc = subprocess.Popen(
                [sys.executable, "-m", "bench.followers", "--child"],
                cwd=ROOT,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write(json.dumps({"port": server.port, "followers": specs}) + "\n")
            proc.stdin.flush()
            ready = json.loads(proc.stdout.readline() or '{"ready_s": null}')
            if ready["ready_s"] is None:
                raise RuntimeError(f"the followers did not connect:\n{server.log()}")
            rss["followed"] = server.rss_mb()
            note(f"{followers} followers caught up in {ready['ready_s']:.1f} s")
            cpu = [server.cpu_s()]
            time.sleep(IDLE_SECONDS)  # what followers cost while nothing happens (heartbeats)
            cpu.append(server.cpu_s())
            done = asyncio.run(_commands(server.url, made, rate, seconds))
            last = {
                e: max(p for d in done if d[0] == e for p in d[3]) for e in {d[0] for d in done}
            }
            finals = [last.get(e, made[e]["version"]) for e in owner]
            proc.stdin.write(json.dumps(finals) + "\n")
            proc.stdin.flush()
            out = json.loads(proc.stdout.readline())
            cpu.append(server.cpu_s())
            proc.wait(timeout=30)
            rss["after"] = server.rss_mb()
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    return _measure(followers, encounters, owner, done, out) | {
        "rate": rate,
        "seconds": seconds,
        "setup_s": setup_s,
        "connect_s": ready["ready_s"],
        "rss_mb": rss,
        "server_idle_cpu_percent": 100 * (cpu[1] - cpu[0]) / IDLE_SECONDS,
        "server_cpu_ms_per_command": 1000 * (cpu[2] - cpu[1]) / max(1, len(done)),
        "followers_cpu_s": out["cpu_s"],
        "failed": out["failed"],
    }


def _measure(
    followers: int, encounters: int, owner: list[int], done: list[Any], out: dict[str, Any]
) -> dict[str, Any]:
    arrived = [dict(g) for g in out["got"]]  # per follower: position -> arrival
    by_encounter: dict[int, list[int]] = {}
    for f, e in enumerate(owner):
        by_encounter.setdefault(e, []).append(f)
    from_send, from_answer, expected, delivered = [], [], 0, 0
    first = min((d[1] for d in done), default=0)
    seconds: dict[int, list[float]] = {}  # the delays of the commands sent in each second
    for e, sent, answered, positions in done:
        for p in positions:
            for f in by_encounter.get(e, []):
                expected += 1
                if (t := arrived[f].get(p)) is not None:
                    delivered += 1
                    from_send.append((t - sent) / 1e6)
                    seconds.setdefault((sent - first) // 10**9, []).append(from_send[-1])
                    from_answer.append((t - answered) / 1e6)
    return {
        "followers": followers,
        "encounters": encounters,
        "commands": len(done),
        "expected": expected,
        "delivered": delivered,
        "from_send_ms": _spread(from_send),
        "from_answer_ms": _spread(from_answer),
        "p99_by_second_ms": [round(percentile(v, 0.99)) for _, v in sorted(seconds.items())],
    }


def _spread(ms: list[float]) -> dict[str, float]:
    return {
        "p50": percentile(ms, 0.5),
        "p99": percentile(ms, 0.99),
        "max": max(ms, default=float("nan")),
    }


def table(r: dict[str, Any]) -> str:
    rows = [
        f"{r['followers']} followers over {r['encounters']} encounters, one server process "
        f"(SQLite); {r['commands']} commands at {r['rate']:g}/s for {r['seconds']:g} s",
        f"delivered {r['delivered']} of {r['expected']} event messages expected",
        f"{'delay (ms)':<28}{'p50':>9}{'p99':>9}{'max':>9}",
    ]
    for name, key in (
        ("command sent -> received", "from_send_ms"),
        ("answered -> received", "from_answer_ms"),
    ):
        d = r[key]
        rows.append(f"{name:<28}{d['p50']:>9.1f}{d['p99']:>9.1f}{d['max']:>9.1f}")
    m = r["rss_mb"]
    rows += [
        f"server RSS MB: {m['before']:.0f} before the followers, {m['followed']:.0f} with them "
        f"({(m['followed'] - m['before']) * 1024 / r['followers']:.1f} KB each), "
        f"{m['after']:.0f} after the commands",
        f"server CPU: {r['server_idle_cpu_percent']:.1f}% of a core with the followers idle, "
        f"{r['server_cpu_ms_per_command']:.1f} ms a command with its events sent",
        f"setup {r['setup_s']:.1f} s, followers connected and caught up in "
        f"{r['connect_s']:.1f} s; the followers' process used {r['followers_cpu_s']:.1f} s CPU",
    ]
    if r["failed"]:
        rows.append(f"followers failed: {r['failed']}")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--followers", type=int, default=5000)
    parser.add_argument("--encounters", type=int, default=500)
    parser.add_argument("--rate", type=float, default=50.0, help="commands a second, in all")
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child()
        return
    result = run(args.followers, args.encounters, args.rate, args.seconds)
    print(table(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    if result["delivered"] != result["expected"]:
        sys.exit(1)


if __name__ == "__main__":
    main()
