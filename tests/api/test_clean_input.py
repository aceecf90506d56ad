"""Input that cannot trick a screen: a body with a key given twice, or text holding control,
bidirectional or zero-width characters, is refused (422, `rule: INPUT`, the field named) and
records nothing; text that passes is NFC-normalised and trimmed before the models see it."""

from __future__ import annotations

import asyncio
import json
import unicodedata
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.types import Receive, Scope, Send

from api.clean_input import JSON_BODY, CleanInput
from tests.builders import add_combatant, command, new_encounter
from tests.builders.novus import novus_stats

BAD = [
    pytest.param("\x00", id="NUL"),
    pytest.param("\x1b[31m", id="ESC"),
    pytest.param("\x7f", id="DEL"),
    pytest.param("\x85", id="C1-NEL"),
    pytest.param("\u202e", id="RLO"),
    pytest.param("\u202a", id="LRE"),
    pytest.param("\u2066", id="LRI"),
    pytest.param("\u2069", id="PDI"),
    pytest.param("\u200f", id="RLM"),
    pytest.param("\u061c", id="ALM"),
    pytest.param("\u200b", id="ZWSP"),
    pytest.param("\u200d", id="ZWJ"),
    pytest.param("\u2060", id="WJ"),
    pytest.param("\ufeff", id="BOM"),
]
LINES = [pytest.param("\n", id="LF"), pytest.param("\t", id="TAB")]


def version(client: TestClient, eid: str) -> int:
    return client.get(f"/encounters/{eid}").json()["version"]


def names(client: TestClient, eid: str) -> list[str]:
    return [c["name"] for c in client.get(f"/encounters/{eid}").json()["combatants"]]


def refused(r, field: str) -> None:
    assert r.status_code == 422, r.text
    assert r.headers["content-type"] == "application/problem+json"
    assert r.json()["rule"] == "INPUT"
    assert r.json()["field"] == field


def raw_post(client: TestClient, url: str, text: str):
    return client.post(url, content=text.encode(), headers={"Content-Type": "application/json"})


def test_given_a_command_with_type_twice_when_sent_then_422_and_no_undo_recorded(
    client: TestClient,
) -> None:
    # given: a fight with an adjustment an undo would take back
    eid = new_encounter(client)
    a = add_combatant(client, eid, "Eve", novus_stats())
    command(client, eid, {"type": "adjust_hits", "combatant": a, "amount": -3})
    before = version(client, eid)
    # when: "type" is given twice, the last being "undo"
    r = raw_post(client, f"/encounters/{eid}/commands", '{"type":"adjust_hits","type":"undo"}')
    # then: refused, naming the key; nothing recorded
    refused(r, "body.type")
    assert "twice" in r.json()["detail"]
    assert version(client, eid) == before


def test_given_no_content_type_when_a_command_has_type_twice_then_still_422(
    client: TestClient,
) -> None:
    # given a fight; when the body comes with no Content-Type (FastAPI reads it as JSON)
    eid = new_encounter(client)
    a = add_combatant(client, eid, "Eve", novus_stats())
    command(client, eid, {"type": "adjust_hits", "combatant": a, "amount": -3})
    before = version(client, eid)
    body = b'{"type":"adjust_hits","type":"undo"}'
    r = client.post(f"/encounters/{eid}/commands", content=body, headers={"Content-Type": ""})
    # then it is refused all the same, and nothing is recorded
    refused(r, "body.type")
    assert version(client, eid) == before


def test_given_a_nested_key_twice_when_adding_a_combatant_then_its_path_is_named(
    client: TestClient,
) -> None:
    eid = new_encounter(client)
    stats = json.dumps(novus_stats())[:-1] + ', "hits": 99}'  # "hits" again, at the end
    body = '{"name": "Eve", "side": "", "stats": ' + stats + "}"
    refused(raw_post(client, f"/encounters/{eid}/combatants", body), "body.stats.hits")
    assert names(client, eid) == []


def test_given_a_key_twice_when_creating_an_encounter_then_422(client: TestClient) -> None:
    body = '{"name": "A", "name": "B", "ruleset": "novus", "dice_source": "manual"}'
    refused(raw_post(client, "/encounters", body), "body.name")


@pytest.mark.parametrize("bad", [*BAD, *LINES])
def test_given_a_bad_character_in_a_combatant_name_when_adding_then_422_and_nothing_added(
    client: TestClient, bad: str
) -> None:
    eid = new_encounter(client)
    before = version(client, eid)
    r = client.post(
        f"/encounters/{eid}/combatants",
        json={"name": f"Ev{bad}e", "side": "", "stats": novus_stats()},
    )
    refused(r, "body.name")
    assert version(client, eid) == before and names(client, eid) == []


@pytest.mark.parametrize("bad", [*BAD, *LINES])
def test_given_a_bad_character_in_an_encounter_name_when_creating_then_422(
    client: TestClient, bad: str
) -> None:
    r = client.post(
        "/encounters", json={"name": f"Ambush{bad}", "ruleset": "novus", "dice_source": "manual"}
    )
    refused(r, "body.name")


@pytest.mark.parametrize("bad", BAD)
def test_given_a_bad_character_in_a_note_when_taking_it_then_422_and_nothing_recorded(
    client: TestClient, bad: str
) -> None:
    eid = new_encounter(client)
    before = version(client, eid)
    r = client.post(
        f"/encounters/{eid}/commands", json={"type": "take_note", "text": f"beware{bad}"}
    )
    refused(r, "body.text")
    assert version(client, eid) == before


def test_given_a_note_on_two_lines_with_a_tab_when_taken_then_recorded_as_written(
    client: TestClient,
) -> None:
    eid = new_encounter(client)
    out = command(client, eid, {"type": "take_note", "text": "beware:\n\tthe ogre"})
    assert out["encounter"]["version"] > 1
    note = client.get(f"/encounters/{eid}/events").json()["events"][-1]
    assert note["data"]["text"] == "beware:\n\tthe ogre"


def test_given_cafe_in_nfd_when_adding_cafe_in_nfc_then_refused_as_the_same_name(
    client: TestClient,
) -> None:
    # given: "Café" written with a combining accent (NFD)
    eid = new_encounter(client)
    nfd = unicodedata.normalize("NFD", "Café")
    add_combatant(client, eid, nfd, novus_stats())
    assert names(client, eid) == ["Café"]  # stored in NFC
    # when: "Café" with the precomposed é (NFC)
    r = client.post(
        f"/encounters/{eid}/combatants", json={"name": "Café", "side": "", "stats": novus_stats()}
    )
    # then: the same name, refused as today two equal names are
    assert r.status_code == 422, r.text
    assert r.json()["rule"] == "COMBATANT" and r.json()["field"] == "name"
    assert names(client, eid) == ["Café"]


def test_given_names_with_surrounding_spaces_when_sent_then_trimmed(client: TestClient) -> None:
    eid = new_encounter(client, name="  Ambush at the ford  ")
    assert client.get(f"/encounters/{eid}").json()["name"] == "Ambush at the ford"
    add_combatant(client, eid, "  Eve ", novus_stats(), side=" players ")
    (eve,) = client.get(f"/encounters/{eid}").json()["combatants"]
    assert (eve["name"], eve["side"]) == ("Eve", "players")
    r = client.post(
        f"/encounters/{eid}/combatants", json={"name": "Eve", "side": "", "stats": novus_stats()}
    )
    assert r.status_code == 422 and r.json()["rule"] == "COMBATANT"


def test_given_a_body_that_is_not_json_when_sent_then_the_usual_validation_error(
    client: TestClient,
) -> None:
    r = raw_post(client, "/encounters", '{"name": ')
    assert r.status_code == 422
    assert r.json().get("rule") != "INPUT"


def test_given_json_then_a_second_content_type_when_a_bad_note_is_sent_then_still_422(
    client: TestClient,
) -> None:
    # given: a body the route reads as JSON (its first Content-Type), a second type after it
    eid = new_encounter(client)
    before = version(client, eid)
    body = json.dumps({"type": "take_note", "text": "beware\u202e"}).encode()
    # when
    r = client.post(
        f"/encounters/{eid}/commands",
        content=body,
        headers=[("Content-Type", "application/json"), ("Content-Type", "text/plain")],
    )
    # then: cleaned as any JSON body is
    refused(r, "body.text")
    assert version(client, eid) == before


def test_given_json_nested_too_deep_when_sent_then_400_and_nothing_recorded(
    client: TestClient,
) -> None:
    eid = new_encounter(client)
    before = version(client, eid)
    # when
    r = raw_post(client, f"/encounters/{eid}/commands", "[" * 5000 + "]" * 5000)
    # then: the route's refusal of a body it cannot parse, not a server error
    assert r.status_code == 400, r.text
    assert r.headers["content-type"] == "application/problem+json"
    assert version(client, eid) == before


def _through_clean_input(body: bytes) -> tuple[bytes, dict[bytes, bytes], object]:
    """What a route behind CleanInput reads of `body`: the bytes, the headers and the value
    the middleware leaves for the command lane."""
    seen: dict[str, Any] = {}

    async def route(scope: Scope, receive: Receive, send: Send) -> None:
        message = await receive()
        seen.update(body=message["body"], headers=dict(scope["headers"]))
        seen["value"] = scope.get(JSON_BODY)

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        raise AssertionError(f"answered by the middleware: {message}")

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/encounters",
        "headers": [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))],
    }
    asyncio.run(CleanInput(route)(scope, receive, send))
    return seen["body"], seen["headers"], seen["value"]


def test_given_a_body_cleaning_leaves_as_it_is_when_sent_then_the_route_reads_it_as_sent() -> None:
    sent = b'{"type" : "adjust_hits",\n "combatant": "c1", "amount": -3}'
    # when
    body, headers, value = _through_clean_input(sent)
    # then: not re-encoded (the same value either way)
    assert body == sent
    assert headers[b"content-length"] == b"%d" % len(sent)
    assert value == {"type": "adjust_hits", "combatant": "c1", "amount": -3}


def test_given_a_body_cleaning_changes_when_sent_then_the_route_reads_it_re_encoded() -> None:
    sent = json.dumps({"name": "  Cafe\u0301 ", "ruleset": "novus"}).encode()
    # when
    body, headers, value = _through_clean_input(sent)
    # then
    assert json.loads(body) == value == {"name": "Caf\u00e9", "ruleset": "novus"}
    assert headers[b"content-length"] == b"%d" % len(body)


@pytest.mark.parametrize(
    "encoded",
    [
        pytest.param(lambda text: b"\xef\xbb\xbf" + text.encode(), id="UTF-8 with a BOM"),
        pytest.param(lambda text: text.encode("utf-16"), id="UTF-16"),
        pytest.param(lambda text: text.encode("utf-32-le"), id="UTF-32"),
    ],
)
def test_given_a_body_not_in_plain_utf8_when_a_bad_name_is_sent_then_still_422(
    client: TestClient, encoded: Any
) -> None:
    # given: bodies the routes read as JSON all the same (json.loads detects the encoding)
    def created(name: str):
        body = encoded(json.dumps({"name": name, "ruleset": "novus"}, ensure_ascii=False))
        return client.post(
            "/encounters", content=body, headers={"Content-Type": "application/json"}
        )

    # when
    bad, good = created("Evil\u202efight"), created("  Cafe\u0301 ")
    # then: checked and cleaned like any other body
    refused(bad, "body.name")
    assert good.status_code == 201, good.text
    assert client.get(f"/encounters/{good.json()['id']}").json()["name"] == "Caf\u00e9"
