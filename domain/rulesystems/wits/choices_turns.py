"""The candidates of a Wits turn: attacks and Charges, aiming, moves, another action,
holding, ending the turn (WIT-ACT, WIT-ATK-1, WIT-AIM, WIT-MOV, WIT-CHG, WIT-ORD-3, -5)."""

from __future__ import annotations

from typing import Any

from domain.rulesystems.base import Choice, choice
from domain.rulesystems.wits import turns
from domain.rulesystems.wits.attacks import CALLED_SHOT
from domain.rulesystems.wits.charges import CHARGE_FROM_M
from domain.rulesystems.wits.choices_fields import DISTANCE, MODIFIERS, OUT_OF_ORDER, targets
from domain.rulesystems.wits.state import marks_of, round_marks_of
from domain.state import CombatantState, EncounterState


def may_act(state: EncounterState, who: CombatantState) -> bool:
    """`turns.check_turn` without the GM's `out_of_order`: on his turn, or at any later
    point once he held (WIT-ORD-1, -3, -5); not down (WIT-AMB-11)."""
    if who.ip is None or turns.is_down(state, who) or round_marks_of(who).turn_over:
        return False
    return round_marks_of(who).held or turns.acting(state) is who


def turn(state: EncounterState, who: CombatantState) -> list[Choice]:
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
        if not round_marks_of(who).held:  # WIT-ORD-3: on his turn, once
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
        "target": {"enum": [t.id for t in targets(state, who)]},
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
    if round_marks_of(who).defense in ("total", "total_single"):  # WIT-DEF-3
        return []
    stats = turns.stats_of(who)
    fields = _attack_fields(state, who)
    charging_at = _charging_at(who)
    out: list[Choice] = []
    for target in targets(state, who):
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
            if charging_at == target.id:  # WIT-CHG-5: it reaches him now
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
            "enum": [t.id for t in targets(state, who, standing=True)],
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
    charging_at = _charging_at(who)
    for target in targets(state, who, standing=True):
        body = {"type": "move", "combatant": who.id, "distance_m": step, "charge_at": target.id}
        if charging_at == target.id:
            label = f"{who.name} charges on toward {target.name}: {step} m"
        else:
            start = max(CHARGE_FROM_M, stats.move)
            body["charge_from_m"] = start
            label = f"{who.name} starts a Charge at {target.name}, {start} m away: moves {step} m"
        out.append(choice("move", who.id, body, label, fields=fields))
    return out


def _charging_at(who: CombatantState) -> str | None:
    """The target of his Charge under way, if any (WIT-CHG-5)."""
    charging = marks_of(who).charging
    return charging.target if charging is not None else None
