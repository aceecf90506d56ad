"""Idempotent commands (also across a restart), page sizes, streamed exports, and the limits
on bodies and combatants, each refusal a problem+json."""

from __future__ import annotations

import dataclasses
import json

from fastapi.testclient import TestClient

from api.main import create_app
from infra.app import Fraylog
from tests.builders import add_combatant, new_encounter
from tests.builders.novus import novus_stats
from tests.tokens import TokenJar

HIT = {"type": "adjust_hits", "amount": -1}


def test_given_one_key_when_sent_20_times_then_recorded_once_also_after_a_restart(
    client: TestClient,
) -> None:
    eid = new_encounter(client)
    a = add_combatant(client, eid, "A", novus_stats())
    body = {**HIT, "combatant": a}
    key = {"Idempotency-Key": "k-1"}
    first = client.post(f"/encounters/{eid}/commands", json=body, headers=key)
    assert first.status_code == 200 and "Idempotent-Replayed" not in first.headers
    for _ in range(19):
        again = client.post(f"/encounters/{eid}/commands", json=body, headers=key)
        assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
        assert again.json() == first.json()
    assert client.get(f"/encounters/{eid}").json()["version"] == 3

    # a restart: a new application over the same store, the same GM token
    fraylog: Fraylog = client.app.state.fraylog
    with (
        Fraylog(fraylog.settings) as restarted,
        TestClient(create_app(fraylog=restarted)) as after,
    ):
        after.auth = client.auth
        again = after.post(f"/encounters/{eid}/commands", json=body, headers=key)
        assert again.status_code == 200 and again.json() == first.json()
        assert after.get(f"/encounters/{eid}").json()["version"] == 3
        other = after.post(f"/encounters/{eid}/commands", json={**body, "amount": -2}, headers=key)
        assert other.status_code == 422 and other.json()["rule"] == "IDEMPOTENCY"
        assert other.json()["field"] == "Idempotency-Key"
        assert after.get(f"/encounters/{eid}").json()["version"] == 3


def test_given_a_refused_command_with_a_key_when_fixed_and_resent_then_it_runs(
    client: TestClient,
) -> None:
    eid = new_encounter(client)
    a = add_combatant(client, eid, "A", novus_stats())
    key = {"Idempotency-Key": "k-2"}
    bad = client.post(
        f"/encounters/{eid}/commands", json={**HIT, "combatant": "nobody"}, headers=key
    )
    assert bad.status_code == 422
    good = client.post(f"/encounters/{eid}/commands", json={**HIT, "combatant": a}, headers=key)
    assert good.status_code == 200 and good.json()["events"][0]["type"] == "HitsAdjusted"


def test_given_a_page_size_when_reading_events_then_pages_and_streamed_exports_agree(
    fraylog: Fraylog,
) -> None:
    fraylog.settings = dataclasses.replace(fraylog.settings, page_size=4)
    with TestClient(create_app(fraylog=fraylog)) as client:
        client.auth = TokenJar()
        eid = new_encounter(client)
        a = add_combatant(client, eid, "A", novus_stats())
        for _ in range(9):
            client.post(f"/encounters/{eid}/commands", json={**HIT, "combatant": a})
        void = {"type": "void", "target": 3, "reason": "x"}
        assert client.post(f"/encounters/{eid}/commands", json=void).status_code == 422
        undo = client.post(f"/encounters/{eid}/commands", json={"type": "undo"})
        assert undo.status_code == 200
        pages, after = [], 0
        while after is not None:
            page = client.get(f"/encounters/{eid}/events", params={"after": after}).json()
            assert len(page["events"]) <= 4
            pages += page["events"]
            after = page["next_after"]
        assert [e["position"] for e in pages] == list(range(1, 13))
        assert pages[10]["voided_by"] == 12  # the undone command, on a page of its own
        ndjson = client.get(f"/encounters/{eid}/events", params={"format": "ndjson"}).text
        assert [json.loads(line) for line in ndjson.splitlines()] == pages
        csv = client.get(f"/encounters/{eid}/events", params={"format": "csv"}).text
        lines = csv.splitlines()
        assert lines[0].startswith("position,") and len(lines) == 13
        assert sum(line.startswith("position,") for line in lines) == 1


def test_given_a_body_over_the_cap_then_413_problem(fraylog: Fraylog) -> None:
    fraylog.settings = dataclasses.replace(fraylog.settings, max_body_bytes=2000)
    with TestClient(create_app(fraylog=fraylog)) as client:
        client.auth = TokenJar()
        eid = new_encounter(client)
        big = {"name": "x" * 50, "stats": novus_stats(), "side": "y" * 3000}
        r = client.post(f"/encounters/{eid}/combatants", json=big)
        assert r.status_code == 413 and r.json()["rule"] == "LIMIT"
        assert r.headers["content-type"] == "application/problem+json"
        chunked = client.post(  # no Content-Length: counted as it arrives
            f"/encounters/{eid}/combatants",
            content=iter([b'{"name": "', b"x" * 3000, b'"}']),
            headers={"Content-Type": "application/json"},
        )
        assert chunked.status_code == 413
        assert client.get(f"/encounters/{eid}").json()["combatants"] == []


def test_given_the_combatant_cap_when_one_more_joins_then_422_limit(fraylog: Fraylog) -> None:
    fraylog.settings = dataclasses.replace(fraylog.settings, max_combatants=2)
    with TestClient(create_app(fraylog=fraylog)) as client:
        client.auth = TokenJar()
        eid = new_encounter(client)
        add_combatant(client, eid, "A", novus_stats())
        add_combatant(client, eid, "B", novus_stats())
        r = client.post(f"/encounters/{eid}/combatants", json={"name": "C", "stats": novus_stats()})
        assert r.status_code == 422 and r.json()["rule"] == "LIMIT"


def test_given_an_unknown_query_parameter_then_422_naming_it(sqlite_client: TestClient) -> None:
    eid = new_encounter(sqlite_client)
    r = sqlite_client.get(f"/encounters/{eid}/events", params={"untill": 3})
    assert r.status_code == 422 and r.json()["rule"] == "QUERY" and r.json()["field"] == "untill"


def test_given_cors_origins_when_a_browser_asks_then_only_those_are_allowed(
    fraylog: Fraylog,
) -> None:
    fraylog.settings = dataclasses.replace(fraylog.settings, cors_origins=("https://gm.example",))
    with TestClient(create_app(fraylog=fraylog)) as client:
        asked = {"Access-Control-Request-Method": "POST"}
        ok = client.options("/encounters", headers={"Origin": "https://gm.example", **asked})
        assert ok.headers["access-control-allow-origin"] == "https://gm.example"
        other = client.options("/encounters", headers={"Origin": "https://evil.example", **asked})
        assert "access-control-allow-origin" not in other.headers


def test_given_open_mode_when_the_server_starts_then_it_says_so(fraylog: Fraylog, caplog) -> None:
    fraylog.settings = dataclasses.replace(fraylog.settings, auth=False)
    with TestClient(create_app(fraylog=fraylog)) as client:
        created = client.post("/encounters", json={"name": "x", "ruleset": "novus"}).json()
        assert created["gm_token"] is None
        assert client.get(f"/encounters/{created['id']}").status_code == 200  # no token
    assert any("OPEN (--no-auth)" in r.getMessage() for r in caplog.records)


def test_given_ten_identical_keyed_requests_at_once_then_one_command_is_recorded(
    client: TestClient,
) -> None:
    """Overlapping requests with one key: one runs; the others answer its result or 409."""
    from concurrent.futures import ThreadPoolExecutor

    eid = new_encounter(client)
    a = add_combatant(client, eid, "A", novus_stats())
    body = {**HIT, "combatant": a}

    def send(_: int) -> int:
        r = client.post(
            f"/encounters/{eid}/commands", json=body, headers={"Idempotency-Key": "race"}
        )
        return r.status_code

    with ThreadPoolExecutor(10) as pool:
        codes = list(pool.map(send, range(10)))
    assert set(codes) <= {200, 409} and 200 in codes
    assert client.get(f"/encounters/{eid}").json()["version"] == 3
