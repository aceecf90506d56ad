"""How the web table presents the skirmish (domain.presentation): no shared file names it."""

from __future__ import annotations

from domain.presentation import Card, Figure, Health, Mark, Replay, Table

TABLE = Table(
    health=Health(label="Hits", current="hits", maximum="max_hits"),
    order=Figure(label="Init.", fields=["initiative"]),  # SKR-INIT-1
    card=Card(
        stats=[Figure(label="Fight", fields=["fight"]), Figure(label="Guard", fields=["guard"])],
        tags=[Mark(field="struck", text="struck this round")],  # SKR-STR-1
        state=[Mark(field="down", text="down")],  # SKR-DOWN-1
    ),
    replay=Replay(
        facts=[
            Figure(label="Initiative", fields=["initiative"]),
            Figure(label="Guard", fields=["guard"]),
        ],
        flags=[Mark(field="down", text="down"), Mark(field="struck", text="struck")],
    ),
    example={"fight": 3, "guard": 2, "hits": 3},
)
