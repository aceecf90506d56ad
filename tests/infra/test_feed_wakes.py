"""A save wakes the followers of its encounter in this process (infra/feed.py `notify`), and
sends nothing to the event loop for an encounter nobody follows here, as most commands'."""

from __future__ import annotations

import threading
from types import SimpleNamespace
from typing import Any
from uuid import uuid4

from infra.feed import Feed, Followers


class RecordingLoop:
    """An event loop that records what other threads ask it to run."""

    def __init__(self) -> None:
        self.asked: list[tuple[Any, ...]] = []

    def call_soon_threadsafe(self, callback: Any, *args: Any) -> None:
        self.asked.append((callback, *args))

    def is_closed(self) -> bool:
        return False


def a_feed() -> tuple[Feed, RecordingLoop]:
    store = SimpleNamespace(listeners=[], settings=SimpleNamespace(backend="sqlite"))
    feed = Feed(store)  # type: ignore[arg-type]
    loop = RecordingLoop()
    feed.start(loop)  # type: ignore[arg-type]
    return feed, loop


def test_given_a_follower_of_one_encounter_when_two_are_saved_then_only_his_is_woken():
    # given
    feed, loop = a_feed()
    followed, other = str(uuid4()), str(uuid4())
    feed._encounters[followed] = Followers()
    # when: the writer's thread tells of both saves
    savers = [threading.Thread(target=feed.notify, args=(e,)) for e in (followed, other)]
    for saver in savers:
        saver.start()
    for saver in savers:
        saver.join()
    # then
    assert loop.asked == [(feed._wake, followed)]


def test_given_nobody_follows_when_an_encounter_is_saved_then_the_loop_is_not_asked():
    feed, loop = a_feed()
    feed.notify(str(uuid4()))
    assert loop.asked == []
