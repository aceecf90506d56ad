"""Read models across encounters (the encounter list, each combatant's statistics), kept by
the eventsourcing library's ProjectionRunner with exactly-once tracking: the rows an event
changes and its tracking record commit in one transaction (infra.read_model_views), and a
runner restarted after a crash resumes after the last committed notification.

The rows themselves are computed by projections.read_models from the folded state (the one
fold) and the events. A correction (void, undo, redo) changes the past: the statistics of
its encounter are recomputed from that encounter's stored events up to the correction, and
replace the old ones in the same transaction. See docs/read-models.md.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from eventsourcing.application import Application
from eventsourcing.persistence import (
    DatetimeAsISO,
    DecimalAsStr,
    InfrastructureFactory,
    JSONTranscoder,
    Tracking,
    UUIDAsHex,
)
from eventsourcing.projection import Projection, ProjectionRunner
from eventsourcing.utils import Environment

from infra.app import EncounterStateAsDict, Fraylog, ensure_schema
from infra.polling import POLL_SECONDS, construct_polling_recorder
from infra.read_model_batch import Batch, Encounters
from infra.read_model_views import (
    ENCOUNTERS,
    PROJECTION,
    STATS,
    TRACKING,
    PostgresReadModelsView,
    SQLiteReadModelsView,
    projected,
)
from infra.runner_lock import RunnerLock, creating_tables, running_query
from infra.settings import Settings
from infra.sidetables import SideTables
from projections.read_models import CORRECTION_COLUMNS, ENCOUNTER_COLUMNS, STATS_COLUMNS

log = logging.getLogger("fraylog.read_models")


@dataclass(frozen=True)
class ReadModel:
    """A read model kept by a runner: its projection's name (its runner lock's too) and its
    tracking table (the last notification it projected)."""

    name: str
    tracking: str


READ_MODELS = (ReadModel(PROJECTION, TRACKING),)  # `fraylog projections status` lists each


class FraylogSource(Application[UUID]):
    """The encounters' store as the read models follow it (read only): the same name, so the
    same tables, and snapshots as Fraylog keeps them. On SQLite its recorder polls."""

    name = Fraylog.name

    def register_transcodings(self, transcoder: JSONTranscoder) -> None:
        super().register_transcodings(transcoder)
        transcoder.register(EncounterStateAsDict())

    def construct_recorder(self) -> Any:
        return construct_polling_recorder(self.factory, self.env) or super().construct_recorder()


class ReadModels(Projection[Any]):
    """The projection: each event's changes and its tracking in one transaction."""

    name = PROJECTION

    def __init__(self, view: Any) -> None:
        super().__init__(view)
        self._attached = threading.Event()
        self.source: Any = None
        self._encounters: Encounters | None = None

    def attach(self, source: Application[UUID]) -> None:
        """Where to read what an event alone does not say (the state it follows)."""
        self.source = source
        self._encounters = Encounters(source)
        self._attached.set()

    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        # the runner starts its thread before `runner()` can attach the application it built
        if not self._attached.wait(timeout=60):
            raise RuntimeError("the read models were never attached to their source")
        self.apply([domain_event], tracking)

    def apply(self, events: Iterable[Any], tracking: Tracking) -> None:
        """Apply events, the last of them tracked by `tracking`, in one transaction."""
        assert self._encounters is not None
        try:
            batch = Batch(self._encounters)
            for event in events:
                batch.add(event)
            self.view.write(batch.changes(), tracking)
        except BaseException:
            self._encounters.clear()  # states ahead of what was committed (and reloaded)
            raise


def view_class(settings: Settings) -> type[Any]:
    return PostgresReadModelsView if settings.backend == "postgres" else SQLiteReadModelsView


def runner_env(settings: Settings, poll_seconds: float = 0.5) -> dict[str, str]:
    """The environment of the runner's application and view (PostgreSQL: a small pool, and
    the configured schema created if it is missing, as Fraylog does)."""
    env = settings.eventsourcing_env()
    env["AGGREGATE_CACHE_MAXSIZE"] = ""  # the projection folds states in place: never share
    env[POLL_SECONDS] = str(poll_seconds)
    if settings.backend == "postgres":
        env["POSTGRES_POOL_SIZE"] = "2"
        if settings.postgres_schema:
            ensure_schema(settings)
    return env


def runner(settings: Settings, poll_seconds: float = 0.5) -> ProjectionRunner[Any, Any]:
    """The library's runner for the read models, started; use it as a context manager.
    PostgreSQL: it follows LISTEN/NOTIFY. SQLite: it polls every `poll_seconds`."""
    with creating_tables(settings):  # another process may be creating them too
        started: ProjectionRunner[Any, Any] = ProjectionRunner(
            application_class=FraylogSource,
            projection_class=ReadModels,
            view_class=view_class(settings),
            env=runner_env(settings, poll_seconds),
        )
    started.projection.attach(started.app)
    return started


def _open_view(settings: Settings, env: dict[str, str]) -> tuple[InfrastructureFactory, Any]:
    factory = InfrastructureFactory.construct(Environment(PROJECTION, {**os.environ, **env}))
    return factory, factory.tracking_recorder(view_class(settings))


@contextmanager
def projection(settings: Settings, *, drop: bool = False) -> Iterator[ReadModels]:
    """The projection over its view and the store, to project by hand (`drop`: the tables
    and the tracking dropped first). A runner must not be running meanwhile."""
    with creating_tables(settings):  # another process may be creating them too
        env = runner_env(settings)
        if drop:
            factory, view = _open_view(settings, env)
            view.drop()
            factory.close()
        factory, view = _open_view(settings, env)  # a fresh recorder creates what was dropped
        source = FraylogSource(env)
    try:
        projected = ReadModels(view)
        projected.attach(source)
        yield projected
    finally:
        source.close()
        factory.close()


def catch_up(
    settings: Settings,
    progress: Callable[[int, int], None] | None = None,
    batch_size: int = 500,
    *,
    drop: bool = False,
    stopping: threading.Event | None = None,
) -> int:
    """Project the events recorded after the tracked position up to the latest, a batch per
    transaction (its last notification tracked): the backlog after a stop, much faster than
    the runner's transaction per event. `drop`: drop the tables and the tracking first, and
    project every event. `stopping`: checked between batches, to stop after the batch in
    hand. Returns the events projected. A runner must not be running."""
    with projection(settings, drop=drop) as projected:
        source = projected.source
        position = projected.view.max_tracking_id(source.name) or 0
        end = source.recorder.max_notification_id() or 0
        done = 0
        if progress:
            progress(position, end)
        while position < end and not (stopping and stopping.is_set()):
            page = source.recorder.select_notifications(
                start=position, limit=batch_size, stop=end, inclusive_of_start=False
            )
            if not page:
                break
            events = [source.mapper.to_domain_event(n) for n in page]
            projected.apply(events, Tracking(source.name, page[-1].id))
            position, done = page[-1].id, done + len(page)
            if progress:
                progress(position, end)
        return done


def rebuild(
    settings: Settings, progress: Callable[[int, int], None] | None = None, batch_size: int = 500
) -> int:
    """Drop the read models and their tracking, and project every event again."""
    return catch_up(settings, progress, batch_size, drop=True)


class ReadModelsStore:
    """The read models as stored, for the CLI, tests and the API."""

    def __init__(self, settings: Settings) -> None:
        self._tables = SideTables(settings)

    def encounters(self) -> list[dict[str, Any]]:
        """Every encounter, the most recently active first (with its voided events and
        corrections counted)."""
        columns = (*ENCOUNTER_COLUMNS, *CORRECTION_COLUMNS)
        rows = self._tables.execute(
            f"SELECT {', '.join(columns)} FROM {self._tables.table(ENCOUNTERS)} "
            "ORDER BY last_activity DESC, encounter_id"
        )
        return [dict(zip(columns, r, strict=True)) for r in rows]

    def stats(self, encounter_id: str | None = None) -> list[dict[str, Any]]:
        """Each combatant's statistics (of one encounter, or of all)."""
        where = " WHERE encounter_id = ?" if encounter_id else ""
        rows = self._tables.execute(
            f"SELECT {', '.join(STATS_COLUMNS)} FROM {self._tables.table(STATS)}{where} "
            "ORDER BY encounter_id, combatant_id",
            (encounter_id,) if encounter_id else (),
        )
        return [dict(zip(STATS_COLUMNS, r, strict=True)) for r in rows]

    def position(self, tracking: str = TRACKING) -> int | None:
        """The last notification projected (None before the first)."""
        return projected(self._tables, tracking)

    def _rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """The rows, or none when the table is not made yet."""
        from psycopg.errors import UndefinedTable

        try:
            return self._tables.execute(sql, params)
        except (sqlite3.OperationalError, UndefinedTable):
            return []

    def status(self, read_model: ReadModel = READ_MODELS[0]) -> dict[str, Any]:
        """How far a read model is: `position` (the last notification projected, 0 before
        the first), `latest` (the store's latest notification), `lag` (the events recorded
        after the position), `last_projected_at` and `age_seconds` (the timestamp of the
        event at the position, and how long ago it was), `running` (a runner holds the
        lock: `fraylog projections run`, or `fraylog serve`'s own)."""
        position = self.position(read_model.tracking) or 0
        settings = self._tables.settings
        if settings.backend == "postgres":
            events, number = self._tables.table(f"{Fraylog.name}_events"), "notification_id"
        else:
            events, number = "stored_events", "rowid"
        latest = self._rows(f"SELECT MAX({number}) FROM {events}")
        lag = self._rows(f"SELECT COUNT(*) FROM {events} WHERE {number} > ?", (position,))
        at = self._timestamp(events, number, position) if position else None
        return {
            "name": read_model.name,
            "position": position,
            "latest": (latest[0][0] if latest else None) or 0,
            "lag": lag[0][0] if lag else 0,
            "last_projected_at": at.isoformat() if at else None,
            "age_seconds": (datetime.now(UTC) - at).total_seconds() if at else None,
            "running": self._running(read_model),
        }

    def statuses(self) -> list[dict[str, Any]]:
        """Each read model's status (READ_MODELS)."""
        return [self.status(m) for m in READ_MODELS]

    def _timestamp(self, events: str, number: str, position: int) -> datetime | None:
        rows = self._rows(f"SELECT state FROM {events} WHERE {number} = ?", (position,))
        if not rows:
            return None
        state = _transcoder().decode(bytes(rows[0][0]))
        stamp = state.get("timestamp")
        return stamp if isinstance(stamp, datetime) else None

    def _running(self, read_model: ReadModel) -> bool:
        settings = self._tables.settings
        if settings.backend == "postgres":  # over this store's connections
            sql, params = running_query(settings, read_model.name)
            return bool(self._tables.execute(sql, params)[0][0])
        return RunnerLock(settings, read_model.name).running()

    def close(self) -> None:
        self._tables.close()


def status(settings: Settings) -> dict[str, Any]:
    """The read models' status (ReadModelsStore.status), on connections of its own: for a
    one-off look; a server keeps a ReadModelsStore and asks it."""
    store = ReadModelsStore(settings)
    try:
        return store.status()
    finally:
        store.close()


def _transcoder() -> JSONTranscoder:
    """What reads a stored event's state (as the library's Application registers it)."""
    transcoder = JSONTranscoder()
    for each in (UUIDAsHex(), DecimalAsStr(), DatetimeAsISO(), EncounterStateAsDict()):
        transcoder.register(each)
    return transcoder


class Follower:
    """The read models kept up to date on a thread of this process (`fraylog serve`): it
    holds the runner lock from `start()` to `stop()`, catches
    up the backlog a batch per transaction, then follows with the library's runner. A runner
    that fails is logged (one line: its error) and started again after a pause (1 s,
    doubling up to a minute)."""

    def __init__(self, settings: Settings, poll_seconds: float = 0.5) -> None:
        self.settings = settings
        self.poll_seconds = poll_seconds
        self.lock = RunnerLock(settings, PROJECTION)
        self.caught_up = threading.Event()  # set once the backlog is projected
        self.backlog = 0  # events the catch-up projected
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> bool:
        """Take the lock and start following; False (and nothing started) when another
        runner holds it."""
        if not self.lock.acquire():
            return False
        self._thread = threading.Thread(
            target=self._follow, name="fraylog-read-models", daemon=True
        )
        self._thread.start()
        return True

    def _follow(self) -> None:
        pause = 1.0
        while not self._stopping.is_set():
            try:
                self.backlog = catch_up(self.settings, stopping=self._stopping)
                self.caught_up.set()
                if self._stopping.is_set():
                    return
                with runner(self.settings, poll_seconds=self.poll_seconds) as following:
                    while not self._stopping.is_set():
                        following.run_forever(timeout=0.5)
                return
            except Exception as e:  # one line in the server's log; the traceback at DEBUG
                log.error(
                    "the read models' runner stopped (%s: %s); starting it again in %.0f s",
                    type(e).__name__,
                    e,
                    pause,
                )
                log.debug("the read models' runner stopped", exc_info=True)
                self._stopping.wait(pause)
                pause = min(pause * 2, 60.0)

    @property
    def stopping(self) -> threading.Event:
        return self._stopping

    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def wait(self, timeout: float | None = None) -> None:
        """Until the follower stops (`stop()`, or `stopping` set)."""
        if self._thread is not None:
            self._thread.join(timeout)

    def stop(self, timeout: float = 30.0) -> None:
        """Stop after the transaction in hand, and release the lock."""
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout)
        self.lock.release()
