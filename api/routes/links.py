"""OpenAPI links from an answer to what can follow it (clients and schemathesis's stateful
runs use them): from a new encounter, and from a new combatant."""

from __future__ import annotations

from typing import Any


def _links(encounter: str, **more: dict[str, Any]) -> dict[str, Any]:
    """A link to each route an encounter's id opens (`encounter`: where the answer or the
    request holds it), and `more`."""
    follow = (
        "get_encounter",
        "add_combatant",
        "run_command",
        "get_events",
        "get_log",
        "verify_encounter",
        "get_checkpoints",
        "sign_checkpoint",
        "mint_player_token",
        "fork_encounter",
    )
    links = {
        name: {"operationId": name, "parameters": {"encounter_id": encounter}} for name in follow
    }
    return links | more


FIGHTER = {  # a Novus combatant, for a link that adds one (a Wits encounter refuses it)
    "name": "Brakka",
    "stats": {
        "hits": 30,
        "bonuses": {"spd": 2, "wis": 1, "dex": 2},
        "melee_ranks": 7,
        "weapons": [{"name": "sword", "dr": 6, "stat": "dex", "ranks": 7}],
    },
}
ENCOUNTER_LINKS = {
    201: {
        "links": _links(
            "$response.body#/id",
            add_fighter={
                "operationId": "add_combatant",
                "parameters": {"encounter_id": "$response.body#/id"},
                "requestBody": FIGHTER,
            },
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
            adjust_hits={
                "operationId": "run_command",
                "parameters": {"encounter_id": "$request.path.encounter_id"},
                "requestBody": {
                    "type": "adjust_hits",
                    "combatant": "$response.body#/id",
                    "amount": -3,
                },
            },
            player_token={
                "operationId": "mint_player_token",
                "parameters": {"encounter_id": "$request.path.encounter_id"},
                "requestBody": {"combatants": ["$response.body#/id"]},
            },
        )
    }
}
