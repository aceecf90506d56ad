"""What a Wits table sees, derived from the folded facts."""

from __future__ import annotations

from typing import Any

from domain.rulesystems.wits import turns
from domain.rulesystems.wits.state import marks_of, round_marks_of
from domain.state import CombatantState, EncounterState
from domain.visibility import HealthState, described

# the health figures of combatant_view: players see them as the GM shows his health
# (docs/visibility.md); the described state stands for them
HEALTH_FIGURES = ("health", "max_health")


def health_state(state: EncounterState, who: CombatantState) -> HealthState:
    """His Current Health in words: down as the view says it (WIT-AMB-11)."""
    return described(who.hits, who.max_hits, turns.is_down(state, who))


def combatant_view(state: EncounterState, who: CombatantState) -> dict[str, Any]:
    stats = turns.stats_of(who)
    charging = marks_of(who).charging
    marks = round_marks_of(who)
    return {
        "id": who.id,
        "name": who.name,
        "side": who.side,
        "health": who.hits,
        "max_health": who.max_hits,
        "wits": stats.wits,
        "move": stats.move,
        "placed": who.ip is not None,
        "tie_roll": who.ip_raw,
        "actions_used": turns.actions_used(who),
        "actions_left": turns.actions_left(who),
        "aim": turns.aim_of(who),
        "charging": charging.model_dump() if charging is not None else None,
        "defense": marks.defense,
        "blows_defended": marks.blows,
        "attacked": bool(marks.attacked_with),
        "held": marks.held,
        "turn_over": turns.turn_done(state, who),
        "conditions": {k: v.count for k, v in who.conditions.items()},
        "modifiers": [e.model_dump() for e in who.effects if e.in_force(state.round)],
        "protection": stats.armour.protection,
        "down": turns.is_down(state, who),
    }


def _step(state: EncounterState) -> str:
    if not state.combatants:
        return "setup"
    if turns.pending_attack(state) is not None:
        return "attack"
    if turns.unplaced(state):
        return "order"
    return "turns" if turns.acting(state) is not None else "end_round"


def wits_view(state: EncounterState) -> dict[str, Any]:
    now = turns.acting(state)
    attack = turns.pending_attack(state)
    return {
        "round": state.round,
        "elapsed_seconds": (state.round - 1) * turns.SECONDS_PER_ROUND,  # WIT-RND-1
        "step": _step(state),
        "acting": now.id if now else None,
        "pending_attack": attack.model_dump() if attack else None,
        "order": [c.id for c in turns.order(state)],
        "options": dict(state.options),
        "combatants": [combatant_view(state, c) for c in state.combatants.values()],
    }
