"""What a PHANTÄSIA table sees, derived from the folded facts."""

from __future__ import annotations

from typing import Any

from domain.rulesystems.phantasia import attacks, damage, statuses, turns
from domain.rulesystems.phantasia.attacks import BASE
from domain.rulesystems.phantasia.stats import (
    WEAPON_CODES,
    adj,
    extra_uses,
    foe_increment,
    max_phantasia_points,
    max_pm,
)
from domain.state import CombatantState, EncounterState
from domain.visibility import HealthState, described

# the health figures of combatant_view: players see them as the GM shows his health
# (docs/visibility.md); the described state stands for them
HEALTH_FIGURES = ("pv", "max_pv", "negative_damage")


def health_state(state: EncounterState, who: CombatantState) -> HealthState:
    """His PV in words: down when unconscious or dead (PHA-DTH-2)."""
    return described(who.hits, who.max_hits, who.has("unconscious") or who.has("dead"))


def _figure(parts: dict[str, int]) -> int:
    return sum(parts.values())


def combatant_view(state: EncounterState, who: CombatantState) -> dict[str, Any]:
    stats = turns.stats_of(who)
    scores = {ch: stats.score(ch) for ch in ("fue", "agi", "int", "vit", "sue", "ca")}
    # PHA-CHAR-4 (Default PHA-AMB-46): AM = 6 + INT adj + the magical enemy's level
    # increments (PHA-FOE-4); an entered figure wins
    am = stats.figures.am
    if am is None:
        am = BASE + adj(stats, "int", attacks.score_change(who, "int"))
        am += foe_increment(stats, "magical")
    at_mods = _figure(statuses.modifiers(who, "at"))
    return {
        "id": who.id,
        "name": who.name,
        "side": who.side,
        "controller": stats.controller,
        "level": stats.level,
        "pv": who.hits,
        "max_pv": who.max_hits,
        "negative_damage": damage.negative_damage(who),
        "pm": turns.pm_of(who),
        "max_pm": max_pm(stats),
        "phantasia_points": turns.pp_of(who),
        "max_phantasia_points": max_phantasia_points(stats.level),
        "scores": scores,
        # PHA-CHAR-2 from the current score (Default PHA-AMB-51), × the large-creature
        # factor (PHA-FOE-3, Default PHA-AMB-48): the adjustments the figures use
        "adjustments": {ch: adj(stats, ch, attacks.score_change(who, ch)) for ch in scores},
        "df": _figure(attacks.defense(who, "df", block=False) | statuses.modifiers(who, "df")),
        "dm": _figure(attacks.defense(who, "dm", block=False) | statuses.modifiers(who, "dm")),
        # AT and AM figures with the statuses' modifiers, as DF and DM (PHA-STK)
        "at": {  # AMP and AA: with the better of the characteristics he may choose
            w.name: BASE
            + max(
                _figure(attacks.attack_bonus(who, w, None, ch))
                for ch in WEAPON_CODES[w.code]["at"]  # type: ignore[attr-defined]
            )
            + at_mods
            for w in stats.weapons
        }
        | {"unarmed": BASE + _figure(attacks.attack_bonus(who, None, None, None)) + at_mods},
        "am": am + _figure(statuses.modifiers(who, "am")),
        "movement": max(0, stats.movement + _figure(statuses.modifiers(who, "movement"))),
        "initiative": who.ip,
        "turn": who.marks.get("turn", 0),
        "in_turn": bool(who.marks.get("in_turn")),
        "actions_left": turns.actions_left(who),
        "offensive_actions": who.marks.get("offensive", 0),
        "reaction_used": bool(who.marks.get("reaction_used")),
        "simultaneous_with": who.marks.get("simultaneous", []),
        "prepared": who.marks.get("prepared"),
        "statuses": {
            name: {
                "turns": cond.count,
                "es": statuses.spec(cond.data.get("status", name)).get("es", name),
                "kind": statuses.kind_of(who, name),
                **{k: v for k, v in cond.data.items() if k not in ("status", "kind")},
            }
            for name, cond in who.conditions.items()
        },
        "dropped": who.marks.get("dropped"),
        "free_attack_on": who.marks.get("free_attack"),
        "sustaining": who.marks.get("sustaining"),
        "extra_uses": {
            p.name: extra_uses(stats, p.uses_per_day) for p in stats.powers if p.uses_per_day
        },
        "unconscious": who.has("unconscious"),
        "dead": who.has("dead"),
        "down": who.has("unconscious") or who.has("dead"),
    }


def _step(state: EncounterState) -> str:
    if not state.combatants:
        return "setup"
    if attacks.pending_attack(state) is not None:
        return "attack"
    now = turns.acting(state)
    if turns.surprise_due(state) or (now is not None and now.marks.get("surprise")):
        return "surprise"
    if turns.unplaced(state):
        return "initiative"
    return "turn" if now is not None else "between_turns"


def phantasia_view(state: EncounterState) -> dict[str, Any]:
    now = turns.acting(state)
    up = turns.next_up(state)
    attack = attacks.pending_attack(state)
    return {
        "round": state.round,
        "elapsed_seconds": None,  # the book counts turns; a round has no length in seconds
        "step": _step(state),
        "acting": now.id if now else None,
        "next": up.id if up and not now else None,
        "pending_attack": attack.model_dump() if attack else None,
        "order": [c.id for c in turns.order(state)],
        "options": dict(state.options),
        "combatants": [combatant_view(state, c) for c in state.combatants.values()],
    }
