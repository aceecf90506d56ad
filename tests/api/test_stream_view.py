"""The live feed with `view=true`: after each command's events, a `view` message with the
encounter view after them (what GET /encounters/{id} answers at that version)."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import httpx

from tests.api.test_stream import server  # noqa: F401  (the uvicorn fixture)
from tests.builders.novus import novus_stats


def follow_views(url: str, headers: dict[str, str], into: list[dict], stop_at: int) -> None:
    """Read SSE messages (type, id, data) until a view at version `stop_at`."""
    with httpx.stream("GET", url, headers=headers, timeout=30) as r:
        assert r.status_code == 200, r.read()
        message: dict[str, Any] = {"type": "message"}
        for line in r.iter_lines():
            if line.startswith("event:"):
                message["type"] = line[6:].strip()
            elif line.startswith("id:"):
                message["id"] = line[3:].strip()
            elif line.startswith("data:"):
                message["data"] = json.loads(line[5:].strip())
            elif line == "" and "data" in message:
                into.append(message)
                if message["type"] == "view" and message["data"]["version"] >= stop_at:
                    return
                message = {"type": "message"}


def an_encounter_with_a_fighter(url: str) -> tuple[httpx.Client, str, dict[str, str], str]:
    """Given a Novus encounter with one fighter, A: the client, its id, the GM's header, A."""
    http = httpx.Client(base_url=url, timeout=30)
    created = http.post("/encounters", json={"name": "Live", "ruleset": "novus"}).json()
    eid, gm = created["id"], {"Authorization": f"Bearer {created['gm_token']}"}
    a = http.post(
        f"/encounters/{eid}/combatants", json={"name": "A", "stats": novus_stats()}, headers=gm
    ).json()["id"]
    return http, eid, gm, a


def test_given_view_true_when_commands_are_recorded_then_a_view_follows_each_command(
    server: str,  # noqa: F811
) -> None:
    http, eid, gm, a = an_encounter_with_a_fighter(server)
    got: list[dict] = []
    follower = threading.Thread(
        target=follow_views, args=(f"{server}/encounters/{eid}/stream?view=true", gm, got, 5)
    )
    follower.start()
    time.sleep(0.3)
    for amount in (-1, -2, -3):
        r = http.post(
            f"/encounters/{eid}/commands",
            json={"type": "adjust_hits", "combatant": a, "amount": amount},
            headers=gm,
        )
        assert r.status_code == 200, r.text
    follower.join(timeout=20)

    kinds = [(m["type"], m.get("id")) for m in got]
    # given the create and the combatant (two commands), then three commands: each event, then
    # its command's view (views carry no id, so Last-Event-ID stays an event position)
    assert kinds == [
        ("message", "1"),
        ("view", None),
        ("message", "2"),
        ("view", None),
        ("message", "3"),
        ("view", None),
        ("message", "4"),
        ("view", None),
        ("message", "5"),
        ("view", None),
    ]
    views = [m["data"] for m in got if m["type"] == "view"]
    assert [v["version"] for v in views] == [1, 2, 3, 4, 5]
    for v in views:
        assert (
            v == http.get(f"/encounters/{eid}", params={"version": v["version"]}, headers=gm).json()
        )
    assert views[-1]["combatants"][0]["hits"] == 30 - 6


def test_given_view_true_when_resuming_then_the_view_folds_on_from_there(
    server: str,  # noqa: F811
) -> None:
    http, eid, gm, a = an_encounter_with_a_fighter(server)
    for amount in (-4, -5):
        http.post(
            f"/encounters/{eid}/commands",
            json={"type": "adjust_hits", "combatant": a, "amount": amount},
            headers=gm,
        )
    got: list[dict] = []
    follow_views(f"{server}/encounters/{eid}/stream?view=true&after=3", gm, got, 4)
    assert [(m["type"], m.get("id")) for m in got] == [("message", "4"), ("view", None)]
    assert got[1]["data"]["combatants"][0]["hits"] == 30 - 9
