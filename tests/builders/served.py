"""A real `fraylog serve` for a test: started in a folder of the test's, answering, stopped."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.builders import free_port

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-c", "from api.cli import app; app()"]  # this checkout's fraylog


@dataclass(frozen=True)
class Served:
    url: str
    port: int
    pid: int
    log: Path  # what it printed (uvicorn's logs included)


@contextmanager
def fraylog_serving(
    folder: Path, env: dict[str, str], program: list[str] | None = None, ready: str = "/rulesets"
) -> Iterator[Served]:
    """`program serve --host 127.0.0.1 --port P` (this checkout's CLI unless given) run in
    `folder` with `env`, once `ready` answers 200; stopped after, killed if it will not stop.
    A server that exits or does not answer within 30 s fails the test with its log."""
    port, log = free_port(), folder / "serve.log"
    with log.open("wb") as out:
        server = subprocess.Popen(
            [*(program or CLI), "serve", "--host", "127.0.0.1", "--port", str(port)],
            cwd=folder,
            env={"PYTHONUNBUFFERED": "1", **env},
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"fraylog serve did not start:\n{log.read_text()}")
            try:
                if httpx.get(f"{url}{ready}", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass  # not listening yet
            time.sleep(0.1)
        yield Served(url, port, server.pid, log)
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
