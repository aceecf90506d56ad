"""The live feed: one per process, it tells every client following an encounter that new
events were stored, and each client sends them from the store after the last position it
sent, so nothing is skipped or sent twice.

The followers of an encounter share their reads: the page after a position is read once
for all who wait at that position (and what they work out of it alike, such as a player's
sight, once per key), then each sends it as its token may read it. A follower that lags
(a slow client: uvicorn stops it while the client's socket buffer is full) reads its own
pages later from its own position: nothing is queued for it in the meantime.

Events saved by this process wake their followers at once. On PostgreSQL one subscription
per process (LISTEN/NOTIFY, holding one pooled connection), opened when the first client
follows, also wakes them for events that other processes saved; SQLite has no
subscriptions, so there only this process's saves do.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections import Counter
from collections.abc import AsyncIterator, Callable, Hashable
from typing import Any
from uuid import UUID

from domain.errors import DomainError
from infra.app import Fraylog

log = logging.getLogger("fraylog.feed")

PAGES_KEPT = 4  # reads kept per encounter until its next save: bounds a feed's memory


class TooManyStreams(DomainError):
    """Raised when a token, or the process, holds as many open streams as allowed."""

    status = 429
    title = "Too many open streams"


class Page(list[Any]):
    """Stored events read once for every follower waiting at the same position, with what
    those followers work out of them alike."""

    def __init__(self, events: list[Any]) -> None:
        super().__init__(events)
        self._shared: dict[Hashable, asyncio.Future[Any]] = {}
        self._kept: dict[Hashable, Any] = {}

    async def shared(self, key: Hashable, work: Callable[[], Any]) -> Any:
        """`work()` run once (in a thread) for every follower that asks by `key`."""
        done = self._shared.get(key)
        if done is None or (done.done() and not done.cancelled() and done.exception()):
            # none yet, or one that failed (the next asker tries again, not shares it)
            done = self._shared[key] = asyncio.ensure_future(asyncio.to_thread(work))
        # one follower leaving must not cancel what the others wait for
        return await asyncio.shield(done)

    def kept(self, key: Hashable, work: Callable[[], Any]) -> Any:
        """`work()` run once, here, for every follower that asks by `key` (no I/O in it)."""
        if key not in self._kept:
            self._kept[key] = work()
        return self._kept[key]


class Followers:
    """The followers of one encounter in this process and the reads they share since its
    last save (a read begun before a save may have missed it: none is shared after it)."""

    def __init__(self) -> None:
        self.woken: set[asyncio.Event] = set()
        self.reads: dict[int, asyncio.Future[Page]] = {}  # after position -> its page

    def wake(self) -> None:
        self.reads = {}
        for woken in self.woken:
            woken.set()


class Feed:
    """Wakes followers of an encounter when its events are stored."""

    def __init__(self, fraylog: Fraylog) -> None:
        self.fraylog = fraylog
        self._encounters: dict[str, Followers] = {}
        self._open: Counter[str] = Counter()
        self._streams = 0  # open in this process, whatever their tokens
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
        """Called from any thread when an encounter's events were stored. Nothing is sent to
        the loop for an encounter that nobody follows in this process, as most are: a
        follower is counted before his first read (`follow`), so whatever was stored before
        he came is in that read."""
        loop = self._loop
        if encounter_id in self._encounters and loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._wake, encounter_id)

    def _wake(self, encounter_id: str) -> None:
        followers = self._encounters.get(encounter_id)
        if followers is not None:
            followers.wake()

    # -- following ----------------------------------------------------------------
    def open_stream(self, holder: str) -> None:
        """Count a stream of a token; refuse past the token's limit or the process's."""
        settings = self.fraylog.settings
        if self._streams >= settings.max_streams:
            raise TooManyStreams(
                "LIMIT",
                f"this server process already has {settings.max_streams} open streams "
                "(FRAYLOG_MAX_STREAMS); try again later",
            )
        limit = settings.max_streams_per_token
        if self._open[holder] >= limit:
            raise TooManyStreams(
                "LIMIT",
                f"this token already has {limit} open streams (FRAYLOG_MAX_STREAMS_PER_TOKEN); "
                "close one first",
            )
        self._open[holder] += 1
        self._streams += 1

    def close_stream(self, holder: str) -> None:
        self._open[holder] -= 1
        self._streams -= 1
        if self._open[holder] <= 0:
            del self._open[holder]

    def _page(self, encounter_id: UUID, followers: Followers, after: int) -> asyncio.Future[Page]:
        """The read of the page after `after`: begun now unless another follower began it
        since the encounter's last save (then shared)."""
        read = followers.reads.get(after)
        if read is None:
            work = asyncio.to_thread(self.fraylog.event_page, encounter_id, after)
            read = followers.reads[after] = asyncio.ensure_future(_as_page(work))

            def forget_failed(done: asyncio.Future[Page], after: int = after) -> None:
                # a read that failed (the store busy) is tried again by the next follower
                failed = not done.cancelled() and done.exception() is not None
                if failed and followers.reads.get(after) is done:
                    del followers.reads[after]

            read.add_done_callback(forget_failed)
            while len(followers.reads) > PAGES_KEPT:  # the oldest first (insertion order)
                del followers.reads[next(iter(followers.reads))]
        return read

    async def follow(self, encounter_id: UUID, after: int) -> AsyncIterator[Page]:
        """Yield the encounter's events after position `after`, page by page, now and as
        they are stored, until the client goes away. A page shorter than the page size ends
        where the stored events end; after a full page that did, an empty page says so.
        A page may be shared with other followers: it is not to be changed."""
        key = str(encounter_id)
        woken = asyncio.Event()
        followers = self._encounters.setdefault(key, Followers())
        followers.woken.add(woken)
        self._subscribe()  # before the first read: nothing stored after it is missed
        full = False  # the last page yielded was full: the caller cannot tell it was the end
        try:
            while True:
                # a save from now on wakes the wait below; a read shared from before that
                # save is no longer found (the save emptied `reads`): no await in between
                woken.clear()
                page = await asyncio.shield(self._page(encounter_id, followers, after))
                if page:
                    yield page
                    after = page[-1].originator_version
                    full = len(page) >= self.fraylog.settings.page_size
                else:
                    if full:
                        full = False
                        yield Page([])
                    await woken.wait()
        finally:
            followers.woken.discard(woken)
            if not followers.woken and self._encounters.get(key) is followers:
                del self._encounters[key]


async def _as_page(read: Any) -> Page:
    return Page(await read)
