"""Choices out of the resolution order of a Novus round: cancelling unresolved actions,
alone or for one replacement (NOV-CANCEL-1..5), and Opportunity Attacks (NOV-OA-1..3)."""

from __future__ import annotations

from typing import Any

from domain.rulesystems.base import Choice, choice
from domain.rulesystems.novus import actions as act
from domain.rulesystems.novus import combat, rounds
from domain.rulesystems.novus.cancel import CANCEL_MOVE_AP
from domain.rulesystems.novus.choices_common import (
    action_label,
    can_act,
    foes_of,
    living,
    name_of,
    weapons_for,
)
from domain.rulesystems.novus.state import round_marks_of
from domain.rulesystems.novus.stats import Weapon
from domain.state import ActionState, CombatantState, EncounterState

# NOV-CANCEL-2: what a replacement may be without its −5; the others are in `fields`
REPLACEMENTS = ("move", "run", "dodge", "counterspell", "instant_spell_action")


def cancels(state: EncounterState) -> list[Choice]:
    """NOV-CANCEL-1..5: cancel his unresolved actions, alone or for one replacement at once
    (a melee attack at half AB on another foe, a move of at most 3 AP, a Dodge, a Block, a
    counterspell, an instantaneous spell action; any other action at −5, in `fields`)."""
    out: list[Choice] = []
    for who in state.combatants.values():
        mine = [
            a
            for a in state.actions
            if a.combatant == who.id and a.round >= state.round and a.declared_round <= state.round
        ]
        pending = [a for a in mine if a.status == "pending"]
        if not pending or any(a.id.endswith(".replacement") for a in pending):
            continue
        what = ", ".join(action_label(state, a) for a in pending)
        fields = {
            "replacement": {
                "type": "object",
                "description": "One action at once (NOV-CANCEL-2): a melee attack at half AB, "
                f"a move of at most {CANCEL_MOVE_AP} AP, dodge, block, counterspell, "
                "instantaneous spell action; any other action at −5.",
                "properties": {
                    "kind": {"enum": sorted(act.CATALOGUE)},
                    "target": {"enum": [t.id for t in living(state)]},
                    "ap": {"type": "integer", "minimum": 1, "maximum": CANCEL_MOVE_AP},
                },
            }
        }
        out.append(
            choice(
                "cancel", who.id, {"combatant": who.id}, f"{who.name} cancels {what}", fields=fields
            )
        )
        attacked = any(a.status == "resolved" and act.CATALOGUE[a.kind].attack for a in mine)
        if attacked or not can_act(who):  # NOV-CANCEL-5; a replacement he could not make
            continue
        for spec in _replacements(state, who, pending):
            kind = act.CATALOGUE[spec["kind"]]
            instead = kind.label + (
                f" on {name_of(state, spec['target'])}" if spec.get("target") else ""
            )
            if spec.get("weapon"):
                instead += f" with the {spec['weapon']} at half AB"
            out.append(
                choice(
                    "cancel",
                    who.id,
                    {"combatant": who.id, "replacement": spec},
                    f"{who.name} cancels {what} for {instead}, at once",
                    fields=fields,
                )
            )
    return out


def _replacements(
    state: EncounterState, who: CombatantState, pending: list[ActionState]
) -> list[dict[str, Any]]:
    """A melee attack on another foe (NOV-CANCEL-4), a short move, a Dodge, a counterspell,
    an instantaneous spell action, a Block against each foe whose attack on him waits in
    the queue (NOV-CMV-2: against no such attack it cannot succeed)."""
    attacked = {a.target for a in pending if act.CATALOGUE[a.kind].attack}
    foes = foes_of(state, who)
    specs = [
        {"kind": "melee_attack", "target": t.id, "weapon": w}
        for w in weapons_for("melee_attack", combat.stats_of(who), who)
        for t in foes
        if t.id not in attacked
    ]
    specs += [{"kind": k} for k in REPLACEMENTS]
    attackers = {
        a.combatant: None
        for a in rounds.queue(state)
        if a.target == who.id and act.CATALOGUE[a.kind].attack and a.combatant != who.id
    }
    specs += [{"kind": "block", "target": t} for t in attackers if t in state.combatants]
    return specs


def opportunity_attacks(state: EncounterState) -> list[Choice]:
    """NOV-OA-1..3 (Default NOV-AMB-25): on a foe crossing his Control Zone (the GM's
    call, NOV-OA-4): his declared attack, else a basic melee attack his AP still pay for."""
    out: list[Choice] = []
    for who in state.combatants.values():
        if not can_act(who):
            continue
        mine = [a for a in state.actions if a.combatant == who.id and a.round == state.round]
        declared = next(
            (a for a in mine if a.status == "pending" and act.CATALOGUE[a.kind].attack), None
        )
        others = foes_of(state, who)
        if declared is not None:
            out += [
                choice(
                    "opportunity_attack",
                    who.id,
                    {"combatant": who.id, "target": t.id},
                    f"{who.name}'s Opportunity Attack on {t.name}: the "
                    f"{action_label(state, declared, on=False)} he declared",
                )
                for t in others
            ]
            continue
        if any(a.status == "resolved" and act.CATALOGUE[a.kind].attack for a in mine):
            continue  # NOV-OA-3
        left = rounds.ap_budget(state, who) - round_marks_of(who).ap_spent
        for weapon in _melee_weapons(who):
            cost = act.MELEE_AP[weapon.size]
            if cost > left:
                continue
            out += [
                choice(
                    "opportunity_attack",
                    who.id,
                    {"combatant": who.id, "target": t.id, "weapon": weapon.name},
                    f"{who.name}'s Opportunity Attack on {t.name} with the {weapon.name} "
                    f"({cost} of {left} AP left)",
                )
                for t in others
            ]
    return out


def _melee_weapons(who: CombatantState) -> list[Weapon]:
    if who.has("disarmed"):  # NOV-BOON-2: his weapon is gone
        return []
    return [w for w in combat.stats_of(who).weapons if w.kind == "melee"]
