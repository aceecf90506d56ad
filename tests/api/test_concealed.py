"""Concealed health and the GM's secrets (docs/visibility.md): a player reads the GM's
combatants' health as the GM shows it (a described state by default), the party's as the
encounter says, his own exactly; he never reads a target number the GM set or his notes —
in the view, the events (JSON, NDJSON, CSV), the log, a correction's changes, the diff, a
command's answer and the live feed; the GM reads everything. On SQLite and PostgreSQL."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from typing import Any

import httpx
from fastapi.testclient import TestClient

from tests.api.test_stream import server  # noqa: F401  (the fixture)
from tests.api.test_visibility import until_view_of
from tests.builders import add_combatant, command, new_encounter
from tests.builders.novus import novus_stats

NOTE = "Zqx the ogre fears fire"  # a text no other answer holds
OGRE_HITS = 137  # figures that show in no log line but his
AFTER = 126


@dataclass
class Fight:
    eid: str
    hero: str
    ally: str
    ogre: str
    anna: dict[str, str]  # the hero's player's Authorization header
    bob: dict[str, str]  # the ally's player's


def fight(client: TestClient) -> Fight:
    """Anna's hero and Bob's ally, each hurt a little; the GM's ogre (137 hits) takes 11."""
    eid = new_encounter(client)
    hero = add_combatant(client, eid, "Hero", novus_stats(hits=40), "heroes")
    ally = add_combatant(client, eid, "Ally", novus_stats(hits=50), "heroes")
    ogre = add_combatant(client, eid, "Ogre", novus_stats(hits=OGRE_HITS), "raiders")
    tokens = {}
    for who, label in ((hero, "Anna"), (ally, "Bob")):
        body = {"combatants": [who], "label": label}
        tokens[label] = client.post(f"/encounters/{eid}/tokens", json=body).json()["token"]
    for who, amount in ((hero, -3), (ally, -30), (ogre, OGRE_HITS - AFTER)):
        adjust = {"type": "adjust_hits", "combatant": who, "amount": -abs(amount)}
        command(client, eid, adjust)
    return Fight(
        eid,
        hero,
        ally,
        ogre,
        {"Authorization": f"Bearer {tokens['Anna']}"},
        {"Authorization": f"Bearer {tokens['Bob']}"},
    )


def read(client: TestClient, f: Fight, path: str = "", who: dict | None = None, **params: Any):
    r = client.get(f"/encounters/{f.eid}{path}", params=params, headers=who or {}, auth=None)
    if who is None:  # the GM: the client's own key ring
        r = client.get(f"/encounters/{f.eid}{path}", params=params)
    assert r.status_code == 200, r.text
    return r


def seen(view: dict[str, Any], combatant: str) -> dict[str, Any]:
    return next(c for c in view["combatants"] if c["id"] == combatant)


def records_of(client: TestClient, f: Fight, who: dict | None, kind: str) -> list[dict]:
    events = read(client, f, "/events", who).json()["events"]
    return [e for e in events if e.get("type") == kind]


# -- the view -----------------------------------------------------------------------------
def test_given_the_gms_ogre_when_a_player_reads_the_view_then_a_described_state_no_figures(
    client: TestClient,
) -> None:
    f = fight(client)
    ogre = seen(read(client, f, "", f.anna).json(), f.ogre)
    assert (ogre["hits"], ogre["max_hits"], ogre["health_state"]) == (None, None, "hurt")
    assert ogre.get("notes") is None and ogre.get("health_shown") is None
    gm = seen(read(client, f).json(), f.ogre)
    assert (gm["hits"], gm["max_hits"], gm["health_state"]) == (AFTER, OGRE_HITS, "hurt")


def test_given_the_party_when_a_player_reads_then_his_own_and_his_friends_exact(
    client: TestClient,
) -> None:
    f = fight(client)
    view = read(client, f, "", f.anna).json()
    assert (seen(view, f.hero)["hits"], seen(view, f.ally)["hits"]) == (37, 20)
    assert seen(view, f.ally)["health_state"] == "badly_hurt"


def test_given_the_party_described_when_a_player_reads_then_his_own_exact_his_friends_words(
    client: TestClient,
) -> None:
    f = fight(client)
    command(client, f.eid, {"type": "show_health", "party": True, "shown": "described"})
    view = read(client, f, "", f.anna).json()
    assert seen(view, f.hero)["hits"] == 37
    assert (seen(view, f.ally)["hits"], seen(view, f.ally)["health_state"]) == (None, "badly_hurt")
    bob = read(client, f, "", f.bob).json()
    assert (seen(bob, f.ally)["hits"], seen(bob, f.hero)["hits"]) == (20, None)


def test_given_health_shown_none_when_a_player_reads_then_no_state_either(
    client: TestClient,
) -> None:
    f = fight(client)
    command(client, f.eid, {"type": "show_health", "shown": "none"})
    ogre = seen(read(client, f, "", f.anna).json(), f.ogre)
    assert (ogre["hits"], ogre["health_state"]) == (None, None)
    assert read(client, f).json()["health_shown"] == {"gm_combatants": "none", "party": "exact"}


def test_given_one_combatant_shown_exact_when_a_player_reads_then_it_overrides_the_encounter(
    client: TestClient,
) -> None:
    f = fight(client)
    command(client, f.eid, {"type": "show_health", "combatant": f.ogre, "shown": "exact"})
    assert seen(read(client, f, "", f.anna).json(), f.ogre)["hits"] == AFTER
    assert seen(read(client, f).json(), f.ogre)["health_shown"] == "exact"


def test_given_a_combatant_added_with_health_none_then_players_see_nothing_of_it(
    client: TestClient,
) -> None:
    f = fight(client)
    r = client.post(
        f"/encounters/{f.eid}/combatants",
        json={"name": "Wraith", "stats": novus_stats(), "health": "none"},
    )
    assert r.status_code == 201, r.text
    wraith = seen(read(client, f, "", f.anna).json(), r.json()["id"])
    assert (wraith["hits"], wraith["health_state"]) == (None, None)
    added = records_of(client, f, None, "HealthShown")[-1]
    assert added["command"] == added["position"] - 1  # one command with his CombatantAdded


def test_given_the_ogre_down_then_players_read_down(client: TestClient) -> None:
    f = fight(client)
    command(client, f.eid, {"type": "adjust_hits", "combatant": f.ogre, "amount": -AFTER})
    assert seen(read(client, f, "", f.anna).json(), f.ogre)["health_state"] == "down"


# -- the records ----------------------------------------------------------------------------
def test_given_the_ogre_when_a_player_reads_the_events_then_his_figures_are_withheld(
    client: TestClient,
) -> None:
    f = fight(client)
    added = [
        r for r in records_of(client, f, f.anna, "CombatantAdded") if r["data"]["name"] == "Ogre"
    ]
    assert added[0]["withheld"] == ["stats", "max_hits", "hits"] or set(added[0]["withheld"]) == {
        "stats",
        "max_hits",
        "hits",
    }
    assert {k: added[0]["data"][k] for k in ("stats", "max_hits", "hits")} == dict.fromkeys(
        ("stats", "max_hits", "hits")
    )
    (adjusted,) = [
        r for r in records_of(client, f, f.anna, "HitsAdjusted") if r["data"]["combatant"] == f.ogre
    ]
    assert {k: adjusted["data"][k] for k in ("amount", "hits_before", "hits_after")} == {
        "amount": None,
        "hits_before": None,
        "hits_after": None,
    }
    mine = [
        r for r in records_of(client, f, f.anna, "HitsAdjusted") if r["data"]["combatant"] == f.hero
    ]
    assert "withheld" not in mine[0] and mine[0]["data"]["hits_after"] == 37
    gm = [
        r for r in records_of(client, f, None, "HitsAdjusted") if r["data"]["combatant"] == f.ogre
    ]
    assert "withheld" not in gm[0] and gm[0]["data"]["hits_after"] == AFTER
    assert gm[0]["hash"] == adjusted["hash"]  # the record's place in the chain is kept


def test_given_the_ogre_when_a_player_exports_ndjson_and_csv_then_his_figures_are_withheld(
    client: TestClient,
) -> None:
    f = fight(client)
    lines = read(client, f, "/events", f.anna, format="ndjson").text.splitlines()
    records = [json.loads(line) for line in lines if '"checkpoint"' not in line[:14]]
    ogre = [r for r in records if r["data"].get("combatant") == f.ogre]
    assert ogre and all(r["withheld"] and r["data"]["hits_after"] is None for r in ogre[1:])
    rows = list(csv.reader(io.StringIO(read(client, f, "/events", f.anna, format="csv").text)))
    concealed = [row for row in rows[1:] if len(row) > 10 and row[10]]
    assert len(concealed) == len([r for r in records if "withheld" in r])
    # the data column's figures, not its text: an id's hex digits may spell 137 or 126
    assert not any({OGRE_HITS, AFTER} & set(figures(json.loads(row[8]))) for row in concealed)


def figures(data: Any) -> list[int]:
    """Every whole number in a record's data, however deep."""
    if isinstance(data, dict):
        return [n for value in data.values() for n in figures(value)]
    if isinstance(data, list):
        return [n for value in data for n in figures(value)]
    return [data] if isinstance(data, int) and not isinstance(data, bool) else []


def test_given_an_undone_adjustment_when_a_player_reads_the_correction_then_its_figures_null(
    client: TestClient,
) -> None:
    f = fight(client)
    command(client, f.eid, {"type": "undo"})  # the ogre's 11 hits come back
    (undone,) = records_of(client, f, f.anna, "CommandUndone")
    assert undone["withheld"] == ["changes"]
    hits = [c for c in undone["data"]["changes"] if c["path"][-1] == "hits"]
    assert hits and all(c["before"] is None and c["after"] is None for c in hits)
    (gm,) = records_of(client, f, None, "CommandUndone")
    assert [c["after"] for c in gm["data"]["changes"] if c["path"][-1] == "hits"] == [OGRE_HITS]


# -- the log ------------------------------------------------------------------------------
def test_given_the_ogre_when_a_player_reads_the_log_then_no_figure_of_his(
    client: TestClient,
) -> None:
    f = fight(client)
    player = " ".join(line["text"] for line in read(client, f, "/log", f.anna).json()["lines"])
    gm = " ".join(line["text"] for line in read(client, f, "/log").json()["lines"])
    assert str(OGRE_HITS) in gm and str(AFTER) in gm
    assert str(OGRE_HITS) not in player and str(AFTER) not in player
    assert "Ogre joins (raiders)." in player and "GM: Ogre's hits change" in player
    assert "(40 → 37)" in player  # his own


# -- the GM's secrets ---------------------------------------------------------------------
def test_given_a_save_against_the_gms_tn_when_a_player_reads_then_the_outcome_not_the_tn(
    client: TestClient,
) -> None:
    f = fight(client)
    body = {"type": "save", "combatant": f.hero, "stat": "con", "tn": 29}
    command(client, f.eid, body | {"dice": {"save": [4, 3]}})
    (save,) = records_of(client, f, f.anna, "SaveRolled")
    assert (save["data"]["tn"], save["data"]["margin"], save["data"]["saved"]) == (
        None,
        None,
        False,
    )
    assert sorted(save["withheld"]) == ["margin", "tn"]
    lines = [line["text"] for line in read(client, f, "/log", f.anna).json()["lines"]]
    assert lines[-1].startswith("Hero saves vs. Con") and lines[-1].endswith(": failed.")
    assert "TN 29" in read(client, f, "/log").text


def test_given_the_gms_note_when_a_player_reads_anything_then_not_its_text(
    client: TestClient,
) -> None:
    f = fight(client)
    command(client, f.eid, {"type": "take_note", "combatant": f.ogre, "text": NOTE})
    command(client, f.eid, {"type": "take_note", "text": NOTE + " too"})
    reads = [
        read(client, f, path, f.anna, **params).text
        for path, params in (
            ("", {}),
            ("/events", {}),
            ("/events", {"format": "ndjson"}),
            ("/events", {"format": "csv"}),
            ("/log", {}),
            ("/diff", {"from": 1}),
            ("/choices", {}),
        )
    ]
    assert not [text for text in reads if NOTE in text]
    assert "The GM takes a note on Ogre." in reads[4]
    gm = read(client, f).json()
    assert seen(gm, f.ogre)["notes"] == [NOTE] and gm["notes"] == [NOTE + " too"]


def test_given_a_players_own_command_when_answered_then_concealed_as_his_reads(
    client: TestClient,
) -> None:
    f = fight(client)
    for who, ip in ((f.hero, 3), (f.ally, 9), (f.ogre, 12)):  # the hero declares first
        command(client, f.eid, {"type": "roll_initiative", "combatant": who, "ip": ip})
    body = {"type": "declare", "combatant": f.hero, "actions": [{"kind": "dodge"}]}
    post = lambda **params: client.post(  # noqa: E731
        f"/encounters/{f.eid}/commands", params=params, json=body, headers=f.anna, auth=None
    )
    previewed = post(preview="true")
    assert previewed.status_code == 200, previewed.text
    assert seen(previewed.json()["encounter"], f.ogre)["health_state"] == "hurt"
    done = post()
    assert done.status_code == 200, done.text
    assert seen(done.json()["encounter"], f.ogre)["hits"] is None
    assert seen(done.json()["encounter"], f.hero)["hits"] == 37


def test_given_a_player_when_he_shows_health_or_takes_a_note_then_403(client: TestClient) -> None:
    f = fight(client)
    for body in (
        {"type": "show_health", "shown": "exact"},
        {"type": "take_note", "combatant": f.hero, "text": "mine"},
    ):
        r = client.post(f"/encounters/{f.eid}/commands", json=body, headers=f.anna, auth=None)
        assert r.status_code == 403, r.text


def test_given_one_combatant_and_the_party_at_once_when_showing_health_then_422_names_it(
    client: TestClient,
) -> None:
    f = fight(client)
    body = {"type": "show_health", "shown": "none", "combatant": f.ogre, "party": True}
    r = client.post(f"/encounters/{f.eid}/commands", json=body)
    assert r.status_code == 422 and r.json()["rule"] == "HEALTH" and r.json()["field"] == "party"


def test_given_a_combatant_whose_addition_was_undone_then_players_still_read_no_figure_of_his(
    client: TestClient,
) -> None:
    # given a troll the GM added and took back: his records stay in the log, voided
    f = fight(client)
    r = client.post(
        f"/encounters/{f.eid}/combatants", json={"name": "Troll", "stats": novus_stats(hits=211)}
    )
    troll, added = r.json()["id"], r.json()["encounter"]["version"]
    command(client, f.eid, {"type": "undo"})
    # when the player reads the view as it was, the events and the log
    then = seen(read(client, f, "", f.anna, version=added).json(), troll)
    events = read(client, f, "/events", f.anna).json()["events"]
    log = " ".join(line["text"] for line in read(client, f, "/log", f.anna).json()["lines"])
    # then none holds the troll's hits (its numbers: an id's hex digits may spell 211)
    assert (then["hits"], then["health_state"]) == (None, "unhurt")
    assert "211" not in log and "Troll joins" in log
    (add,) = [e for e in events if e["position"] == added]
    assert add["data"]["hits"] is None and "hits" in add["withheld"]
    (undone,) = [e for e in events if e["type"] == "CommandUndone"]
    assert 211 not in figures(undone["data"])


def test_given_a_hidden_combatant_whose_addition_was_undone_then_players_read_no_trace(
    client: TestClient,
) -> None:
    f = fight(client)
    body = {"name": "Zqx Lurker", "stats": novus_stats(), "hidden": True}
    lurker = client.post(f"/encounters/{f.eid}/combatants", json=body).json()["id"]
    command(client, f.eid, {"type": "undo"})
    reads = [read(client, f, path, f.anna).text for path in ("/events", "/log")]
    reads += [read(client, f, "", f.anna, version=n).text for n in range(1, 12)]
    assert not [text for text in reads if lurker in text or "Zqx Lurker" in text]


def test_given_a_player_following_the_feed_then_the_ogres_figures_are_withheld_there_too(
    server: str,  # noqa: F811
) -> None:
    # given a live server: the ogre (137 hits) and the hero, whose player follows the feed
    http = httpx.Client(base_url=server, timeout=30)
    created = http.post("/encounters", json={"name": "Feed", "ruleset": "novus"}).json()
    eid, gm = created["id"], {"Authorization": f"Bearer {created['gm_token']}"}
    add = lambda name, hits: http.post(  # noqa: E731
        f"/encounters/{eid}/combatants",
        json={"name": name, "stats": novus_stats(hits=hits)},
        headers=gm,
    ).json()["id"]
    hero, ogre = add("Hero", 40), add("Ogre", OGRE_HITS)
    token = http.post(f"/encounters/{eid}/tokens", json={"combatants": [hero]}, headers=gm)
    player = {"Authorization": f"Bearer {token.json()['token']}"}
    # when the GM's ogre loses 11 hits and a note is taken on him
    for body in (
        {"type": "adjust_hits", "combatant": ogre, "amount": AFTER - OGRE_HITS},
        {"type": "take_note", "combatant": ogre, "text": NOTE},
    ):
        assert http.post(f"/encounters/{eid}/commands", json=body, headers=gm).status_code == 200
    version = http.get(f"/encounters/{eid}", headers=gm).json()["version"]
    got = until_view_of(f"{server}/encounters/{eid}/stream?view=true", player, version)
    # then the feed's records and views hold none of his figures, nor the note
    records = [m["data"] for m in got if "type" in m.get("data", {})]
    about_ogre = [r for r in records if r["data"].get("combatant") == ogre]
    assert about_ogre and all(r.get("withheld") for r in about_ogre)
    view = [m["data"] for m in got if "combatants" in m.get("data", {})][-1]
    assert seen(view, ogre)["hits"] is None and seen(view, ogre)["health_state"] == "hurt"
    text = json.dumps(got)
    assert NOTE not in text and f'"hits": {AFTER}' not in text and f'"hits":{AFTER}' not in text
