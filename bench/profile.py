"""`--profile`: where an in-process command, a cold load and a void on the long encounter
spend their time (SQLite)."""

from __future__ import annotations

import argparse
import cProfile
import pstats
import tempfile
from pathlib import Path

from bench import fraylog_runs, long_runs
from infra.app import Fraylog
from infra.settings import Settings


def _show(prof: cProfile.Profile, title: str, top: int = 22) -> None:
    print(f"\n== profile: {title} (top {top} by own time, then by cumulative) ==")
    stats = pstats.Stats(prof).strip_dirs()
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)


def profile(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="fraylog-prof-") as tmp:
        settings = Settings(sqlite_path=str(Path(tmp) / "prof.db"))
        with Fraylog(settings) as fraylog:
            eid, a, b = fraylog_runs.new_fight(fraylog)
            prof = cProfile.Profile()
            prof.enable()
            fraylog_runs.adjust_hits_loop(fraylog.execute, eid, a, args.commands, 0)
            fraylog_runs.attack_loop(fraylog.execute, eid, a, b, args.commands, 0)
            prof.disable()
            _show(prof, f"in-process execute, {args.commands} AdjustHits then attacks")
        _, plain, _ = fraylog_runs.build(settings, args.events)
        prof = cProfile.Profile()
        prof.enable()
        fraylog_runs.cold_loads(settings, plain, args.reps)
        prof.disable()
        _show(prof, f"cold load of {args.events} events, no snapshots, x{args.reps}")
        if not args.long_events:
            return
        with Fraylog(settings) as fraylog:
            fight = long_runs.build_fight(fraylog, args.long_events)
            prof = cProfile.Profile()
            prof.enable()
            long_runs.void_loop(fraylog, fight, args.void_reps)
            long_runs.undo_loop(fraylog, fight, args.void_reps)
            prof.disable()
            _show(
                prof,
                f"{args.void_reps} voids and {args.void_reps} undos/redos on a played "
                f"{args.long_events}-event encounter",
            )
