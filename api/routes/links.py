"""OpenAPI links from an answer to what can follow it (clients and schemathesis's stateful
runs use them): from a new encounter, from a new combatant, and from a command recorded."""

from __future__ import annotations

from typing import Any

# a link whose body is whole: a generator of examples (schemathesis) sends it as it is
# instead of merging it into a body of its own making
WHOLE_BODY = {"x-schemathesis": {"merge_body": False}}


def _links(encounter: str, **more: dict[str, Any]) -> dict[str, Any]:
    """A link to each read an encounter's id opens (`encounter`: where the answer or the
    request holds it), a fork and a checkpoint, and `more`: the writes, each with a body
    that works (a link to a write with no body would leave a client, or a generator of
    examples, to guess one)."""
    follow = (
        "get_encounter",
        "get_events",
        "get_log",
        "get_choices",
        "verify_encounter",
        "get_checkpoints",
        "sign_checkpoint",
    )
    links = {
        name: {"operationId": name, "parameters": {"encounter_id": encounter}} for name in follow
    }
    links["fork_encounter"] = {
        "operationId": "fork_encounter",
        "parameters": {"encounter_id": encounter},
        "requestBody": {"at": 1, "name": "What if"},
        **WHOLE_BODY,
    }
    return links | more


# a combatant of each rule book, for links that add one (another book's encounter refuses it)
FIGHTER = {
    "name": "Brakka",
    "stats": {
        "hits": 30,
        "bonuses": {"spd": 2, "wis": 1, "dex": 2},
        "melee_ranks": 7,
        "weapons": [{"name": "sword", "dr": 6, "stat": "dex", "ranks": 7}],
    },
}
WITS_FIGHTER = {
    "name": "Lief",
    "stats": {
        "wits": 12,
        "move": 12,
        "strength": 12,
        "base_damage": "1d6",
        "health": 20,
        "skills": {"short sword": 13},
        "weapons": [{"name": "short sword", "damage": "1d8", "skill": "short sword"}],
    },
}
PHANTASIA_FIGHTER = {
    "name": "Orco",
    "stats": {
        "fue": 10,
        "agi": 6,
        "int": 4,
        "vit": 8,
        "sue": 4,
        "level": 2,
        "pv": 20,
        "enemy_type": "martial",
        "weapons": [{"name": "hacha", "code": "AMG", "damage": "1d10"}],
    },
}


def _adding(body: dict[str, Any]) -> dict[str, Any]:
    return {
        "operationId": "add_combatant",
        "parameters": {"encounter_id": "$response.body#/id"},
        "requestBody": body,
        **WHOLE_BODY,
    }


def _command(encounter: str, body: dict[str, Any]) -> dict[str, Any]:
    return {
        "operationId": "run_command",
        "parameters": {"encounter_id": encounter},
        "requestBody": body,
        **WHOLE_BODY,
    }


def _adjusting(encounter: str, combatant: str, amount: int) -> dict[str, Any]:
    """The GM moves a combatant's hits: a command every rule book takes."""
    return _command(encounter, {"type": "adjust_hits", "combatant": combatant, "amount": amount})


def _noting(encounter: str, combatant: str | None = None) -> dict[str, Any]:
    """The GM's note, on a combatant or on the fight: any rule book, any step."""
    body = {"type": "take_note", "text": "worth remembering"}
    return _command(encounter, body | ({"combatant": combatant} if combatant else {}))


def _showing_health(encounter: str) -> dict[str, Any]:
    """How players see the health of the GM's combatants: any rule book, any step."""
    return _command(encounter, {"type": "show_health", "shown": "described"})


ENCOUNTER_LINKS = {
    201: {
        "links": _links(
            "$response.body#/id",
            add_fighter=_adding(FIGHTER),
            add_wits_fighter=_adding(WITS_FIGHTER),
            add_phantasia_fighter=_adding(PHANTASIA_FIGHTER),
            note_the_fight=_noting("$response.body#/id"),
            show_health=_showing_health("$response.body#/id"),
        )
    }
}
COMBATANT_LINKS = {
    201: {
        "links": _links(
            "$request.path.encounter_id",
            roll_initiative={
                "operationId": "run_command",
                "parameters": {"encounter_id": "$request.path.encounter_id"},
                "requestBody": {"type": "roll_initiative", "combatant": "$response.body#/id"},
            },
            adjust_hits=_adjusting("$request.path.encounter_id", "$response.body#/id", -3),
            note_the_combatant=_noting("$request.path.encounter_id", "$response.body#/id"),
            player_token={
                "operationId": "mint_player_token",
                "parameters": {"encounter_id": "$request.path.encounter_id"},
                "requestBody": {"combatants": ["$response.body#/id"]},
            },
        )
    }
}
COMMAND_LINKS = {  # after a command on a combatant, another on him, and a correction
    200: {
        "links": {
            "adjust_hits_again": _adjusting(
                "$request.path.encounter_id", "$request.body#/combatant", 1
            ),
            "note_the_fight": _noting("$request.path.encounter_id"),
            "show_health": _showing_health("$request.path.encounter_id"),
            "undo": {
                "operationId": "run_command",
                "parameters": {"encounter_id": "$request.path.encounter_id"},
                "requestBody": {"type": "undo"},
            },
            "read_log": {
                "operationId": "get_log",
                "parameters": {"encounter_id": "$request.path.encounter_id"},
            },
        }
    }
}
