"""Read models across encounters (the encounter list, combatant statistics) on SQLite and
PostgreSQL: kept by the projection runner, equal to folding the stored events, corrections
included; a rebuild gives the same rows; a runner killed mid-stream (SIGKILL, a separate
process) and started again neither loses nor double-counts an event."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from eventsourcing.persistence import IntegrityError, Tracking

from api import demo_wits
from domain import commands as c
from domain.corrections import voided_by
from domain.fold import fold
from domain.rulesystems.novus import commands as nc
from infra.app import Fraylog
from infra.dice import dice_for
from infra.read_model_views import ENCOUNTERS, STATS, TRACKING
from infra.read_models import ReadModelsStore, catch_up, projection, rebuild, runner
from infra.settings import Settings
from infra.sidetables import SideTables
from projections.read_models import (
    combatant_stats,
    encounter_corrections,
    encounter_row,
)
from tests.builders.novus import novus_stats, target_stats

ROOT = Path(__file__).resolve().parents[2]
HIT, MISS = [9, 9], [3, 2]  # 2d10 faces against DEF 20: 11 and 10 damage hits, a miss


@pytest.fixture
def store(own_settings: Settings) -> Iterator[ReadModelsStore]:
    s = ReadModelsStore(own_settings)
    yield s
    s.close()


def by_encounter(fraylog: Fraylog) -> dict[UUID, list[Any]]:
    events: dict[UUID, list[Any]] = defaultdict(list)
    for n in fraylog.recorder.select_notifications(start=None, limit=10**9):
        e = fraylog.mapper.to_domain_event(n)
        events[e.originator_id].append(e)
    return events


def folded(fraylog: Fraylog) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The two read models computed afresh: every encounter's stored events folded."""
    rows, stats = [], []
    for encounter_id, events in by_encounter(fraylog).items():
        row = encounter_row(fold(events), events[-1].timestamp.isoformat())
        rows.append({**row, **encounter_corrections(events)})
        for row in combatant_stats(events).values():
            stats.append({"encounter_id": str(encounter_id), **row})
    return (
        sorted(rows, key=lambda r: r["encounter_id"]),
        sorted(stats, key=lambda r: (r["encounter_id"], r["combatant_id"])),
    )


def stored(store: ReadModelsStore) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    return sorted(store.encounters(), key=lambda r: r["encounter_id"]), store.stats()


def caught_up(following: Any, fraylog: Fraylog) -> None:
    following.wait(fraylog.recorder.max_notification_id(), timeout=30)


class Duel:
    """A (IP 19) attacks T (IP 12; by default DEF 20 and no weapon) once a round."""

    def __init__(
        self,
        fraylog: Fraylog,
        source: str = "manual",
        a: dict[str, Any] | None = None,
        t: dict[str, Any] | None = None,
    ) -> None:
        self.fraylog = fraylog
        self.id = UUID(fraylog.create_encounter(f"Duel {source}", "novus", source).state.id)
        self.a, _ = fraylog.add_combatant(self.id, "A", "heroes", a or novus_stats())
        self.t, _ = fraylog.add_combatant(self.id, "T", "foes", t or target_stats(hits=20))
        fraylog.execute(self.id, c.RollInitiative(combatant=self.a, ip=19))
        fraylog.execute(self.id, c.RollInitiative(combatant=self.t, ip=12))

    def attack(self, faces: list[int] | None) -> list[Any]:
        """One round's attack (server dice when `faces` is None); the events it recorded."""
        self.fraylog.execute(self.id, nc.Declare(combatant=self.t, actions=[]))
        spec = nc.ActionSpec(kind="melee_attack", target=self.t, weapon="sword")
        self.fraylog.execute(self.id, nc.Declare(combatant=self.a, actions=[spec]))
        return self.resolve(faces)

    def resolve(self, faces: list[int] | None) -> list[Any]:
        dice = {"attack": faces} if faces else None
        return self.fraylog.execute(self.id, nc.Resolve(dice=dice, boons=[], snags=[])).events

    def end_round(self) -> None:
        self.fraylog.execute(self.id, c.EndRound())

    def void(self, position: int) -> None:
        self.fraylog.execute(self.id, c.Void(target=position, reason="disputed"))

    def stats(self, store: ReadModelsStore) -> dict[str, dict[str, Any]]:
        return {r["name"]: r for r in store.stats(str(self.id))}

    def row(self, store: ReadModelsStore) -> dict[str, Any]:
        return next(r for r in store.encounters() if r["encounter_id"] == str(self.id))


def test_given_fights_played_while_the_runner_follows_when_a_hit_is_voided_and_restored_then_the_rows_follow(  # noqa: E501
    own_settings: Settings, store: ReadModelsStore
) -> None:
    with Fraylog(own_settings) as fraylog, runner(own_settings, poll_seconds=0.02) as r:
        duel = Duel(fraylog)
        first = duel.attack(HIT)
        duel.end_round()
        assert [type(e).__name__ for e in duel.attack(MISS)] == ["AttackRolled"]
        duel.end_round()
        last = duel.attack(HIT)
        dealt = [e.amount for e in first + last if type(e).__name__ == "DamageApplied"]
        caught_up(r, fraylog)
        stats, row = duel.stats(store), duel.row(store)
        t = fraylog.state(duel.id).combatants[duel.t]
        assert t.hits < 0 and row["combatants_down"] == 1 and row["combatants_up"] == 1
        assert (stats["A"]["hits"], stats["A"]["misses"]) == (2, 1)
        assert stats["A"]["damage_dealt"] == stats["T"]["damage_taken"] == sum(dealt)
        assert stats["T"]["damage_taken"] == t.max_hits - t.hits
        assert stats["A"]["rolls_manual"] == 3 and stats["T"]["rolls_manual"] == 0
        assert stored(store) == folded(fraylog)

        # the void arrives after the runner projected what it voids
        duel.void(last[0].originator_version)
        caught_up(r, fraylog)
        stats, row = duel.stats(store), duel.row(store)
        t = fraylog.state(duel.id).combatants[duel.t]
        assert (stats["A"]["hits"], stats["A"]["misses"], stats["A"]["rolls_manual"]) == (1, 1, 2)
        assert stats["A"]["damage_dealt"] == stats["T"]["damage_taken"] == dealt[0]
        assert stats["T"]["damage_taken"] == t.max_hits - t.hits
        assert row["combatants_down"] == 0 and row["combatants_up"] == 2
        assert row["events"] == fraylog.state(duel.id).version
        assert stored(store) == folded(fraylog)

        # voiding the void restores the hit
        duel.void(fraylog.state(duel.id).version)
        caught_up(r, fraylog)
        stats = duel.stats(store)
        assert (stats["A"]["hits"], stats["A"]["damage_dealt"]) == (2, sum(dealt))
        assert duel.row(store)["combatants_down"] == 1

        # server dice, and an encounter ended
        served = Duel(fraylog, "server", t=target_stats(hits=200))
        served.attack(None)
        fraylog.execute(served.id, c.EndEncounter())
        # Wits: seeded dice, defenses rolled by the defender, damage dice by the attacker
        demo_wits.play(own_settings, demo_wits.SEED, 3)
        wits = next(
            e for e in fraylog.list_encounters(limit=10**6) if e["name"] == "Ford of the Jotans"
        )
        wits_id = UUID(wits["id"])
        hit = next(
            e
            for e in reversed(fraylog.event_log(wits_id))
            if type(e).__name__ == "AttackTestRolled" and e.hit
        )
        fraylog.execute(wits_id, c.Void(target=hit.originator_version, reason="disputed"))
        caught_up(r, fraylog)
        server = served.stats(store)
        assert (server["A"]["rolls_server"], server["A"]["rolls_manual"]) == (1, 0)
        assert served.row(store)["status"] == "ended" and row["status"] == "active"
        state = fraylog.state(wits_id)
        for s in store.stats(str(wits_id)):
            who = state.combatants[s["combatant_id"]]
            assert s["damage_taken"] == who.max_hits - who.hits  # only damage moved them
            assert s["rolls_seeded"] > 0 and s["rolls_manual"] == s["rolls_server"] == 0
        assert sum(s["damage_dealt"] for s in store.stats(str(wits_id))) == sum(
            s["damage_taken"] for s in store.stats(str(wits_id))
        )
        assert stored(store) == folded(fraylog)


def test_given_projected_fights_when_rebuilt_then_the_rows_are_the_same(
    own_settings: Settings, store: ReadModelsStore
) -> None:
    with Fraylog(own_settings) as fraylog:
        duel = Duel(fraylog)
        hit = duel.attack(HIT)
        duel.end_round()
        duel.attack(MISS)
        duel.void(hit[0].originator_version)
        demo_wits.play(own_settings, demo_wits.SEED, 2)
        with runner(own_settings, poll_seconds=0.02) as r:
            caught_up(r, fraylog)
        before = stored(store)
        assert before == folded(fraylog) and len(before[1]) == 6
        seen: list[tuple[int, int]] = []
        end = fraylog.recorder.max_notification_id()
        events = rebuild(own_settings, lambda at, of: seen.append((at, of)), batch_size=7)
        assert events == sum(len(e) for e in by_encounter(fraylog).values())
        assert seen[0] == (0, end) and seen[-1] == (end, end) and len(seen) > 3
        assert stored(store) == before and store.position() == end


class Crash(Exception):
    """Raised by a statement the test chose, standing for the process dying there."""


def crash_at(datastore: Any, statement: int) -> None:
    """Make the `statement`-th statement run in the datastore's transactions raise Crash."""
    original, count = datastore.transaction, [0]

    class Cursor:
        def __init__(self, cursor: Any) -> None:
            self._cursor = cursor

        def __getattr__(self, name: str) -> Any:
            return getattr(self._cursor, name)

        def execute(self, *args: Any, **kwargs: Any) -> Any:
            return self._run(self._cursor.execute, *args, **kwargs)

        def executemany(self, *args: Any, **kwargs: Any) -> Any:
            return self._run(self._cursor.executemany, *args, **kwargs)

        def _run(self, statement_of: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
            count[0] += 1
            if count[0] == statement:
                raise Crash(statement)
            return statement_of(*args, **kwargs)

    @contextmanager
    def transaction(*, commit: bool) -> Iterator[Any]:
        with original(commit=commit) as cursor:
            yield Cursor(cursor)

    datastore.transaction = transaction


def test_given_a_crash_at_any_statement_of_a_write_then_neither_its_rows_nor_its_tracking_are_kept(
    own_settings: Settings, store: ReadModelsStore
) -> None:
    with Fraylog(own_settings) as fraylog:
        duel, other = Duel(fraylog), Duel(fraylog)
        duel.attack(HIT)
        assert catch_up(own_settings) > 0
        before, position = stored(store), store.position()
        other.attack(HIT)  # its statistics added to
        duel.end_round()
        hit = duel.attack(HIT)
        duel.void(hit[0].originator_version)  # the statistics replaced whole
        duel.resolve(MISS)  # the attack voided is to resolve again
        duel.end_round()
        duel.attack(HIT)
        with projection(own_settings) as projected:
            source = projected.source
            page = source.recorder.select_notifications(
                start=position, limit=100, inclusive_of_start=False
            )
            events = [source.mapper.to_domain_event(n) for n in page]
            tracking = Tracking(source.name, page[-1].id)
            datastore = projected.view.datastore
            statement = 0
            while True:  # a crash at the 1st statement, then at the 2nd, ... until none is hit
                statement += 1
                crash_at(datastore, statement)
                try:
                    projected.apply(events, tracking)
                except Crash:
                    assert (stored(store), store.position()) == (before, position), statement
                    del datastore.transaction
                    continue
                break
        assert statement > 6  # tracking, 2 rows, statistics forgotten, written, added to
        assert store.position() == page[-1].id
        assert stored(store) == folded(fraylog) != before


def test_given_two_runners_racing_then_one_stops_on_an_event_already_tracked_and_none_counts_twice(
    own_settings: Settings, store: ReadModelsStore
) -> None:
    with Fraylog(own_settings) as fraylog:
        duels = fighters(fraylog, 2)
        build_stream(fraylog, duels, chunks=2, rounds=10)
        with ExitStack() as both:
            pair = [both.enter_context(runner(own_settings, poll_seconds=0.02)) for _ in "ab"]
            deadline = time.monotonic() + 60
            while not any(r.is_interrupted.is_set() for r in pair):
                assert time.monotonic() < deadline, "neither runner met the other's tracking"
                time.sleep(0.01)
            stopped = next(r for r in pair if r.is_interrupted.is_set())
            with pytest.raises(IntegrityError, match="Failed to record tracking"):
                stopped.run_forever(timeout=0)
            survivor = next(r for r in pair if r is not stopped)
            build_stream(fraylog, duels, chunks=1, rounds=3)  # the other one carries on
            caught_up(survivor, fraylog)
            assert not survivor.is_interrupted.is_set()
        assert store.position() == fraylog.recorder.max_notification_id()
        assert stored(store) == folded(fraylog)


# -- the crash test ----------------------------------------------------------------------


def play_rounds(fraylog: Fraylog, duel: Duel, rounds: int, offset: int, void: bool) -> None:
    """`rounds` rounds of the duel, both attacking, saved in one go (many events a save);
    then, if `void`, a void of the first hit, so corrections land throughout the stream."""
    encounter = fraylog.encounter(duel.id)

    def run(command: Any, faces: list[int] | None = None) -> None:
        dice = dice_for(encounter.state, {"attack": faces} if faces else None, None, bytes)
        encounter.execute(command, dice)

    first_hit = None
    for i in range(rounds):
        run(nc.Declare(combatant=duel.t, actions=[_attack(duel.a)]))
        run(nc.Declare(combatant=duel.a, actions=[_attack(duel.t)]))
        for _ in range(2):
            at = encounter.version + 1
            run(nc.Resolve(boons=[], snags=[]), HIT if (i + offset) % 3 else MISS)
            first_hit = first_hit or (at if (i + offset) % 3 else None)
        run(c.EndRound())
    fraylog.save(encounter)
    if void and first_hit:
        duel.void(first_hit)


def _attack(target: str) -> nc.ActionSpec:
    return nc.ActionSpec(kind="melee_attack", target=target, weapon="sword")


def build_stream(fraylog: Fraylog, duels: list[Duel], chunks: int, rounds: int) -> None:
    """Chunks of rounds of each duel in turn (the encounters interleave in the notification
    log). Only the first two duels have voids: the statistics of a corrected encounter are
    recounted whole, which would hide an event counted twice in the others."""
    for chunk in range(chunks):
        for n, duel in enumerate(duels):
            play_rounds(fraylog, duel, rounds, chunk + n, void=n < 2)


def fighters(fraylog: Fraylog, n: int) -> list[Duel]:
    """`n` duels in which both fight, neither going down."""
    tough = novus_stats(hits=10_000)
    return [Duel(fraylog, a=tough, t=tough) for _ in range(n)]


def start_runner(settings: Settings, log: Path) -> subprocess.Popen[bytes]:
    """`fraylog projections run` in a process of its own."""
    env = {
        **os.environ,
        "FRAYLOG_SQLITE_PATH": settings.sqlite_path,
        "FRAYLOG_DATABASE_URL": settings.database_url or "",
        "FRAYLOG_POSTGRES_SCHEMA": settings.postgres_schema,
        "FRAYLOG_PROJECTIONS_POLL_SECONDS": "0.05",
    }
    # SIGUSR1 makes it print where each thread is (see stopped()), should it fail to stop
    cli = (
        "import faulthandler, signal; faulthandler.register(signal.SIGUSR1); "
        "from api.cli import app; app(prog_name='fraylog')"
    )
    with log.open("ab") as out:
        return subprocess.Popen(
            [sys.executable, "-c", cli, "projections", "run"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def stopped(process: subprocess.Popen[bytes], log: Path) -> None:
    """SIGTERM stops it cleanly; if it has not exited after 30 s (it hangs), the failure shows
    the traceback of each of its threads."""
    process.send_signal(signal.SIGTERM)
    try:
        code = process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGUSR1)
        time.sleep(1)
        process.kill()
        pytest.fail(f"the runner did not stop on SIGTERM; it said:\n{log.read_text()}")
    assert code == 0, log.read_text()


def wait_for(
    what: Callable[[], bool], process: subprocess.Popen[bytes], log: Path, timeout: float = 120
) -> None:
    deadline = time.monotonic() + timeout
    while not what():
        if process.poll() is not None:
            pytest.fail(f"the runner exited ({process.returncode}):\n{log.read_text()}")
        if time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"timed out; the runner said:\n{log.read_text()}")
        time.sleep(0.005)


def test_given_a_runner_killed_mid_stream_when_started_again_then_nothing_is_lost_or_counted_twice(
    own_settings: Settings, store: ReadModelsStore, tmp_path: Path
) -> None:
    log = tmp_path / "runner.log"

    def kill_past(process: subprocess.Popen[bytes], start: int, end: int) -> None:
        """SIGKILL once a quarter of start..end is projected: it dies mid-stream."""
        wait_for(lambda: (store.position() or 0) >= start + (end - start) // 4, process, log)
        process.send_signal(signal.SIGKILL)
        assert process.wait(timeout=30) == -signal.SIGKILL
        died_at = store.position() or 0
        assert start + (end - start) // 4 <= died_at < end, (start, died_at, end)

    with Fraylog(own_settings) as fraylog:
        duels = fighters(fraylog, 4)
        build_stream(fraylog, duels, chunks=12, rounds=10)
        end = fraylog.recorder.max_notification_id()
        assert end > 3000

        # killed while catching up on the backlog, a batch per transaction
        kill_past(start_runner(own_settings, log), 0, end)
        assert stored(store) != folded(fraylog)

        # killed while following new events (the library's runner, a transaction per
        # event), three times, each after a restart that caught up first
        for _ in range(3):
            following = start_runner(own_settings, log)
            wait_for(lambda: store.position() == end, following, log)  # noqa: B023
            start = end
            build_stream(fraylog, duels, chunks=2, rounds=10)
            end = fraylog.recorder.max_notification_id()
            assert end - start > 400
            kill_past(following, start, end)

        # while it is down: more rounds, a void restored, an early hit voided
        build_stream(fraylog, duels, chunks=1, rounds=3)
        duels[0].void(fraylog.state(duels[0].id).version)  # voiding a void restores its hit
        history = fraylog.event_log(duels[1].id)
        voided = voided_by(history)
        early = next(
            e.originator_version
            for e in history
            if type(e).__name__ == "AttackRolled" and e.hit and e.originator_version not in voided
        )
        duels[1].void(early)
        end = fraylog.recorder.max_notification_id()

        last = start_runner(own_settings, log)
        wait_for(lambda: store.position() == end, last, log)
        stopped(last, log)
        assert stored(store) == folded(fraylog)
        events = sum(r["events"] for r in store.encounters())
        assert events == sum(len(e) for e in by_encounter(fraylog).values())


@pytest.mark.parametrize("delay", [0.0, 0.01, 0.03, 0.1, 0.3])
def test_given_a_runner_stopped_while_it_starts_to_follow_then_it_exits_cleanly(
    own_settings: Settings, store: ReadModelsStore, tmp_path: Path, delay: float
) -> None:
    """SIGTERM at any moment of the start (the backlog done, the follower being built, its
    threads starting) stops the runner: a stop never leaves a thread that keeps it alive."""
    log = tmp_path / "runner.log"
    with Fraylog(own_settings) as fraylog:
        build_stream(fraylog, fighters(fraylog, 1), chunks=1, rounds=2)
    process = start_runner(own_settings, log)
    wait_for(lambda: "caught up" in log.read_text(), process, log)
    time.sleep(delay)  # when the signal lands, not a measurement
    stopped(process, log)
    assert "stopped after notification" in log.read_text()


# -- a store whose read models an older fraylog made ------------------------------------

OLD_COUNTERS = (
    "damage_dealt",
    "damage_taken",
    "hits",
    "misses",
    "rolls_server",
    "rolls_seeded",
    "rolls_manual",
)


def make_old_tables(settings: Settings, position: int) -> None:
    """The read models as fraylog made them before the statistics counted criticals,
    fumbles, rolls to hit and voids: no such columns, and a tracking row at `position`."""
    tables = SideTables(settings)
    try:
        tables.execute(
            f"CREATE TABLE {tables.table(ENCOUNTERS)} (encounter_id TEXT PRIMARY KEY, "
            "name TEXT NOT NULL, ruleset TEXT NOT NULL, status TEXT NOT NULL, "
            "round BIGINT NOT NULL, created_at TEXT NOT NULL, last_activity TEXT NOT NULL, "
            "events BIGINT NOT NULL, combatants_up BIGINT NOT NULL, "
            "combatants_down BIGINT NOT NULL)"
        )
        tables.execute(
            f"CREATE TABLE {tables.table(STATS)} (encounter_id TEXT NOT NULL, "
            "combatant_id TEXT NOT NULL, name TEXT NOT NULL, side TEXT NOT NULL, "
            + ", ".join(f"{c} BIGINT NOT NULL" for c in OLD_COUNTERS)
            + ", PRIMARY KEY (encounter_id, combatant_id))"
        )
        tables.execute(
            f"CREATE TABLE {tables.table(TRACKING)} (application_name TEXT PRIMARY KEY, "
            "notification_id BIGINT)"
        )
        tables.execute(
            f"INSERT INTO {tables.table(TRACKING)} VALUES (?, ?)", (Fraylog.name, position)
        )
    finally:
        tables.close()


def test_given_read_models_of_an_older_shape_when_opened_then_they_are_projected_again(
    own_settings: Settings, store: ReadModelsStore, caplog: pytest.LogCaptureFixture
) -> None:
    with Fraylog(own_settings) as fraylog:
        duel = Duel(fraylog)
        hit = duel.attack(HIT)
        duel.void(hit[0].originator_version)
        end = fraylog.recorder.max_notification_id()
        make_old_tables(own_settings, end)  # as if all was projected, in the old columns
        assert store.position() == end
        with caplog.at_level("WARNING", logger="fraylog.read_models"):
            projected = catch_up(own_settings)
        assert projected == end  # every event again, from the first
        said = [r.getMessage() for r in caplog.records if r.name == "fraylog.read_models"]
        assert len(said) == 1 and "fraylog_combatant_stats.criticals" in said[0], said
        assert "fraylog_encounter_list.voided" in said[0]
        assert stored(store) == folded(fraylog) and store.position() == end
        assert duel.stats(store)["A"]["voided"] == 1
        caplog.clear()
        with caplog.at_level("WARNING", logger="fraylog.read_models"):
            assert catch_up(own_settings) == 0  # the new shape is kept
        assert not [r for r in caplog.records if r.name == "fraylog.read_models"]
