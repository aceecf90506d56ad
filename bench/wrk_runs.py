"""HTTP load from `wrk` (Debian's package: `apt-get install wrk`), a separate process in C
that uses little CPU: one thread and one keep-alive connection per table (`-t N -c N`), a
closed loop, the tables and their requests given to `bench/wrk/tables.lua` in a file.

Each run prints wrk's own report (`--latency`) and a line the script's done() writes,
"FRAYLOG_WRK {json}" (requests, duration, latency percentiles in µs, errors, answers with
another status than the one expected), which `parse` reads.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent / "wrk" / "tables.lua"
MARK = "FRAYLOG_WRK "
INSTALL = "wrk is not installed: `apt-get install wrk` (Debian/Ubuntu) for the yardsticks"


class WrkFailed(RuntimeError):
    """Raised when a wrk run fails, prints no summary, or has errors or unexpected answers."""


def wrk_path() -> str | None:
    return shutil.which("wrk")


@dataclass(frozen=True)
class Table:
    """One connection's requests: `method path`, the status each answer must have, the
    Authorization and If-None-Match headers ('' for none), and the bodies it alternates."""

    method: str
    path: str
    expected: int = 200
    authorization: str = ""
    if_none_match: str = ""
    bodies: tuple[str, ...] = ()

    def line(self) -> str:
        fields = [
            self.method,
            self.path,
            str(self.expected),
            self.authorization or "-",
            self.if_none_match or "-",
            *(self.bodies or ("-",)),
        ]
        if any("\t" in f or "\n" in f for f in fields):
            raise ValueError(f"a tab or a line feed in a wrk table: {fields}")
        return "\t".join(fields)


@dataclass(frozen=True)
class WrkRun:
    """One wrk run's summary (latencies in µs, as wrk keeps them)."""

    requests: int
    duration_us: int
    p50_us: int
    p90_us: int
    p99_us: int
    max_us: int
    mean_us: float
    unexpected: int = 0
    unexpected_status: int = 0
    connect: int = 0
    read: int = 0
    write: int = 0
    status: int = 0
    timeout: int = 0
    threads: int = 0
    # the server's CPU per answer (µs), if read (bench.server_cpu): event loop, other threads
    loop_us: float | None = None
    threads_us: float | None = None

    @property
    def rate(self) -> float:
        return self.requests / (self.duration_us / 1e6)

    @property
    def errors(self) -> int:
        return self.connect + self.read + self.write + self.status + self.timeout


def parse(stdout: str) -> WrkRun:
    """The summary line of a run's output (the last one, should wrk print two)."""
    found = [line[len(MARK) :] for line in stdout.splitlines() if line.startswith(MARK)]
    if not found:
        raise WrkFailed(f"wrk printed no summary:\n{stdout[-2000:]}")
    data = json.loads(found[-1])
    return WrkRun(**{k: data[k] for k in WrkRun.__dataclass_fields__ if k in data})


def run(url: str, tables: list[Table], connections: int, seconds: float) -> WrkRun:
    """`wrk -t N -c N -d S --latency` against `url` with the first N `tables`; refuses a run
    with socket errors, timeouts or an answer of another status than expected."""
    exe = wrk_path()
    if exe is None:
        raise WrkFailed(INSTALL)
    if len(tables) < connections:
        raise ValueError(f"{connections} connections need {connections} tables, not {len(tables)}")
    with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False) as f:
        f.write("\n".join(t.line() for t in tables[:connections]) + "\n")
    try:
        proc = subprocess.run(
            [
                exe,
                "-t",
                str(connections),
                "-c",
                str(connections),
                "-d",
                f"{max(1, round(seconds))}s",
                "--timeout",
                "10s",
                "--latency",
                "-s",
                str(SCRIPT),
                url,
            ],
            env=os.environ | {"FRAYLOG_WRK_TABLES": f.name},
            capture_output=True,
            text=True,
            timeout=seconds + 60,
            check=False,
        )
    finally:
        Path(f.name).unlink(missing_ok=True)
    if proc.returncode != 0:
        raise WrkFailed(f"wrk exited with {proc.returncode}:\n{proc.stderr[-2000:]}")
    out = parse(proc.stdout)
    if out.errors or out.unexpected or out.requests == 0:
        raise WrkFailed(
            f"wrk against {url}{tables[0].path}: {out.requests} answers, socket errors "
            f"{out.errors}, {out.unexpected} not {tables[0].expected} (last "
            f"{out.unexpected_status})"
        )
    return out


@dataclass
class Runs:
    """The repeated runs of one configuration; the figures are medians, the spread min-max."""

    runs: list[WrkRun] = field(default_factory=list)

    def _median(self, values: list[float]) -> float:
        return statistics.median(values) if values else float("nan")

    @property
    def rate(self) -> float:
        return self._median([r.rate for r in self.runs])

    @property
    def spread(self) -> tuple[float, float]:
        rates = [r.rate for r in self.runs]
        return (min(rates), max(rates)) if rates else (float("nan"), float("nan"))

    @property
    def p50_ms(self) -> float:
        return self._median([r.p50_us / 1e3 for r in self.runs])

    @property
    def p99_ms(self) -> float:
        return self._median([r.p99_us / 1e3 for r in self.runs])

    @property
    def cpu_note(self) -> str:
        """The server's CPU per answer (medians), or "" where it was not read."""
        loops = [r.loop_us for r in self.runs if r.loop_us is not None]
        others = [r.threads_us for r in self.runs if r.threads_us is not None]
        if not loops or not others:
            return ""
        loop, other = self._median(loops), self._median(others)
        return (
            f"server CPU per answer {loop + other:,.0f} µs: event loop {loop:,.0f}, "
            f"other threads {other:,.0f}"
        )
