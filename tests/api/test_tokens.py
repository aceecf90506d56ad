"""Tokens (issue 18, item 3), on SQLite and PostgreSQL: the GM token rotated (the old one
stops at once) and any token revoked but the last GM token; expiry; paginated lists; the cap
per encounter; stream tickets, single-use and short-lived, in place of `?access_token=`; and
no token or ticket in a real `fraylog serve`'s access log."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import threading
import time
import uuid
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from fastapi.testclient import TestClient

from api.access_log import redact
from api.main import create_app
from infra.access import AccessStore
from infra.app import Fraylog
from infra.settings import Settings
from infra.sidetables import SideTables
from tests.api.test_stream import follow
from tests.builders import add_combatant, free_port, new_encounter
from tests.builders.novus import novus_stats
from tests.builders.served import fraylog_serving

ROOT = Path(__file__).resolve().parents[2]
YEAR = 365 * 24 * 3600


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def get(client: TestClient, url: str, token: str, **kw: Any) -> httpx.Response:
    """A request with exactly this token, not the key ring's."""
    return client.get(url, headers=bearer(token), auth=None, **kw)


def later(fraylog: Fraylog, seconds: float) -> None:
    """The access store's clock moved `seconds` on: what expires meanwhile has expired."""
    fraylog.access.clock = lambda: time.time() + seconds


@pytest.fixture
def fight(client: TestClient) -> dict[str, str]:
    eid = new_encounter(client)
    hero = add_combatant(client, eid, "Hero", novus_stats())
    return {"eid": eid, "hero": hero, "gm": client.auth.tokens[eid]}


def _mint(client: TestClient, eid: str, **body: Any) -> dict[str, Any]:
    r = client.post(f"/encounters/{eid}/tokens", json=body)
    assert r.status_code == 201, r.text
    return r.json()


# -- rotating and revoking -------------------------------------------------------------


def test_given_the_gm_token_when_rotated_then_the_old_one_opens_nothing_at_once(
    client: TestClient, fight: dict[str, str]
) -> None:
    eid, old = fight["eid"], fight["gm"]
    assert get(client, f"/encounters/{eid}", old).status_code == 200  # now in the grant cache
    r = client.post(f"/encounters/{eid}/tokens/gm/rotate", headers=bearer(old), auth=None)
    assert r.status_code == 201, r.text
    new = r.json()
    assert new["token"].startswith("fl_gm_") and new["token"] != old
    assert new["id"] == hashlib.sha256(new["token"].encode()).hexdigest()[:16]
    assert new["role"] == "gm" and new["expires_at"] is None
    assert get(client, f"/encounters/{eid}", old).json()["rule"] == "ENCOUNTER"  # 404 at once
    assert get(client, f"/encounters/{eid}", new["token"]).status_code == 200
    listed = get(client, f"/encounters/{eid}/tokens", new["token"]).json()["tokens"]
    assert [(t["id"], t["role"]) for t in listed] == [(new["id"], "gm")]


def test_given_a_rotation_with_expires_in_then_the_new_token_says_when_it_stops(
    client: TestClient, fight: dict[str, str]
) -> None:
    url = f"/encounters/{fight['eid']}/tokens/gm/rotate"
    r = client.post(url, json={"expires_in": 3600}, headers=bearer(fight["gm"]), auth=None)
    assert r.status_code == 201, r.text
    left = datetime.fromisoformat(r.json()["expires_at"]).timestamp() - time.time()
    assert 3500 < left <= 3600
    listed = get(client, f"/encounters/{fight['eid']}/tokens", r.json()["token"]).json()
    assert listed["tokens"][0]["expires_at"] == r.json()["expires_at"]


def test_given_open_mode_when_rotating_then_422_as_there_is_no_gm_token(tmp_path: Path) -> None:
    with TestClient(create_app(Settings(sqlite_path=str(tmp_path / "o.db"), auth=False))) as c:
        eid = new_encounter(c)
        r = c.post(f"/encounters/{eid}/tokens/gm/rotate")
        assert (r.status_code, r.json()["rule"], r.json()["field"]) == (
            422,
            "TOKEN",
            "Authorization",
        )


def test_given_a_player_when_he_rotates_or_mints_a_gm_token_then_403(
    client: TestClient, fight: dict[str, str]
) -> None:
    eid = fight["eid"]
    player = _mint(client, eid, combatants=[fight["hero"]])["token"]
    for url, body in [
        (f"/encounters/{eid}/tokens/gm/rotate", None),
        (f"/encounters/{eid}/tokens", {"role": "gm"}),
    ]:
        r = client.post(url, json=body, headers=bearer(player), auth=None)
        assert (r.status_code, r.json()["rule"]) == (403, "ROLE")
    assert get(client, f"/encounters/{eid}", fight["gm"]).status_code == 200


def test_given_the_only_gm_token_when_revoked_then_409_and_it_still_opens(
    client: TestClient, fight: dict[str, str]
) -> None:
    eid, gm = fight["eid"], fight["gm"]
    gm_id = hashlib.sha256(gm.encode()).hexdigest()[:16]
    r = client.delete(f"/encounters/{eid}/tokens/{gm_id}")
    assert r.status_code == 409, r.text
    assert (r.json()["rule"], r.json()["field"]) == ("TOKEN", "token_id")
    assert "rotate" in r.json()["detail"]
    assert get(client, f"/encounters/{eid}", gm).status_code == 200


def test_given_a_second_gm_token_when_the_first_is_revoked_then_only_the_second_opens(
    client: TestClient, fight: dict[str, str]
) -> None:
    eid, first = fight["eid"], fight["gm"]
    second = _mint(client, eid, role="gm", label="co-GM")
    assert (second["role"], second["combatants"], second["label"]) == ("gm", [], "co-GM")
    first_id = hashlib.sha256(first.encode()).hexdigest()[:16]
    r = client.delete(f"/encounters/{eid}/tokens/{first_id}", headers=bearer(second["token"]))
    assert r.status_code == 204, r.text
    assert get(client, f"/encounters/{eid}", first).status_code == 404
    assert get(client, f"/encounters/{eid}", second["token"]).status_code == 200
    # now the second is the last one
    last = client.delete(
        f"/encounters/{eid}/tokens/{second['id']}", headers=bearer(second["token"]), auth=None
    )
    assert last.status_code == 409


def test_given_an_expiring_gm_token_when_it_mints_or_rotates_then_never_beyond_its_own_end(
    client: TestClient, fraylog: Fraylog, fight: dict[str, str]
) -> None:
    # given a co-GM whose token stops in 10 minutes
    eid = fight["eid"]
    co_gm = _mint(client, eid, role="gm", label="co-GM", expires_in=600)
    ends = datetime.fromisoformat(co_gm["expires_at"])
    mine = bearer(co_gm["token"])
    # when he mints a GM token, and a player's, asking for none or a longer expiry
    made = [
        client.post(f"/encounters/{eid}/tokens", json=body, headers=mine, auth=None)
        for body in (
            {"role": "gm"},
            {"role": "gm", "expires_in": 86_400},
            {"combatants": [fight["hero"]], "expires_in": 86_400},
        )
    ]
    rotated = client.post(f"/encounters/{eid}/tokens/gm/rotate", headers=mine, auth=None)
    # then each stops no later than his own token
    for r in (*made, rotated):
        assert r.status_code == 201, r.text
        assert r.json()["expires_at"] is not None
        assert datetime.fromisoformat(r.json()["expires_at"]) <= ends
    later(fraylog, 601)
    for r in (*made, rotated):
        assert get(client, f"/encounters/{eid}", r.json()["token"]).status_code == 404
    assert get(client, f"/encounters/{eid}", fight["gm"]).status_code == 200  # his own, lasting


def test_given_an_expiring_gm_token_when_it_revokes_the_lasting_one_then_409(
    client: TestClient, fight: dict[str, str]
) -> None:
    eid, gm = fight["eid"], fight["gm"]
    co_gm = _mint(client, eid, role="gm", expires_in=60)
    gm_id = hashlib.sha256(gm.encode()).hexdigest()[:16]
    r = client.delete(f"/encounters/{eid}/tokens/{gm_id}", headers=bearer(co_gm["token"]))
    assert r.status_code == 409, r.text  # in a minute nobody would be the GM
    assert "does not expire" in r.json()["detail"]
    assert get(client, f"/encounters/{eid}", gm).status_code == 200
    # the expiring one may go: the lasting one stays
    gone = client.delete(f"/encounters/{eid}/tokens/{co_gm['id']}", headers=bearer(gm), auth=None)
    assert gone.status_code == 204, gone.text


def test_given_a_gm_token_with_combatants_or_a_player_token_without_then_422(
    client: TestClient, fight: dict[str, str]
) -> None:
    url = f"/encounters/{fight['eid']}/tokens"
    for body in ({"role": "gm", "combatants": [fight["hero"]]}, {"label": "nobody"}):
        r = client.post(url, json=body)
        assert (r.status_code, r.json()["rule"], r.json()["field"]) == (
            422,
            "COMBATANT",
            "combatants",
        )


def test_given_an_id_no_token_has_when_revoking_then_422_and_nothing_revoked(
    client: TestClient, fight: dict[str, str]
) -> None:
    r = client.delete(f"/encounters/{fight['eid']}/tokens/0000000000000000")
    assert (r.status_code, r.json()["rule"]) == (422, "TOKEN")


MATRIX = [  # expected status per caller: none, another encounter's GM, the player, the GM
    ("POST", "/encounters/{eid}/stream-tickets", (404, 404, 201, 201)),
    ("GET", "/encounters/{eid}/tokens?limit=1", (404, 404, 403, 200)),
    ("POST", "/encounters/{eid}/tokens/gm/rotate", (404, 404, 403, 201)),
]


@pytest.mark.parametrize(("method", "url", "expected"), MATRIX)
def test_given_each_caller_when_calling_a_token_route_then_the_matrix_status(
    client: TestClient, fight: dict[str, str], method: str, url: str, expected: tuple
) -> None:
    eid = fight["eid"]
    other = client.auth.tokens[new_encounter(client)]
    player = _mint(client, eid, combatants=[fight["hero"]])["token"]
    got = []
    for token in (None, other, player, fight["gm"]):
        headers = bearer(token) if token else {}
        r = client.request(method, url.format(eid=eid), headers=headers, auth=None)
        got.append(r.status_code)
    assert tuple(got) == expected


# -- expiry ---------------------------------------------------------------------------------


@pytest.mark.parametrize("expires_in", [59, YEAR + 1, "600", 600.0, True])
def test_given_an_expires_in_out_of_range_or_not_an_integer_then_422_naming_it(
    client: TestClient, fight: dict[str, str], expires_in: Any
) -> None:
    body = {"combatants": [fight["hero"]], "expires_in": expires_in}
    r = client.post(f"/encounters/{fight['eid']}/tokens", json=body)
    assert r.status_code == 422, r.text
    assert r.json()["field"].endswith("expires_in")
    listed = client.get(f"/encounters/{fight['eid']}/tokens").json()["tokens"]
    assert [t["role"] for t in listed] == ["gm"]  # nothing minted


def test_given_a_token_past_its_expiry_then_it_opens_nothing_like_an_unknown_one(
    client: TestClient, fraylog: Fraylog, fight: dict[str, str]
) -> None:
    eid = fight["eid"]
    minted = _mint(client, eid, combatants=[fight["hero"]], expires_in=60)
    assert minted["expires_at"] is not None
    assert get(client, f"/encounters/{eid}", minted["token"]).status_code == 200  # cached
    later(fraylog, 59)
    assert get(client, f"/encounters/{eid}", minted["token"]).status_code == 200
    later(fraylog, 61)
    expired = get(client, f"/encounters/{eid}", minted["token"])
    unknown = get(client, f"/encounters/{eid}", "fl_player_" + "x" * 43)
    assert expired.status_code == unknown.status_code == 404
    assert expired.json() == unknown.json()
    listed = client.get(f"/encounters/{eid}/tokens").json()["tokens"]
    assert minted["id"] not in [t["id"] for t in listed]  # an expired token is not listed


def test_given_a_tokens_table_from_before_expiry_when_the_store_opens_then_old_tokens_work(
    settings: Settings, tmp_path: Path
) -> None:
    """The column is added to a table made by an older fraylog (ALTER TABLE, guarded)."""
    if settings.backend == "postgres":
        settings = dataclasses.replace(settings, postgres_schema=f"old_{uuid.uuid4().hex[:10]}")
    else:
        settings = dataclasses.replace(settings, sqlite_path=str(tmp_path / "old.db"))
    old = SideTables(settings)
    if settings.backend == "postgres":
        old.execute(f'CREATE SCHEMA "{settings.postgres_schema}"')
    table = old.table("fraylog_tokens")
    old.execute(
        f"CREATE TABLE {table} (token_hash TEXT PRIMARY KEY, encounter_id TEXT NOT NULL, "
        "role TEXT NOT NULL, combatants TEXT NOT NULL, label TEXT NOT NULL, "
        "created_at TEXT NOT NULL)"
    )
    token, eid = "fl_gm_" + "o" * 43, uuid.uuid4()
    old.execute(
        f"INSERT INTO {table} VALUES (?, ?, 'gm', '[]', 'GM', '2026-01-01T00:00:00+00:00')",
        (hashlib.sha256(token.encode()).hexdigest(), str(eid)),
    )
    try:
        for _ in range(2):  # and a second time, the column being there
            store = AccessStore(settings)
            grant = store.grant(token)
            assert grant is not None and grant.expires_at is None and grant.is_gm
            assert [(t["label"], t["expires_at"]) for t in store.tokens(eid, 10)] == [("GM", None)]
            store.close()
    finally:
        if settings.backend == "postgres":
            old.execute(f'DROP SCHEMA "{settings.postgres_schema}" CASCADE')
        old.close()


# -- lists and the cap ------------------------------------------------------------------------


def test_given_more_tokens_than_a_page_when_following_next_then_each_token_once_oldest_first(
    client: TestClient, fight: dict[str, str]
) -> None:
    eid = fight["eid"]
    minted = [_mint(client, eid, combatants=[fight["hero"]], label=f"P{i}") for i in range(4)]
    ids, after, pages = [], None, 0
    while True:
        params: dict[str, Any] = {"limit": 2} | ({"after": after} if after else {})
        page = client.get(f"/encounters/{eid}/tokens", params=params).json()
        assert len(page["tokens"]) <= 2 and all("token" not in t for t in page["tokens"])
        ids += [t["id"] for t in page["tokens"]]
        pages += 1
        after = page["next"]
        if after is None:
            break
    gm_id = hashlib.sha256(fight["gm"].encode()).hexdigest()[:16]
    assert ids == [gm_id, *[m["id"] for m in minted]] and pages == 3
    first = client.get(f"/encounters/{eid}/tokens").json()["tokens"][0]
    assert set(first) == {"id", "role", "combatants", "label", "created_at", "expires_at"}
    assert (first["role"], first["label"]) == ("gm", "GM")


@pytest.mark.parametrize("after", ["nonsense", "MjAyNnxub3QgYW4gaWQ", "=="])
def test_given_a_cursor_not_from_a_page_then_422_naming_after(
    client: TestClient, fight: dict[str, str], after: str
) -> None:
    r = client.get(f"/encounters/{fight['eid']}/tokens", params={"after": after})
    assert (r.status_code, r.json()["rule"], r.json()["field"]) == (422, "QUERY", "after")


def test_given_the_cap_when_minting_one_more_then_422_limit_naming_the_setting(
    client: TestClient, fraylog: Fraylog, fight: dict[str, str]
) -> None:
    fraylog.access.settings = dataclasses.replace(
        fraylog.access.settings, max_tokens_per_encounter=3
    )
    eid, body = fight["eid"], {"combatants": [fight["hero"]]}
    spare = _mint(client, eid, **body)
    _mint(client, eid, **body, expires_in=60)  # the GM's, these two: 3
    r = client.post(f"/encounters/{eid}/tokens", json=body)
    assert (r.status_code, r.json()["rule"]) == (422, "LIMIT")
    assert "FRAYLOG_MAX_TOKENS_PER_ENCOUNTER" in r.json()["detail"]
    assert len(client.get(f"/encounters/{eid}/tokens").json()["tokens"]) == 3
    # a rotation replaces a token: it takes no place
    rotated = client.post(f"/encounters/{eid}/tokens/gm/rotate")
    assert rotated.status_code == 201
    client.auth.tokens[eid] = rotated.json()["token"]
    later(fraylog, 61)  # an expired token takes no place either
    _mint(client, eid, **body)
    assert client.post(f"/encounters/{eid}/tokens", json=body).json()["rule"] == "LIMIT"
    assert client.delete(f"/encounters/{eid}/tokens/{spare['id']}").status_code == 204
    _mint(client, eid, **body)


# -- stream tickets -------------------------------------------------------------------------


@pytest.fixture
def server(fraylog: Fraylog) -> Iterator[str]:
    fraylog.settings = dataclasses.replace(fraylog.settings, heartbeat_seconds=0.2)
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


def _first_event(url: str) -> list[dict]:
    got: list[dict] = []
    follow(url, {}, got, 1, [])
    return got


def _status(url: str) -> httpx.Response:
    return httpx.get(url, timeout=10)


@pytest.fixture
def live(server: str) -> dict[str, Any]:
    http = httpx.Client(base_url=server, timeout=10)
    created = http.post("/encounters", json={"name": "Live", "ruleset": "novus"}).json()
    return {"http": http, "eid": created["id"], "gm": bearer(created["gm_token"])}


def test_given_a_ticket_then_it_opens_the_stream_once(server: str, live: dict) -> None:
    http, eid = live["http"], live["eid"]
    r = http.post(f"/encounters/{eid}/stream-tickets", headers=live["gm"])
    assert r.status_code == 201, r.text
    assert r.json()["expires_in"] == 60 and r.json()["ticket"].startswith("fl_ticket_")
    url = f"{server}/encounters/{eid}/stream?ticket={r.json()['ticket']}"
    assert _first_event(url)[0]["data"]["type"] == "EncounterCreated"
    again = _status(url)
    assert (again.status_code, again.json()["rule"]) == (404, "ENCOUNTER")


def test_given_an_account_key_when_it_takes_a_ticket_then_the_stream_runs(
    server: str, live: dict
) -> None:
    http = live["http"]
    key = bearer(http.post("/accounts", json={"name": "Marta"}).json()["key"])
    eid = http.post("/encounters", json={"name": "Mine", "ruleset": "novus"}, headers=key).json()[
        "id"
    ]
    r = http.post(f"/encounters/{eid}/stream-tickets", headers=key)
    assert r.status_code == 201, r.text
    got: list[dict] = []
    follow(f"{server}/encounters/{eid}/stream?ticket={r.json()['ticket']}", {}, got, 1, [])
    assert got[0]["data"]["type"] == "EncounterCreated"


def test_given_a_ticket_past_60_seconds_or_of_another_encounter_then_404(
    server: str, live: dict, fraylog: Fraylog
) -> None:
    http, eid = live["http"], live["eid"]
    other = http.post("/encounters", json={"name": "Other", "ruleset": "novus"}).json()
    stale = http.post(f"/encounters/{eid}/stream-tickets", headers=live["gm"]).json()["ticket"]
    kept = http.post(f"/encounters/{eid}/stream-tickets", headers=live["gm"]).json()["ticket"]
    assert _status(f"{server}/encounters/{other['id']}/stream?ticket={kept}").status_code == 404
    later(fraylog, 61)
    assert _status(f"{server}/encounters/{eid}/stream?ticket={stale}").status_code == 404
    later(fraylog, 0)
    assert _first_event(f"{server}/encounters/{eid}/stream?ticket={kept}")  # not taken above


def test_given_a_ticket_whose_token_was_revoked_then_404(server: str, live: dict) -> None:
    http, eid, gm = live["http"], live["eid"], live["gm"]
    hero = http.post(
        f"/encounters/{eid}/combatants", json={"name": "H", "stats": novus_stats()}, headers=gm
    ).json()["id"]
    player = http.post(f"/encounters/{eid}/tokens", json={"combatants": [hero]}, headers=gm)
    ticket = http.post(
        f"/encounters/{eid}/stream-tickets", headers=bearer(player.json()["token"])
    ).json()["ticket"]
    assert http.delete(f"/encounters/{eid}/tokens/{player.json()['id']}", headers=gm).is_success
    assert _status(f"{server}/encounters/{eid}/stream?ticket={ticket}").status_code == 404


def test_given_a_ticket_minted_by_another_worker_then_it_opens_the_stream_here(
    server: str, live: dict, fraylog: Fraylog
) -> None:
    """Tickets are kept in the store, not in one process's memory."""
    with TestClient(create_app(fraylog=Fraylog(fraylog.settings))) as elsewhere:
        r = elsewhere.post(f"/encounters/{live['eid']}/stream-tickets", headers=live["gm"])
        assert r.status_code == 201, r.text
    url = f"{server}/encounters/{live['eid']}/stream?ticket={r.json()['ticket']}"
    assert _first_event(url)[0]["id"] == "1"


def test_given_access_token_in_the_query_then_422_naming_it_and_pointing_to_tickets(
    client: TestClient, fight: dict[str, str]
) -> None:
    for auth in ({}, bearer(fight["gm"])):
        r = client.get(
            f"/encounters/{fight['eid']}/stream",
            params={"access_token": fight["gm"]},
            headers=auth,
            auth=None,
        )
        assert (r.status_code, r.json()["rule"], r.json()["field"]) == (
            422,
            "QUERY",
            "access_token",
        )
        assert "stream-tickets" in r.json()["detail"] and fight["gm"] not in r.text


def test_given_no_token_when_asking_for_a_ticket_then_404(
    client: TestClient, fight: dict[str, str]
) -> None:
    r = client.post(f"/encounters/{fight['eid']}/stream-tickets", auth=None)
    assert (r.status_code, r.json()["rule"]) == (404, "ENCOUNTER")


# -- access logs ------------------------------------------------------------------------------


def test_given_secrets_in_a_log_line_then_each_is_redacted_and_the_rest_kept() -> None:
    token = "fl_gm_" + "A1b-_" * 9
    line = (
        f'127.0.0.1:5 - "GET /encounters/e/stream?after=3&ticket=fl_ticket_x&view=true&'
        f'access_token=short&Token=t&x={token.replace("_", "%5F")} HTTP/1.1" 422 {token}'
    )
    clean = redact(line)
    assert "fl_" not in clean and "short" not in clean and "=t&" not in clean
    assert "after=3&ticket=[redacted]&view=true&access_token=[redacted]" in clean
    assert clean.endswith('HTTP/1.1" 422 [redacted]')


def test_given_a_line_with_no_query_then_a_token_in_its_path_is_redacted_and_others_kept() -> None:
    token = "fl_player_" + "A1b-_" * 9
    assert redact(f'"GET /encounters/{token}/log HTTP/1.1" 404') == (
        '"GET /encounters/[redacted]/log HTTP/1.1" 404'
    )
    plain = '127.0.0.1:5 - "GET /encounters/3f2a9c1e-0b6d-4c1e-9a43-5d1e2f3a4b5c/log HTTP/1.1" 200'
    assert redact(plain) == plain


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A real `fraylog serve` (SQLite, in tmp_path), its output (uvicorn's logs) in a file."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("FRAYLOG_")}
    with fraylog_serving(tmp_path, env | {"PYTHONPATH": str(ROOT)}) as server:
        yield server.url, server.log


def test_given_every_documented_flow_then_the_access_log_holds_no_token_or_ticket(
    served: tuple[str, Path],
) -> None:
    url, log = served
    http = httpx.Client(base_url=url, timeout=10)
    created = http.post("/encounters", json={"name": "Logged", "ruleset": "novus"}).json()
    eid, gm = created["id"], bearer(created["gm_token"])
    secrets = [created["gm_token"]]
    hero = http.post(
        f"/encounters/{eid}/combatants", json={"name": "H", "stats": novus_stats()}, headers=gm
    ).json()["id"]
    player = http.post(f"/encounters/{eid}/tokens", json={"combatants": [hero]}, headers=gm)
    secrets.append(player.json()["token"])
    rotated = http.post(f"/encounters/{eid}/tokens/gm/rotate", headers=gm).json()["token"]
    gm = bearer(rotated)
    secrets.append(rotated)
    for holder in (gm, bearer(player.json()["token"])):
        ticket = http.post(f"/encounters/{eid}/stream-tickets", headers=holder).json()["ticket"]
        secrets.append(ticket)
        assert _first_event(f"{url}/encounters/{eid}/stream?ticket={ticket}&view=true")
        assert _status(f"{url}/encounters/{eid}/stream?ticket={ticket}").status_code == 404
    # sent anyway where they do not belong: refused, and still not logged
    assert _status(f"{url}/encounters/{eid}/stream?access_token={rotated}").status_code == 422
    assert _status(f"{url}/encounters/{eid}?token={rotated}").status_code == 422
    assert _status(f"{url}/encounters/{rotated}").status_code in (404, 422)
    assert http.get(f"/encounters/{eid}/tokens", headers=gm).status_code == 200
    assert http.delete(f"/encounters/{eid}/tokens/{player.json()['id']}", headers=gm).is_success
    deadline = time.monotonic() + 10
    while "DELETE /encounters" not in log.read_text() and time.monotonic() < deadline:
        time.sleep(0.1)  # the access log is written after each answer
    text = log.read_text()
    assert f'"POST /encounters/{eid}/stream-tickets HTTP/1.1" 201' in text  # it is the log
    assert "ticket=[redacted]" in text and "access_token=[redacted]" in text
    leaked = [s for s in secrets if s in text or s.split("_", 2)[2] in text]
    assert not leaked, f"{len(leaked)} secrets in the access log"
    assert not re.search(r"fl_[a-z]+_[A-Za-z0-9_-]{20,}", text)
