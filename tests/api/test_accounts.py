"""GM accounts (issue 18, item 1): an account key owns the encounters made with it, lists
them from the read model (paged, filtered, newest activity first, with the read models' lag)
and is their GM; another account's key sees nothing of them; encounter tokens keep working.
On SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from infra.app import Fraylog
from infra.read_models import catch_up
from infra.settings import Settings
from tests.builders import add_combatant
from tests.builders.novus import novus_stats
from tests.tokens import TokenJar


def open_account(client: TestClient, name: str = "Marta") -> dict[str, str]:
    r = client.post("/accounts", json={"name": name})
    assert r.status_code == 201, r.text
    assert r.json()["key"].startswith("fl_account_")
    return {"Authorization": f"Bearer {r.json()['key']}"}


def fight(client: TestClient, key: dict[str, str], name: str, ruleset: str = "novus") -> str:
    r = client.post(
        "/encounters",
        json={"name": name, "ruleset": ruleset, "dice_source": "manual"},
        headers=key,
    )
    assert r.status_code == 201, r.text
    return r.json()["id"]


def listed(client: TestClient, key: dict[str, str], query: str = "") -> dict[str, Any]:
    r = client.get(f"/encounters{query}", headers=key, auth=None)
    assert r.status_code == 200, r.text
    return r.json()


def names(page: dict[str, Any]) -> list[str]:
    return [e["name"] for e in page["encounters"]]


def test_given_an_account_when_opened_then_its_key_is_shown_once_and_kept_hashed(
    client: TestClient, fraylog: Fraylog
) -> None:
    r = client.post("/accounts", json={"name": "Marta"})
    key = r.json()["key"]
    rows = fraylog.accounts.execute(
        f"SELECT key_hash FROM {fraylog.accounts.table('fraylog_accounts')}"
    )
    assert all(key not in row[0] for row in rows)
    me = client.get("/accounts/me", headers={"Authorization": f"Bearer {key}"}, auth=None)
    assert me.status_code == 200
    assert "key" not in me.json()
    assert me.json() | {"created_at": None} == {
        "id": r.json()["id"],
        "name": "Marta",
        "created_at": None,
        "encounters": 0,
        "max_encounters": fraylog.settings.max_encounters_per_account,
    }


def test_given_three_fights_when_the_account_lists_them_then_newest_activity_first_with_lag(
    client: TestClient, settings: Settings
) -> None:
    key = open_account(client)
    first, _, _ = (fight(client, key, n) for n in ("Bridge", "Crypt", "Tower"))
    # before the read models ran: listed by creation, the lag says what they miss
    before = listed(client, key)
    assert names(before) == ["Tower", "Crypt", "Bridge"]
    view = client.get(f"/encounters/{first}", headers=key, auth=None).json()
    assert before["encounters"][-1]["created_at"] == view["created_at"]  # its first event's
    assert before["read_models"]["behind"] > 0
    assert before["encounters"][0]["events"] is None
    # given the first fight is played on, when the read models catch up
    add_combatant(client, first, "Brakka", novus_stats(), side="party")
    catch_up(settings)
    after = listed(client, key)
    assert names(after) == ["Bridge", "Tower", "Crypt"]  # the latest activity first
    assert after["read_models"]["behind"] == 0
    assert after["read_models"]["projected"] == after["read_models"]["latest"]
    bridge = after["encounters"][0]
    assert (bridge["status"], bridge["events"], bridge["combatants_up"]) == ("active", 2, 1)


def test_given_many_fights_when_paged_then_every_one_once_in_order(client: TestClient) -> None:
    key = open_account(client)
    made = [fight(client, key, f"Fight {n}") for n in range(7)]
    seen, query = [], "?limit=3"
    while True:
        page = listed(client, key, query)
        assert len(page["encounters"]) <= 3
        seen += [e["id"] for e in page["encounters"]]
        if page["next"] is None:
            break
        query = f"?limit=3&after={page['next']}"
    assert seen == made[::-1]


def test_given_fights_when_filtered_then_by_rule_book_status_and_name(
    client: TestClient, settings: Settings
) -> None:
    key = open_account(client)
    fight(client, key, "Goblin ambush")
    wits = fight(client, key, "Rooftop chase", ruleset="wits")
    ended = fight(client, key, "GOBLIN king")
    r = client.post(f"/encounters/{ended}/commands", json={"type": "end_encounter"})
    assert r.status_code == 200, r.text
    catch_up(settings)
    assert [e["id"] for e in listed(client, key, "?ruleset=wits")["encounters"]] == [wits]
    assert names(listed(client, key, "?status=ended")) == ["GOBLIN king"]
    assert names(listed(client, key, "?status=active")) == ["Rooftop chase", "Goblin ambush"]
    assert names(listed(client, key, "?name=goblin")) == ["GOBLIN king", "Goblin ambush"]
    assert names(listed(client, key, "?name=goblin&status=active")) == ["Goblin ambush"]
    assert names(listed(client, key, "?name=%25")) == []  # a % is a letter, not a wildcard
    fight(client, key, "ÉLAN of the Ölmeister")
    assert names(listed(client, key, "?name=élan")) == ["ÉLAN of the Ölmeister"]  # any script
    assert names(listed(client, key, "?name=ÖLM")) == ["ÉLAN of the Ölmeister"]


@pytest.mark.parametrize(
    ("query", "field"),
    [("?ruleset=chess", "ruleset"), ("?status=paused", "status"), ("?after=nope", "after")],
)
def test_given_a_bad_filter_when_listing_then_422_naming_it(
    client: TestClient, query: str, field: str
) -> None:
    key = open_account(client)
    r = client.get(f"/encounters{query}", headers=key, auth=None)
    assert r.status_code == 422, r.text
    assert r.headers["content-type"] == "application/problem+json"
    assert field in r.text


def test_given_another_account_then_it_sees_nothing_of_this_one(client: TestClient) -> None:
    mine, theirs = open_account(client, "Marta"), open_account(client, "Olaf")
    eid = fight(client, mine, "Bridge")
    assert listed(client, theirs)["encounters"] == []
    for method, url in (
        ("GET", f"/encounters/{eid}"),
        ("GET", f"/encounters/{eid}/events"),
        ("GET", f"/encounters/{eid}/log"),
        ("POST", f"/encounters/{eid}/commands"),
        ("GET", f"/encounters/{eid}/tokens"),
    ):
        kw = {"json": {"type": "undo"}} if method == "POST" else {}
        r = client.request(method, url, headers=theirs, auth=None, **kw)
        assert r.status_code == 404, (url, r.text)
        assert r.json()["detail"] == f"no encounter {eid}"


def test_given_an_accounts_fight_then_the_key_is_its_gm_and_the_gm_token_works_too(
    client: TestClient,
) -> None:
    key = open_account(client)
    r = client.post(
        "/encounters", json={"name": "Bridge", "ruleset": "novus"}, headers=key, auth=None
    )
    eid, gm_token = r.json()["id"], r.json()["gm_token"]
    body = {"name": "Brakka", "stats": novus_stats()}
    by_key = client.post(f"/encounters/{eid}/combatants", json=body, headers=key, auth=None)
    assert by_key.status_code == 201, by_key.text
    token = {"Authorization": f"Bearer {gm_token}"}
    body = {"name": "Kell", "stats": novus_stats()}
    by_token = client.post(f"/encounters/{eid}/combatants", json=body, headers=token, auth=None)
    assert by_token.status_code == 201, by_token.text
    events = client.get(f"/encounters/{eid}/events", headers=key, auth=None).json()["events"]
    assert [e["actor"] for e in events] == ["gm", "gm", "gm"]
    # the token holder lists the one encounter his token opens
    assert [e["id"] for e in listed(client, token)["encounters"]] == [eid]


def test_given_an_accounts_fight_when_forked_then_the_fork_is_the_accounts(
    client: TestClient,
) -> None:
    key = open_account(client)
    eid = fight(client, key, "Bridge")
    add_combatant(client, eid, "Brakka", novus_stats())
    r = client.post(f"/encounters/{eid}/fork", json={"at": 2, "name": "What if"}, headers=key)
    assert r.status_code == 201, r.text
    assert names(listed(client, key)) == ["What if", "Bridge"]
    assert client.get(f"/encounters/{r.json()['id']}", headers=key, auth=None).status_code == 200


def test_given_a_key_nobody_was_given_then_401_on_its_routes_and_404_on_encounters(
    client: TestClient,
) -> None:
    key = open_account(client)
    eid = fight(client, key, "Bridge")
    forged = {"Authorization": "Bearer fl_account_" + "x" * 43}
    for url in ("/accounts/me", "/encounters"):
        r = client.get(url, headers=forged, auth=None)
        assert r.status_code == 401, r.text
        assert r.json()["rule"] == "ACCOUNT"
        assert r.headers["www-authenticate"] == "Bearer"
    assert client.get(f"/encounters/{eid}", headers=forged, auth=None).status_code == 404


def test_given_the_cap_when_an_account_makes_one_more_encounter_then_422_and_nothing_recorded(
    settings: Settings,
) -> None:
    capped = Settings(**{**settings.__dict__, "max_encounters_per_account": 2})
    app = Fraylog(capped)
    try:
        with TestClient(create_app(fraylog=app)) as client:
            client.auth = TokenJar()
            key = open_account(client)
            fight(client, key, "One")
            fight(client, key, "Two")
            recorded = app.recorder.max_notification_id()
            r = client.post("/encounters", json={"name": "Three", "ruleset": "novus"}, headers=key)
            assert r.status_code == 422, r.text
            assert r.json()["rule"] == "LIMIT"
            assert "FRAYLOG_MAX_ENCOUNTERS_PER_ACCOUNT" in r.json()["detail"]
            assert app.recorder.max_notification_id() == recorded
            assert names(listed(client, key)) == ["Two", "One"]
            # a refused creation (a rule book nobody has) takes no place either
            bad = {"name": "Bad", "ruleset": "chess"}
            other = open_account(client, "Olaf")
            assert client.post("/encounters", json=bad, headers=other).status_code == 422
            assert listed(client, other)["encounters"] == []
    finally:
        app.close()


def test_given_the_stores_insert_function_then_the_claim_commits_with_the_events_or_not_at_all(
    settings: Settings,
) -> None:
    if settings.backend != "postgres":
        pytest.skip("FRAYLOG_PG_DB_FUNCTIONS is PostgreSQL's")
    functions = Settings(
        **{**settings.__dict__, "pg_db_functions": True, "max_encounters_per_account": 1}
    )
    app = Fraylog(functions)
    try:
        with TestClient(create_app(fraylog=app)) as client:
            client.auth = TokenJar()
            key = open_account(client)
            eid = fight(client, key, "One")
            recorded = app.recorder.max_notification_id()
            r = client.post("/encounters", json={"name": "Two", "ruleset": "novus"}, headers=key)
            assert (r.status_code, r.json()["rule"]) == (422, "LIMIT")
            assert app.recorder.max_notification_id() == recorded  # the events rolled back
            assert [e["id"] for e in listed(client, key)["encounters"]] == [eid]
    finally:
        app.close()
