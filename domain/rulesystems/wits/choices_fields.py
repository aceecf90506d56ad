"""What the candidate commands of a Wits fight share: the fields the GM may enter and
whom one may aim at (choices.py)."""

from __future__ import annotations

from domain.rulesystems.wits import turns
from domain.state import CombatantState, EncounterState

MODIFIERS = {
    "type": "object",
    "additionalProperties": {"type": "integer"},
    "description": "GM: situational modifiers by name (WIT-ATK-3, WIT-AMB-26)",
}
OUT_OF_ORDER = {
    "type": "boolean",
    "default": False,
    "description": "GM: act outside the order by Wits (WIT-ORD-4)",
}
DEGREE = {
    "enum": ["failure", "success", "critical", "extraordinary"],
    "description": "GM: the degree of the attack test (WIT-TEST-3, WIT-AMB-3)",
}
HIT = {"type": "boolean", "description": "GM: override the computed hit or miss"}
DISTANCE = {"type": "number", "exclusiveMinimum": 0, "maximum": 10_000}


def targets(
    state: EncounterState, who: CombatantState, *, standing: bool = False
) -> list[CombatantState]:
    """Everyone else alive (the GM has not ruled him dead, WIT-AMB-11), or only those still
    standing; those on their feet first, then those of other sides."""
    others = [
        t
        for t in state.combatants.values()
        if t.id != who.id and not t.has("dead") and not (standing and turns.is_down(state, t))
    ]
    return sorted(
        others,
        key=lambda t: (turns.is_down(state, t), t.side == who.side and bool(who.side), t.entry),
    )
