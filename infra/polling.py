"""Following an SQLite store: eventsourcing 9.5.6 has no subscriptions on SQLite (its
recorder's `subscribe` raises NotImplementedError), so the projection runner's subscription
there polls: it reads the notifications after the last one it saw (`select_notifications`,
500 at a time) every `poll_seconds`, where PostgreSQL would wake it with NOTIFY."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from eventsourcing.persistence import ListenNotifySubscription, Subscription
from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteFactory
from eventsourcing.utils import Environment

POLL_SECONDS = "READ_MODELS_POLL_SECONDS"


class PollingSubscription(ListenNotifySubscription[SQLiteApplicationRecorder]):
    """The library's listen-notify subscription, woken by a clock instead of NOTIFY."""

    def __init__(
        self,
        recorder: SQLiteApplicationRecorder,
        gt: int | None = None,
        topics: Sequence[str] = (),
        interval: float = 0.5,
    ) -> None:
        self._interval = interval
        self._stopping = threading.Event()
        super().__init__(recorder=recorder, gt=gt, topics=topics)
        self._clock = threading.Thread(target=self._tick, daemon=True)
        self._clock.start()

    def _tick(self) -> None:
        while not self._stopping.wait(self._interval):
            self._has_been_notified.set()

    def stop(self) -> None:
        self._stopping.set()
        super().stop()

    def __exit__(self, *args: object, **kwargs: Any) -> None:
        try:
            super().__exit__(*args, **kwargs)
        finally:
            self._clock.join()


class PollingSQLiteRecorder(SQLiteApplicationRecorder):
    """An SQLite application recorder whose subscriptions poll."""

    poll_seconds = 0.5

    def subscribe(
        self, gt: int | None = None, topics: Sequence[str] = ()
    ) -> Subscription[SQLiteApplicationRecorder]:
        return PollingSubscription(self, gt=gt, topics=topics, interval=self.poll_seconds)


def construct_polling_recorder(factory: Any, env: Environment) -> PollingSQLiteRecorder | None:
    """The recorder an application following an SQLite store uses (None on PostgreSQL)."""
    if not isinstance(factory, SQLiteFactory):
        return None
    recorder = PollingSQLiteRecorder(datastore=factory.datastore)
    recorder.poll_seconds = float(env.get(POLL_SECONDS) or 0.5)
    if factory.env_create_table():
        recorder.create_table()
    return recorder
