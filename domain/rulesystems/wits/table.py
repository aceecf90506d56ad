"""How the web table presents the Wits system (domain.presentation, docs/web.md)."""

from __future__ import annotations

from domain.presentation import Card, Figure, Health, Mark, Replay, Table

TABLE = Table(
    title="The Wits system",
    health=Health(label="Current Health", current="health", maximum="max_health"),
    order=Figure(label="Wits", fields=["wits"]),  # WIT-ORD-1: the order is by Wits
    card=Card(
        stats=[
            Figure(label="Actions left", fields=["actions_left"]),
            Figure(label="Aim", fields=["aim"], format="signed"),
            Figure(label="Defense", fields=["defense"], format="words", empty="none"),
            Figure(label="Protection", fields=["protection"], empty="0"),
        ],
        tags=[
            Mark(field="conditions", format="entries"),
            Mark(field="charging", text="charging"),
            Mark(field="held", text="holding"),
            Mark(field="turn_over", text="turn over"),
        ],
        state=[
            Mark(field="conditions.dead", text="dead", when="listed"),
            Mark(field="down", text="down"),
        ],
    ),
    replay=Replay(
        facts=[
            Figure(label="Actions left", fields=["actions_left"]),
            Figure(label="Aim", fields=["aim"], format="nonzero"),
            Figure(label="Defense", fields=["defense"]),
            Figure(label="Wits", fields=["wits"]),
            Figure(label="Protection", fields=["protection"], format="nonzero"),
        ],
        flags=[
            Mark(field="down", text="down"),
            Mark(field="held", text="holding"),
            Mark(field="charging", text="charging"),
            Mark(field="conditions", format="entries"),
        ],
        fields={
            "max_health": "Maximum Health",
            "actions_left": "Actions left",
            "actions_used": "Actions used",
        },
    ),
    # the test builders' fighter
    example={
        "wits": 12,
        "move": 12,
        "health": 20,
        "strength": 12,
        "base_damage": "1d6",
        "skills": {"short sword": 13, "brawling": 11},
        "weapons": [
            {"name": "short sword", "damage": "1d8", "skill": "short sword"},
            {"name": "fist", "damage": "1d3", "skill": "brawling", "unarmed": True},
        ],
    },
)
