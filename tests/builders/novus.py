"""Novus combatants for tests."""

from __future__ import annotations

from typing import Any


def novus_stats(hits: int = 30, **overrides: Any) -> dict[str, Any]:
    """A Novus fighter: sword DR 6 on Dex, 7 ranks, Dex +2 (the NOV-TV-38 attacker)."""
    stats: dict[str, Any] = {
        "hits": hits,
        "bonuses": {"str": 2, "dex": 2, "spd": 0, "con": 1, "wil": 1, "wis": 0},
        "weapons": [
            {
                "name": "sword",
                "dr": 6,
                "stat": "dex",
                "ranks": 7,
                "size": "medium",
                "damage_type": "slashing",
            },
            {
                "name": "mace",
                "dr": 6,
                "stat": "str",
                "ranks": 7,
                "size": "medium",
                "damage_type": "bludgeoning",
            },
            {
                "name": "bow",
                "kind": "missile",
                "dr": 5,
                "stat": "dex",
                "ranks": 7,
                "damage_type": "piercing",
                "family": "bow",
            },
        ],
    }
    stats.update(overrides)
    return stats


def target_stats(def_: int = 20, ar: int = 4, hits: int = 30, **overrides: Any) -> dict[str, Any]:
    """A target whose DEF is `def_` (15 + Spd bonus) and whose AR is `ar`."""
    stats: dict[str, Any] = {"hits": hits, "bonuses": {"spd": def_ - 15}, "ar": ar}
    stats.update(overrides)
    return stats
