"""What a Novus table sees, derived from the folded facts."""

from __future__ import annotations

from typing import Any

from domain.rulesystems.novus import combat, rounds
from domain.rulesystems.novus.state import (
    encounter_marks_of,
    has_declared,
    marks_of,
    round_marks_of,
)
from domain.state import CombatantState, EncounterState
from domain.visibility import HealthState, described

# the health figures of combatant_view: players see them as the GM shows his health
# (docs/visibility.md); the described state stands for them
HEALTH_FIGURES = ("hits", "max_hits")


def health_state(state: EncounterState, who: CombatantState) -> HealthState:
    """His health in words: down at 0 hits or less (helpless, dying or dead, NOV-HITS-3)."""
    return described(who.hits, who.max_hits, who.hits <= 0)


def combatant_view(state: EncounterState, who: CombatantState) -> dict[str, Any]:
    budget = rounds.ap_budget(state, who)
    dead = combat.is_dead(who)
    lasting, this_round = marks_of(who), round_marks_of(who)
    return {
        "id": who.id,
        "name": who.name,
        "side": who.side,
        "hits": who.hits,
        "max_hits": who.max_hits,
        "ip": who.ip,
        "effective_ip": rounds.effective_ip(state, who),
        "bleeding": who.bleeding,
        "wounds": [w.model_dump() for w in who.wounds],
        "daze_count": who.count("dazed"),
        "stun_count": who.count("stunned"),
        "conditions": {k: v.count for k, v in who.conditions.items()},
        "modifiers": [e.model_dump() for e in who.effects if e.in_force(state.round)],
        "ap_budget": budget,
        "ap_spent": this_round.ap_spent,
        "action_points_left": budget - this_round.ap_spent,
        "ap_carried": lasting.ap_carried,
        "fate_points": lasting.fate_points,
        "def": combat.defense(state, who)["def"],
        "helpless": combat.is_helpless(who) and not dead,
        "dying": combat.is_dying(who),
        "dead": dead,
        "down": who.hits <= 0,
        "declared": has_declared(state, who),
        "control_zone_ft": combat.control_zone(who),
        "limbs": {k: v.model_dump() for k, v in lasting.limbs.items()},
        "hold_ip": this_round.hold_ip,
    }


def _acting(state: EncounterState, step: str, nxt: Any, pending: list[Any]) -> str | None:
    """Whose move it is: who spends the points of a roll waiting for them, else the next
    to declare, else the one whose action resolves next."""
    marks = encounter_marks_of(state)
    waiting = marks.pending_boons or marks.pending_snags
    if waiting is not None:
        return waiting.combatant
    if step == "declaration" and nxt is not None:
        return nxt.id
    if step == "resolution" and pending:
        return pending[0].combatant
    return None


def novus_view(state: EncounterState) -> dict[str, Any]:
    step = rounds.step(state)
    marks = encounter_marks_of(state)
    nxt = rounds.next_declarer(state)
    pending = rounds.queue(state)
    return {
        "round": state.round,
        "elapsed_seconds": (state.round - 1) * 5,  # NOV-RND-1
        "step": step,
        "next_to_declare": nxt.id if nxt and step == "declaration" else None,
        "next_to_resolve": pending[0].id if pending and step == "resolution" else None,
        "acting": _acting(state, step, nxt, pending),
        "pending_boons": marks.pending_boons.model_dump() if marks.pending_boons else None,
        "pending_snags": marks.pending_snags.model_dump() if marks.pending_snags else None,
        "order": [c.id for c in rounds.resolution_order(state)],
        "combatants": [combatant_view(state, c) for c in state.combatants.values()],
        "actions": [a.model_dump() for a in pending],
    }
