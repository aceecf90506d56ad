"""Roles and access: every route × {no token, another encounter's GM, the player of another
combatant, the player, the GM, another account's key, the owning account's key}, on SQLite
and PostgreSQL; actors come from tokens."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.builders import add_combatant, new_encounter
from tests.builders.novus import novus_stats, target_stats
from tests.builders.wits import fighter

WHO = ("none", "other_gm", "other_player", "player", "gm", "other_account", "account")


@dataclass
class Table:
    eid: str
    a: str  # the player's combatant
    t: str  # the other player's combatant
    tokens: dict[str, str | None]


def _player(client: TestClient, eid: str, combatants: list[str], label: str) -> str:
    r = client.post(f"/encounters/{eid}/tokens", json={"combatants": combatants, "label": label})
    assert r.status_code == 201, r.text
    assert r.json()["token"].startswith("fl_player_") and r.json()["label"] == label
    return r.json()["token"]


def _account(client: TestClient, name: str) -> str:
    r = client.post("/accounts", json={"name": name})
    assert r.status_code == 201, r.text
    return r.json()["key"]


@pytest.fixture
def table(client: TestClient) -> Table:
    other = new_encounter(client)
    other_gm = client.auth.tokens[other]
    account, other_account = _account(client, "Marta"), _account(client, "Olaf")
    r = client.post(
        "/encounters",
        json={"name": "Test fight", "ruleset": "novus", "dice_source": "manual"},
        headers={"Authorization": f"Bearer {account}"},
    )
    assert r.status_code == 201, r.text
    eid = r.json()["id"]
    a = add_combatant(client, eid, "A", novus_stats())
    t = add_combatant(client, eid, "T", target_stats())
    tokens = {
        "none": None,
        "other_gm": other_gm,
        "other_player": _player(client, eid, [t], "Tess"),
        "player": _player(client, eid, [a], "Anna"),
        "gm": client.auth.tokens[eid],
        "other_account": other_account,  # its own account, not this encounter's
        "account": account,  # the account that made the encounter: its GM
    }
    return Table(eid, a, t, tokens)


def call(client: TestClient, who: str, tokens: dict, method: str, url: str, **kw: Any):
    """A request with exactly `who`'s token (none at all for "none"), not the key ring's."""
    headers = {"Authorization": f"Bearer {tokens[who]}"} if tokens[who] else {}
    return client.request(method, url, headers=headers, auth=None, **kw)


# expected status per caller: none, other encounter's GM, other player, player, GM (another
# account's key: 404 like any stranger; the owning account's: as the GM, see _expected)
ROUTES: list[tuple[str, str, Any, tuple[int, ...]]] = [
    ("GET", "/encounters/{eid}", None, (404, 404, 200, 200, 200)),
    ("GET", "/encounters/{eid}?version=2", None, (404, 404, 200, 200, 200)),
    ("GET", "/encounters/{eid}/events", None, (404, 404, 200, 200, 200)),
    ("GET", "/encounters/{eid}/events?format=csv", None, (404, 404, 200, 200, 200)),
    ("GET", "/encounters/{eid}/log", None, (404, 404, 200, 200, 200)),
    ("GET", "/encounters/{eid}/diff?from=1", None, (404, 404, 200, 200, 200)),
    ("GET", "/encounters/{eid}/verify", None, (404, 404, 200, 200, 200)),
    ("GET", "/encounters/{eid}/checkpoints", None, (404, 404, 200, 200, 200)),
    ("GET", "/encounters/{eid}/statistics", None, (404, 404, 403, 403, 200)),
    ("POST", "/encounters/{eid}/checkpoints", None, (404, 404, 403, 403, 201)),
    ("GET", "/encounters/{eid}/stream", None, (404, 404, None, None, None)),
    ("GET", "/encounters/{eid}/tokens", None, (404, 404, 403, 403, 200)),
    ("POST", "/encounters/{eid}/tokens", {"combatants": ["{a}"]}, (404, 404, 403, 403, 201)),
    (
        "POST",
        "/encounters/{eid}/combatants",
        {"name": "X{n}", "stats": novus_stats()},
        (404, 404, 403, 403, 201),
    ),
    (
        "POST",
        "/encounters/{eid}/commands",
        {"type": "save", "combatant": "{a}", "stat": "con", "dice": {"save": [5, 5]}},
        (404, 404, 403, 200, 200),
    ),
    (
        "POST",
        "/encounters/{eid}/commands",
        {"type": "adjust_hits", "combatant": "{a}", "amount": -1},
        (404, 404, 403, 403, 200),
    ),
    (
        "POST",
        "/encounters/{eid}/commands",
        {"type": "set_condition", "combatant": "{a}", "condition": "prone"},
        (404, 404, 403, 403, 200),
    ),
    (
        "POST",
        "/encounters/{eid}/commands",
        {"type": "hide_combatant", "combatant": "{t}"},
        (404, 404, 403, 403, 200),
    ),
    (
        "POST",
        "/encounters/{eid}/commands",
        {"type": "reveal_combatant", "combatant": "{t}"},
        (404, 404, 403, 403, 422),  # the GM's: refused, T is not hidden (rule HIDDEN)
    ),
    (
        "POST",
        "/encounters/{eid}/commands",
        {"type": "show_health", "combatant": "{t}", "shown": "none"},
        (404, 404, 403, 403, 200),
    ),
    (
        "POST",
        "/encounters/{eid}/commands",
        {"type": "take_note", "combatant": "{a}", "text": "n{n}"},
        (404, 404, 403, 403, 200),
    ),
    ("POST", "/encounters/{eid}/commands", {"type": "undo"}, (404, 404, 403, 403, None)),
    ("POST", "/encounters/{eid}/fork", {"at": 3, "name": "f{n}"}, (404, 404, 403, 403, 201)),
    ("DELETE", "/encounters/{eid}/tokens/0000000000000000", None, (404, 404, 403, 403, 422)),
]


def _fill(value: Any, table: Table, n: int) -> Any:
    if isinstance(value, str):
        return value.format(eid=table.eid, a=table.a, t=table.t, n=n)
    if isinstance(value, dict):
        return {k: _fill(v, table, n) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, table, n) for v in value]
    return value


def _expected(expected: tuple, body: Any) -> tuple:
    """Another account's key is a stranger's; the owning account's key is the GM's (a
    command the GM just ran may not run twice: hiding a hidden combatant is refused)."""
    again = 422 if isinstance(body, dict) and body.get("type") == "hide_combatant" else None
    return (*expected, 404, again or expected[-1])


@pytest.mark.parametrize(("method", "url", "body", "expected"), ROUTES)
def test_given_each_caller_when_calling_a_route_then_the_matrix_status(
    client: TestClient, table: Table, method: str, url: str, body: Any, expected: tuple
) -> None:
    for n, (who, status) in enumerate(zip(WHO, _expected(expected, body), strict=True)):
        if status is None:
            continue  # a 2xx stream or a command whose outcome depends on history
        kw = {"json": _fill(body, table, n)} if body is not None else {}
        r = call(client, who, table.tokens, method, _fill(url, table, n), **kw)
        assert r.status_code == status, (who, r.text)
        if status >= 400:
            assert r.headers["content-type"] == "application/problem+json"
        if status == 404:  # indistinguishable from an encounter that does not exist
            assert r.json()["detail"] == f"no encounter {table.eid}"


def test_given_a_players_token_when_he_acts_then_the_event_actor_is_his_token(
    client: TestClient, table: Table
) -> None:
    body = {"type": "roll_initiative", "combatant": table.a, "dice": {"initiative": [4, 6]}}
    r = call(client, "player", table.tokens, "POST", f"/encounters/{table.eid}/commands", json=body)
    assert r.status_code == 200, r.text
    assert {e["actor"] for e in r.json()["events"]} == {"player:Anna"}
    spoofed = {**body, "actor": "gm"}
    r = call(
        client, "player", table.tokens, "POST", f"/encounters/{table.eid}/commands", json=spoofed
    )
    assert r.status_code == 422 and r.json()["field"] == "actor"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"type": "roll_initiative", "combatant": "{a}", "ip": 30}, "ip"),
        ({"type": "roll_initiative", "combatant": "{a}", "dice_source": "manual"}, "dice_source"),
        ({"type": "roll_initiative", "combatant": "{t}"}, "combatant"),
        ({"type": "roll_initiative"}, "combatant"),
    ],
)
def test_given_a_player_when_he_uses_a_gm_override_or_anothers_combatant_then_403(
    client: TestClient, table: Table, body: dict, field: str
) -> None:
    r = call(
        client,
        "player",
        table.tokens,
        "POST",
        f"/encounters/{table.eid}/commands",
        json=_fill(body, table, 0),
    )
    assert r.status_code == 403 and r.json()["rule"] == "ROLE" and r.json()["field"] == field
    assert client.get(f"/encounters/{table.eid}").json()["version"] == 3  # nothing recorded


def test_given_server_dice_when_a_player_types_his_own_faces_then_403(
    client: TestClient,
) -> None:
    eid = new_encounter(client, "server")
    a = add_combatant(client, eid, "A", novus_stats())
    token = _player(client, eid, [a], "Anna")
    r = client.post(
        f"/encounters/{eid}/commands",
        json={"type": "roll_initiative", "combatant": a, "dice": {"initiative": [10, 9]}},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert r.status_code == 403 and r.json()["field"] == "dice"


def test_given_a_player_token_when_listing_then_only_his_encounter(
    client: TestClient, table: Table
) -> None:
    r = call(client, "player", table.tokens, "GET", "/encounters")
    assert [e["id"] for e in r.json()["encounters"]] == [table.eid]
    listed = call(client, "gm", table.tokens, "GET", f"/encounters/{table.eid}/tokens").json()
    assert sorted(t["label"] for t in listed["tokens"] if t["role"] == "player") == ["Anna", "Tess"]
    assert all("token" not in t for t in listed["tokens"])  # never shown again


def test_given_tokens_when_stored_then_only_their_hashes_are_kept(
    client: TestClient, table: Table
) -> None:
    access = client.app.state.fraylog.access
    rows = access.execute(f"SELECT token_hash FROM {access.table('fraylog_tokens')}")
    kept = {r[0] for r in rows}
    tokens = [t for t in table.tokens.values() if t and not t.startswith("fl_account_")]
    for token in tokens:  # an account key is kept hashed too (tests/api/test_accounts.py)
        assert token not in kept and access.grant(token) is not None


def test_given_a_new_encounter_then_its_gm_token_is_shown_once(client: TestClient) -> None:
    r = client.post("/encounters", json={"name": "x", "ruleset": "novus"})
    token = r.json()["gm_token"]
    assert token.startswith("fl_gm_")
    view = client.get(f"/encounters/{r.json()['id']}").json()
    assert (
        "gm_token" not in view
        and token
        not in client.get(f"/encounters/{r.json()['id']}/events", params={"format": "csv"}).text
    )


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (
            {"type": "save", "combatant": "{a}", "stat": "con", "modifiers": {"luck": 20}},
            "modifiers",
        ),
        ({"type": "save", "combatant": "{a}", "stat": "con", "tn": 5}, "tn"),
        (
            {
                "type": "declare",
                "combatant": "{a}",
                "actions": [{"kind": "cast_spell", "casting_tn": 1, "spell_damage": 99}],
            },
            "actions.0.casting_tn",
        ),
    ],
)
def test_given_a_player_when_he_enters_what_the_gm_enters_then_403_naming_it(
    client: TestClient, table: Table, body: dict, field: str
) -> None:
    url = f"/encounters/{table.eid}/commands"
    r = call(client, "player", table.tokens, "POST", url, json=_fill(body, table, 0))
    assert r.status_code == 403 and r.json()["field"] == field


def test_given_the_gms_idempotency_key_when_a_player_sends_it_then_it_is_his_own_key(
    client: TestClient, table: Table
) -> None:
    url = f"/encounters/{table.eid}/commands"
    body = {"type": "save", "combatant": table.a, "stat": "con", "dice": {"save": [5, 5]}}
    key = {"Idempotency-Key": "same"}
    gm = client.post(
        url, json=body, headers={**key, "Authorization": f"Bearer {table.tokens['gm']}"}, auth=None
    )
    mine = client.post(
        url,
        json=body,
        headers={**key, "Authorization": f"Bearer {table.tokens['player']}"},
        auth=None,
    )
    assert gm.status_code == mine.status_code == 200
    assert "Idempotent-Replayed" not in mine.headers
    assert mine.json()["events"][0]["actor"] == "player:Anna"


def test_given_no_token_when_listing_then_401_says_bearer(client: TestClient) -> None:
    r = client.get("/encounters", auth=None)
    assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer"


def test_given_a_revoked_player_token_then_it_opens_nothing(
    client: TestClient, table: Table
) -> None:
    listed = call(client, "gm", table.tokens, "GET", f"/encounters/{table.eid}/tokens").json()
    anna = next(t["id"] for t in listed["tokens"] if t["label"] == "Anna")
    r = call(client, "gm", table.tokens, "DELETE", f"/encounters/{table.eid}/tokens/{anna}")
    assert r.status_code == 204
    assert (
        call(client, "player", table.tokens, "GET", f"/encounters/{table.eid}").status_code == 404
    )
    assert (
        call(client, "other_player", table.tokens, "GET", f"/encounters/{table.eid}").status_code
        == 200
    )


def test_given_a_player_when_he_spends_a_gm_boon_or_a_fate_point_then_403(
    client: TestClient, table: Table
) -> None:
    """What a GM Boon or a Fate Point does is the GM's to enter (NOV-BOON-5, NOV-FATE-2)."""
    url = f"/encounters/{table.eid}/commands"
    spend = {"type": "spend_fate_point", "combatant": table.a, "effect": "I win"}
    r = call(client, "player", table.tokens, "POST", url, json=spend)
    assert r.status_code == 403 and r.json()["field"] == "effect"


def test_given_a_players_attack_when_it_declares_the_gms_targets_defense_then_403(
    client: TestClient,
) -> None:
    r = client.post("/encounters", json={"name": "W", "ruleset": "wits", "dice_source": "manual"})
    eid = r.json()["id"]
    vartok = add_combatant(client, eid, "Vartok", fighter())
    orc = add_combatant(client, eid, "Orc", fighter(wits=10))
    token = _player(client, eid, [vartok], "Vera")
    client.post(f"/encounters/{eid}/commands", json={"type": "roll_initiative"})
    body = {
        "type": "attack",
        "combatant": vartok,
        "target": orc,
        "weapon": "short sword",
        "defense": {"kind": "dodge"},
        "roll": False,
    }
    r = client.post(
        f"/encounters/{eid}/commands",
        json=body,
        headers={"Authorization": f"Bearer {token}"},
        auth=None,
    )
    assert r.status_code == 403 and r.json()["field"] == "defense"


def test_given_the_players_action_is_blocked_when_he_resolves_then_403(
    client: TestClient, table: Table
) -> None:
    """He resolves only what will resolve for him: a stunned combatant's actions are lost,
    and the next one to resolve is not his."""
    url = f"/encounters/{table.eid}/commands"
    gm = {"Authorization": f"Bearer {table.tokens['gm']}"}
    for who, ip in ((table.a, 19), (table.t, 12)):
        r = client.post(
            url, json={"type": "roll_initiative", "combatant": who, "ip": ip}, headers=gm, auth=None
        )
        assert r.status_code == 200, r.text
    client.post(url, json={"type": "declare", "combatant": table.t}, headers=gm, auth=None)
    attack = {"kind": "melee_attack", "target": table.t, "weapon": "sword"}
    r = client.post(
        url,
        json={"type": "declare", "combatant": table.a, "actions": [attack]},
        headers=gm,
        auth=None,
    )
    assert r.status_code == 200, r.text
    stun = {"type": "set_condition", "combatant": table.a, "condition": "stunned", "count": 1}
    assert client.post(url, json=stun, headers=gm, auth=None).status_code == 200
    r = call(client, "player", table.tokens, "POST", url, json={"type": "resolve"})
    assert r.status_code == 403 and r.json()["rule"] == "ROLE"
