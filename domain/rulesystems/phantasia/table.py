"""How the web table presents PHANTÄSIA (domain.presentation, docs/web.md)."""

from __future__ import annotations

from domain.presentation import Card, Figure, Health, Mark, Replay, Table

TABLE = Table(
    health=Health(label="PV", current="pv", maximum="max_pv"),
    order=Figure(label="Init.", fields=["initiative"]),
    card=Card(
        stats=[
            Figure(label="PM", fields=["pm", "max_pm"], format="of"),
            Figure(label="Action points", fields=["actions_left"]),
            Figure(label="DF / DM", fields=["df", "dm"], format="of"),
            Figure(label="PHANTÄSIA pts", fields=["phantasia_points"]),
        ],
        statuses="statuses",  # PHA-STS-0: each with its Spanish name and turns left
        tags=[
            Mark(
                field="controller",
                values={"player": "player character", "narrator": "narrator's"},
                when="set",
            ),
            Mark(field="negative_damage", text="negative damage {}"),
            Mark(field="in_turn", text="in his turn"),
            Mark(field="reaction_used", text="reaction used"),
        ],
        state=[
            Mark(field="dead", text="dead"),
            Mark(field="unconscious", text="unconscious"),
            Mark(field="down", text="down"),
        ],
    ),
    replay=Replay(
        facts=[
            Figure(label="PM", fields=["pm", "max_pm"], format="of"),
            Figure(label="Action points", fields=["actions_left"]),
            Figure(
                label="PHANTÄSIA points",
                fields=["phantasia_points", "max_phantasia_points"],
                format="of",
            ),
            Figure(label="Initiative", fields=["initiative"]),
            Figure(label="Negative damage", fields=["negative_damage"], format="nonzero"),
        ],
        flags=[
            Mark(field="dead", text="dead"),
            Mark(field="unconscious", text="unconscious", unless=["dead"]),
            Mark(field="statuses", format="statuses"),
        ],
        fields={
            "pm": "PM",
            "df": "DF",
            "dm": "DM",
            "at": "AT",
            "am": "AM",
            "actions_left": "Actions left",
        },
    ),
    # the test builders' fighter
    example={
        "controller": "player",
        "fue": 10,
        "agi": 8,
        "int": 9,
        "vit": 6,
        "sue": 6,
        "level": 3,
        "pv": 30,
        "shield": {"df": 1},
        "weapons": [{"name": "espada", "code": "AMM", "damage": "1d8"}],
    },
)
