"""What a PHANTÄSIA table sees, derived from the folded facts."""

from __future__ import annotations

from typing import Any

from domain.rulesystems.phantasia import attacks, damage, figures, statuses, turns
from domain.rulesystems.phantasia.figures import BASE
from domain.rulesystems.phantasia.state import StatusData
from domain.rulesystems.phantasia.stats import (
    WEAPON_CODES,
    PhantasiaStats,
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
        "adjustments": {ch: adj(stats, ch, figures.score_change(who, ch)) for ch in scores},
        **_figures(who, stats),
        "initiative": who.ip,
        **_turn(who),
        "statuses": _statuses(who),
        "dropped": who.marks.dropped,
        "free_attack_on": who.marks.free_attack,
        "sustaining": who.marks.sustaining,
        "extra_uses": {
            p.name: extra_uses(stats, p.uses_per_day) for p in stats.powers if p.uses_per_day
        },
        "unconscious": who.has("unconscious"),
        "dead": who.has("dead"),
        "down": who.has("unconscious") or who.has("dead"),
    }


def _figures(who: CombatantState, stats: PhantasiaStats) -> dict[str, Any]:
    """DF, DM, AT, AM and MO with the statuses' modifiers (PHA-STK)."""
    at_mods = _figure(statuses.modifiers(who, "at"))
    return {
        "df": _figure(figures.defense(who, "df", block=False) | statuses.modifiers(who, "df")),
        "dm": _figure(figures.defense(who, "dm", block=False) | statuses.modifiers(who, "dm")),
        "at": {  # AMP and AA: with the better of the characteristics he may choose
            w.name: BASE
            + max(
                _figure(figures.attack_bonus(who, w, None, ch))
                for ch in WEAPON_CODES[w.code]["at"]  # type: ignore[attr-defined]
            )
            + at_mods
            for w in stats.weapons
        }
        | {"unarmed": BASE + _figure(figures.attack_bonus(who, None, None, None)) + at_mods},
        "am": _am(who, stats) + _figure(statuses.modifiers(who, "am")),
        "movement": max(0, stats.movement + _figure(statuses.modifiers(who, "movement"))),
    }


def _am(who: CombatantState, stats: PhantasiaStats) -> int:
    """PHA-CHAR-4 (Default PHA-AMB-46): AM = 6 + INT adj + the magical enemy's level
    increments (PHA-FOE-4); an entered figure wins."""
    if stats.figures.am is not None:
        return stats.figures.am
    return (
        BASE + adj(stats, "int", figures.score_change(who, "int")) + foe_increment(stats, "magical")
    )


def _turn(who: CombatantState) -> dict[str, Any]:
    """His turn: action points, offensive actions, his reaction, a prepared action."""
    return {
        "turn": who.marks.turn,
        "in_turn": who.marks.in_turn,
        "actions_left": turns.actions_left(who),
        "offensive_actions": who.marks.offensive,
        "reaction_used": who.marks.reaction_used,
        "simultaneous_with": list(who.marks.simultaneous),
        "prepared": who.marks.prepared,
    }


def _statuses(who: CombatantState) -> dict[str, Any]:
    """His statuses: turns left, the Spanish name, harmful or beneficial, and their data."""
    shown = {}
    for name, cond in who.conditions.items():
        data = StatusData.of(cond)
        shown[name] = {
            "turns": cond.count,
            "es": statuses.spec(data.status_or(name)).get("es", name),
            "kind": statuses.kind_of(who, name),
            **{k: v for k, v in data.as_data().items() if k not in ("status", "kind")},
        }
    return shown


def _step(state: EncounterState) -> str:
    if not state.combatants:
        return "setup"
    if attacks.pending_attack(state) is not None:
        return "attack"
    now = turns.acting(state)
    if turns.surprise_due(state) or (now is not None and now.marks.surprise is not None):
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
