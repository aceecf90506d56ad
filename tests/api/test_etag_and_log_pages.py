"""ETag / If-None-Match on the view and the log (the answer's hash: 304 while it holds, a
new one when the answer changes, by a new event or by what the token may see), and the log
read in pages (`after`, `limit`, `next_after`), the same lines as the whole log. On SQLite
and PostgreSQL."""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Any
from uuid import UUID

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from api import schemas as s
from api.etag import etag_of
from api.main import create_app
from infra.app import Fraylog
from infra.settings import Settings
from projections.view import encounter_view
from tests.api.test_lang import novus_table
from tests.builders import add_combatant, command, new_encounter
from tests.builders.novus import novus_stats
from tests.tokens import TokenJar

HIT = {"type": "adjust_hits", "amount": -1}


def _token(client: TestClient, eid: str, combatants: list[str]) -> dict[str, str]:
    r = client.post(f"/encounters/{eid}/tokens", json={"combatants": combatants})
    assert r.status_code == 201, r.text
    return {"Authorization": f"Bearer {r.json()['token']}"}


def _phantasia_fight(client: TestClient) -> str:
    """A PHANTÄSIA fight of a dozen events: an attack, its damage, a status, a void."""
    eid = new_encounter(client, ruleset="phantasia")
    pc = {"controller": "player", "fue": 10, "agi": 8, "int": 9, "vit": 6, "sue": 6}
    pc |= {"level": 5, "pv": 32, "weapons": [{"name": "espada", "code": "AMM", "damage": "1d8"}]}
    orc = {"fue": 6, "agi": 6, "int": 6, "vit": 6, "sue": 6, "pv": 40}
    endimion = add_combatant(client, eid, "Endimion", pc, side="héroes")
    brakka = add_combatant(client, eid, "Brakka", orc, side="orcos")
    dice = {"initiative:Endimion": [7], "initiative:Brakka": [2]}
    command(client, eid, {"type": "roll_initiative", "dice": dice})
    command(client, eid, {"type": "start_turn"})
    attack = {"type": "attack_check", "combatant": endimion, "targets": [brakka]}
    command(client, eid, attack | {"weapon": "espada", "dice": {"attack": [1]}})
    command(client, eid, {"type": "roll_damage", "dice": {"damage": [6]}})
    stun = {"type": "apply_status", "combatant": brakka, "status": "stunned", "turns": 1}
    command(client, eid, stun)
    command(client, eid, stun | {"turns": 2})
    command(client, eid, {"type": "undo"})
    return eid


def _pages(
    client: TestClient, eid: str, player: dict[str, str] | None = None, **params: Any
) -> list[dict[str, Any]]:
    """Every page of the log from the start, following `next_after` (the GM's, or with a
    player's Authorization header)."""
    as_player: dict[str, Any] = {"headers": player, "auth": None} if player else {}
    pages: list[dict[str, Any]] = []
    after: int | None = 0
    while after is not None:
        r = client.get(f"/encounters/{eid}/log", params={"after": after, **params}, **as_player)
        assert r.status_code == 200, r.text
        pages.append(r.json())
        after = r.json()["next_after"]
        assert len(pages) < 100
    return pages


# -- ETag and If-None-Match -----------------------------------------------------------


@pytest.mark.parametrize("path", ["", "/log"])
def test_given_a_read_when_asked_again_with_its_etag_then_304_without_a_body(
    client: TestClient, path: str
) -> None:
    eid, _ = novus_table(client)
    first = client.get(f"/encounters/{eid}{path}")
    assert first.status_code == 200, first.text
    etag = first.headers["etag"]
    assert etag == etag_of(first.content) and etag.startswith('"') and not etag.startswith("W/")
    assert first.headers["cache-control"] == "no-cache"
    assert "authorization" in first.headers["vary"].lower()
    for held in (etag, f'"other", {etag}', "*", f"W/{etag}"):
        again = client.get(f"/encounters/{eid}{path}", headers={"If-None-Match": held})
        assert again.status_code == 304, held
        assert again.content == b"" and again.headers["etag"] == etag
    other = client.get(f"/encounters/{eid}{path}", headers={"If-None-Match": '"other"'})
    assert other.status_code == 200 and other.content == first.content


@pytest.mark.parametrize("path", ["", "/log"])
def test_given_an_etag_when_a_new_event_is_recorded_then_200_and_a_new_etag(
    client: TestClient, path: str
) -> None:
    eid, brakka = novus_table(client)
    etag = client.get(f"/encounters/{eid}{path}").headers["etag"]
    command(client, eid, HIT | {"combatant": brakka})
    r = client.get(f"/encounters/{eid}{path}", headers={"If-None-Match": etag})
    assert r.status_code == 200 and r.headers["etag"] not in (etag, None)
    assert r.headers["etag"] == etag_of(r.content)
    as_it_was = {"until" if path else "version": 2}
    then = client.get(f"/encounters/{eid}{path}", params=as_it_was)
    assert then.headers["etag"] == etag  # the answer as it was: the same bytes, the same tag


def test_given_a_player_and_the_gm_when_reading_then_their_etags_differ(
    client: TestClient,
) -> None:
    eid, brakka = novus_table(client)
    goblin = add_combatant(client, eid, "Goblin", novus_stats(), side="raiders")
    command(client, eid, HIT | {"combatant": goblin})
    player = _token(client, eid, [brakka])
    for path in ("", "/log"):
        gm = client.get(f"/encounters/{eid}{path}")
        his = client.get(f"/encounters/{eid}{path}", headers=player, auth=None)
        assert gm.status_code == his.status_code == 200
        assert gm.headers["etag"] != his.headers["etag"]
        assert his.headers["etag"] == etag_of(his.content)
        held = {"If-None-Match": gm.headers["etag"]} | player
        assert client.get(f"/encounters/{eid}{path}", headers=held, auth=None).status_code == 200


def test_given_a_new_player_token_when_health_shows_by_the_party_then_the_view_etag_changes(
    client: TestClient,
) -> None:
    """No event: the goblin joins the party when a token names him, and the party's health
    shows exact where the GM's combatants' is described (docs/visibility.md)."""
    eid, brakka = novus_table(client)
    goblin = add_combatant(client, eid, "Goblin", novus_stats(), side="héroes")
    command(client, eid, HIT | {"combatant": goblin})
    player = _token(client, eid, [brakka])
    before = client.get(f"/encounters/{eid}", headers=player, auth=None)
    _token(client, eid, [goblin])
    held = {"If-None-Match": before.headers["etag"]} | player
    after = client.get(f"/encounters/{eid}", headers=held, auth=None)
    assert after.status_code == 200, after.text
    assert after.json()["version"] == before.json()["version"]
    assert after.headers["etag"] != before.headers["etag"]
    hits = {c["name"]: c["hits"] for c in after.json()["combatants"]}
    was = {c["name"]: c["hits"] for c in before.json()["combatants"]}
    assert hits["Goblin"] == 29 and was["Goblin"] is None


def test_given_the_view_then_its_bytes_are_what_fastapi_sends_for_the_response_model(
    client: TestClient, fraylog: Fraylog
) -> None:
    """Serialized once by the route, the answer is the bytes the response model gives."""
    eid, _ = novus_table(client)
    plain = FastAPI()
    state = fraylog.state(UUID(eid))

    @plain.get("/view", response_model=s.EncounterPublic, response_model_by_alias=True)
    def view() -> Any:
        return encounter_view(state)

    expected = TestClient(plain).get("/view").content
    r = client.get(f"/encounters/{eid}")
    assert r.content == expected
    assert r.headers["etag"] == '"' + hashlib.sha256(expected).hexdigest()[:32] + '"'


# -- the log in pages -------------------------------------------------------------------


def test_given_a_fight_when_reading_the_log_in_pages_then_every_line_once_as_the_whole_log(
    client: TestClient,
) -> None:
    eid = _phantasia_fight(client)
    whole = client.get(f"/encounters/{eid}/log").json()
    assert whole["next_after"] is None and len(whole["lines"]) > 8
    assert any(line["voided_by"] for line in whole["lines"])  # the undone status
    for limit in (1, 3, 4, len(whole["lines"]), 1000):
        pages = _pages(client, eid, limit=limit)
        assert all(len(p["lines"]) <= limit for p in pages)
        assert [line for p in pages for line in p["lines"]] == whole["lines"], limit
        assert pages[-1]["next_after"] is None
        assert [p["next_after"] for p in pages[:-1]] == [
            p["lines"][-1]["position"] for p in pages[:-1]
        ]


def test_given_a_phantasia_fight_when_paging_in_spanish_then_the_whole_spanish_log(
    client: TestClient,
) -> None:
    eid = _phantasia_fight(client)
    whole = client.get(f"/encounters/{eid}/log", params={"lang": "es"})
    pages = _pages(client, eid, limit=2, lang="es")
    assert [line for p in pages for line in p["lines"]] == whole.json()["lines"]
    page = client.get(f"/encounters/{eid}/log", params={"lang": "es", "after": 4, "limit": 3})
    assert page.headers["content-language"] == "es"
    assert [x["position"] for x in page.json()["lines"]] == [5, 6, 7]
    assert any("Ronda 1, turno 1 de Endimion" in x["text"] for x in page.json()["lines"])


def test_given_until_when_paging_then_the_pages_stop_at_until(client: TestClient) -> None:
    eid = _phantasia_fight(client)
    whole = client.get(f"/encounters/{eid}/log", params={"until": 6}).json()
    pages = _pages(client, eid, limit=4, until=6)
    assert [line for p in pages for line in p["lines"]] == whole["lines"]
    assert [x["position"] for x in whole["lines"]] == list(range(1, 7))


def test_given_a_page_past_the_end_then_no_lines_and_no_next_after(client: TestClient) -> None:
    eid, _ = novus_table(client)
    r = client.get(f"/encounters/{eid}/log", params={"after": 50})
    assert r.status_code == 200 and r.json() == {"lines": [], "next_after": None}


def test_given_a_page_size_when_paging_the_log_then_a_page_holds_at_most_that(
    fraylog: Fraylog,
) -> None:
    fraylog.settings = dataclasses.replace(fraylog.settings, page_size=3)
    with TestClient(create_app(fraylog=fraylog)) as client:
        client.auth = TokenJar()
        eid = _phantasia_fight(client)
        first = client.get(f"/encounters/{eid}/log", params={"limit": 100}).json()
        assert [x["position"] for x in first["lines"]] == [1, 2, 3]
        assert first["next_after"] == 3
        assert len(client.get(f"/encounters/{eid}/log").json()["lines"]) > 3  # the whole log


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"after": -1}, "after"),
        ({"after": "x"}, "after"),
        ({"limit": 0}, "limit"),
        ({"limit": 10_001}, "limit"),
        ({"after": 0, "limit": "many"}, "limit"),
    ],
)
def test_given_a_bad_after_or_limit_when_reading_the_log_then_422_names_the_field(
    client: TestClient, params: dict[str, Any], field: str
) -> None:
    eid, _ = novus_table(client)
    r = client.get(f"/encounters/{eid}/log", params=params)
    assert r.status_code == 422, r.text
    assert r.headers["content-type"] == "application/problem+json"
    assert r.json()["field"] == f"query.{field}"


def test_given_a_page_of_a_player_then_the_hidden_combatants_lines_are_left_out(
    client: TestClient,
) -> None:
    eid, brakka = novus_table(client)
    r = client.post(
        f"/encounters/{eid}/combatants",
        json={"name": "Zqx Lurker", "stats": novus_stats(), "hidden": True},
    )
    assert r.status_code == 201, r.text
    command(client, eid, HIT | {"combatant": brakka})
    player = _token(client, eid, [brakka])
    whole = client.get(f"/encounters/{eid}/log", headers=player, auth=None).json()
    assert "Zqx" not in str(whole)
    pages = _pages(client, eid, player, limit=1)
    assert [line for p in pages for line in p["lines"]] == whole["lines"]
    assert [] in [p["lines"] for p in pages]  # the hidden one's page: no line, and more after


def test_given_cors_when_a_browser_revalidates_a_view_then_it_may_send_and_read_the_tag(
    tmp_path: Any,
) -> None:
    settings = Settings(sqlite_path=str(tmp_path / "c.db"), cors_origins=("https://t.example",))
    with TestClient(create_app(settings)) as browser:
        browser.auth = TokenJar()
        eid = new_encounter(browser)
        origin = {"Origin": "https://t.example"}
        asked = browser.options(
            f"/encounters/{eid}",
            headers={
                **origin,
                "Access-Control-Request-Method": "GET",
                "Access-Control-Request-Headers": "authorization,if-none-match",
            },
        )
        assert asked.status_code == 200, asked.text
        assert "if-none-match" in asked.headers["access-control-allow-headers"].lower()
        read = browser.get(f"/encounters/{eid}", headers=origin)
        exposed = read.headers["access-control-expose-headers"].lower().replace(" ", "")
        assert "etag" in exposed.split(",") and read.headers["etag"]
