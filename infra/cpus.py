"""A served process's threads on one CPU of their own (FRAYLOG_CPU).

One process runs its Python on one core at a time (the interpreter's lock), but its threads
hand work to each other at every command: the event loop to a worker thread, the worker to
the group commit's leader, back to the loop, the access log's writer. Where the operating
system spreads those threads over several cores, each hand-off wakes another core, and on a
virtual machine waking an idle core costs the host a round trip; the threads then pass the
interpreter's lock back and forth across cores. Run on one core, the same hand-offs are a
switch on that core. Measured under wrk at 16 connections on a 2-vCPU virtual machine
(docs/performance.md, "Levers"), fraylog's commands ran 1.24-1.41x as fast on SQLite and
1.29x on PostgreSQL, with a lower p99; the bare FastAPI endpoint, with one thread, 1.1x.

`FRAYLOG_CPU`:
- `auto` (the default): a CPU among those the process may run on, the last first (the first
  is where a system most often handles its interrupts);
- a list of CPU numbers (`2,3`): one among these;
- `off`: the operating system places the threads, as before.

Each process claims its CPU with a lock on a file of its own for it (in the system's temporary
directory, `fraylog-cpus/`), held while it runs, so that several fraylog processes (`fraylog
serve --workers N`, or two servers on one machine) take different CPUs; one that finds them all
claimed, or cannot lock, runs unpinned. Other programs, the database among them, stay free to
run on any CPU. A process that may run on one CPU only is left as it is.

Only the serving process does it (`fraylog serve`, api.main's lifespan): tests, the CLI and
the benchmarks' in-process runs are never pinned. On systems without `sched_setaffinity`
(macOS, Windows) nothing happens.
"""

from __future__ import annotations

import logging
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO

log = logging.getLogger("fraylog")

LOCKS = Path(tempfile.gettempdir()) / "fraylog-cpus"


@dataclass
class Pinned:
    """The CPU a process runs on, the lock file that claims it (held until `release`), and
    the CPUs its threads could run on before."""

    cpu: int
    claim: IO[bytes]
    before: set[int]

    def release(self) -> None:
        """Every thread back on the CPUs it had (an app started within another program, as
        a test does, leaves it as it was), and the claim given up."""
        pin(self.before)
        self.claim.close()  # the lock goes with the file; the file stays for the next


def candidates(spec: str) -> list[int]:
    """The CPUs a process may take for `spec` (FRAYLOG_CPU), in the order it tries them:
    among those it may run on now; none for `off`, or when it may run on one CPU only."""
    spec = spec.strip().lower()
    if spec == "off" or not hasattr(os, "sched_setaffinity"):
        return []
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < 2:
        return []
    if spec == "auto":
        return allowed[::-1]
    asked = [int(n) for n in spec.split(",")]
    return [n for n in asked if n in allowed]


def claim(cpus: list[int], locks: Path) -> tuple[int, IO[bytes]] | None:
    """The first CPU of `cpus` no other process holds, with its lock file held; None when
    every one is held or none can be locked. The directory is made as the temporary
    directory is (anyone may add a file to it), so that processes of other users claim
    through it too; a lock file is opened for reading, which any user may."""
    import fcntl

    try:
        locks.mkdir(exist_ok=True)
        if locks.stat().st_uid == os.getuid():
            locks.chmod(0o1777)
    except OSError as e:
        log.info("fraylog: no CPU claimed (%s)", e)
        return None
    for cpu in cpus:
        try:
            fd = os.open(locks / f"cpu-{cpu}.lock", os.O_RDONLY | os.O_CREAT, 0o644)
        except OSError:  # another user's directory, or not allowed to add the file
            continue
        held = os.fdopen(fd, "rb")
        try:
            fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # another process holds it
            held.close()
            continue
        return cpu, held
    return None


def threads() -> list[int]:
    """This process's threads (Linux: /proc/self/task)."""
    try:
        return [int(t) for t in os.listdir("/proc/self/task")]
    except OSError:
        return [0]  # the calling thread: what sched_setaffinity(0) sets


def pin(cpus: set[int]) -> None:
    """Every thread of this process on `cpus`; threads started after inherit them from the
    thread that starts them. A thread that has ended meanwhile is skipped."""
    for tid in threads():
        try:
            os.sched_setaffinity(tid, cpus)
        except ProcessLookupError:
            continue


def settle_on_one_cpu(spec: str, locks: Path | None = None) -> Pinned | None:
    """This process's threads on one CPU it claims (FRAYLOG_CPU `spec`) in `locks` (LOCKS
    when not given); None when not pinned (`off`, one CPU, none free, no lock)."""
    cpus = candidates(spec)
    if not cpus:
        return None
    claimed = claim(cpus, locks or LOCKS)
    if claimed is None:
        log.info("fraylog: every CPU of %s is claimed by another fraylog: not pinned", cpus)
        return None
    cpu, held = claimed
    before = os.sched_getaffinity(0)
    try:
        pin({cpu})
    except OSError as e:  # not allowed after all (a container's policy)
        pin(before)
        held.close()
        log.info("fraylog: not pinned to CPU %s (%s)", cpu, e)
        return None
    return Pinned(cpu, held, before)
