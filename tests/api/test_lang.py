"""Spanish over HTTP: the narrative log (`lang=es`, PHANTÄSIA encounters only) and the
detail of a refusal (`?lang=es` or `Accept-Language: es`, whatever the rule system)."""

from __future__ import annotations

import pytest
from fastapi import FastAPI, Request
from fastapi.testclient import TestClient

from api.problems import asks_spanish, install
from domain.errors import RuleViolation
from tests.builders import add_combatant, command, new_encounter
from tests.builders.novus import novus_stats

SPANISH = "es-ES,es;q=0.9,en;q=0.5"


def novus_table(client: TestClient) -> tuple[str, str]:
    eid = new_encounter(client)
    return eid, add_combatant(client, eid, "Brakka", novus_stats(), side="héroes")


def wits_fighter(wits: int) -> dict:
    return {
        "wits": wits,
        "move": 12,
        "strength": 12,
        "base_damage": "1d6",
        "health": 20,
        "skills": {"brawling": 11},
        "weapons": [{"name": "fist", "damage": "1d3", "skill": "brawling", "unarmed": True}],
    }


# -- the narrative log ---------------------------------------------------------------


@pytest.mark.parametrize("lang", ["xx", "ES", ""])
def test_given_an_unknown_lang_when_reading_the_log_then_422_names_lang(
    sqlite_client: TestClient, lang: str
) -> None:
    eid, _ = novus_table(sqlite_client)
    r = sqlite_client.get(f"/encounters/{eid}/log", params={"lang": lang})
    assert r.status_code == 422, r.text
    assert r.headers["content-type"] == "application/problem+json"
    assert r.json()["field"] == "lang" and r.json()["rule"] == "LANG"


def test_given_a_novus_encounter_when_reading_the_log_in_spanish_then_422_rule_lang(
    client: TestClient,
) -> None:
    eid, _ = novus_table(client)
    r = client.get(f"/encounters/{eid}/log", params={"lang": "es"})
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["rule"] == "LANG" and body["field"] == "lang"
    assert "PHANTÄSIA" in body["detail"] and "'novus'" in body["detail"]


def test_given_no_lang_or_en_when_reading_the_log_then_english_lines(
    sqlite_client: TestClient,
) -> None:
    eid, _ = novus_table(sqlite_client)
    default = sqlite_client.get(f"/encounters/{eid}/log")
    english = sqlite_client.get(f"/encounters/{eid}/log", params={"lang": "en"})
    assert default.status_code == english.status_code == 200
    assert default.json() == english.json()
    assert default.json()["lines"][1]["text"] == "Brakka joins (héroes): 30/30 hits."
    assert "content-language" not in default.headers


def test_given_a_phantasia_fight_when_reading_the_log_in_spanish_then_the_books_words(
    sqlite_client: TestClient,
) -> None:
    client = sqlite_client
    eid = new_encounter(client, ruleset="phantasia")
    pc = {
        "controller": "player",
        "fue": 10,
        "agi": 8,
        "int": 9,
        "vit": 6,
        "sue": 6,
        "level": 5,
        "pv": 32,
        "weapons": [{"name": "espada", "code": "AMM", "damage": "1d8"}],
    }
    orc = {"fue": 6, "agi": 6, "int": 6, "vit": 6, "sue": 6, "pv": 12}
    endimion = add_combatant(client, eid, "Endimion", pc, side="héroes")
    brakka = add_combatant(client, eid, "Brakka", orc, side="orcos")
    command(
        client,
        eid,
        {"type": "roll_initiative", "dice": {"initiative:Endimion": [7], "initiative:Brakka": [2]}},
    )
    command(client, eid, {"type": "start_turn"})
    command(
        client,
        eid,
        {
            "type": "attack_check",
            "combatant": endimion,
            "targets": [brakka],
            "weapon": "espada",
            "dice": {"attack": [1]},
        },
    )
    command(client, eid, {"type": "roll_damage", "dice": {"damage": [6], "death": [40]}})
    command(
        client, eid, {"type": "apply_status", "combatant": brakka, "status": "stunned", "turns": 1}
    )
    r = client.get(f"/encounters/{eid}/log", params={"lang": "es"})
    assert r.status_code == 200, r.text
    assert r.headers["content-language"] == "es"
    lines = [x["text"] for x in r.json()["lines"]]
    assert lines[0] == "Comienza el encuentro “Test fight” (phantasia, dados de la mesa)."
    assert lines[1] == "Endimion se une (héroes), personaje jugador: PV 32/32."
    assert "Iniciativa de Endimion: 1d12 7 +8 AGI = 15." in lines
    assert "Ronda 1, turno 1 de Endimion: 2 puntos de acción." in lines
    assert any("Endimion tira AT d12 1 ≤ " in x and "¡crítico!" in x for x in lines)
    assert any(x.startswith("Brakka recibe 26 de daño") and "PV 12 → −14" in x for x in lines)
    assert any(x.startswith("Chequeo de muerte de Brakka: d100 40 > 14") for x in lines)
    assert "Brakka: status Aturdido durante 1 turno." in lines
    english = [x["text"] for x in client.get(f"/encounters/{eid}/log").json()["lines"]]
    assert "Brakka: status Stunned for 1 of his turns." in english


def test_given_a_phantasia_refusal_when_asked_in_spanish_then_the_books_spanish(
    sqlite_client: TestClient,
) -> None:
    client = sqlite_client
    eid = new_encounter(client, ruleset="phantasia")
    pc = {"controller": "player", "fue": 7, "agi": 8, "int": 9, "vit": 6, "sue": 6, "pv": 30}
    endimion = add_combatant(client, eid, "Endimion", pc)
    add_combatant(client, eid, "Orco", {"fue": 6, "agi": 6, "int": 6, "vit": 6, "sue": 6, "pv": 9})
    command(
        client,
        eid,
        {"type": "roll_initiative", "dice": {"initiative:Endimion": [9], "initiative:Orco": [1]}},
    )
    command(client, eid, {"type": "start_turn"})
    command(client, eid, {"type": "act", "combatant": endimion, "action": "defense"})
    body = {
        "type": "check",
        "combatant": endimion,
        "characteristic": "fue",
        "as_action": True,
        "offensive": True,
        "dice": {"check": [3]},
    }
    r = client.post(f"/encounters/{eid}/commands", params={"lang": "es"}, json=body)
    assert r.status_code == 422 and r.json()["rule"] == "PHA-ACT-13"
    assert r.json()["detail"].startswith("Endimion tomó la acción de Defensa este turno")
    assert r.headers["content-language"] == "es"
    r = client.post(f"/encounters/{eid}/commands", json=body)
    assert r.json()["detail"].startswith("Endimion took the Defense action this turn")
    assert r.headers["vary"] == "Accept-Language"  # a cache keeps the two apart


def test_given_the_openapi_document_then_lang_is_described_on_the_log_and_the_commands(
    sqlite_client: TestClient,
) -> None:
    paths = sqlite_client.get("/openapi.json").json()["paths"]
    for path, method in (("/log", "get"), ("/commands", "post")):
        operation = paths[f"/encounters/{{encounter_id}}{path}"][method]
        (lang,) = [p for p in operation["parameters"] if p["name"] == "lang"]
        assert lang["in"] == "query" and lang["schema"]["enum"] == ["en", "es"]
        assert "es" in lang["description"]


# -- refusals --------------------------------------------------------------------------


def test_given_bad_dice_when_asking_with_lang_es_then_the_detail_is_spanish(
    client: TestClient,
) -> None:
    eid, brakka = novus_table(client)
    body = {"type": "roll_initiative", "combatant": brakka, "dice": {"initiative": [11]}}
    r = client.post(f"/encounters/{eid}/commands", params={"lang": "es"}, json=body)
    assert r.status_code == 422, r.text
    problem = r.json()
    assert problem["detail"] == "el dado 1 de la tirada 'initiative' es un d10: 11 no está en 1..10"
    assert problem["title"] == "Bad dice" and problem["roll"] == "initiative"  # the rest as is
    assert r.headers["content-language"] == "es"
    english = client.post(f"/encounters/{eid}/commands", json=body)
    assert english.json()["detail"] == "die 1 of roll 'initiative' is a d10: 11 is not in 1..10"
    assert "content-language" not in english.headers


@pytest.mark.parametrize(
    ("dice", "spanish"),
    [
        (
            {},
            "la tirada 'attack' necesita una cara para el dado 1 (un d20), pero no se dio ninguna",
        ),
        ({"attack": [15, 5, 6]}, "a la tirada 'attack' le sobran 2 caras después del dado 1"),
        ({"attack": [15], "damage": [3]}, "la tirada 'damage' no se tira en esta orden"),
        ({"attack": [0]}, "el dado 1 de la tirada 'attack' es un d20: 0 no está en 1..20"),
    ],
)
def test_given_a_wits_attack_with_bad_dice_when_accept_language_is_es_then_spanish_detail(
    sqlite_client: TestClient, dice: dict, spanish: str
) -> None:
    eid = new_encounter(sqlite_client, ruleset="wits")
    lief = add_combatant(sqlite_client, eid, "Lief", wits_fighter(12))
    foe = add_combatant(sqlite_client, eid, "Grukk", wits_fighter(10))
    command(sqlite_client, eid, {"type": "roll_initiative"})
    body = {"type": "attack", "combatant": lief, "target": foe, "weapon": "fist", "roll": True}
    r = sqlite_client.post(
        f"/encounters/{eid}/commands",
        json=body | {"dice": dice},
        headers={"Accept-Language": SPANISH},
    )
    assert r.status_code == 422, r.text
    assert r.json()["detail"] == spanish, r.json()
    assert r.headers["content-language"] == "es"


def test_given_novus_initiative_dice_when_asking_spanish_then_unrolled_and_missing_in_spanish(
    sqlite_client: TestClient,
) -> None:
    eid, brakka = novus_table(sqlite_client)
    body = {
        "type": "roll_initiative",
        "combatant": brakka,
        "dice": {"initiative": [5, 5], "damage": [3]},
    }
    r = sqlite_client.post(f"/encounters/{eid}/commands?lang=es", json=body)
    assert r.json()["detail"] == "la tirada 'damage' no se tira en esta orden", r.json()
    r = sqlite_client.post(
        f"/encounters/{eid}/commands?lang=es",
        json={"type": "roll_initiative", "combatant": brakka, "dice": {"initiative": [10]}},
    )
    assert r.json()["detail"] == (
        "la tirada 'initiative' necesita una cara para el dado 2 (un d10), pero solo se dio 1"
    )


def test_given_an_unknown_combatant_when_asking_spanish_then_no_hay_combatiente(
    client: TestClient,
) -> None:
    eid, _ = novus_table(client)
    body = {"type": "roll_initiative", "combatant": "nadie", "ip": 10}
    r = client.post(f"/encounters/{eid}/commands", json=body, headers={"Accept-Language": "es"})
    assert r.status_code == 422
    assert r.json()["detail"] == "no hay combatiente 'nadie' en este encuentro"
    assert r.json()["rule"] == "COMBATANT" and r.headers["content-language"] == "es"


def test_given_lang_en_and_a_spanish_accept_language_then_the_query_wins(
    sqlite_client: TestClient,
) -> None:
    eid, _ = novus_table(sqlite_client)
    body = {"type": "roll_initiative", "combatant": "nadie", "ip": 10}
    r = sqlite_client.post(
        f"/encounters/{eid}/commands?lang=en", json=body, headers={"Accept-Language": "es"}
    )
    assert r.json()["detail"] == "no combatant 'nadie' in this encounter"
    assert "content-language" not in r.headers


def test_given_an_unknown_lang_when_commanding_then_422_names_lang_and_nothing_runs(
    sqlite_client: TestClient,
) -> None:
    eid, brakka = novus_table(sqlite_client)
    body = {"type": "roll_initiative", "combatant": brakka, "ip": 10}
    r = sqlite_client.post(f"/encounters/{eid}/commands?lang=fr", json=body)
    assert r.status_code == 422 and r.json()["field"] == "lang"
    assert sqlite_client.get(f"/encounters/{eid}").json()["version"] == 2


def test_given_a_refusal_without_a_spanish_text_when_asking_spanish_then_english_detail(
    sqlite_client: TestClient,
) -> None:
    eid, _ = novus_table(sqlite_client)
    r = sqlite_client.post(
        f"/encounters/{eid}/commands", params={"lang": "es"}, json={"type": "end_round"}
    )
    assert r.status_code == 422 and r.json()["rule"] == "NOV-SEQ-1"
    assert r.json()["detail"].startswith("the round cannot end")
    assert "content-language" not in r.headers


def test_given_a_rule_violation_with_detail_es_when_asking_spanish_then_its_own_text() -> None:
    app = FastAPI()
    install(app)

    @app.get("/refuse")
    async def refuse() -> None:
        raise RuleViolation("PHA-TEST", "no PM left", field="pm", detail_es="no te quedan PM")

    client = TestClient(app)
    spanish = client.get("/refuse", headers={"Accept-Language": "es-AR, en;q=0.8"})
    assert spanish.json()["detail"] == "no te quedan PM"
    assert spanish.json()["rule"] == "PHA-TEST" and spanish.headers["content-language"] == "es"
    english = client.get("/refuse", headers={"Accept-Language": "en-GB,es;q=0.9"})
    assert english.json()["detail"] == "no PM left"
    assert "content-language" not in english.headers


@pytest.mark.parametrize(
    ("query", "header", "spanish"),
    [
        ("", "es", True),
        ("", "es-ES,es;q=0.9,en;q=0.5", True),
        ("", "en;q=0.5, es", True),  # weighed: es (q=1) before en
        ("", "ES-mx", True),
        ("", "en-US,en;q=0.9,es;q=0.8", False),
        ("", "*, es;q=0.5", True),  # the wildcard names no language
        ("", "fr;q=bad, es;q=0.1", True),
        ("", "", False),
        ("", "esperanto", False),
        ("?lang=es", "", True),
        ("?lang=es", "en", True),
        ("?lang=en", "es", False),
    ],
)
def test_given_a_request_then_spanish_is_asked_by_its_lang_or_first_accept_language(
    query: str, header: str, spanish: bool
) -> None:
    app = FastAPI()
    seen: list[bool] = []

    @app.get("/ask")
    async def ask(request: Request) -> None:
        seen.append(asks_spanish(request))

    TestClient(app).get(f"/ask{query}", headers={"Accept-Language": header} if header else {})
    assert seen == [spanish]
