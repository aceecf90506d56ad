"""For the tests of a process's CPU (infra/cpus.py, FRAYLOG_CPU)."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pytest

two_cpus = pytest.mark.skipif(
    not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2,
    reason="CPU affinity: needs Linux and a process that may run on two CPUs or more",
)


def cpus_of_threads(pid: int) -> set[frozenset[int]]:
    """The CPUs each thread of process `pid` may run on, as a set of sets (a thread that
    ends while they are read is left out)."""
    found = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(ProcessLookupError, FileNotFoundError):
            found.add(frozenset(os.sched_getaffinity(int(task.name))))
    return found
