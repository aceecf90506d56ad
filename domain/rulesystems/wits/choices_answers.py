"""The candidates while an attack waits for its roll: the target's defenses, then the roll
(WIT-ATK-2, WIT-DEF-1..8, WIT-DEF-5, WIT-TEST-1)."""

from __future__ import annotations

from typing import Any

from domain.errors import RuleViolation
from domain.rulesystems.base import Choice, choice
from domain.rulesystems.wits import commands as wc
from domain.rulesystems.wits import turns
from domain.rulesystems.wits.choices_fields import DEGREE, HIT, MODIFIERS
from domain.rulesystems.wits.defenses import DEFENSE_NAMES, MODE_NAMES, TOTAL_BLOWS, defense_skill
from domain.rulesystems.wits.dice import under
from domain.rulesystems.wits.state import WitsAttack, round_marks_of
from domain.state import ActionState, CombatantState, EncounterState


def answer(state: EncounterState, attack: ActionState) -> list[Choice]:
    """The target's defenses (WIT-ATK-2, WIT-DEF-1..8), then the roll (WIT-TEST-1)."""
    attacker = state.combatants[attack.combatant]
    target = state.combatants[attack.target or ""]
    out = _defenses(state, attack, attacker, target)
    defense = WitsAttack.of(attack).defense
    against = ""
    if defense is not None:
        against = f" against {target.name}'s {DEFENSE_NAMES[defense.kind]}"
    out.append(
        choice(
            "roll_attack",
            attacker.id,
            {"type": "roll_attack"},
            f"Roll {attacker.name}'s {attack.weapon} attack on {target.name}{against}",
            ["attack", *(["defense"] if defense else []), "damage"],
            fields={"degree": DEGREE, "hit": HIT},
        )
    )
    return out


def _modes(who: CombatantState) -> list[str]:
    """The defense modes open to him now (WIT-DEF-1..4, Default WIT-AMB-7)."""
    taken = round_marks_of(who).defense
    if taken == "total":  # WIT-DEF-3: up to three blows
        return ["total"] if round_marks_of(who).blows < TOTAL_BLOWS else []
    if taken == "total_single":  # WIT-DEF-4: one attack only
        return []
    modes = ["basic"] if turns.actions_left(who) else []
    if not round_marks_of(who).attacked_with and not turns.actions_used(who):
        modes += ["total", "total_single"]
    return modes


def _defenses(
    state: EncounterState, attack: ActionState, attacker: CombatantState, target: CombatantState
) -> list[Choice]:
    facts = WitsAttack.of(attack)
    if (
        facts.defense is not None  # WIT-DEF-3: each attack at most once
        or not facts.visible  # WIT-ATK-2: he must see it
        or turns.is_down(state, target)  # WIT-AMB-11
    ):
        return []
    stats = turns.stats_of(target)
    kinds: list[tuple[dict[str, Any], str]] = [
        ({"kind": "parry", "weapon": w.name}, f"parries with the {w.name}")
        for w in stats.weapons
        if not w.ranged
    ]
    if stats.shield is not None:
        kinds.append(({"kind": "block"}, f"blocks with the {stats.shield.name}"))
    kinds.append(({"kind": "dodge", "dodge_with": "move"}, "dodges (half Move)"))
    if "acrobatics" in stats.skills:
        kinds.append(({"kind": "dodge", "dodge_with": "acrobatics"}, "dodges (half Acrobatics)"))
    die = turns.options_of(state).test_die
    fields = {
        "defense": {
            "type": "object",
            "properties": {
                "magical": {
                    "type": "boolean",
                    "description": "GM: a magical defense allowed against a Critical "
                    "Success (WIT-CRIT-2, WIT-AMB-20)",
                },
                "modifiers": MODIFIERS,
            },
        }
    }
    out: list[Choice] = []
    for mode in _modes(target):
        for spec, how in kinds:
            spec = {**spec, "mode": mode}
            try:  # WIT-DEF-6..8: a kind he cannot use is not offered
                skill = defense_skill(state, target, wc.DefenseSpec.model_validate(spec))
            except RuleViolation:
                continue
            out.append(
                choice(
                    "defend",
                    target.id,
                    {"type": "defend", "combatant": target.id, "defense": spec},
                    f"{target.name} {how} against {attacker.name}'s {attack.weapon}: "
                    f"{MODE_NAMES[mode]}, {under(die, skill['effective'])}",
                    fields=fields,
                )
            )
    return out
