"""Small timing helpers: a nanosecond clock, percentiles and one result row."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

clock = time.perf_counter_ns


def ms(ns: float) -> float:
    return ns / 1e6


def percentile(values: list[float], q: float) -> float:
    """The q-th quantile (0..1) by linear interpolation between closest ranks."""
    if not values:
        return float("nan")
    s = sorted(values)
    pos = q * (len(s) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def timed(fn: Callable[[], Any]) -> tuple[int, Any]:
    """Run fn once; return (elapsed ns, its result)."""
    t0 = clock()
    out = fn()
    return clock() - t0, out


@dataclass
class Row:
    """One line of the report.

    `samples_ns` are per-operation latencies; `rate` is operations (or events) per second,
    `unit` names what is counted; `ratio` is rate ÷ the baseline rate named by `vs`.
    """

    backend: str
    what: str
    samples_ns: list[int] = field(default_factory=list)
    rate: float | None = None
    unit: str = ""
    vs: str | None = None  # "save" or "replay": which baseline the ratio is to
    ratio: float | None = None
    note: str = ""

    @property
    def n(self) -> int:
        return len(self.samples_ns)

    @property
    def p50_ms(self) -> float:
        return ms(percentile([float(x) for x in self.samples_ns], 0.50))

    @property
    def p99_ms(self) -> float:
        return ms(percentile([float(x) for x in self.samples_ns], 0.99))

    @property
    def mean_ms(self) -> float:
        return ms(statistics.fmean(self.samples_ns)) if self.samples_ns else float("nan")


@dataclass
class Target:
    """One target (issues 8 and 19), as measured on one backend."""

    backend: str
    name: str
    goal: str
    measured: str
    value: float
    limit: float
    at_least: bool = True  # value >= limit (else value <= limit)
    profile: str = ""  # the title of the profile that explains a miss

    @property
    def met(self) -> bool:
        return self.value >= self.limit if self.at_least else self.value <= self.limit
