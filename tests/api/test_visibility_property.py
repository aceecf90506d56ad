"""A property of what players see: in random fights of each rule book with hidden
combatants — played by the GM from GET …/choices on seeded dice (reproducible, as a property test
needs), the hidden ones revealed at
random moments, by the GM or by their own first move — no answer to a player's token names
a combatant hidden at that moment, by id or by name (docs/visibility.md)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.builders.novus import novus_stats
from tests.builders.phantasia import ORC, PC
from tests.builders.wits import farthan, fighter

BOOKS = {
    "novus": (novus_stats(hits=60), novus_stats(hits=60)),
    "wits": (fighter(health=60), farthan(health=60)),
    "phantasia": (PC, ORC),
}


def player_answers(client: TestClient, eid: str, headers: dict[str, str]) -> str:
    """What the player's token reads now, as one text."""
    paths = [("", {}), ("/events", {"format": "ndjson"}), ("/log", {}), ("/choices", {})]
    texts = []
    for path, params in paths:
        r = client.get(f"/encounters/{eid}{path}", params=params, headers=headers, auth=None)
        assert r.status_code == 200, r.text
        texts.append(r.text)
    return "\n".join(texts)


def seeded_encounter(client: TestClient, book: str, name: str) -> str:
    """A new encounter of `book` on seeded dice (reproducible, as a property test needs)."""
    body = {"name": name, "ruleset": book, "dice_source": "seeded", "seed": name.lower()}
    return client.post("/encounters", json=body).json()["id"]


@pytest.mark.parametrize("book", sorted(BOOKS))
@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_given_random_fights_with_hidden_combatants_then_no_player_answer_names_one(
    sqlite_client: TestClient, book: str, data: st.DataObject
) -> None:
    client = sqlite_client
    hero_stats, foe_stats = BOOKS[book]
    eid = seeded_encounter(client, book, "Hidden")
    hero = client.post(
        f"/encounters/{eid}/combatants", json={"name": "Hero", "side": "a", "stats": hero_stats}
    ).json()["id"]
    names = {}
    for n in range(data.draw(st.integers(1, 3), label="hidden ones")):
        name = f"Zqx{n}hidden"
        body = {"name": name, "side": "b", "stats": foe_stats, "hidden": True}
        body["until_acting"] = data.draw(st.booleans(), label=f"{name} until acting")
        r = client.post(f"/encounters/{eid}/combatants", json=body)
        assert r.status_code == 201, r.text
        names[r.json()["id"]] = name
    token = client.post(
        f"/encounters/{eid}/tokens", json={"combatants": [hero], "label": "Anna"}
    ).json()["token"]
    player = {"Authorization": f"Bearer {token}"}
    for _ in range(data.draw(st.integers(5, 25), label="commands")):
        view = client.get(f"/encounters/{eid}").json()
        hidden = {c["id"] for c in view["combatants"] if c["hidden"]}
        read = player_answers(client, eid, player)
        leaked = [names[c] for c in hidden if c in read or names[c] in read]
        assert not leaked, (leaked, view["version"])
        if hidden and data.draw(st.integers(0, 9), label="reveal?") == 0:
            who = data.draw(st.sampled_from(sorted(hidden)), label="revealed")
            earlier = data.draw(st.sampled_from(["all", "from_reveal"]), label="earlier")
            body: dict[str, Any] = {
                "type": "reveal_combatant",
                "combatant": who,
                "earlier": earlier,
            }
        else:
            offered = client.get(f"/encounters/{eid}/choices").json()["choices"]
            if not offered:
                break
            body = data.draw(st.sampled_from(offered), label="choice")["command"]
        r = client.post(f"/encounters/{eid}/commands", json=body)
        assert r.status_code in (200, 422), r.text


FIGURES = {  # the health figures of each book's combatant view (docs/visibility.md)
    "novus": ("hits", "max_hits"),
    "wits": ("health", "max_health"),
    "phantasia": ("pv", "max_pv", "negative_damage"),
}
FOES = {
    "novus": novus_stats(hits=71),
    "wits": farthan(health=71),
    "phantasia": {**ORC, "pv": 71},
}
HEALTH_FIELDS = {"hits", "max_hits", "stats", "hits_before", "hits_after", "negative_damage"}


@pytest.mark.parametrize("book", sorted(BOOKS))
@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_given_random_fights_then_no_player_answer_holds_the_gms_foes_figures_or_notes(
    sqlite_client: TestClient, book: str, data: st.DataObject
) -> None:
    client = sqlite_client
    eid = seeded_encounter(client, book, "Concealed")
    add = lambda name, stats: client.post(  # noqa: E731
        f"/encounters/{eid}/combatants", json={"name": name, "side": name, "stats": stats}
    ).json()["id"]
    hero, foe = add("Hero", BOOKS[book][0]), add("Foe", FOES[book])
    token = client.post(f"/encounters/{eid}/tokens", json={"combatants": [hero]}).json()["token"]
    player = {"Authorization": f"Bearer {token}"}
    notes: list[str] = []
    for step in range(data.draw(st.integers(5, 25), label="commands")):
        # then: the view, the events and the log hold none of the foe's figures, no note
        view = client.get(f"/encounters/{eid}", headers=player, auth=None).json()
        shown = next(c for c in view["combatants"] if c["id"] == foe)
        assert all(shown[name] is None for name in FIGURES[book]), shown
        assert shown["health_state"] in ("unhurt", "hurt", "badly_hurt", "down")
        events = client.get(f"/encounters/{eid}/events", headers=player, auth=None).json()
        for rec in events["events"]:
            about_foe = rec["data"].get("combatant") == foe
            held = {k for k, v in rec["data"].items() if k in HEALTH_FIELDS and v is not None}
            assert not (about_foe and held), rec
        read = player_answers(client, eid, player)
        assert not [note for note in notes if note in read]
        gm_log = client.get(f"/encounters/{eid}/log").json()["lines"]
        player_log = {
            line["position"]: line["text"]
            for line in client.get(f"/encounters/{eid}/log", headers=player, auth=None).json()[
                "lines"
            ]
        }
        gm_events = {
            e["position"]: e for e in client.get(f"/encounters/{eid}/events").json()["events"]
        }
        for line in gm_log:
            data_ = gm_events[line["position"]]["data"]
            if data_.get("combatant") == foe and data_.get("hits_after") is not None:
                assert f"→ {data_['hits_after']}" not in player_log[line["position"]]
        # when: the GM notes something, or the fight goes on by a choice
        if data.draw(st.integers(0, 5), label="note?") == 0:
            notes.append(f"Zqx note {step}")
            body: dict[str, Any] = {"type": "take_note", "text": notes[-1]}
            body |= {"combatant": foe} if data.draw(st.booleans(), label="on the foe") else {}
        else:
            offered = client.get(f"/encounters/{eid}/choices").json()["choices"]
            if not offered:
                break
            body = data.draw(st.sampled_from(offered), label="choice")["command"]
        r = client.post(f"/encounters/{eid}/commands", json=body)
        assert r.status_code in (200, 422), r.text
