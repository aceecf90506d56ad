"""Where a server's CPU goes during a wrk run: its event loop (each uvicorn process's main
thread) and every other thread (the thread pool running commands, the access log's writer,
the feed), read from Linux's /proc before and after the run, per answer. Elsewhere (no
/proc) nothing is read and the report says so.

A process runs its Python on one core at a time whatever its threads (the GIL), so the sum
of the two is what bounds one process's rate: 1 s ÷ (loop + threads) answers per second at
best."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")


@dataclass(frozen=True)
class Cpu:
    """CPU seconds so far: the event loops' (main threads') and every other thread's."""

    loop: float
    threads: float

    def __sub__(self, other: Cpu) -> Cpu:
        return Cpu(self.loop - other.loop, self.threads - other.threads)


def _ticks(stat: Path) -> int | None:
    """utime + stime of a process or one of its threads, in clock ticks (None if gone)."""
    try:
        fields = stat.read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return int(fields[11]) + int(fields[12])  # fields 14 and 15 of proc(5), after the name


def _processes(pid: int) -> list[int]:
    """The server and its children (uvicorn's workers, with --workers N)."""
    found = [pid]
    for stat in PROC.glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        if ppid == pid:
            found.append(int(stat.parent.name))
    return found


def cpu_of(pid: int) -> Cpu | None:
    """The CPU a server (`pid`, with its worker processes) has used so far; None without
    /proc. A supervisor's own main thread (uvicorn's, with workers) counts as a loop."""
    if not (PROC / str(pid) / "task").is_dir():
        return None
    tick = os.sysconf("SC_CLK_TCK")
    loop = threads = 0
    for process in _processes(pid):
        whole = _ticks(PROC / str(process) / "stat")  # every thread's, those ended too
        main = _ticks(PROC / str(process) / "task" / str(process) / "stat")
        if whole is None or main is None:
            continue
        loop += main
        threads += max(0, whole - main)  # the two are read one after the other
    return Cpu(loop / tick, threads / tick)
