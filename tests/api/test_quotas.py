"""Rate limits (api/quotas.py): encounter creations and mintings per client address and per
credential, commands per credential; a 429 problem+json with Retry-After, nothing recorded."""

from __future__ import annotations

import dataclasses
import uuid

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from api.quotas import Limiter, Rate, client_address, credential, networks
from infra.app import Fraylog
from infra.settings import Settings
from tests.builders import add_combatant, new_encounter
from tests.builders.novus import novus_stats
from tests.tokens import TokenJar

FIGHT = {"name": "Flood", "ruleset": "novus", "dice_source": "manual"}
HIT = {"type": "adjust_hits", "amount": -1}


def _events(fraylog: Fraylog) -> int:
    return fraylog.recorder.max_notification_id() or 0


def _assert_refused(r, limit: str, setting: str) -> None:
    assert r.status_code == 429, r.text
    assert r.headers["content-type"] == "application/problem+json"
    seconds = r.headers["retry-after"]
    assert seconds.isdigit() and int(seconds) >= 1
    body = r.json()
    assert body["title"] == "Too many requests" and body["status"] == 429
    assert body["rule"] == "RATE" and body["limit"] == limit
    assert setting in body["detail"] and f"try again in {seconds} s" in body["detail"]


def test_given_defaults_when_one_address_creates_500_then_cut_and_another_address_served(
    fraylog: Fraylog,
) -> None:
    limit = Settings().rate_create
    burst = Rate.parse(limit).count
    app = create_app(fraylog=fraylog)
    with TestClient(app, client=("203.0.113.7", 40000)) as flood:
        answers = [flood.post("/encounters", json=FIGHT).status_code for _ in range(500)]
        # the first `burst` pass at once, then one every period/burst: 500 cannot all pass
        assert answers[:burst] == [201] * burst
        assert answers.count(429) > 250, answers.count(201)
        assert set(answers) == {201, 429}
        before = _events(fraylog)
        refused = flood.post("/encounters", json=FIGHT)
        _assert_refused(refused, limit, "FRAYLOG_RATE_CREATE")
        assert "from this address" in refused.json()["detail"]
        assert _events(fraylog) == before  # nothing recorded

        other = TestClient(app, client=("198.51.100.9", 40000))
        assert other.post("/encounters", json=FIGHT).status_code == 201


def test_given_a_gm_token_over_its_mint_rate_when_sent_from_elsewhere_then_still_429(
    fraylog: Fraylog,
) -> None:
    fraylog.settings = dataclasses.replace(fraylog.settings, rate_mint="3/minute")
    app = create_app(fraylog=fraylog)
    with TestClient(app, client=("10.0.0.1", 1)) as first:
        first.auth = TokenJar()
        eid = new_encounter(first)
        a = add_combatant(first, eid, "A", novus_stats())
        mint = {"combatants": [a]}
        for _ in range(3):
            assert first.post(f"/encounters/{eid}/tokens", json=mint).status_code == 201
        _assert_refused(first.post(f"/encounters/{eid}/tokens", json=mint), "3/minute", "MINT")

        # the same GM token from elsewhere: its credential's bucket is empty too
        elsewhere = TestClient(app, client=("10.0.0.2", 1))
        elsewhere.auth = first.auth
        refused = elsewhere.post(f"/encounters/{eid}/tokens", json=mint)
        _assert_refused(refused, "3/minute", "FRAYLOG_RATE_MINT")
        assert "with this credential" in refused.json()["detail"]

        # another GM at that other address mints
        other = new_encounter(elsewhere)
        b = add_combatant(elsewhere, other, "B", novus_stats())
        minted = elsewhere.post(f"/encounters/{other}/tokens", json={"combatants": [b]})
        assert minted.status_code == 201
        assert len(fraylog.access.players(eid)) == 3


def test_given_one_address_over_its_mint_rate_when_another_gm_token_is_sent_then_refused_by_address(
    fraylog: Fraylog,
) -> None:
    fraylog.settings = dataclasses.replace(fraylog.settings, rate_mint="2/hour")
    app = create_app(fraylog=fraylog)
    with TestClient(app, client=("10.0.0.3", 1)) as c:
        c.auth = TokenJar()
        first, second = new_encounter(c), new_encounter(c)
        a = add_combatant(c, first, "A", novus_stats())
        b = add_combatant(c, second, "B", novus_stats())
        assert c.post(f"/encounters/{first}/tokens", json={"combatants": [a]}).status_code == 201
        assert c.post(f"/encounters/{first}/tokens", json={"combatants": [a]}).status_code == 201
        refused = c.post(f"/encounters/{second}/tokens", json={"combatants": [b]})
        _assert_refused(refused, "2/hour", "FRAYLOG_RATE_MINT")
        assert "from this address" in refused.json()["detail"]
        assert 1 <= int(refused.headers["retry-after"]) <= 1800
        assert fraylog.access.players(second) == []


def test_given_tickets_and_a_rotation_when_over_the_mint_rate_then_one_count(
    sqlite_client: TestClient,
) -> None:
    fraylog: Fraylog = sqlite_client.app.state.fraylog
    fraylog.settings = dataclasses.replace(fraylog.settings, rate_mint="3/minute")
    eid = new_encounter(sqlite_client)
    assert sqlite_client.post(f"/encounters/{eid}/stream-tickets").status_code == 201
    assert sqlite_client.post(f"/encounters/{eid}/stream-tickets").status_code == 201
    assert sqlite_client.post(f"/encounters/{eid}/tokens/gm/rotate").status_code == 201
    refused = sqlite_client.post(f"/encounters/{eid}/stream-tickets")  # counted before the token
    _assert_refused(refused, "3/minute", "FRAYLOG_RATE_MINT")


def test_given_defaults_when_one_address_opens_accounts_then_ten_an_hour_and_another_served(
    fraylog: Fraylog,
) -> None:
    app = create_app(fraylog=fraylog)
    with (
        TestClient(app, client=("10.0.0.7", 5000)) as flood,
        TestClient(app, client=("10.0.0.8", 5000)) as other,
    ):
        tag = uuid.uuid4().hex[:8]  # this test's accounts (a PostgreSQL schema is shared)
        opened = [flood.post("/accounts", json={"name": f"{tag} {n}"}) for n in range(12)]
        assert [r.status_code for r in opened] == [201] * 10 + [429] * 2
        _assert_refused(opened[-1], "10/hour", "FRAYLOG_RATE_ACCOUNTS")
        assert "from this address" in opened[-1].json()["detail"]
        assert other.post("/accounts", json={"name": "B"}).status_code == 201
        rows = fraylog.accounts.execute(
            f"SELECT COUNT(*) FROM {fraylog.accounts.table('fraylog_accounts')} WHERE name LIKE ?",
            (f"{tag} %",),
        )
        assert rows[0][0] == 10  # a refused request opened nothing


def test_given_a_token_over_its_command_rate_when_one_more_then_429_but_a_player_served(
    client: TestClient,
) -> None:
    fraylog: Fraylog = client.app.state.fraylog
    fraylog.settings = dataclasses.replace(fraylog.settings, rate_commands="2/minute")
    eid = new_encounter(client)
    a = add_combatant(client, eid, "A", novus_stats())  # adding a combatant is one
    player = client.post(f"/encounters/{eid}/tokens", json={"combatants": [a]}).json()["token"]
    body = {**HIT, "combatant": a}
    assert client.post(f"/encounters/{eid}/commands", json=body).status_code == 200
    version = client.get(f"/encounters/{eid}").json()["version"]
    refused = client.post(f"/encounters/{eid}/commands", json=body)
    _assert_refused(refused, "2/minute", "FRAYLOG_RATE_COMMANDS")
    assert "with this credential" in refused.json()["detail"]
    refused = client.post(
        f"/encounters/{eid}/combatants", json={"name": "B", "side": "", "stats": novus_stats()}
    )
    assert refused.status_code == 429
    assert client.get(f"/encounters/{eid}").json()["version"] == version

    mine = {"Authorization": f"Bearer {player}"}
    served = client.post(
        f"/encounters/{eid}/commands", json={"type": "hold", "combatant": a}, headers=mine
    )
    # it reaches the rules (a hold is announced with the declaration), not the limit
    assert served.status_code == 422 and served.json()["rule"] == "NOV-ERRATA-1", served.text


def test_given_an_account_over_its_command_rate_when_it_writes_its_roster_then_429(
    sqlite_client: TestClient,
) -> None:
    fraylog: Fraylog = sqlite_client.app.state.fraylog
    fraylog.settings = dataclasses.replace(fraylog.settings, rate_commands="2/minute")
    key = sqlite_client.post("/accounts", json={"name": "Marta"}).json()["key"]
    mine = {"Authorization": f"Bearer {key}"}
    entry = {"kind": "character", "ruleset": "novus", "name": "Brakka", "stats": novus_stats()}
    saved = sqlite_client.post("/roster", json=entry, headers=mine)
    assert saved.status_code == 201, saved.text
    revise = f"/roster/{saved.json()['id']}/stats"
    revised = sqlite_client.post(revise, json={"stats": novus_stats()}, headers=mine)
    assert revised.status_code == 200, revised.text
    _assert_refused(
        sqlite_client.post("/roster", json=entry, headers=mine), "2/minute", "FRAYLOG_RATE_COMMANDS"
    )
    refused = sqlite_client.post(revise, json={"stats": novus_stats()}, headers=mine)
    assert refused.status_code == 429
    listed = sqlite_client.get("/roster", headers=mine).json()
    assert len(listed["entries"]) == 1  # nothing more was saved


def test_given_a_limit_switched_off_when_over_its_old_rate_then_served(
    sqlite_client: TestClient,
) -> None:
    fraylog: Fraylog = sqlite_client.app.state.fraylog
    fraylog.settings = dataclasses.replace(fraylog.settings, rate_create="1/hour")
    new_encounter(sqlite_client)
    assert sqlite_client.post("/encounters", json=FIGHT).status_code == 429
    for off in ("off", "0"):
        fraylog.settings = dataclasses.replace(fraylog.settings, rate_create=off)
        assert sqlite_client.post("/encounters", json=FIGHT).status_code == 201


def test_given_a_forked_fight_when_forks_go_over_the_creation_rate_then_429(
    sqlite_client: TestClient,
) -> None:
    fraylog: Fraylog = sqlite_client.app.state.fraylog
    fraylog.settings = dataclasses.replace(fraylog.settings, rate_create="1/minute")
    eid = new_encounter(sqlite_client)
    refused = sqlite_client.post(f"/encounters/{eid}/fork", json={"at": 1})
    _assert_refused(refused, "1/minute", "FRAYLOG_RATE_CREATE")


def test_given_cors_when_a_browser_is_refused_for_its_rate_then_it_may_read_retry_after(
    sqlite_client: TestClient,
) -> None:
    fraylog: Fraylog = sqlite_client.app.state.fraylog
    fraylog.settings = dataclasses.replace(
        fraylog.settings, cors_origins=("https://gm.example",), rate_create="1/hour"
    )
    with TestClient(create_app(fraylog=fraylog)) as browser:
        origin = {"Origin": "https://gm.example"}
        assert browser.post("/encounters", json=FIGHT, headers=origin).status_code == 201
        refused = browser.post("/encounters", json=FIGHT, headers=origin)
        assert refused.status_code == 429
        assert refused.headers["access-control-allow-origin"] == "https://gm.example"
        exposed = refused.headers["access-control-expose-headers"].lower()
        assert "retry-after" in exposed.replace(" ", "").split(",")


def test_given_forwarded_addresses_when_the_peer_is_not_a_trusted_proxy_then_the_header_is_ignored(
    fraylog: Fraylog,
) -> None:
    fraylog.settings = dataclasses.replace(fraylog.settings, rate_create="1/hour")
    app = create_app(fraylog=fraylog)
    with TestClient(app, client=("10.0.0.5", 1)) as c:
        spoof = [{"X-Forwarded-For": f"192.0.2.{i}"} for i in range(3)]
        assert c.post("/encounters", json=FIGHT, headers=spoof[0]).status_code == 201
        assert c.post("/encounters", json=FIGHT, headers=spoof[1]).status_code == 429
        # behind a trusted proxy, each forwarded client has its own bucket
        fraylog.settings = dataclasses.replace(fraylog.settings, trusted_proxies=("10.0.0.0/24",))
        assert c.post("/encounters", json=FIGHT, headers=spoof[1]).status_code == 201
        assert c.post("/encounters", json=FIGHT, headers=spoof[2]).status_code == 201
        assert c.post("/encounters", json=FIGHT, headers=spoof[2]).status_code == 429


def _scope(peer: str, forwarded: str | None = None, auth: bytes | None = None) -> dict:
    headers = [(b"x-forwarded-for", forwarded.encode())] if forwarded else []
    if auth:
        headers.append((b"authorization", auth))
    return {"type": "http", "client": (peer, 1), "headers": headers}


def test_given_proxies_when_the_client_address_is_taken_then_the_last_untrusted_hop_counts() -> (
    None
):
    trusted = networks(["10.0.0.0/8", "::1"])
    hops = "198.51.100.1, 203.0.113.9, 10.1.2.3"
    assert client_address(_scope("10.0.0.1", hops), trusted) == "203.0.113.9"
    assert client_address(_scope("::1", "203.0.113.9"), trusted) == "203.0.113.9"
    assert client_address(_scope("192.0.2.1", hops), trusted) == "192.0.2.1"  # not a proxy
    assert client_address(_scope("10.0.0.1", "10.0.0.2, 10.0.0.3"), trusted) == "10.0.0.2"
    assert client_address(_scope("10.0.0.1"), trusted) == "10.0.0.1"
    assert client_address(_scope("10.0.0.1", hops), ()) == "10.0.0.1"  # none trusted


def test_given_an_authorization_header_when_keyed_then_only_its_hash_is_kept() -> None:
    key = credential(_scope("x", auth=b"Bearer fl_gm_secret"))
    assert key is not None and len(key) == 32 and b"secret" not in key
    assert credential(_scope("x", auth=b"bearer fl_gm_secret")) == key
    assert credential(_scope("x", auth=b"Basic abc")) is None
    assert credential(_scope("x")) is None


def test_given_30_a_minute_when_31_come_at_once_then_the_31st_waits_2_seconds() -> None:
    rate, limiter = Rate.parse("30/minute"), Limiter()
    assert rate is not None
    for _ in range(30):
        assert limiter.wait(rate, "a", 0.0) == 0
        limiter.take(rate, "a", 0.0)
    assert limiter.wait(rate, "a", 0.0) == pytest.approx(2.0)
    assert limiter.wait(rate, "b", 0.0) == 0  # another key
    assert limiter.wait(rate, "a", 2.0) == 0  # one more after 60/30 s
    limiter.take(rate, "a", 2.0)
    assert limiter.wait(rate, "a", 2.0) == pytest.approx(2.0)


def test_given_a_flood_of_distinct_keys_when_counted_then_the_map_stays_bounded() -> None:
    rate, limiter = Rate.parse("5/second"), Limiter(max_keys=100)
    assert rate is not None
    for i in range(10_000):
        limiter.take(rate, f"203.0.{i // 256}.{i % 256}", 0.0)
    assert len(limiter.full_at) == 100
    # keys whose bucket is full again are dropped as soon as another comes
    limiter.take(rate, "late", 10.0)
    assert list(limiter.full_at) == ["late"]


@pytest.mark.parametrize("text", ["30/minute", "1/second", "5000/hour", "OFF", "0", "0/minute"])
def test_given_a_rate_setting_when_parsed_then_accepted(text: str) -> None:
    Settings(rate_create=text, rate_mint=text, rate_commands=text)
    rate = Rate.parse(text)
    assert rate is None or rate.text == text.lower()


@pytest.mark.parametrize("text", ["30 per minute", "30/day", "-1/second", "", "1.5/second"])
def test_given_a_bad_rate_setting_when_the_settings_are_made_then_refused_naming_it(
    text: str,
) -> None:
    with pytest.raises(ValueError, match="FRAYLOG_RATE_COMMANDS"):
        Settings(rate_commands=text)


def test_given_rate_and_proxy_settings_in_the_environment_then_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FRAYLOG_RATE_CREATE", "5/hour")
    monkeypatch.setenv("FRAYLOG_RATE_MINT", "off")
    monkeypatch.setenv("FRAYLOG_RATE_COMMANDS", "10/second")
    monkeypatch.setenv("FRAYLOG_TRUSTED_PROXIES", "10.0.0.1, fd00::/8")
    s = Settings.from_env()
    assert (s.rate_create, s.rate_mint, s.rate_commands) == ("5/hour", "off", "10/second")
    assert s.trusted_proxies == ("10.0.0.1", "fd00::/8")
    monkeypatch.setenv("FRAYLOG_TRUSTED_PROXIES", "proxy.example")
    with pytest.raises(ValueError, match="FRAYLOG_TRUSTED_PROXIES"):
        Settings.from_env()


def test_given_the_openapi_then_each_limited_operation_documents_its_429_and_retry_after(
    sqlite_client: TestClient,
) -> None:
    spec = sqlite_client.get("/openapi.json").json()
    paths = spec["paths"]
    for path in (
        "/encounters",
        "/encounters/{encounter_id}/fork",
        "/encounters/{encounter_id}/tokens",
        "/encounters/{encounter_id}/commands",
        "/encounters/{encounter_id}/combatants",
    ):
        refused = paths[path]["post"]["responses"]["429"]
        assert list(refused["content"]) == ["application/problem+json"], path
        assert refused["headers"]["Retry-After"]["schema"]["type"] == "integer"
    for path in (
        "/accounts",
        "/encounters/{encounter_id}/stream-tickets",
        "/encounters/{encounter_id}/tokens/gm/rotate",
    ):
        assert path not in paths or "429" in paths[path]["post"]["responses"], path
    assert "429" not in paths["/encounters/{encounter_id}"]["get"]["responses"]
    assert "429" not in paths["/encounters/{encounter_id}/checkpoints"]["post"]["responses"]
    assert "limit" in spec["components"]["schemas"]["Problem"]["properties"]
