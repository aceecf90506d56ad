"""The live feed over a real server (uvicorn in a thread), on SQLite and PostgreSQL: two
clients follow while a third posts 200 commands; one drops after 50 events and resumes with
Last-Event-ID; each sees every event exactly once, in order."""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from collections.abc import Iterator
from typing import Any
from uuid import UUID

import httpx
import pytest
import uvicorn

from api.main import create_app
from domain import commands as c
from infra.app import Fraylog
from tests.builders import free_port
from tests.builders.novus import novus_stats

COMMANDS = 200


@pytest.fixture
def server(fraylog: Fraylog) -> Iterator[str]:
    fraylog.settings = dataclasses.replace(
        fraylog.settings, heartbeat_seconds=0.2, max_streams_per_token=3
    )
    port = free_port()
    config = uvicorn.Config(create_app(fraylog=fraylog), port=port, log_level="warning")
    running = uvicorn.Server(config)
    thread = threading.Thread(target=running.run, daemon=True)
    thread.start()
    while not running.started:
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}"
    running.should_exit = True
    thread.join(timeout=10)


def follow(
    url: str, headers: dict[str, str], into: list[dict], stop_after: int, pings: list[int]
) -> None:
    """Read SSE messages into `into` until `stop_after` events, then hang up."""
    with httpx.stream("GET", url, headers=headers, timeout=30) as r:
        assert r.status_code == 200, r.read()
        assert r.headers["content-type"].startswith("text/event-stream")
        event: dict[str, Any] = {}
        for line in r.iter_lines():
            if line.startswith(":"):
                pings.append(1)
            elif line.startswith("id:"):
                event["id"] = line[3:].strip()
            elif line.startswith("data:"):
                event["data"] = json.loads(line[5:].strip())
            elif line == "" and event:
                into.append(event)
                event = {}
                if len(into) >= stop_after:
                    return


def test_given_two_followers_when_200_commands_are_posted_then_each_gets_every_event_once(
    server: str,
) -> None:
    http = httpx.Client(base_url=server, timeout=30)
    created = http.post("/encounters", json={"name": "Live", "ruleset": "novus"}).json()
    eid, gm = created["id"], {"Authorization": f"Bearer {created['gm_token']}"}
    a = http.post(
        f"/encounters/{eid}/combatants", json={"name": "A", "stats": novus_stats()}, headers=gm
    ).json()["id"]
    total = 2 + COMMANDS  # created, combatant added, then one event per command
    url = f"{server}/encounters/{eid}/stream"
    ticket = http.post(f"/encounters/{eid}/stream-tickets", headers=gm).json()["ticket"]
    seen: list[list[dict]] = [[], []]
    dropped: list[dict] = []
    pings: list[int] = []
    followers = [
        threading.Thread(target=follow, args=(url, gm, seen[0], total, pings)),
        threading.Thread(
            target=follow,
            args=(f"{url}?ticket={ticket}", {}, seen[1], total, pings),
        ),
        threading.Thread(target=follow, args=(url, gm, dropped, 50, pings)),
    ]
    for t in followers:
        t.start()
    deadline = time.monotonic() + 30  # let all three connect and catch up (a loaded machine)
    while min(len(seen[0]), len(seen[1]), len(dropped)) < 2:
        assert time.monotonic() < deadline, "the followers did not connect"
        time.sleep(0.05)
    too_many = http.get(f"/encounters/{eid}/stream", headers=gm, timeout=10)
    assert too_many.status_code == 429 and too_many.json()["rule"] == "LIMIT"
    for _ in range(COMMANDS):
        r = http.post(
            f"/encounters/{eid}/commands",
            json={"type": "adjust_hits", "combatant": a, "amount": -1},
            headers=gm,
        )
        assert r.status_code == 200
    for t in followers:
        t.join(timeout=60)
    for got in seen:
        assert [int(e["id"]) for e in got] == list(range(1, total + 1))
        assert [e["data"]["position"] for e in got] == list(range(1, total + 1))
    assert (
        seen[0][5]["data"]
        == http.get(
            f"/encounters/{eid}/events", params={"after": 5, "limit": 1}, headers=gm
        ).json()["events"][0]
    )

    # the one that hung up after 50 resumes with Last-Event-ID and gets the rest, once
    assert len(dropped) == 50
    rest: list[dict] = []
    resumed = {**gm, "Last-Event-ID": dropped[-1]["id"]}
    follow(url, resumed, rest, total - 50, pings)
    assert [int(e["id"]) for e in dropped + rest] == list(range(1, total + 1))
    assert pings  # the heartbeat kept idle streams alive


def test_given_no_token_or_a_bad_last_event_id_then_no_stream(server: str) -> None:
    http = httpx.Client(base_url=server, timeout=10)
    created = http.post("/encounters", json={"name": "Live", "ruleset": "novus"}).json()
    eid = created["id"]
    assert http.get(f"/encounters/{eid}/stream").status_code == 404
    bad = http.get(
        f"/encounters/{eid}/stream",
        headers={"Authorization": f"Bearer {created['gm_token']}", "Last-Event-ID": "x"},
    )
    assert bad.status_code == 422 and bad.json()["field"] == "Last-Event-ID"


def test_given_postgres_when_another_process_records_then_the_feed_still_delivers(
    server: str, fraylog: Fraylog
) -> None:
    """One PostgreSQL subscription per process wakes the followers for events another
    process (another worker) stored; SQLite has none, so there only the recorder pushes."""
    if fraylog.settings.backend != "postgres":
        pytest.skip("SQLite has no subscriptions: only the process that records pushes")
    http = httpx.Client(base_url=server, timeout=30)
    created = http.post("/encounters", json={"name": "Live", "ruleset": "novus"}).json()
    eid, gm = created["id"], {"Authorization": f"Bearer {created['gm_token']}"}
    got: list[dict] = []
    follower = threading.Thread(
        target=follow, args=(f"{server}/encounters/{eid}/stream", gm, got, 6, [])
    )
    follower.start()
    time.sleep(0.3)
    with Fraylog(fraylog.settings) as elsewhere:  # another worker, its own feed-less app
        a, _ = elsewhere.add_combatant(UUID(eid), "A", "", novus_stats())
        for _ in range(4):
            elsewhere.execute(UUID(eid), c.AdjustHits(combatant=a, amount=-1))
    follower.join(timeout=20)
    assert [int(e["id"]) for e in got] == [1, 2, 3, 4, 5, 6]


def test_given_streams_closed_one_after_another_then_their_slots_are_freed(server: str) -> None:
    """More streams than the per-token cap (3 here), each closed before the next opens."""
    http = httpx.Client(base_url=server, timeout=10)
    created = http.post("/encounters", json={"name": "Live", "ruleset": "novus"}).json()
    gm = {"Authorization": f"Bearer {created['gm_token']}"}
    for _ in range(6):
        got: list[dict] = []
        follow(f"{server}/encounters/{created['id']}/stream", gm, got, 1, [])
        assert got[0]["id"] == "1"
        time.sleep(0.05)  # the server notices the hang-up


def test_given_a_revoked_token_then_its_open_stream_ends(server: str) -> None:
    http = httpx.Client(base_url=server, timeout=10)
    created = http.post("/encounters", json={"name": "Live", "ruleset": "novus"}).json()
    eid, gm = created["id"], {"Authorization": f"Bearer {created['gm_token']}"}
    a = http.post(
        f"/encounters/{eid}/combatants", json={"name": "A", "stats": novus_stats()}, headers=gm
    ).json()["id"]
    minted = http.post(f"/encounters/{eid}/tokens", json={"combatants": [a]}, headers=gm).json()
    player = {"Authorization": f"Bearer {minted['token']}"}
    ticket = http.post(f"/encounters/{eid}/stream-tickets", headers=player).json()["ticket"]
    got: list[dict] = []
    follower = threading.Thread(
        target=follow,
        args=(f"{server}/encounters/{eid}/stream?ticket={ticket}", {}, got, 99, []),
    )
    follower.start()
    time.sleep(0.5)
    assert len(got) == 2
    assert http.delete(f"/encounters/{eid}/tokens/{minted['id']}", headers=gm).status_code == 204
    hit = {"type": "adjust_hits", "combatant": a, "amount": -1}
    http.post(f"/encounters/{eid}/commands", json=hit, headers=gm)
    follower.join(timeout=10)
    assert not follower.is_alive() and len(got) == 2  # ended, the new event not sent


def test_given_a_non_ascii_digit_as_last_event_id_then_422_not_500(server: str) -> None:
    created = httpx.post(f"{server}/encounters", json={"name": "L", "ruleset": "novus"}).json()
    r = httpx.get(
        f"{server}/encounters/{created['id']}/stream",
        headers=[
            ("Authorization", f"Bearer {created['gm_token']}"),
            ("Last-Event-ID", "²".encode("latin-1")),
        ],
    )
    assert r.status_code == 422 and r.json()["field"] == "Last-Event-ID"
