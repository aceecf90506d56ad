"""PHANTÄSIA combatants for tests: a player character and the narrator's orc."""

from __future__ import annotations

PC = {
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
}
ORC = {
    "fue": 10,
    "agi": 6,
    "int": 4,
    "vit": 8,
    "sue": 4,
    "level": 2,
    "pv": 20,
    "enemy_type": "martial",
    "weapons": [{"name": "hacha", "code": "AMG", "damage": "1d10"}],
}
