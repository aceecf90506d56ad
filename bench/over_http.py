"""fraylog over HTTP: `fraylog serve` (uvicorn) in a subprocess, the load from another
(`bench.load`), the library baseline in this process before and after each load."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from bench.timing import Row, clock, percentile
from infra.settings import Settings

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_env(settings: Settings) -> dict[str, str]:
    """The environment `fraylog serve` reads its settings from (`Settings.from_env`)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("FRAYLOG_")}
    env["FRAYLOG_SNAPSHOT_INTERVAL"] = str(settings.snapshot_interval)
    env["FRAYLOG_CACHE_SIZE"] = str(settings.cache_size)
    env["FRAYLOG_POOL_SIZE"] = str(settings.pool_size)
    env["FRAYLOG_COMMIT_GROUP_SIZE"] = str(settings.commit_group_size)
    env["FRAYLOG_SQLITE_SYNCHRONOUS"] = settings.sqlite_synchronous
    env["FRAYLOG_CPU"] = settings.cpu
    env["FRAYLOG_DECIDE_ON_LOOP"] = "on" if settings.decide_on_loop else "off"
    env["FRAYLOG_COMMIT_ON_LOOP"] = "on" if settings.commit_on_loop else "off"
    # the command path alone: no rate limits (a bench is a flood by design) and no read
    # models' runner sharing the server's process
    env.update(
        FRAYLOG_RATE_CREATE="off",
        FRAYLOG_RATE_MINT="off",
        FRAYLOG_RATE_COMMANDS="off",
        FRAYLOG_PROJECTIONS="off",
    )
    if settings.pg_db_functions:
        env["FRAYLOG_PG_DB_FUNCTIONS"] = "1"
    if not settings.auth:
        env["FRAYLOG_NO_AUTH"] = "1"
    if settings.database_url:
        env["FRAYLOG_DATABASE_URL"] = settings.database_url
        env["FRAYLOG_POSTGRES_SCHEMA"] = settings.postgres_schema
    else:
        env["FRAYLOG_SQLITE_PATH"] = settings.sqlite_path
    return env


class Server:
    """`fraylog serve --host 127.0.0.1 --port P --workers N`, as a user runs it (tokens on,
    uvicorn's defaults: access log included); `bare`: `python -m bench.bare_app` with the
    same options, the framework's ceiling."""

    def __init__(self, settings: Settings, workers: int = 1, bare: bool = False) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.workers = workers
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 (closed in stop())
        # its own temporary directory: the CPU it claims (infra/cpus.py) is claimed apart
        # from the other servers of the run, which take turns with it on the same CPU
        self._tmp = tempfile.TemporaryDirectory()
        # bare: the framework's ceiling (bench.bare_app), served the same way
        program = ["-m", "bench.bare_app"] if bare else ["-c", "from api.cli import app; app()"]
        self.proc = subprocess.Popen(
            [
                sys.executable,
                *program,
                *([] if bare else ["serve"]),
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--workers",
                str(workers),
            ],
            cwd=ROOT,
            # several workers: each answer names its worker, to see every one has started
            env=server_env(settings)
            | {"PYTHONUNBUFFERED": "1", "TMPDIR": self._tmp.name}
            | ({"FRAYLOG_WORKER_HEADER": "1"} if workers > 1 else {}),
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )

    def wait_ready(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        pids: set[str] = set()
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited with {self.proc.returncode}:\n{self.log()}")
            try:
                r = httpx.get(f"{self.url}/rulesets/novus", timeout=2.0)
                if r.status_code == 200:
                    pids.add(r.headers.get("fraylog-worker", "?"))
                    if len(pids) >= self.workers:
                        return
                    continue  # until every worker has answered once (best effort)
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        if pids:
            return
        raise RuntimeError(f"the server did not answer within {timeout}s:\n{self.log()}")

    def log(self) -> str:
        self._log.seek(0)
        return self._log.read().decode(errors="replace")[-4000:]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()
        self._tmp.cleanup()

    def __enter__(self) -> Server:
        try:
            self.wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


@dataclass
class Load:
    """One run of the load generator and the baseline bracketing it."""

    clients: int
    seconds: float
    samples: list[int]
    by_kind: dict[str, list[int]]
    events: dict[str, int]
    workers: dict[str, int]
    base_before: float
    base_after: float
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def rate(self) -> float:
        return len(self.samples) / self.seconds

    @property
    def base(self) -> float:
        return (self.base_before + self.base_after) / 2

    @property
    def ratio(self) -> float:
        return self.rate / self.base

    @property
    def p99_ms(self) -> float:
        return percentile([float(x) for x in self.samples], 0.99) / 1e6

    @property
    def p50_ms(self) -> float:
        return percentile([float(x) for x in self.samples], 0.50) / 1e6


def generate(url: str, clients: int, seconds: float, warmup: int) -> dict[str, Any]:
    """Run `python -m bench.load` against `url` and return what it printed."""
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.load",
            url,
            "--clients",
            str(clients),
            "--seconds",
            str(seconds),
            "--warmup",
            str(warmup),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=seconds + 300,
        check=False,
    )
    try:
        out = json.loads(proc.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        raise RuntimeError(
            f"the load generator failed ({proc.returncode}):\n{proc.stderr[-3000:]}"
        ) from None
    if out.get("failed"):
        raise RuntimeError(f"the load generator's clients failed: {out['failed'][:5]}")
    return out


def timed_rate(op: Callable[[], Any], seconds: float) -> float:
    """Operations/s of `op` (sum of its own latencies) run for about `seconds`."""
    spent, n = 0, 0
    end = clock() + int(seconds * 1e9)
    while clock() < end or n < 20:
        t0 = clock()
        op()
        spent += clock() - t0
        n += 1
    return n / (spent / 1e9)


def load_run(
    server: Server,
    clients: int,
    seconds: float,
    warmup: int,
    baseline_op: Callable[[], Any],
    baseline_seconds: float,
    during: Callable[[], Any] | None = None,
) -> Load:
    """The baseline for `baseline_seconds`, the load for `seconds`, the baseline again."""
    before = timed_rate(baseline_op, baseline_seconds)
    if during is not None:
        during()
    out = generate(server.url, clients, seconds, warmup)
    after = timed_rate(baseline_op, baseline_seconds)
    by_kind: dict[str, list[int]] = {}
    for kind, ns in out["samples"]:
        by_kind.setdefault(kind, []).append(ns)
    return Load(
        clients,
        seconds,
        [ns for _, ns in out["samples"]],
        by_kind,
        out["events"],
        out["workers"],
        before,
        after,
    )


def load_row(backend: str, what: str, load: Load, note: str = "") -> Row:
    kinds = ", ".join(
        f"{k} p50 {percentile([float(x) for x in v], 0.5) / 1e6:.1f}"
        for k, v in sorted(load.by_kind.items())
    )
    events = sum(load.events.values())
    per_cmd = events / max(1, len(load.samples))
    pair = f"library alongside (same events, one save per command): {load.base:,.0f} cmds/s"
    text = f"{per_cmd:.1f} events/cmd; {kinds} ms; {pair}"
    return Row(
        backend,
        what,
        load.samples,
        load.rate,
        "cmds/s",
        "same",
        load.ratio,
        f"{note}; {text}" if note else text,
    )
