"""Many followers of one encounter share the feed's reads: each new page of events is read
from the store once for all of them (and a player's sight once for his token's followers),
then sent to each as his token may read it. Over a real server, on SQLite and PostgreSQL."""

from __future__ import annotations

import threading
import time
from collections import Counter
from dataclasses import replace
from typing import Any
from uuid import UUID

import httpx
import pytest
from fastapi.testclient import TestClient

from infra.app import Fraylog
from tests.api.test_stream import follow, server  # noqa: F401  (the uvicorn fixture)
from tests.api.test_visibility import leaks, live_ambush
from tests.builders import add_combatant, new_encounter
from tests.builders.novus import novus_stats

COMMANDS = 12


class StoreReads:
    """A spy on the store read the feed uses: which positions each read after N returned
    (reads from position 0 are the stream's opening and a sight's corrections, not pages)."""

    def __init__(self, fraylog: Fraylog, monkeypatch: pytest.MonkeyPatch) -> None:
        self.returned: Counter[int] = Counter()
        self.sights = 0
        self.on = False
        read, sight = fraylog.event_page, fraylog.sight

        def event_page(encounter_id: UUID, after: int = 0, *args: Any, **kw: Any) -> list[Any]:
            page = read(encounter_id, after, *args, **kw)
            if self.on and after > 0:
                self.returned.update(e.originator_version for e in page)
            return page

        def counted_sight(*args: Any, **kw: Any) -> Any:
            self.sights += self.on
            return sight(*args, **kw)

        monkeypatch.setattr(fraylog, "event_page", event_page)
        monkeypatch.setattr(fraylog, "sight", counted_sight)


def wait_for(condition: Any, what: str) -> None:
    deadline = time.monotonic() + 30  # a loaded machine
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


def test_given_four_followers_of_one_encounter_when_commands_are_recorded_then_each_page_is_read_once(  # noqa: E501
    server: str,  # noqa: F811
    fraylog: Fraylog,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # given a hero with his player's token and an ambusher the GM keeps hidden
    http, a = live_ambush(server)
    start = http.get(f"/encounters/{a.eid}", headers=a.gm).json()["version"]
    total = start + COMMANDS
    reads = StoreReads(fraylog, monkeypatch)
    url = f"{server}/encounters/{a.eid}/stream"
    ticket = http.post(f"/encounters/{a.eid}/stream-tickets", headers=a.gm).json()["ticket"]
    # two GM screens (one by ticket, as a browser) and the player on two devices
    headers = [a.gm, {}, a.player, a.player]
    urls = [url, f"{url}?ticket={ticket}", url, url]
    seen: list[list[dict]] = [[] for _ in headers]
    followers = [
        threading.Thread(target=follow, args=(u, h, got, total, []))
        for u, h, got in zip(urls, headers, seen, strict=True)
    ]
    for t in followers:
        t.start()
    wait_for(lambda: all(len(got) == start for got in seen), "the followers did not catch up")

    # when the GM records commands, each sent once all four have the one before
    reads.on = True
    for n in range(COMMANDS):
        whom = a.hero if n % 2 else a.ambusher
        body = {"type": "adjust_hits", "combatant": whom, "amount": -1}
        assert http.post(f"/encounters/{a.eid}/commands", json=body, headers=a.gm).is_success
        wait_for(lambda n=n: all(len(got) > start + n for got in seen), "an event was not sent")
    reads.on = False
    for t in followers:
        t.join(timeout=30)

    # then every follower got every event once, in order
    for got in seen:
        assert [int(m["id"]) for m in got] == list(range(1, total + 1))
    # the GM's as the GM reads the log, the player's redacted as his token reads it
    as_gm = http.get(f"/encounters/{a.eid}/events", headers=a.gm).json()["events"]
    as_player = http.get(f"/encounters/{a.eid}/events", headers=a.player).json()["events"]
    assert as_gm != as_player
    assert [m["data"] for m in seen[0]] == [m["data"] for m in seen[1]] == as_gm
    assert [m["data"] for m in seen[2]] == [m["data"] for m in seen[3]] == as_player
    assert not [m for m in seen[2] if leaks(str(m["data"]), a)]
    # and each new event was read from the store once, for all four followers
    assert reads.returned == Counter(range(start + 1, total + 1))
    # and the player's sight worked out once a page for his two followers
    assert reads.sights == COMMANDS


def test_given_the_process_holds_its_most_streams_then_one_more_is_refused_until_one_closes(
    server: str,  # noqa: F811
    fraylog: Fraylog,
) -> None:
    """FRAYLOG_MAX_STREAMS bounds the streams of a process whatever their tokens (each holds
    a socket: the server's open files run out first)."""
    fraylog.settings = replace(fraylog.settings, max_streams=2)
    http, a = live_ambush(server)
    url = f"{server}/encounters/{a.eid}/stream"
    with httpx.stream("GET", url, headers=a.gm, timeout=30) as first:
        assert first.status_code == 200
        with httpx.stream("GET", url, headers=a.player, timeout=30) as second:
            assert second.status_code == 200
            refused = http.get(url, headers=a.player)
            assert refused.status_code == 429 and refused.json()["rule"] == "LIMIT"
            assert "FRAYLOG_MAX_STREAMS" in refused.json()["detail"]
    # both closed: the server frees their slots once it notices the hang-ups
    got: list[dict] = []
    deadline = time.monotonic() + 30
    while True:
        try:
            follow(url, a.player, got, 1, [])
            break
        except AssertionError:  # still counted: a 429
            assert time.monotonic() < deadline, "the closed streams' slots were not freed"
            time.sleep(0.05)
    assert got[0]["id"] == "1"


def test_given_followers_when_a_player_token_comes_or_goes_then_shared_pages_are_dropped(
    client: TestClient,
) -> None:
    """The party decides how players see each other's health (docs/visibility.md): a page a
    follower shared before the party changed is not handed to one who comes after."""
    eid = new_encounter(client)
    hero = add_combatant(client, eid, "Hero", novus_stats())
    woken: list[str] = []
    feed = client.app.state.feed  # type: ignore[attr-defined]
    real = feed.notify
    feed.notify = lambda encounter_id: (woken.append(encounter_id), real(encounter_id))

    minted = client.post(f"/encounters/{eid}/tokens", json={"combatants": [hero]}).json()
    assert woken == [eid]
    assert client.delete(f"/encounters/{eid}/tokens/{minted['id']}").status_code == 204
    assert woken == [eid, eid]
