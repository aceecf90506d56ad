"""What can happen now in a Wits fight: the candidate commands of play (`RuleSystem.choices`).

Each candidate is a complete command, without dice. The application keeps those the
asking token may send and the rules accept (it runs each on a copy up to its first die),
so a candidate may be generous; but a command the rules would accept now must be here in
kind. The steps (`view._step`): `order` (roll_initiative), `turns` (the acting combatant's
actions, and a held one's, WIT-ORD-3), `attack` (the target's defenses, then roll_attack),
`end_round`. The GM's overrides of the order (`out_of_order`, WIT-ORD-4), of the outcome
(`hit`, `degree`) and of the situation (`modifiers`, `visible`, `physical`, `magical`) are
not candidates of their own: they are described in `fields`.
"""

from __future__ import annotations

from typing import Any

from domain import commands as c
from domain.errors import RuleViolation
from domain.rulesystems.base import Choice, choice
from domain.rulesystems.wits import turns
from domain.rulesystems.wits.attacks import (
    CALLED_SHOT,
    CHARGE_FROM_M,
    DEFENSE_NAMES,
    MODE_NAMES,
    TOTAL_BLOWS,
    defense_skill,
)
from domain.rulesystems.wits.dice import under
from domain.state import ActionState, CombatantState, EncounterState

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


def choices(state: EncounterState) -> list[Choice]:
    """Every candidate command of play now, the encounter's own last."""
    out = _order(state)
    attack = turns.pending_attack(state)
    if attack is not None:  # WIT-ATK-2, WIT-DEF-5: the target answers before the roll
        out += _answer(state, attack)
    else:
        for who in turns.order(state):
            if _may_act(state, who):
                out += _turn(state, who)
    out += _knock_backs(state)
    if attack is None:  # WIT-ATK-4: a round does not end with an attack waiting
        out.append(
            choice(
                "end_round",
                None,
                {"type": "end_round"},
                f"End round {state.round}: the 2 seconds are over, unused actions are lost",
            )
        )
    return out


def _targets(
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


# -- order --------------------------------------------------------------------------------


def _order(state: EncounterState) -> list[Choice]:
    """WIT-ORD-1: everyone without a place takes his Wits; WIT-ORD-2: ties roll 1d6 each
    (Default WIT-AMB-15) or the GM orders them (`tie_order`)."""
    out: list[Choice] = []
    due = turns.unplaced(state)
    if due:
        out.append(
            choice(
                "roll_initiative",
                None,
                {"type": "roll_initiative"},
                "Place everyone not yet in the acting order by Wits (ties roll 1d6)",
                _tie_rolls(due),
            )
        )
        for who in due:
            wits = turns.stats_of(who).wits
            out.append(
                choice(
                    "roll_initiative",
                    who.id,
                    {"type": "roll_initiative", "combatant": who.id},
                    f"Place {who.name} in the acting order (Wits {wits})",
                )
            )
    by_wits: dict[int, list[CombatantState]] = {}
    for who in state.combatants.values():
        by_wits.setdefault(turns.stats_of(who).wits, []).append(who)
    rank = {w.id: i for i, w in enumerate(turns.order(state))}
    for wits, tied in sorted(by_wits.items(), reverse=True):
        if len(tied) < 2:
            continue
        ranked = sorted(tied, key=lambda w: (w.id not in rank, rank.get(w.id, w.entry)))
        ids = [w.id for w in ranked]
        out.append(
            choice(
                "roll_initiative",
                None,
                {"type": "roll_initiative", "tie_order": ids},
                f"The GM rules who completes first among those tied at Wits {wits}: "
                + ", ".join(w.name for w in ranked),
                fields={
                    "tie_order": {
                        "type": "array",
                        "items": {"enum": ids},
                        "minItems": len(ids),
                        "maxItems": len(ids),
                        "uniqueItems": True,
                        "description": "GM: every combatant tied at this Wits, first first",
                    }
                },
            )
        )
    return out


def _tie_rolls(due: list[CombatantState]) -> list[str]:
    """The roll-off's roll names: those placed together at the same Wits."""
    by_wits: dict[int, list[CombatantState]] = {}
    for who in due:
        by_wits.setdefault(turns.stats_of(who).wits, []).append(who)
    return [
        f"tie:{w.name}"
        for _, group in sorted(by_wits.items(), reverse=True)
        if len(group) > 1
        for w in group
    ]


# -- a turn -------------------------------------------------------------------------------


def _may_act(state: EncounterState, who: CombatantState) -> bool:
    """`turns.check_turn` without the GM's `out_of_order`: on his turn, or at any later
    point once he held (WIT-ORD-1, -3, -5); not down (WIT-AMB-11)."""
    if who.ip is None or turns.is_down(state, who) or who.round_marks.get("turn_over"):
        return False
    return who.round_marks.get("held", False) or turns.acting(state) is who


def _turn(state: EncounterState, who: CombatantState) -> list[Choice]:
    left = turns.actions_left(who)
    out: list[Choice] = []
    if left:
        out += _attacks(state, who, left)
        aim = turns.aim_of(who)
        if aim < turns.MAX_AIM:  # WIT-AIM-1, -3: +1 an action, up to +5
            out.append(
                choice(
                    "aim",
                    who.id,
                    {"type": "aim", "combatant": who.id},
                    f"{who.name} aims: +{aim + 1} to the next attack (one action)",
                    fields={"out_of_order": OUT_OF_ORDER},
                )
            )
        out += _moves(state, who)
        out.append(
            choice(
                "take_action",
                who.id,
                {"type": "take_action", "combatant": who.id, "what": "takes another action"},
                f"{who.name} takes another action: a spell, a skill, anything that takes "
                "effort (one action)",
                fields={
                    "what": {"type": "string", "minLength": 1, "maxLength": 200},
                    "actions": {
                        "enum": [1, 2],
                        "description": "GM: the actions it uses (WIT-ACT-3)",
                    },
                    "out_of_order": OUT_OF_ORDER,
                },
            )
        )
        if not who.round_marks.get("held"):  # WIT-ORD-3: on his turn, once
            out.append(
                choice(
                    "hold",
                    who.id,
                    {"type": "hold", "combatant": who.id},
                    f"{who.name} holds: acts at any later point of the round",
                )
            )
    kept = f", keeping {left} action{'s' if left > 1 else ''} for defenses" if left else ""
    out.append(
        choice(
            "end_turn",
            who.id,
            {"type": "end_turn", "combatant": who.id},
            f"{who.name} ends the turn{kept}",  # WIT-ORD-5
            fields={"out_of_order": OUT_OF_ORDER},
        )
    )
    return out


def _attack_fields(state: EncounterState, who: CombatantState) -> dict[str, Any]:
    stats = turns.stats_of(who)
    return {
        "target": {"enum": [t.id for t in _targets(state, who)]},
        "weapon": {"enum": [w.name for w in stats.weapons]},
        "called_shot": {
            "enum": list(CALLED_SHOT),
            "description": "A body part, at its modifier (WIT-CALL-1)",
        },
        "charge": {"type": "boolean", "description": "A Charge from 5 m or more (WIT-CHG-1)"},
        "distance_m": {**DISTANCE, "description": "Charge: metres to the target (WIT-CHG-5)"},
        "roll": {
            "type": "boolean",
            "default": False,
            "description": "true: roll at once (attack, defense, damage), with no time for "
            "the target to declare a defense; false: the target may defend, then roll_attack",
        },
        "defense": {
            "type": "object",
            "description": "The target's defense, declared with the announcement (WIT-ATK-2)",
        },
        "visible": {
            "type": "boolean",
            "default": True,
            "description": "GM: the target sees the blow (WIT-ATK-2, WIT-AMB-21)",
        },
        "physical": {
            "type": "boolean",
            "default": True,
            "description": "GM: normal physical damage, which rolls up (WIT-DMG-7)",
        },
        "modifiers": MODIFIERS,
        "out_of_order": OUT_OF_ORDER,
    }


def _attacks(state: EncounterState, who: CombatantState, left: int) -> list[Choice]:
    """WIT-ATK-1: an attack on each living target with each weapon, announced so the
    target may declare his defense (WIT-ATK-2); a Charge with each melee weapon where one
    may close (WIT-CHG-1, -5) or one is under way."""
    if who.round_marks.get("defense") in ("total", "total_single"):  # WIT-DEF-3
        return []
    stats = turns.stats_of(who)
    fields = _attack_fields(state, who)
    charging = who.marks.get("charging") or {}
    out: list[Choice] = []
    for target in _targets(state, who):
        for weapon in stats.weapons:
            if not weapon.ranged and stats.base_damage is None:  # WIT-DMG-6
                continue
            body = {
                "type": "attack",
                "combatant": who.id,
                "target": target.id,
                "weapon": weapon.name,
                "roll": False,
            }
            out.append(
                choice(
                    "attack",
                    who.id,
                    body,
                    f"{who.name} attacks {target.name}: {weapon.name} (one action)",
                    fields=fields,
                )
            )
            if weapon.ranged:  # Default WIT-AMB-18: a Charge is melee or unarmed
                continue
            if charging.get("target") == target.id:  # WIT-CHG-5: it reaches him now
                out.append(
                    choice(
                        "attack",
                        who.id,
                        {**body, "charge": True},
                        f"{who.name}'s Charge reaches {target.name}: {weapon.name} "
                        "(−2 to hit, one more Base Damage die)",
                        fields=fields,
                    )
                )
            elif left >= 2 and stats.move // 2 >= CHARGE_FROM_M:  # WIT-CHG-1, -5
                out.append(
                    choice(
                        "attack",
                        who.id,
                        {**body, "charge": True, "distance_m": CHARGE_FROM_M},
                        f"{who.name} charges {target.name} from {CHARGE_FROM_M} m: "
                        f"{weapon.name} (moves and attacks: two actions; −2 to hit, one "
                        "more Base Damage die)",
                        fields=fields,
                    )
                )
    return out


def _moves(state: EncounterState, who: CombatantState) -> list[Choice]:
    """WIT-MOV-1: up to half Move for one action; WIT-MOV-2: up to Move for the whole
    round, before any other action; WIT-CHG-5: a Charge covering ground over moves."""
    stats = turns.stats_of(who)
    half = stats.move // 2
    fields = {
        "distance_m": {**DISTANCE, "maximum": stats.move},
        "distance_ft": {**DISTANCE, "maximum": stats.move * 3},
        "charge_at": {
            "enum": [t.id for t in _targets(state, who, standing=True)],
            "description": "Start or go on with a Charge at him (WIT-CHG-5)",
        },
        "charge_from_m": {
            "type": "number",
            "minimum": CHARGE_FROM_M,
            "description": "Starting a Charge: metres to the target before the move",
        },
        "out_of_order": OUT_OF_ORDER,
    }
    out: list[Choice] = []
    spans = [half] if half else []
    if stats.move > half and not turns.actions_used(who):
        spans.append(stats.move)
    for metres in spans:
        cost = "one action" if metres <= half else "the whole round"
        out.append(
            choice(
                "move",
                who.id,
                {"type": "move", "combatant": who.id, "distance_m": metres},
                f"{who.name} moves up to {metres} m ({cost})",
                fields=fields,
            )
        )
    if not spans:
        return out
    step = spans[0]
    charging = who.marks.get("charging") or {}
    for target in _targets(state, who, standing=True):
        body = {"type": "move", "combatant": who.id, "distance_m": step, "charge_at": target.id}
        if charging.get("target") == target.id:
            label = f"{who.name} charges on toward {target.name}: {step} m"
        else:
            start = max(CHARGE_FROM_M, stats.move)
            body["charge_from_m"] = start
            label = f"{who.name} starts a Charge at {target.name}, {start} m away: moves {step} m"
        out.append(choice("move", who.id, body, label, fields=fields))
    return out


# -- an attack waiting for its roll -------------------------------------------------------


def _answer(state: EncounterState, attack: ActionState) -> list[Choice]:
    """The target's defenses (WIT-ATK-2, WIT-DEF-1..8), then the roll (WIT-TEST-1)."""
    attacker = state.combatants[attack.combatant]
    target = state.combatants[attack.target or ""]
    out = _defenses(state, attack, attacker, target)
    defense = attack.params.get("defense")
    against = ""
    if defense is not None:
        against = f" against {target.name}'s {DEFENSE_NAMES[defense['kind']]}"
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
    taken = who.round_marks.get("defense")
    if taken == "total":  # WIT-DEF-3: up to three blows
        return ["total"] if who.round_marks.get("blows", 0) < TOTAL_BLOWS else []
    if taken == "total_single":  # WIT-DEF-4: one attack only
        return []
    modes = ["basic"] if turns.actions_left(who) else []
    if not who.round_marks.get("attacked_with") and not turns.actions_used(who):
        modes += ["total", "total_single"]
    return modes


def _defenses(
    state: EncounterState, attack: ActionState, attacker: CombatantState, target: CombatantState
) -> list[Choice]:
    if (
        "defense" in attack.params  # WIT-DEF-3: each attack at most once
        or not attack.params["visible"]  # WIT-ATK-2: he must see it
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
                skill = defense_skill(state, target, c.DefenseSpec.model_validate(spec))
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


# -- the GM's rulings -------------------------------------------------------------------


def _knock_backs(state: EncounterState) -> list[Choice]:
    """WIT-CHG-4 (Default WIT-AMB-10): a hit of this round the GM may rule knocked its
    target back, tested once; he needs a Strength."""
    out: list[Choice] = []
    for action in state.actions:
        if action.kind != "attack" or not action.params.get("hit"):
            continue
        if action.params.get("knocked_back"):
            continue
        target = state.combatants.get(action.target or "")
        if target is None or turns.stats_of(target).strength is None:
            continue
        attacker = state.combatants[action.combatant]
        charge = " (a Charge: −5)" if action.params.get("charge") else ""
        out.append(
            choice(
                "knock_back",
                target.id,
                {"type": "knock_back", "combatant": target.id, "attack": action.id},
                f"The GM rules {attacker.name}'s hit knocked {target.name} back: "
                f"{target.name} tests Strength to stay on his feet{charge}",
                ["strength"],
                fields={"modifiers": MODIFIERS},
            )
        )
    return out
