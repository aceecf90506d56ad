"""What a test is taken against: the weapon, the skill and its named modifiers
(WIT-ATK-3, WIT-TEST-2); the GM's modifiers in force (set_modifier)."""

from __future__ import annotations

from typing import Any

from domain.errors import RuleViolation
from domain.rulesystems.wits.stats import Weapon, WitsStats
from domain.state import CombatantState, EncounterState


def weapon_of(
    stats: WitsStats, name: str | None, who: CombatantState, field: str = "weapon"
) -> Weapon:
    for w in stats.weapons:
        if w.name == name:
            return w
    raise RuleViolation(
        "WIT-ATK-3",
        f"{who.name} has no weapon {name!r}; his weapons: "
        f"{', '.join(w.name for w in stats.weapons) or 'none'}",
        field=field,
    )


def gm_modifiers(state: EncounterState, who: CombatantState, *targets: str) -> dict[str, int]:
    """The GM's named modifiers in force (set_modifier), marked so none replaces a
    computed one of the same name."""
    return {f"{e.name} (GM)": e.value for t in targets for e in who.effects_for(t, state.round)}


def skill_of(base: int, base_from: str, parts: dict[str, int]) -> dict[str, Any]:
    """An effective skill: the rating plus its named modifiers (WIT-TEST-2)."""
    return {
        "base": base,
        "base_from": base_from,
        "parts": parts,
        "effective": base + sum(parts.values()),
    }
