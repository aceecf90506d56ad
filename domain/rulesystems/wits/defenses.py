"""Defenses: declaring one against an announced attack, what it uses of the round and the
skill it is tested at (WIT-DEF-1..8, WIT-ATK-2; Default WIT-AMB-6..8, -21)."""

from __future__ import annotations

from typing import Any

from domain.errors import RuleViolation
from domain.rulesystems.base import Context, with_situational
from domain.rulesystems.wits import commands as wc
from domain.rulesystems.wits import events as we
from domain.rulesystems.wits import turns
from domain.rulesystems.wits.skills import gm_modifiers, skill_of, weapon_of
from domain.rulesystems.wits.state import WitsAttack, round_marks_of
from domain.rulesystems.wits.stats import WitsStats
from domain.state import CombatantState, EncounterState

TOTAL_SINGLE_BONUS = 3  # WIT-DEF-4
TOTAL_BLOWS = 3  # WIT-DEF-3
TOP_HEAVY_PARRY = -2  # WIT-DEF-8
DEFENSE_NAMES = {"parry": "Parry", "block": "Block", "dodge": "Dodge"}
MODE_NAMES = {
    "basic": "Basic Defense",
    "total": "Total Defense",
    "total_single": "Total Defense against this one attack",
}


def defend(ctx: Context, cmd: wc.Defend) -> None:
    action = turns.pending_attack(ctx.state)
    if action is None:  # WIT-DEF-5: a defense is declared before the attack die is rolled
        raise RuleViolation(
            "WIT-DEF-5",
            "no attack is waiting for its roll: a defense is declared while the blow is "
            "announced, before the attack die is rolled",
        )
    who = ctx.state.combatant(cmd.combatant)
    declare_defense(ctx, who, cmd.defense, action.origin or 0)


def declare_defense(ctx: Context, who: CombatantState, spec: wc.DefenseSpec, cause: int) -> None:
    state = ctx.state
    action = turns.pending_attack(state)
    assert action is not None
    if action.target != who.id:
        raise RuleViolation(
            "WIT-ATK-2",
            f"only the target of attack {action.id} defends against it",
            field="combatant",
        )
    if turns.is_down(state, who):
        raise RuleViolation("WIT-AMB-11", f"{who.name} is down", field="combatant")
    attack = WitsAttack.of(action)
    if not attack.visible:  # WIT-ATK-2, WIT-DEF-2 (Default WIT-AMB-21)
        raise RuleViolation(
            "WIT-ATK-2", f"{who.name} cannot see this attack: no defense", field="defense"
        )
    if attack.defense is not None:
        raise RuleViolation(
            "WIT-DEF-3",
            "this attack already has its defense (each attack at most once)",
            field="defense",
        )
    cost = _defense_cost(who, spec)
    skill = defense_skill(state, who, spec)
    position = ctx.emit(
        we.DefenseDeclared,
        cause=cause,
        combatant=who.id,
        action=action.id,
        kind=spec.kind,
        mode=spec.mode,
        actions=cost,
        skill=skill,
        magical=spec.magical,
    )
    turns.lose_aim(ctx, who, "he defended (WIT-AIM-5)", position)


def _defense_cost(who: CombatantState, spec: wc.DefenseSpec) -> int:
    """Actions a defense uses (WIT-ORD-5; Default WIT-AMB-6, WIT-AMB-7)."""
    taken = round_marks_of(who).defense
    if taken == "total":  # WIT-DEF-3: up to three blows, no further action
        if spec.mode != "total":
            raise RuleViolation(
                "WIT-DEF-3",
                f"{who.name} is in Total Defense: defend with mode total",
                field="defense.mode",
            )
        if round_marks_of(who).blows >= TOTAL_BLOWS:
            raise RuleViolation(
                "WIT-DEF-3",
                f"Total Defense stops at most {TOTAL_BLOWS} blows a round",
                field="defense",
            )
        return 0
    if taken == "total_single":
        raise RuleViolation(
            "WIT-DEF-4",
            f"{who.name}'s Total Defense was against one attack only (at +3)",
            field="defense",
        )
    if spec.mode == "basic":  # WIT-DEF-2: one blow, one action
        turns.check_actions(who, 1, "a Basic Defense")
        return 1
    if round_marks_of(who).attacked_with:  # WIT-DEF-1, WIT-DEF-3
        raise RuleViolation(
            "WIT-DEF-1",
            f"{who.name} has attacked this round: only a Basic Defense",
            field="defense.mode",
        )
    if turns.actions_used(who):  # Default WIT-AMB-7: it uses both actions
        raise RuleViolation(
            "WIT-AMB-7",
            f"Total Defense uses both actions; {who.name} has used "
            f"{turns.actions_used(who)} this round",
            field="defense.mode",
        )
    return 2


def defense_skill(
    state: EncounterState, who: CombatantState, spec: wc.DefenseSpec
) -> dict[str, Any]:
    """WIT-DEF-6: half the skill (rounded down) of the defense's kind; WIT-DEF-7: plus the
    armour's Defense (and the shield's when Blocking, Default WIT-AMB-8)."""
    stats = turns.stats_of(who)
    options = turns.options_of(state)
    rating, base_from, parts = _rating(stats, who, spec)
    if stats.shield is not None and (spec.kind == "block" or options.shield_defense == "all"):
        parts["shield defense"] = stats.shield.defense
    if stats.armour.defense:
        parts["armour defense"] = stats.armour.defense
    if spec.mode == "total_single":
        parts["total defense, one attack"] = TOTAL_SINGLE_BONUS  # WIT-DEF-4
    parts |= gm_modifiers(state, who, "def", "act")
    return skill_of(rating // 2, base_from, with_situational(parts, spec.modifiers))


def _rating(
    stats: WitsStats, who: CombatantState, spec: wc.DefenseSpec
) -> tuple[int, str, dict[str, int]]:
    """WIT-DEF-6: the rating a defense's kind is half of, what it is, and what the kind
    itself adds."""
    if spec.kind == "parry":
        return _parry(stats, who, spec)
    if spec.kind == "block":
        if stats.shield is None:
            raise RuleViolation("WIT-DEF-6", f"{who.name} has no shield", field="defense.kind")
        return stats.skills.get("shield", 0), "half shield", {}
    dodge_with = spec.dodge_with or (
        "acrobatics" if stats.skills.get("acrobatics", 0) > stats.move else "move"
    )
    rating = stats.move if dodge_with == "move" else stats.skills.get("acrobatics", 0)
    return rating, f"half {dodge_with}", {}


def _parry(
    stats: WitsStats, who: CombatantState, spec: wc.DefenseSpec
) -> tuple[int, str, dict[str, int]]:
    """A Parry with the weapon named, or his first melee weapon (WIT-DEF-6); a top-heavy one
    that attacked this round parries worse, or not at all (WIT-DEF-8)."""
    weapon = (
        weapon_of(stats, spec.weapon, who, "defense.weapon")
        if spec.weapon is not None
        else next((w for w in stats.weapons if not w.ranged), None)
    )
    if weapon is None or weapon.ranged:
        raise RuleViolation(
            "WIT-DEF-6", f"{who.name} has no melee weapon to parry with", field="defense.weapon"
        )
    parts: dict[str, int] = {}
    attacked_with = round_marks_of(who).attacked_with
    if weapon.top_heavy and weapon.name in attacked_with:
        if weapon.parry_after_attack == "none":  # WIT-DEF-8
            raise RuleViolation(
                "WIT-DEF-8",
                f"{weapon.name} is top-heavy and attacked this round: it cannot parry",
                field="defense.kind",
            )
        parts["top-heavy after attacking"] = TOP_HEAVY_PARRY  # WIT-DEF-8
    return stats.skills[weapon.skill], f"half {weapon.skill}", parts
