"""How the web table presents Novus (domain.presentation, docs/web.md)."""

from __future__ import annotations

from domain.presentation import Card, Figure, Health, Mark, Replay, Table

TABLE = Table(
    health=Health(label="Hits", current="hits", maximum="max_hits"),
    order=Figure(label="IP", fields=["effective_ip", "ip"]),  # NOV-INIT: the IP acted on
    card=Card(
        stats=[
            Figure(label="AP left", fields=["action_points_left"]),
            Figure(label="DEF", fields=["def"]),
            Figure(label="Bleeding", fields=["bleeding"], format="count-warn"),
            Figure(label="Dazed", fields=["daze_count"], format="count-warn"),
            Figure(label="Stunned", fields=["stun_count"], format="count-warn"),
        ],
        tags=[
            Mark(field="conditions", format="entries"),
            Mark(field="fate_points", text="{} Fate Point", plural="{} Fate Points"),
            Mark(field="hold_ip", text="holds to IP {}", when="set"),
            Mark(field="declared", text="declared"),
        ],
        state=[
            Mark(field="dead", text="dead"),
            Mark(field="dying", text="dying"),
            Mark(field="down", text="down"),
            Mark(field="helpless", text="helpless"),
        ],
    ),
    replay=Replay(
        facts=[
            Figure(label="IP", fields=["effective_ip", "ip"]),
            Figure(label="AP left", fields=["action_points_left", "ap_budget"], format="of-words"),
            Figure(label="Bleeding", fields=["bleeding"], format="nonzero"),
            Figure(label="Dazed", fields=["daze_count"], format="nonzero"),
            Figure(label="Stunned", fields=["stun_count"], format="nonzero"),
            Figure(label="DEF", fields=["def"]),
            Figure(label="Fate Points", fields=["fate_points"], format="nonzero"),
        ],
        flags=[
            Mark(field="dead", text="dead"),
            Mark(field="dying", text="dying", unless=["dead"]),
            Mark(field="down", text="down", unless=["dead", "dying"]),
            Mark(field="helpless", text="helpless", unless=["dead"]),
            Mark(field="conditions", format="entries"),
        ],
        fields={
            "ip": "IP",
            "effective_ip": "Effective IP",
            "ap_budget": "AP budget",
            "ap_spent": "AP spent",
            "action_points_left": "AP left",
            "daze_count": "Dazed",
            "stun_count": "Stunned",
            "def": "DEF",
        },
    ),
    # the test builders' fighter
    example={
        "hits": 30,
        "bonuses": {"str": 2, "dex": 2, "spd": 0, "con": 1, "wil": 1, "wis": 0},
        "ar": 4,
        "weapons": [
            {
                "name": "sword",
                "dr": 6,
                "stat": "dex",
                "ranks": 7,
                "size": "medium",
                "damage_type": "slashing",
            }
        ],
    },
    key_stats=["hits"],  # the stats schema requires none: every stat has a default but hits
)
