"""Attack against DEF, damage and armour, and the states that follow from hits
(NOV-ATK, NOV-DMG, NOV-COND, NOV-HITS)."""

from __future__ import annotations

from typing import Any

from domain.rulesystems.base import with_situational
from domain.rulesystems.novus.state import NovusAction, marks_of
from domain.rulesystems.novus.stats import SHIELD_DEF, NovusStats, Weapon
from domain.state import ActionState, CombatantState, EncounterState, stats_as

DAZED_PENALTY = -4  # NOV-COND-2
RUN_PENALTY_PER_AP = -2  # NOV-MOVE-1


def stats_of(who: CombatantState) -> NovusStats:
    return stats_as(who, NovusStats)  # validated once per stat block


def is_dead(who: CombatantState) -> bool:
    """NOV-HITS-5 (Default NOV-AMB-28): below −10; NOV-HITS-6: a minor foe at 0."""
    if who.stats.get("minor_foe") and who.hits <= 0:
        return True
    return who.hits < -10


def is_helpless(who: CombatantState) -> bool:
    """NOV-HITS-3: at 0 hits or less; NOV-COND-3: stunned."""
    return who.hits <= 0 or who.has("stunned")


def is_dying(who: CombatantState) -> bool:
    """NOV-HITS-4 (Default NOV-AMB-28): negative hits and not stabilised."""
    return who.hits < 0 and not is_dead(who) and not who.has("stabilised")


CONTROL_ZONE_FT = {"large": 10, "huge": 15}  # NOV-CZ-3 (Default NOV-AMB-18): else 5 ft


def control_zone(who: CombatantState) -> int:
    return CONTROL_ZONE_FT.get(stats_of(who).size, 5)


def defense(state: EncounterState, who: CombatantState) -> dict[str, Any]:
    """The target's DEF now, with its named parts (NOV-ATK-3, -4)."""
    stats = stats_of(who)
    reason = None
    if who.has("prone"):
        reason = "prone"  # NOV-COND-4
    elif who.has("unaware"):
        reason = "caught unaware"
    elif who.has("stunned"):
        reason = "stunned"  # NOV-COND-3 (Default NOV-AMB-27)
    elif who.hits <= 0:
        reason = "helpless"  # NOV-HITS-3 (Default)
    if reason is not None:  # NOV-ATK-4: 12 + magic, nothing else counts
        parts = {"base": 12, "magic": stats.magic_def}
        return {"def": sum(parts.values()), "parts": parts, "because": reason}
    parts = {
        "base": 15,
        "speed": stats.bonuses.spd,
        "melee training": stats.melee_ranks // 5,
        "shield": SHIELD_DEF[stats.shield],
        "magic": stats.magic_def,
    }
    # NOV-DECL-2: a declared action's DEF change holds for the whole round
    for action in state.actions:
        spans_now = action.declared_round <= state.round <= action.round
        # NOV-AMB-31: a cancelled action's DEF change stops when it is cancelled
        if action.combatant == who.id and spans_now and action.status in ("pending", "resolved"):
            for name, mod in NovusAction.of(action).def_mods.items():
                if abs(mod) > abs(parts.get(name, 0)):  # one situation counts once a round
                    parts[name] = mod
    for e in who.effects_for("def", state.round):
        parts[e.name] = e.value
    return {
        "def": sum(parts.values()),
        "parts": {k: v for k, v in parts.items() if v or k == "base"},
    }


def attack_bonus(
    state: EncounterState,
    who: CombatantState,
    action: ActionState,
    weapon: Weapon | None,
    situational: dict[str, int],
) -> dict[str, int]:
    """Named parts of AB (NOV-ATK-1) and the modifiers its situations declared."""
    stats = stats_of(who)
    facts = NovusAction.of(action)
    mods = dict(facts.ab_mods)
    if facts.ab_share is not None:  # NOV-MAS-3: the share already holds skill, MAS and FDEF
        parts = {"share of AB": facts.ab_share}
        mods.pop("fighting defensively", None)
    elif facts.improvised:  # NOV-IMP-2: the better of weapon skill and Brawling
        parts = {"skill (improvised)": facts.improvised_ab or 0}
    elif action.kind == "brawl":  # NOV-BRAWL-2: Str + Dex bonuses
        parts = {"str bonus": stats.bonuses.str_, "dex bonus": stats.bonuses.dex}
    else:
        assert weapon is not None
        parts = {"skill ranks": weapon.ranks, f"{weapon.stat} bonus": stats.bonuses.of(weapon.stat)}
        if weapon.ab_bonus:
            parts["talents"] = weapon.ab_bonus
    if facts.half_ab:  # NOV-CANCEL-2 (Default NOV-AMB-15): half, rounded down
        whole = sum(parts.values())
        if whole > 0:
            parts["cancelled: half AB"] = whole // 2 - whole
    parts.update(mods)
    parts.update(action_penalties(state, who, action))
    for e in who.effects_for("ab", state.round):
        parts[e.name] = e.value
    if facts.primary:
        for e in who.effects_for("primary_attack", state.round):
            parts[e.name] = e.value  # NOV-BOON-3: Attack Boost on the primary attack
    return with_situational(parts, situational)


def action_penalties(
    state: EncounterState, who: CombatantState, action: ActionState | None = None
) -> dict[str, int]:
    """Modifiers on every roll made to act (Default NOV-AMB-27), and the wounded limb's
    penalty on an action that uses it (NOV-CALL-3)."""
    parts: dict[str, int] = {}
    limbs = marks_of(who).limbs
    used = NovusAction.of(action).limb if action is not None else None
    limb = limbs.get(used) if used is not None else None
    if limb is not None and limb.penalty:
        parts[f"{used} wounded"] = limb.penalty
    if who.has("dazed"):
        parts["dazed"] = DAZED_PENALTY  # NOV-COND-2: dazes do not stack
    for e in who.effects_for("act", state.round):
        parts[e.name] = e.value
    return parts


def base_damage(who: CombatantState, weapon: Weapon, extras: dict[str, int]) -> dict[str, int]:
    """NOV-DMG-1: DR + the stat bonus of the attack, plus Base Damage modifiers."""
    stats = stats_of(who)
    parts = {"damage rating": weapon.dr, f"{weapon.stat} bonus": stats.bonuses.of(weapon.stat)}
    parts.update(extras)
    return parts


def damage(base: dict[str, int], scaled: int, extra: dict[str, int], armour: int) -> dict[str, Any]:
    """NOV-DMG-2, -3 (Default NOV-AMB-41): BD + Scaled + extras − AR, never below 0."""
    before = sum(base.values()) + scaled + sum(extra.values())
    return {
        "base_damage": base,
        "scaled": scaled,
        "extra": extra,
        "before_armour": before,
        "armour": armour,
        "total": max(0, before - armour),
    }


def save_def_modifiers(state: EncounterState, who: CombatantState) -> dict[str, int]:
    """A bystander's DEF modifiers that count on his save (NOV-FIM-7, Default NOV-AMB-35):
    shield, declared Combat Moves, magic and other DEF modifiers in force; not the parts
    that rely on skill or awareness (Speed, melee training)."""
    parts = defense(state, who)["parts"]
    return {k: v for k, v in parts.items() if k not in ("base", "speed", "melee training") and v}
