"""A read or a piece of work that failed is not shared with the followers that come after
(infra/feed.py): the next one tries again."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any
from uuid import uuid4

from infra.feed import Feed, Followers, Page


class FlakyStore:
    """A store whose first read of a page fails (busy), then answers."""

    def __init__(self) -> None:
        self.reads = 0
        self.listeners: list[Any] = []
        self.settings = SimpleNamespace(backend="sqlite")

    def event_page(self, encounter_id: Any, after: int) -> list[Any]:
        self.reads += 1
        if self.reads == 1:
            raise RuntimeError("database is locked")
        return ["event"]


def test_given_a_page_read_that_failed_when_another_follower_asks_then_it_is_read_again():
    store = FlakyStore()
    feed = Feed(store)  # type: ignore[arg-type]
    followers = Followers()

    async def two_followers() -> tuple[Any, Any]:
        first = feed._page(uuid4(), followers, 0)
        try:
            await first
        except RuntimeError as e:
            failed: Any = e
        second = await feed._page(uuid4(), followers, 0)
        return failed, second

    failed, second = asyncio.run(two_followers())

    assert isinstance(failed, RuntimeError) and list(second) == ["event"]
    assert store.reads == 2


def test_given_shared_work_that_failed_when_asked_again_then_it_is_done_again():
    page = Page([])
    calls: list[int] = []

    def work() -> str:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("busy")
        return "sight"

    async def asked_twice() -> tuple[Any, Any]:
        try:
            await page.shared("player", work)
        except RuntimeError as e:
            failed: Any = e
        return failed, await page.shared("player", work)

    failed, again = asyncio.run(asked_twice())

    assert isinstance(failed, RuntimeError) and again == "sight" and len(calls) == 2
