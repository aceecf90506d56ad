"""Wits combatants for tests: the rule book's Lief and Farthan (WIT-TV)."""

from __future__ import annotations

from typing import Any


def fighter(**overrides: Any) -> dict[str, Any]:
    """Lief: short sword 1d8 at 13, Strength 12 (Base Damage 1d6), Move 12, Wits 12."""
    stats: dict[str, Any] = {
        "wits": 12,
        "move": 12,
        "strength": 12,
        "base_damage": "1d6",
        "health": 20,
        "skills": {"short sword": 13, "brawling": 11, "bow": 12},
        "weapons": [
            {"name": "short sword", "damage": "1d8", "skill": "short sword"},
            {"name": "fist", "damage": "1d3", "skill": "brawling", "unarmed": True},
            {"name": "bow", "damage": "1d8", "skill": "bow", "ranged": True},
        ],
    }
    stats.update(overrides)
    return stats


def farthan(**overrides: Any) -> dict[str, Any]:
    """Farthan the Fearsome: Shield 15, small shield (Defense 2), chainmail (Defense 2)."""
    return fighter(
        wits=10,
        skills={"shield": 15, "short sword": 12},
        weapons=[{"name": "short sword", "damage": "1d8", "skill": "short sword"}],
        shield={"name": "small shield", "defense": 2},
        armour={"protection": 3, "defense": 2},
        **overrides,
    )
