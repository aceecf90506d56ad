"""What players see (docs/visibility.md): a hidden combatant leaves no trace in any read of
a player's token — the view at any version, the events (JSON, NDJSON, CSV), the log, the
choices, the diff, verify, a command's answer, a preview, the live feed — until the GM
reveals him; the GM reads everything; a player's export verifies, its withheld records
counted. On SQLite and PostgreSQL."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from api.cli import app as cli
from infra.app import Fraylog
from projections.visibility import Sight, readable
from tests.api.test_stream import follow, server  # noqa: F401  (the fixture)
from tests.builders import add_combatant, command, new_encounter
from tests.builders.novus import novus_stats

AMBUSHER = "Zqx Ambusher"  # a name no other text holds


@dataclass
class Ambush:
    eid: str
    hero: str
    ambusher: str
    player: dict[str, str]  # the hero's player's Authorization header


def ambush(client: TestClient, until_acting: bool = False) -> Ambush:
    """Anna's hero and a goblin in the open; an ambusher the GM keeps hidden, who rolls
    initiative and declares a dodge (the GM's doing), then the goblin declares; the hero's
    declaration is left to his player."""
    eid = new_encounter(client)
    hero = add_combatant(client, eid, "Hero", novus_stats(), "heroes")
    goblin = add_combatant(client, eid, "Goblin", novus_stats(), "raiders")
    r = client.post(
        f"/encounters/{eid}/combatants",
        json={"name": AMBUSHER, "side": "raiders", "stats": novus_stats(), "hidden": True}
        | {"until_acting": until_acting},
    )
    assert r.status_code == 201, r.text
    ambusher = r.json()["id"]
    token = client.post(
        f"/encounters/{eid}/tokens", json={"combatants": [hero], "label": "Anna"}
    ).json()["token"]
    for who, ip in ((hero, 14), (goblin, 9), (ambusher, 5)):
        command(client, eid, {"type": "roll_initiative", "combatant": who, "ip": ip})
    if not until_acting:  # the lowest IP declares first: the ambusher, then the goblin
        dodge = {"type": "declare", "combatant": ambusher, "actions": [{"kind": "dodge"}]}
        command(client, eid, dodge)
        command(client, eid, {"type": "declare", "combatant": goblin, "actions": []})
    return Ambush(eid, hero, ambusher, {"Authorization": f"Bearer {token}"})


def player_reads(client: TestClient, a: Ambush) -> dict[str, str]:
    """Every read path of the player's token, as the text it answers."""
    get = lambda path, **params: client.get(  # noqa: E731
        f"/encounters/{a.eid}{path}", params=params, headers=a.player, auth=None
    )
    version = get("").json()["version"]
    reads = {
        "view": get(""),
        "view at every version": [get("", version=n).text for n in range(1, version + 1)],
        "events": get("/events"),
        "ndjson": get("/events", format="ndjson"),
        "csv": get("/events", format="csv"),
        "log": get("/log"),
        "choices": get("/choices"),
        "diff": get("/diff", **{"from": 1}),
        "verify": get("/verify"),
        "checkpoints": get("/checkpoints"),
        "preview": client.post(
            f"/encounters/{a.eid}/commands",
            params={"preview": "true"},
            json={"type": "declare", "combatant": a.hero, "actions": [{"kind": "dodge"}]},
            headers=a.player,
            auth=None,
        ),
    }
    return {
        k: json.dumps(v) if isinstance(v, list) else (v.raise_for_status() and v.text)
        for k, v in reads.items()
    }


@dataclass
class LiveAmbush(Ambush):
    gm: dict[str, str]  # the GM's Authorization header


def live_ambush(base: str) -> tuple[httpx.Client, LiveAmbush]:
    """Over a real server: a hero with his player's token, and an ambusher added hidden
    (until the GM reveals him) who has rolled his initiative."""
    http = httpx.Client(base_url=base, timeout=30)
    created = http.post("/encounters", json={"name": "Feed", "ruleset": "novus"}).json()
    eid, gm = created["id"], {"Authorization": f"Bearer {created['gm_token']}"}
    hero = http.post(
        f"/encounters/{eid}/combatants", json={"name": "Hero", "stats": novus_stats()}, headers=gm
    ).json()["id"]
    ambusher = http.post(
        f"/encounters/{eid}/combatants",
        json={"name": AMBUSHER, "stats": novus_stats(), "hidden": True, "until_acting": False},
        headers=gm,
    ).json()["id"]
    body = {"type": "roll_initiative", "combatant": ambusher, "ip": 12}
    assert http.post(f"/encounters/{eid}/commands", json=body, headers=gm).status_code == 200
    token = http.post(f"/encounters/{eid}/tokens", json={"combatants": [hero]}, headers=gm).json()[
        "token"
    ]
    return http, LiveAmbush(eid, hero, ambusher, {"Authorization": f"Bearer {token}"}, gm)


def until_view_of(
    url: str, headers: dict[str, str], version: int, *, view: bool = True
) -> list[dict[str, Any]]:
    """The messages of a feed up to the view after event `version` (`view=False`: up to
    the event itself)."""
    got: list[dict[str, Any]] = []
    with httpx.stream("GET", url, headers=headers, timeout=30) as r:
        assert r.status_code == 200, r.read()
        message: dict[str, Any] = {}
        for line in r.iter_lines():
            if line.startswith("id:"):
                message["id"] = line[3:].strip()
            elif line.startswith("data:"):
                message["data"] = json.loads(line[5:].strip())
            elif line == "" and message:
                got.append(message)
                if not view and message.get("id") == str(version):
                    return got
                if "id" not in message and message["data"].get("version") == version:
                    return got
                message = {}
    return got


def leaks(text: str, a: Ambush) -> bool:
    return a.ambusher in text or AMBUSHER in text


def test_given_a_hidden_ambusher_then_no_read_of_a_players_token_shows_a_trace_of_him(
    client: TestClient,
) -> None:
    # given an ambusher kept hidden, who has rolled and declared
    a = ambush(client)
    # when the player reads everything he may
    reads = player_reads(client, a)
    # then no answer names him, by id or by name
    assert not [name for name, text in reads.items() if leaks(text, a)]
    # and the GM's reads do
    gm = client.get(f"/encounters/{a.eid}/events", params={"format": "ndjson"}).text
    assert leaks(gm, a) and leaks(client.get(f"/encounters/{a.eid}/log").text, a)
    # and the player's export keeps each withheld record's position and hash, nothing else
    lines = [json.loads(x) for x in reads["ndjson"].splitlines()]
    withheld = [x for x in lines if x.get("redacted")]
    assert {tuple(sorted(x)) for x in withheld} == {("hash", "position", "redacted")}
    assert [x["position"] for x in lines if "position" in x] == list(range(1, len(lines) + 1))


def test_given_a_players_command_then_its_answer_shows_no_hidden_combatant(
    client: TestClient,
) -> None:
    a = ambush(client)
    r = client.post(
        f"/encounters/{a.eid}/commands",
        json={"type": "declare", "combatant": a.hero, "actions": [{"kind": "dodge"}]},
        headers=a.player,
        auth=None,
    )
    assert r.status_code == 200, r.text
    assert not leaks(r.text, a)
    assert r.json()["encounter"]["version"] == r.json()["events"][-1]["position"]


def test_given_a_players_export_then_it_verifies_with_its_withheld_records_counted(
    client: TestClient, tmp_path: Path
) -> None:
    a = ambush(client)
    command(client, a.eid, {"type": "declare", "combatant": a.hero, "actions": [{"kind": "dodge"}]})
    assert client.post(f"/encounters/{a.eid}/checkpoints").status_code == 201
    keys = tmp_path / "keys.json"
    keys.write_text(client.get("/audit/keys").text)
    for fmt, kind in (("ndjson", "application/x-ndjson"), ("csv", "text/csv")):
        text = client.get(
            f"/encounters/{a.eid}/events", params={"format": fmt}, headers=a.player, auth=None
        ).text
        assert not leaks(text, a)
        report = client.post("/audit/verify", content=text, headers={"Content-Type": kind}).json()
        assert report["ok"], report
        assert report["chain"]["redacted"] >= 4  # added, hidden, initiative, declaration
        file = tmp_path / f"player.{fmt}"
        file.write_bytes(text.encode())
        printed = CliRunner().invoke(cli, ["verify", str(file), "--keys", str(keys), "--json"])
        assert printed.exit_code == 0, printed.output
        assert json.loads(printed.output) == report
        # the same over GET …/verify with the player's token
        assert (
            client.get(f"/encounters/{a.eid}/verify", headers=a.player, auth=None).json() == report
        )
    # and the GM's export is whole
    gm = client.get(f"/encounters/{a.eid}/events", params={"format": "ndjson"}).text
    gm_report = client.post(
        "/audit/verify", content=gm, headers={"Content-Type": "application/x-ndjson"}
    )
    assert gm_report.json()["chain"]["redacted"] == 0 and gm_report.json()["ok"]


@pytest.mark.parametrize("earlier", ["all", "from_reveal"])
def test_given_the_gm_reveals_him_then_players_see_him_and_his_past_as_the_gm_chose(
    client: TestClient, earlier: str
) -> None:
    a = ambush(client)
    before = client.get(f"/encounters/{a.eid}", headers=a.player, auth=None).json()["version"]
    revealed = command(
        client, a.eid, {"type": "reveal_combatant", "combatant": a.ambusher, "earlier": earlier}
    )
    at = revealed["events"][0]["position"]
    view = client.get(f"/encounters/{a.eid}", headers=a.player, auth=None).json()
    assert a.ambusher in [c["id"] for c in view["combatants"]]
    events = client.get(f"/encounters/{a.eid}/events", headers=a.player, auth=None).json()["events"]
    withheld = [e["position"] for e in events if e.get("redacted")]
    old_view = client.get(
        f"/encounters/{a.eid}", params={"version": before}, headers=a.player, auth=None
    ).text
    if earlier == "all":
        assert withheld == [] and leaks(old_view, a)
    else:
        assert withheld and max(withheld) < at and not leaks(old_view, a)
        assert not [e for e in events if e["position"] >= at and e.get("redacted")]


def test_given_a_hidden_combatant_until_he_acts_then_his_first_move_reveals_him(
    client: TestClient,
) -> None:
    a = ambush(client, until_acting=True)
    assert not leaks(client.get(f"/encounters/{a.eid}", headers=a.player, auth=None).text, a)
    # the GM rolls his initiative: not his move, he stays hidden
    assert not leaks(client.get(f"/encounters/{a.eid}/log", headers=a.player, auth=None).text, a)
    declared = command(
        client, a.eid, {"type": "declare", "combatant": a.ambusher, "actions": [{"kind": "dodge"}]}
    )
    assert [e["type"] for e in declared["events"]] == ["CombatantRevealed", "ActionsDeclared"]
    assert leaks(client.get(f"/encounters/{a.eid}", headers=a.player, auth=None).text, a)


def test_given_hide_and_reveal_then_only_the_gm_may_and_twice_is_refused(
    client: TestClient,
) -> None:
    a = ambush(client)
    body = {"type": "reveal_combatant", "combatant": a.ambusher}
    r = client.post(f"/encounters/{a.eid}/commands", json=body, headers=a.player, auth=None)
    assert r.status_code == 403 and r.json()["rule"] == "ROLE"
    again = client.post(
        f"/encounters/{a.eid}/commands", json={"type": "hide_combatant", "combatant": a.ambusher}
    )
    assert again.status_code == 422 and again.json()["rule"] == "HIDDEN"
    command(client, a.eid, body)
    twice = client.post(f"/encounters/{a.eid}/commands", json=body)
    assert twice.status_code == 422 and twice.json()["rule"] == "HIDDEN"
    # hidden again later: gone again from the players' reads, his past included
    command(client, a.eid, {"type": "hide_combatant", "combatant": a.ambusher})
    assert not [k for k, text in player_reads(client, a).items() if leaks(text, a)]


def test_given_a_player_following_the_feed_across_the_reveal_then_he_sees_him_only_after(
    server: str,  # noqa: F811
) -> None:
    http, a = live_ambush(server)
    eid, gm, player, ambusher = a.eid, a.gm, a.player, a.ambusher
    # the player follows, hangs up after 5 events, and resumes with Last-Event-ID
    seen: list[dict[str, Any]] = []
    follow(f"{server}/encounters/{eid}/stream?view=true", player, seen, 5, [])
    assert not [m for m in seen if leaks(json.dumps(m), a)]
    last = [m for m in seen if "id" in m][-1]["id"]
    r = http.post(
        f"/encounters/{eid}/commands",
        json={"type": "reveal_combatant", "combatant": ambusher},
        headers=gm,
    )
    assert r.status_code == 200, r.text
    # resumed: every event after the last one he saw, and the view after the reveal
    version = http.get(f"/encounters/{eid}", headers=gm).json()["version"]
    resumed = until_view_of(
        f"{server}/encounters/{eid}/stream?view=true", {**player, "Last-Event-ID": last}, version
    )
    assert [m["id"] for m in resumed if "id" in m] == [
        str(n) for n in range(int(last) + 1, version + 1)
    ]
    revealed = [m for m in resumed if m.get("data", {}).get("type") == "CombatantRevealed"]
    assert revealed and revealed[0]["data"]["data"]["combatant"] == ambusher
    views = [m["data"] for m in resumed if "combatants" in m.get("data", {})]
    assert views and ambusher in [c["id"] for c in views[-1]["combatants"]]


def test_given_a_hide_undone_then_the_players_see_him_again(client: TestClient) -> None:
    a = ambush(client)
    command(client, a.eid, {"type": "reveal_combatant", "combatant": a.ambusher})
    command(client, a.eid, {"type": "hide_combatant", "combatant": a.ambusher})
    assert not leaks(client.get(f"/encounters/{a.eid}", headers=a.player, auth=None).text, a)
    command(client, a.eid, {"type": "undo"})
    view = client.get(f"/encounters/{a.eid}", headers=a.player, auth=None).json()
    assert a.ambusher in [c["id"] for c in view["combatants"]]


def test_given_a_refusal_that_would_name_him_then_the_player_reads_someone(
    client: TestClient,
) -> None:
    # given the goblin undeclared: the ambusher (IP 5) must declare first
    a = ambush(client, until_acting=False)
    eid = a.eid
    goblin = next(
        c["id"]
        for c in client.get(f"/encounters/{eid}").json()["combatants"]
        if c["name"] == "Goblin"
    )
    command(client, eid, {"type": "undo"})  # the goblin's declaration
    command(client, eid, {"type": "undo"})  # the ambusher's
    # when the player declares out of turn, and acts for a combatant not his
    early = client.post(
        f"/encounters/{eid}/commands",
        json={"type": "declare", "combatant": a.hero, "actions": []},
        headers=a.player,
        auth=None,
    )
    foreign = client.post(
        f"/encounters/{eid}/commands",
        json={"type": "declare", "combatant": a.ambusher, "actions": []},
        headers=a.player,
        auth=None,
    )
    # then each is refused without naming him
    assert early.status_code == 422 and foreign.status_code == 403
    for refused in (early, foreign):
        assert not leaks(refused.text, a), refused.text
    assert "someone" in early.json()["detail"]
    # and the GM reads his name
    gm = client.post(
        f"/encounters/{eid}/commands",
        json={"type": "declare", "combatant": goblin, "actions": []},
    )
    assert gm.status_code == 422 and AMBUSHER in gm.json()["detail"]


def test_given_a_feed_read_from_any_position_in_pages_of_two_then_no_trace_of_him(
    server: str,  # noqa: F811
    fraylog: Fraylog,
) -> None:
    # given pages of two events (a page may end between his joining and his hiding, and a
    # command may end where a page does), an ambusher hidden after he joined, who rolled
    fraylog.settings = replace(fraylog.settings, page_size=2)
    http, a = live_ambush(server)
    eid, gm, player = a.eid, a.gm, a.player
    version = http.get(f"/encounters/{eid}", headers=gm).json()["version"]
    # when the player follows from every position
    for after in range(version):
        got = until_view_of(
            f"{server}/encounters/{eid}/stream?view=true&after={after}", player, version
        )
        # then no message names him
        assert not leaks(json.dumps(got), a), after


def test_given_names_inside_names_then_labels_and_text_keep_the_hidden_one_unsaid() -> None:
    # given a hidden "Goblin Chief" beside a visible "Goblin", and the other way round
    for hidden, seen in (("Goblin Chief", "Goblin"), ("Goblin", "Goblin Chief")):
        sight = Sight(hidden=frozenset({"h"}), seen_from={}, names={"h": hidden, "s": seen})
        words = sight.words()
        text = f"Hero attacks {seen}; {hidden} watches"
        # then his name is `someone`, the other's is whole
        assert words.unnamed(text) == f"Hero attacks {seen}; someone watches"
        # and a record whose free text names him is withheld, one naming the other is not
        assert not readable({"position": 3, "data": {"reason": f"knocked down by {hidden}"}}, sight)
        assert readable({"position": 3, "data": {"reason": f"knocked down by {seen}"}}, sight)


def test_given_a_players_own_combatant_hidden_then_he_still_sees_himself(
    client: TestClient,
) -> None:
    a = ambush(client)
    token = client.post(
        f"/encounters/{a.eid}/tokens", json={"combatants": [a.ambusher], "label": "Sly"}
    ).json()["token"]
    mine = {"Authorization": f"Bearer {token}"}
    view = client.get(f"/encounters/{a.eid}", headers=mine, auth=None).json()
    assert a.ambusher in [c["id"] for c in view["combatants"]]
    assert not leaks(client.get(f"/encounters/{a.eid}", headers=a.player, auth=None).text, a)
