"""The benchmark's typical attack workload, as plain data (no fraylog imports): the two
fighters, the manual dice, and the JSON bodies of an attack round, shared by the
in-process loops, the HTTP load generator (`bench.load`) and the library baseline."""

from __future__ import annotations

from typing import Any

# Two Novus fighters from the demo party, with hits enough for hundreds of attacks.
FIGHTERS: list[tuple[str, str, dict[str, Any]]] = [
    (
        "Brakka",
        "heroes",
        {
            "hits": 10_000,
            "bonuses": {"str": 2, "dex": 1, "spd": 1, "con": 2, "wil": 1, "wis": 0},
            "melee_ranks": 8,
            "shield": "normal",
            "ar": 6,
            "first_aid": 3,
            "weapons": [
                {
                    "name": "longsword",
                    "dr": 6,
                    "stat": "str",
                    "ranks": 8,
                    "size": "medium",
                    "damage_type": "slashing",
                }
            ],
        },
    ),
    (
        "Grukk",
        "raiders",
        {
            "hits": 10_000,
            "bonuses": {"str": 3, "dex": 0, "spd": 0, "con": 3, "wil": 0, "wis": 0},
            "melee_ranks": 6,
            "ar": 4,
            "weapons": [
                {
                    "name": "great axe",
                    "dr": 8,
                    "stat": "str",
                    "ranks": 6,
                    "size": "large",
                    "damage_type": "slashing",
                }
            ],
        },
    ),
]
ATTACK_DICE = {"attack": [5, 6]}  # manual faces: 2d10 showing 5 and 6, no explosion
HEAL_EVERY = 25  # rounds between the (untimed) AdjustHits that give back what was lost

# The commands of one attack round, as a client sends them (defaults left out): the lower
# initiative declares first, the higher resolves first; "a" has IP 20, "b" IP 10.
ROUND = ("declare", "declare", "resolve", "resolve", "end_round")


def create_body() -> dict[str, Any]:
    return {"name": "Bench", "ruleset": "novus", "dice_source": "manual"}


def initiative_bodies(a: str, b: str) -> list[dict[str, Any]]:
    return [
        {"type": "roll_initiative", "combatant": a, "ip": 20},
        {"type": "roll_initiative", "combatant": b, "ip": 10},
    ]


def round_bodies(a: str, b: str) -> list[dict[str, Any]]:
    """One round: b declares a melee attack on a, a on b, both resolve, end of round."""
    resolve = {"type": "resolve", "dice": ATTACK_DICE, "boons": []}
    return [
        {"type": "declare", "combatant": b, "actions": [{"kind": "melee_attack", "target": a}]},
        {"type": "declare", "combatant": a, "actions": [{"kind": "melee_attack", "target": b}]},
        resolve,
        resolve,
        {"type": "end_round"},
    ]


def heal_body(who: str, amount: int) -> dict[str, Any]:
    return {"type": "adjust_hits", "combatant": who, "amount": amount, "reason": "bench: heal"}
