"""fraylog over HTTP: a real uvicorn server in a subprocess, one httpx client."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from uuid import UUID

import httpx

from bench.baseline import Paced, Pacer
from bench.fraylog_runs import FIGHTERS, adjust_hits_loop, attack_loop, command_result_rows
from bench.timing import Row, clock
from domain import commands as c
from infra.settings import Settings

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_env(settings: Settings) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FRAYLOG_")}
    env["FRAYLOG_SNAPSHOT_INTERVAL"] = str(settings.snapshot_interval)
    env["FRAYLOG_CACHE_SIZE"] = str(settings.cache_size)
    if settings.database_url:
        env["FRAYLOG_DATABASE_URL"] = settings.database_url
        env["FRAYLOG_POSTGRES_SCHEMA"] = settings.postgres_schema
    else:
        env["FRAYLOG_SQLITE_PATH"] = settings.sqlite_path
    return env


class Server:
    """`uvicorn api.main:create_app --factory` on 127.0.0.1 and a free port."""

    def __init__(self, settings: Settings) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 (closed in stop())
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "api.main:create_app",
                "--factory",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--log-level",
                "warning",
                "--no-access-log",
            ],
            cwd=ROOT,
            env=server_env(settings),
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )

    def wait_ready(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"uvicorn exited with {self.proc.returncode}:\n{self.log()}")
            try:
                if httpx.get(f"{self.url}/openapi.json", timeout=1.0).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"uvicorn did not answer within {timeout}s:\n{self.log()}")

    def log(self) -> str:
        self._log.seek(0)
        return self._log.read().decode(errors="replace")[-4000:]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()

    def __enter__(self) -> Server:
        try:
            self.wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class HttpFraylog:
    """The few Fraylog calls the benchmark makes, as HTTP requests."""

    def __init__(self, client: httpx.Client) -> None:
        self.client = client

    def _post(self, path: str, body: dict[str, Any], status: int) -> dict[str, Any]:
        r = self.client.post(path, json=body)
        if r.status_code != status:
            raise RuntimeError(f"POST {path} -> {r.status_code}: {r.text[:500]}")
        return r.json()

    def new_fight(self) -> tuple[UUID, str, str]:
        created = self._post(
            "/encounters", {"name": "Bench", "ruleset": "novus", "dice_source": "manual"}, 201
        )
        eid = UUID(created["id"])
        ids = [
            self._post(
                f"/encounters/{eid}/combatants", {"name": name, "side": side, "stats": stats}, 201
            )["id"]
            for name, side, stats in FIGHTERS
        ]
        return eid, ids[0], ids[1]

    def view(self, eid: UUID) -> dict[str, Any]:
        r = self.client.get(f"/encounters/{eid}")
        if r.status_code != 200:
            raise RuntimeError(f"GET /encounters/{eid} -> {r.status_code}: {r.text[:500]}")
        return r.json()

    def execute(self, eid: UUID, command: c.CommandBase) -> dict[str, Any]:
        return self._post(
            f"/encounters/{eid}/commands", command.model_dump(mode="json", exclude_none=True), 200
        )


def http_rows(backend: str, settings: Settings, n: int, warmup: int, pacer: Pacer) -> list[Row]:
    """One client, one request at a time; baseline saves (in this process) in blocks of 10
    between blocks of 10 requests."""
    with Server(settings) as server, httpx.Client(base_url=server.url, timeout=30.0) as client:
        api = HttpFraylog(client)
        eid, a, _ = api.new_fight()
        p = Paced(pacer.save, 10)
        adjust = adjust_hits_loop(api.execute, eid, a, n, warmup, p)
        p.flush()
        adjust_base = pacer.take_save_rate()
        eid, a, b = api.new_fight()
        p = Paced(pacer.save, 10)
        attacks, per_cmd, per_attack = attack_loop(api.execute, eid, a, b, n, warmup, p)
        p.flush()
        attack_base = pacer.take_save_rate()
        reads = []
        for i in range(warmup + n):
            t0 = clock()
            api.view(eid)
            if i >= warmup:
                reads.append(clock() - t0)
    rows = command_result_rows(
        backend,
        "HTTP (uvicorn, 1 client)",
        adjust,
        adjust_base,
        attacks,
        per_cmd,
        per_attack,
        attack_base,
    )
    rows.append(
        Row(
            backend,
            "HTTP (uvicorn, 1 client): GET /encounters/{id} (view)",
            reads,
            len(reads) / (sum(reads) / 1e9),
            "reads/s",
            note="read path, no ratio: nothing is saved",
        )
    )
    return rows
