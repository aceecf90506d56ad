"""Profiles for the targets a run misses: pyinstrument in this process (a fold, a load, an
export), py-spy attached to the uvicorn server under load (every thread, idle excluded).

Both become the same summary: own time by package (fraylog's layers, the library, pydantic,
FastAPI...), the functions with the most own time, and the functions with the most time
including what they call (fraylog's and the libraries' frames only), in markdown.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
STDLIB = sysconfig.get_paths()["stdlib"]
FRAME = re.compile(r"^(?P<func>.*) \((?P<file>.*?)(?::(?P<line>\d+))?\)$")
# the frames the "total time" list shows: fraylog's layers and the libraries it calls into
# (not the web stack's wrappers, which hold every request)
TOTAL = (
    "fraylog domain",
    "fraylog projections",
    "fraylog infra",
    "fraylog api",
    "eventsourcing",
    "pydantic",
    "psycopg",
    "stdlib json",
    "stdlib sqlite3",
)
WRAPPERS = {"serve", "WorkerHeader.__call__", "BodyLimit.__call__"}

Frame = tuple[str, str]  # (function, file)


@dataclass
class Profile:
    """Stacks (root first) with their weight (samples or seconds)."""

    title: str
    tool: str
    stacks: Counter[tuple[Frame, ...]] = field(default_factory=Counter)
    note: str = ""
    idle: float = 0  # samples left out: threads blocked waiting (see idle_worker)

    @property
    def total(self) -> float:
        return sum(self.stacks.values())


def package(path: str) -> str:
    """fraylog's layer, a third-party package, or 'stdlib: module'."""
    if "site-packages/" in path:
        return path.split("site-packages/", 1)[1].split("/", 1)[0].removesuffix(".py")
    if path.startswith(str(ROOT) + "/"):
        return "fraylog " + Path(path).relative_to(ROOT).parts[0]
    if path.startswith(STDLIB):
        rest = Path(path).relative_to(STDLIB).parts
        return "stdlib " + (rest[0].removesuffix(".py") if rest else "?")
    if path.startswith("<frozen "):
        return "stdlib " + path.removeprefix("<frozen ").rstrip(">")
    return path or "?"


def short(frame: Frame) -> str:
    func, path = frame
    where = package(path)
    name = Path(path).name if path else ""
    return f"`{func}` ({where}: {name})" if name else f"`{func}` ({where})"


def summary(p: Profile, top: int = 12) -> str:
    """Markdown: own time by package, top own-time functions, top total-time functions."""
    total = p.total or 1.0
    own_pkg: Counter[str] = Counter()
    own_fn: Counter[Frame] = Counter()
    incl_fn: Counter[Frame] = Counter()
    for stack, w in p.stacks.items():
        if not stack:
            continue
        own_pkg[package(stack[-1][1])] += w
        own_fn[stack[-1]] += w
        for frame in set(stack):
            incl_fn[frame] += w
    unit = "samples" if p.tool == "py-spy" else "s"
    amount = f"{total:,.0f} {unit}" if unit == "samples" else f"{total:.2f} s"
    if p.idle:
        amount += f", and {p.idle:,.0f} of threads blocked waiting for work, left out"
    lines = [f"**{p.title}** ({p.tool}, {amount}). {p.note}".rstrip(), ""]
    lines += ["| Own time by package | share |", "|:--|--:|"]
    lines += [f"| {k} | {v / total:.0%} |" for k, v in own_pkg.most_common(10)]
    lines += ["", "| Functions by own time | share |", "|:--|--:|"]
    lines += [f"| {short(k)} | {v / total:.1%} |" for k, v in own_fn.most_common(top)]
    picked = [
        (k, v)
        for k, v in incl_fn.most_common()
        if package(k[1]) in TOTAL and k[0] not in WRAPPERS and v < total * 0.999
    ][:top]
    lines += ["", "| Functions by total time (with what they call) | share |", "|:--|--:|"]
    lines += [f"| {short(k)} | {v / total:.1%} |" for k, v in picked]
    return "\n".join(lines) + "\n"


# -- pyinstrument (in this process) ----------------------------------------------------------


def pyinstrument_available() -> bool:
    try:
        import pyinstrument  # noqa: F401
    except ImportError:
        return False
    return True


def in_process(title: str, fn: Callable[[], Any], note: str = "") -> Profile | None:
    """Run `fn` under pyinstrument (1 ms interval); None when it is not installed."""
    if not pyinstrument_available():
        return None
    from pyinstrument import Profiler

    profiler = Profiler(interval=0.001, async_mode="disabled")
    profiler.start()
    try:
        fn()
    finally:
        session = profiler.stop()
    prof = Profile(title, "pyinstrument", note=note)
    root = session.root_frame()
    if root is None:
        return prof

    def walk(frame: Any, stack: tuple[Frame, ...]) -> None:
        if frame.is_synthetic_leaf:  # "[self]" and the like: time of the parent itself
            prof.stacks[stack] += frame.time
            return
        here = (*stack, (frame.function or "?", frame.file_path or ""))
        children = frame.children
        prof.stacks[here] += max(0.0, frame.time - sum(c.time for c in children))
        for child in children:
            walk(child, here)

    walk(root, ())
    return prof


# -- py-spy (attached to a server) ------------------------------------------------------------


def pyspy_path() -> str | None:
    here = Path(sys.executable).parent / "py-spy"
    return str(here) if here.exists() else shutil.which("py-spy")


class Spy:
    """`py-spy record --pid PID` for `seconds`, every thread and child process, raw stacks;
    started before the load it is to watch and waited for after it."""

    def __init__(self, pid: int, seconds: float, rate: int = 200) -> None:
        exe = pyspy_path()
        if exe is None:
            raise RuntimeError("py-spy is not installed (pip install -e '.[test]')")
        self.out = tempfile.NamedTemporaryFile(suffix=".txt", delete=False)  # noqa: SIM115
        self.out.close()
        self.proc = subprocess.Popen(
            [
                exe,
                "record",
                "--pid",
                str(pid),
                "--duration",
                str(max(1, round(seconds))),
                "--rate",
                str(rate),
                "--format",
                "raw",
                "--full-filenames",
                "--subprocesses",
                "-o",
                self.out.name,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )

    def result(self, title: str, note: str = "") -> Profile:
        _, err = self.proc.communicate(timeout=120)
        prof = Profile(title, "py-spy", note=note)
        text = Path(self.out.name).read_text(errors="replace")
        Path(self.out.name).unlink(missing_ok=True)
        if self.proc.returncode != 0 and not text:
            raise RuntimeError(f"py-spy failed: {err.decode(errors='replace')[-500:]}")
        for line in text.splitlines():
            stack_text, _, count = line.rpartition(" ")
            if not stack_text or not count.isdigit():
                continue
            frames = []
            for part in stack_text.split(";"):
                m = FRAME.match(part)
                if m is None:  # "process 123:..." headers with --subprocesses
                    continue
                frames.append((m["func"], m["file"]))
            if idle_worker(frames):
                prof.idle += int(count)
                continue
            prof.stacks[tuple(frames)] += int(count)
        return prof


def idle_worker(frames: list[Frame]) -> bool:
    """A thread blocked in `Condition.wait` or `Event.wait` (py-spy counts it as active):
    a thread-pool thread waiting for work, the feed's subscription waiting for a
    notification; not when it waits for a pooled connection (that is contention, kept)."""
    if not frames or frames[-1][0] not in ("Condition.wait", "Event.wait"):
        return False
    return not any("get_connection" in f[0] or "getconn" in f[0] for f in frames)
