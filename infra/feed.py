"""The live feed: one per process, it tells every client following an encounter that new
events were stored, and each client reads them from the store after the last position it
sent, so nothing is skipped or sent twice.

Events saved by this process wake their followers at once. On PostgreSQL one subscription
per process (LISTEN/NOTIFY, holding one pooled connection), opened when the first client
follows, also wakes them for events that other processes saved; SQLite has no
subscriptions, so there only this process's saves do.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections import Counter, defaultdict
from collections.abc import AsyncIterator
from typing import Any
from uuid import UUID

from domain.errors import DomainError
from infra.app import Fraylog

log = logging.getLogger("fraylog.feed")


class TooManyStreams(DomainError):
    status = 429
    title = "Too many open streams"


class Feed:
    """Wakes followers of an encounter when its events are stored."""

    def __init__(self, fraylog: Fraylog) -> None:
        self.fraylog = fraylog
        self._followers: dict[str, set[asyncio.Event]] = defaultdict(set)
        self._open: Counter[str] = Counter()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._subscription: Any = None
        self._thread: threading.Thread | None = None
        fraylog.listeners.append(self.notify)

    # -- waking -------------------------------------------------------------------
    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Attach to the server's event loop."""
        self._loop = loop

    def _subscribe(self) -> None:
        """On PostgreSQL, subscribe to the store once someone follows (a subscription reads
        every new event of every encounter: not worth it while nobody listens)."""
        if self._subscription is not None or self.fraylog.settings.backend != "postgres":
            return
        recorder = self.fraylog.recorder
        self._subscription = recorder.subscribe(gt=recorder.max_notification_id())  # type: ignore[attr-defined]
        self._thread = threading.Thread(target=self._listen, name="fraylog-feed", daemon=True)
        self._thread.start()

    def _listen(self) -> None:
        try:
            with self._subscription as subscription:
                for notification in subscription:
                    self.notify(str(notification.originator_id))
        except Exception:  # the feed falls back to this process's own saves
            log.exception("the PostgreSQL subscription of the live feed stopped")

    def stop(self) -> None:
        if self._subscription is not None:
            self._subscription.stop()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._loop = None

    def notify(self, encounter_id: str) -> None:
        """Called from any thread when an encounter's events were stored."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._wake, encounter_id)

    def _wake(self, encounter_id: str) -> None:
        for woken in self._followers.get(encounter_id, ()):
            woken.set()

    # -- following ----------------------------------------------------------------
    def open_stream(self, holder: str) -> None:
        """Count a stream of a token; refuse past the limit."""
        limit = self.fraylog.settings.max_streams_per_token
        if self._open[holder] >= limit:
            raise TooManyStreams(
                "LIMIT",
                f"this token already has {limit} open streams (FRAYLOG_MAX_STREAMS_PER_TOKEN); "
                "close one first",
            )
        self._open[holder] += 1

    def close_stream(self, holder: str) -> None:
        self._open[holder] -= 1
        if self._open[holder] <= 0:
            del self._open[holder]

    async def follow(self, encounter_id: UUID, after: int) -> AsyncIterator[list[Any]]:
        """Yield the encounter's events after position `after`, page by page, now and as
        they are stored, until the client goes away. A page shorter than the page size ends
        where the stored events end; after a full page that did, an empty page says so."""
        key = str(encounter_id)
        woken = asyncio.Event()
        self._followers[key].add(woken)
        self._subscribe()  # before the first read: nothing stored after it is missed
        full = False  # the last page yielded was full: the caller cannot tell it was the end
        try:
            while True:
                woken.clear()  # a save from now on wakes the wait below
                page = await asyncio.to_thread(self.fraylog.event_page, encounter_id, after)
                if page:
                    yield page
                    after = page[-1].originator_version
                    full = len(page) >= self.fraylog.settings.page_size
                else:
                    if full:
                        full = False
                        yield []
                    await woken.wait()
        finally:
            self._followers[key].discard(woken)
            if not self._followers[key]:
                del self._followers[key]
