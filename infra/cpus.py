"""A served process's threads on one CPU of their own (FRAYLOG_CPU), when asked for.

One process runs its Python on one core at a time (the interpreter's lock), but its threads
hand work to each other at every command: the event loop to a worker thread, the worker to
the group commit's leader, back to the loop, the access log's writer. Where the operating
system spreads those threads over several cores, each hand-off wakes another core, and on a
virtual machine waking an idle core costs a round trip through the host; the threads then
pass the interpreter's lock back and forth across cores. On one core the same hand-offs are
switches on that core. `make bench` measures it in every run (docs/performance.md, "Levers").

`FRAYLOG_CPU`:
- `off` (the default): the operating system places the threads;
- `auto`: a CPU among those the process may run on, from the last down;
- a list of CPU numbers (`2,3`): one among these, in that order.

Each process claims its CPU with a lock on a file of its own for it (`fraylog-cpus/cpu-N.lock`
in the temporary directory), held while it runs, so that processes sharing that directory
(`fraylog serve --workers N`, or two servers of one machine with one /tmp) take different
CPUs; one that finds them all claimed runs unpinned. Processes that do not share it (each in
its own container, or with systemd's PrivateTmp) do not see each other's claims: give each
its CPUs by number, or leave the setting off. Other programs, the database among them, stay
free to run on any CPU. Pinning is a choice of speed only: when anything in it fails (no
/proc, a system that refuses affinities, no temporary directory), the process runs unpinned
and says why in its log; it never stops the server from starting.

Only the serving process does it (`fraylog serve`, api.main's lifespan): tests' apps, the CLI
and the benchmarks' in-process runs are never pinned; the served app started inside another
program (a test) puts the threads back when it stops. Without `sched_setaffinity` (macOS,
Windows) nothing happens.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO

log = logging.getLogger("fraylog")

@dataclass
class Pinned:
    """The CPU a process runs on, the lock file that claims it (held until `release`), and
    the CPUs the process could run on before."""

    cpu: int
    claim: IO[bytes]
    before: set[int]

    def release(self) -> None:
        """Every thread back on the CPUs the process had (an app started within another
        program, as a test does, leaves it as it was), and the claim given up."""
        try:
            put_back(self.before)
        finally:
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


def lock_directory(locks: Path) -> Path:
    """`locks`, made as the temporary directory is (anyone may add a file, each keeps his
    own) when this process makes it; an existing one must be a directory itself, not a link
    to one. Raises OSError otherwise."""
    with contextlib.suppress(FileExistsError):  # made already: its mode is its maker's
        os.mkdir(locks, 0o1777)
        os.chmod(locks, 0o1777)  # the mode mkdir gave, less the umask
    if not stat.S_ISDIR(os.lstat(locks).st_mode):
        raise OSError(errno.ENOTDIR, "not a directory of its own", str(locks))
    return locks


def _lock_file(path: Path) -> IO[bytes]:
    """The lock file at `path`, opened for reading (which any user may), made if missing;
    a link there is not followed. Raises OSError."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        try:
            fd = os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:  # another process made it meanwhile
            fd = os.open(path, flags)
    return os.fdopen(fd, "rb")


def claim(cpus: list[int], locks: Path) -> tuple[int, IO[bytes]] | None:
    """The first CPU of `cpus` whose lock file in `locks` no other process holds, with it
    held; None when none is free. A lock file that cannot be opened (another user's, in a
    system that keeps users from each other's files in shared directories) is passed over.
    Raises OSError when `locks` cannot be made."""
    import fcntl

    lock_directory(locks)
    for cpu in cpus:
        try:
            held = _lock_file(locks / f"cpu-{cpu}.lock")
        except OSError as e:
            log.info("fraylog: CPU %s passed over: its lock file cannot be opened (%s)", cpu, e)
            continue
        try:
            fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # another process holds it
            held.close()
            continue
        return cpu, held
    return None


def threads() -> set[int]:
    """This process's threads (Linux: /proc/self/task). Raises OSError without /proc."""
    return {int(t) for t in os.listdir("/proc/self/task")}


def pin(cpus: set[int]) -> None:
    """Every thread of this process on `cpus`; threads started after inherit them from the
    thread that starts them. Listed again until a pass finds no thread it had not seen (a
    thread may start one while the others are pinned); one that has ended is skipped.
    Raises OSError when a thread cannot be set."""
    done: set[int] = set()
    while todo := threads() - done:
        for tid in todo:
            with contextlib.suppress(ProcessLookupError):  # ended meanwhile
                os.sched_setaffinity(tid, cpus)
        done |= todo


def put_back(cpus: set[int]) -> None:
    """Every thread on `cpus` again, as far as the system lets it (never raises for it)."""
    try:
        tids = threads()
    except OSError:
        tids = {0}  # the calling thread
    for tid in tids:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(tid, cpus)


def settle_on_one_cpu(spec: str, locks: Path | None = None) -> Pinned | None:
    """This process's threads on one CPU it claims (FRAYLOG_CPU `spec`) in `locks` (else
    `fraylog-cpus` in the temporary directory, as TMPDIR says); None when not pinned: `off`,
    one CPU, none free, or anything failing on the way (logged, never raised)."""
    try:
        return _settle(spec, locks)
    except Exception as e:  # a speed-up only: the server starts without it
        log.warning("fraylog: not pinned to one CPU (FRAYLOG_CPU=%s): %s", spec, e)
        return None


def _settle(spec: str, locks: Path | None) -> Pinned | None:
    cpus = candidates(spec)
    if not cpus:
        if spec.strip().lower() not in ("off", "auto") and hasattr(os, "sched_setaffinity"):
            log.warning("fraylog: FRAYLOG_CPU=%s names no CPU this process may run on", spec)
        return None
    where = locks or Path(tempfile.gettempdir()) / "fraylog-cpus"
    claimed = claim(cpus, where)
    if claimed is None:
        log.info("fraylog: CPUs %s are all claimed by other fraylog processes", cpus)
        return None
    cpu, held = claimed
    before = os.sched_getaffinity(0)
    try:
        pin({cpu})
    except BaseException:
        put_back(before)
        held.close()
        raise
    return Pinned(cpu, held, before)
