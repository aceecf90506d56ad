"""The crash test, short (`python -m bench.crash` is the long one, in `make bench`): on each
store, `fraylog serve` is killed with SIGKILL three times under load from three clients and
started again; every acknowledged command's events are stored as answered, positions have no
gap, verify is ok, views equal a cold fold, and Idempotency-Keys are recorded at most once.
Then an acknowledged event is deleted from the store behind the server's back, to show that
the same checks catch a lost event and a gap."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from bench.crash import ACKED, Result, Sent, ServerProcess, check, crash_run
from infra.settings import Settings
from tests.builders.damage import delete_event

KILLS = 3


def acknowledged_last(result: Result) -> list[Sent]:
    """Per encounter, its last acknowledged command that recorded events."""
    last: dict[str, Sent] = {}
    for s in result.sent:
        if s.outcome != ACKED or not s.events or s.replay_of is not None:
            continue
        if s.fight not in last or s.events[-1]["position"] > last[s.fight].events[-1]["position"]:
            last[s.fight] = s
    return list(last.values())


def test_given_a_server_killed_under_load_when_it_restarts_then_nothing_acknowledged_is_lost(
    settings: Settings, tmp_path: Path
) -> None:
    result = crash_run(settings, kills=KILLS, seconds=1.5, clients=3, seed=5, idempotent_fights=2)

    assert result.violations == []
    assert result.kills == KILLS
    acked = [s for s in result.sent if s.outcome == ACKED and s.replay_of is None]
    per_life = Counter(s.life for s in acked)
    assert all(per_life[life] > 0 for life in range(1, KILLS + 2)), per_life  # each life worked
    assert {s.body["type"] for s in acked} >= {"adjust_hits", "set_condition"}
    rolls = {"declare", "resolve", "attack", "roll_attack", "roll_initiative"}
    assert {s.body["type"] for s in acked} & rolls
    assert result.facts["keys"]["acknowledged"] > 0  # the idempotent client got through
    assert result.facts["events"] >= sum(len(s.events) for s in acked)
    assert all(r.startup_s < 30 for r in result.restarts)

    # the same checks, once the store lost an acknowledged event (and so has a gap)
    lost, gap = acknowledged_last(result)[:2]
    delete_event(settings, lost.fight, lost.events[-1]["position"])
    delete_event(settings, gap.fight, gap.events[0]["position"] - 1)
    with ServerProcess(settings, tmp_path) as server:
        found = check(server.url, settings, result.fights, result.sent)
    position = lost.events[-1]["position"]
    assert any(
        lost.fight in v and f"its event {position} " in v and "is not stored" in v for v in found
    ), found
    assert any(gap.fight in v and "positions are not 1.." in v for v in found), found
