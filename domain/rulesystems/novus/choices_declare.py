"""Choices of steps 1 and 2 of a Novus round: initiative (NOV-INIT-2..5, NOV-SEQ-2,
NOV-RRI-1), declarations, lowest IP first (NOV-DECL-1..4), and holds (NOV-HOLD-1)."""

from __future__ import annotations

from typing import Any

from domain.errors import RuleViolation
from domain.rulesystems.base import Choice, choice
from domain.rulesystems.novus import actions as act
from domain.rulesystems.novus import combat, rounds
from domain.rulesystems.novus.choices_common import (
    MODIFIERS,
    foes_of,
    friends_of,
    living,
    name_of,
    weapons_for,
)
from domain.rulesystems.novus.commands import ActionSpec
from domain.rulesystems.novus.declare import HOLD_COST
from domain.rulesystems.novus.state import has_declared, round_marks_of
from domain.state import CombatantState, EncounterState

ATTACKS = ("melee_attack", "power_attack", "missile_attack", "unarmed_attack", "brawl")
ATTACKS_ALONE = ("mounted_charge",)  # over budget: declared alone, resolved later


# -- step 1: initiative (NOV-INIT-2..5, NOV-SEQ-2, NOV-RRI-1) ---------------------------
def initiative(state: EncounterState) -> list[Choice]:
    due = rounds.needs_initiative(state)
    ip = {"ip": {"type": "integer", "description": "An IP the GM enters (NOV-INIT-5)."}}
    fields = {**ip, "modifiers": MODIFIERS}
    out = [
        choice(
            "roll_initiative",
            who.id,
            {"combatant": who.id},
            f"{who.name} rolls initiative: open-ended 2d10 + Spd and Wis bonuses",
            ["initiative"],
            fields,
        )
        for who in due
    ]
    if due:
        out.append(
            choice(
                "roll_initiative",
                None,
                {},
                "Roll initiative for everyone without an IP: " + ", ".join(who.name for who in due),
                [f"initiative:{who.name}" for who in due],
                {"modifiers": MODIFIERS},
            )
        )
    return out


# -- step 2: declarations, lowest IP first (NOV-DECL-1..4) ---------------------------
def declarations(state: EncounterState) -> list[Choice]:
    nxt = rounds.next_declarer(state)
    out: list[Choice] = []
    for who in rounds.declaration_order(state):
        if not rounds.must_declare(who, state):
            continue
        fields = _declare_fields(state, who)
        if nxt is None or who.id != nxt.id:  # NOV-DECL-1: out of order is the GM's override
            out.append(
                choice(
                    "declare",
                    who.id,
                    {"combatant": who.id, "actions": [], "out_of_order": True},
                    f"{who.name} declares no action, out of order (GM)",
                    fields=fields,
                )
            )
            continue
        out.append(
            choice(
                "declare",
                who.id,
                {"combatant": who.id, "actions": []},
                f"{who.name} declares no action",
                fields=fields,
            )
        )
        for spec in _single_actions(state, who):
            label = _declared_label(state, who, spec)
            if label is not None:
                out.append(
                    choice(
                        "declare",
                        who.id,
                        {"combatant": who.id, "actions": [spec]},
                        label,
                        fields=fields,
                    )
                )
    return out


def _single_actions(state: EncounterState, who: CombatantState) -> list[dict[str, Any]]:
    """Each action he may declare alone: every catalogue action, attacks with each weapon
    that suits them on each living foe (NOV-AP-1, NOV-HITS-5, NOV-ATK-1), a Block against
    each foe, First Aid on himself or a friend."""
    foes = foes_of(state, who)
    if who.hits <= 0:  # NOV-HITS-3: helpless, only First Aid on himself
        return [{"kind": "first_aid"}]
    stats = combat.stats_of(who)
    specs: list[dict[str, Any]] = []
    for kind in (*ATTACKS, *ATTACKS_ALONE):
        for weapon in weapons_for(kind, stats, who):
            for target in foes:
                spec: dict[str, Any] = {"kind": kind, "target": target.id}
                if weapon is not None:
                    spec["weapon"] = weapon
                specs.append(spec)
    for kind in act.CATALOGUE.values():
        if kind.attack:
            continue
        if kind.kind == "block":  # NOV-CMV-2: against an attacker's attack on him
            specs += [{"kind": "block", "target": t.id} for t in foes]
        elif kind.kind == "first_aid":  # NOV-COND-1, NOV-HITS-3: himself or a friend
            specs.append({"kind": "first_aid"})
            specs += [{"kind": "first_aid", "target": t.id} for t in friends_of(state, who)]
        else:
            specs.append({"kind": kind.kind})
    return specs


def _declared_label(state: EncounterState, who: CombatantState, spec: dict[str, Any]) -> str | None:
    """`Brakka declares Basic Melee Attack on Goblin with the sword (4 AP)`; None for an
    action its cost refuses (NOV-AP-1: a weapon that does not suit it) or the budget does
    (NOV-DECL-3: a move over it, any action when the round's whole budget was carried)."""
    kind = act.CATALOGUE[spec["kind"]]
    budget = rounds.ap_budget(state, who)
    try:
        cost = (
            budget
            if kind.kind == "prepare_reroll"
            else act.cost_of(ActionSpec(**spec), combat.stats_of(who))
        )
        act.check_budget([kind], [cost], budget)
    except RuleViolation:
        return None
    what = kind.label
    if spec.get("target") is not None:
        what += f" on {name_of(state, spec['target'])}"
    elif kind.kind == "first_aid":
        what += " on himself"
    if spec.get("weapon"):
        what += f" with the {spec['weapon']}"
    if kind.kind == "prepare_reroll":
        ap = "the whole round"
    elif cost > budget:  # NOV-DECL-3, -4: alone, it spills over
        ap = f"{cost} AP: {budget} this round, the rest carried over"
    else:
        ap = f"{cost} AP of {budget}"
    return f"{who.name} declares {what} ({ap})"


def _declare_fields(state: EncounterState, who: CombatantState) -> dict[str, Any]:
    budget = rounds.ap_budget(state, who)
    ip = rounds.effective_ip(state, who) or 0
    weapons = [w.name for w in combat.stats_of(who).weapons]
    return {
        "actions": {
            "type": "array",
            "maxItems": 12 if act.takes_new_action(budget) else 0,
            "description": f"Actions for this round within {budget} AP (NOV-DECL-3); one "
            "action that does not fit may be declared alone and spills over (NOV-DECL-4)."
            if act.takes_new_action(budget)
            else "None: a multi-round action took all of this round's AP (NOV-DECL-3, "
            "Default NOV-AMB-10).",
            "items": {
                "type": "object",
                "properties": {
                    "kind": {"enum": sorted(act.CATALOGUE)},
                    "target": {"enum": [t.id for t in living(state)]},
                    "weapon": {"enum": weapons},
                    "ap": {"type": "integer", "minimum": 1, "maximum": 10},
                    "move": {"enum": list(act.MOVES)},
                    "called_shot": {"enum": ["arm", "leg", "head"]},
                    "direction": {"enum": ["front", "flank", "rear"]},
                    "defensive": {"type": "integer", "minimum": 0, "multipleOf": 2},
                    "off_hand": {"type": "boolean"},
                    "two_handed": {"type": "boolean"},
                    "improvised": {"type": "boolean"},
                    "mounted": {"type": "boolean"},
                    "pace": {"type": "integer", "minimum": 1, "maximum": 10},
                    "bystanders": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["kind"],
            },
        },
        "hold_ip": {
            "type": "integer",
            "maximum": ip - 1,
            "description": "Hold, announced now for nothing: act at this lower IP (NOV-HOLD-2).",
        },
    }


def holds(state: EncounterState) -> list[Choice]:
    """NOV-HOLD-1, NOV-ERRATA-1: after declaring, hold for 1 AP to act at a lower IP."""
    out = []
    for who in state.combatants.values():
        own = rounds.effective_ip(state, who)
        held = round_marks_of(who).hold_ip is not None
        if not has_declared(state, who) or held or own is None:
            continue
        mine = [a for a in state.actions if a.combatant == who.id and a.round == state.round]
        if not mine or any(a.status != "pending" for a in mine):
            continue
        out.append(
            choice(
                "hold",
                who.id,
                {"combatant": who.id, "ip": own - 1},
                f"{who.name} holds, to act at IP {own - 1} ({HOLD_COST} AP)",
                fields={"ip": {"type": "integer", "maximum": own - 1}},
            )
        )
    return out
