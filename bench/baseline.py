"""The eventsourcing library alone: a plain Aggregate whose one event carries a dict.

The payload mirrors a fraylog HitsAdjusted event (same keys and value sizes), and the
Application gets the same persistence environment fraylog builds from its Settings, so
the difference to fraylog's figures is what fraylog adds on top of the library.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID, uuid4

from eventsourcing.application import Application
from eventsourcing.domain import Aggregate, event

from bench.timing import Row, clock


class Tally(Aggregate):
    """A trivial aggregate: it counts its events and keeps the last payload."""

    def __init__(self) -> None:
        self.count = 0
        self.last: dict[str, Any] = {}

    @event("Noted")
    def note(self, payload: dict[str, Any]) -> None:
        self.count += 1
        self.last = payload


class Baseline(Application[UUID]):
    """No snapshotting intervals: every load replays every event."""

    name = "baseline"  # PostgreSQL tables baseline_events, baseline_snapshots


def payload(i: int, combatant: str) -> dict[str, Any]:
    """What a HitsAdjusted event says, as a plain dict."""
    return {
        "actor": "gm",
        "cause": None,
        "combatant": combatant,
        "amount": -1,
        "hits_before": 10_000 - i,
        "hits_after": 9_999 - i,
        "reason": "GM adjustment",
    }


def stored_size(app: Application[UUID], domain_event: Any) -> int:
    """Bytes of the event's stored state (what goes into the database's state column)."""
    return len(app.mapper.to_stored_event(domain_event).state)


def run(
    backend: str, env: dict[str, str], events: int, reps: int, commands: int
) -> tuple[dict[str, Row], dict[str, Any]]:
    """Saves/s (one event per save), cold replay of an `events`-event aggregate, and a
    library-only command (get from the cache, trigger, save) for comparison."""
    info: dict[str, Any] = {}
    combatant = str(uuid4())
    with Baseline(env=env) as app:
        tally = Tally()
        app.save(tally)
        samples = []
        for i in range(events - 1):
            tally.note(payload(i, combatant))
            if i == 0:
                info["baseline_event_bytes"] = stored_size(app, tally.pending_events[-1])
            t0 = clock()
            app.save(tally)
            samples.append(clock() - t0)
        tally_id = tally.id

        # A command made of library calls only: get (cache hit: fast-forward + deepcopy),
        # trigger one event, save. This is what Fraylog.execute does around its rules.
        other = Tally()
        app.save(other)
        cmd_samples = []
        for i in range(commands):
            t0 = clock()
            agg = app.repository.get(other.id)
            agg.note(payload(i, combatant))
            app.save(agg)
            cmd_samples.append(clock() - t0)

    replay = []
    for _ in range(reps):
        with Baseline(env=env) as cold:  # a new instance: empty aggregate cache
            t0 = clock()
            agg = cold.repository.get(tally_id)
            replay.append(clock() - t0)
            assert agg.version == events, agg.version

    save_rate = len(samples) / (sum(samples) / 1e9)
    replay_rate = events / (sorted(replay)[len(replay) // 2] / 1e9)
    rows = {
        "save": Row(backend, "baseline: save one event per save", samples, save_rate,
                    "saves/s", "save", 1.0),
        "replay": Row(backend, f"baseline: cold replay of {events:,} events, no snapshots",
                      replay, replay_rate, "events/s", "replay", 1.0),
        "command": Row(backend, "baseline: get (cached) + 1 event + save", cmd_samples,
                       len(cmd_samples) / (sum(cmd_samples) / 1e9), "cmds/s", "save"),
    }
    rows["command"].ratio = rows["command"].rate / save_rate
    return rows, info
