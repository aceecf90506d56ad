"""Choices of step 3 of a Novus round: the next action resolved, highest IP first
(NOV-RES-1..4), and the Boon or Snag Points of its roll spent at once (NOV-BOON-1..5,
NOV-SNAG-1, -2)."""

from __future__ import annotations

from typing import Any

from domain.errors import RuleViolation
from domain.rulesystems.base import Choice, choice
from domain.rulesystems.novus import actions as act
from domain.rulesystems.novus import boons as boon_table
from domain.rulesystems.novus import combat, rounds
from domain.rulesystems.novus import snags as snag_table
from domain.rulesystems.novus.choices_common import MODIFIERS, action_label, living, name_of
from domain.rulesystems.novus.commands import BoonSpec
from domain.rulesystems.novus.state import NovusAction, encounter_marks_of
from domain.state import ActionState, EncounterState


def next_action(state: EncounterState) -> ActionState | None:
    """The action `resolve` resolves now: the head of the queue once the actions that can
    no longer resolve are lost (NOV-RES-1, rounds.lose_blocked)."""
    lost = []
    for action in rounds.queue(state):
        if rounds.is_blocked(state, action) is None:
            break
        lost.append(action.id)
    if not lost:
        pending = rounds.queue(state)
        return pending[0] if pending else None
    after = state.model_copy(
        update={
            "actions": [
                a.model_copy(update={"status": "lost"}) if a.id in lost else a
                for a in state.actions
            ]
        }
    )
    pending = rounds.queue(after)
    return pending[0] if pending else None


def resolve_rolls(state: EncounterState, action: ActionState) -> list[str]:
    """What resolving an action rolls, in order (docs/rules/novus.md, Roll names)."""
    kind = act.CATALOGUE[action.kind]
    facts = NovusAction.of(action)
    if kind.attack:
        rolls = ["riding"] if facts.riding_tn is not None else []
        rolls.append("attack")
        return rolls + [f"bystander_save:{name_of(state, b)}" for b in facts.bystanders]
    if facts.vs_def:
        return ["casting"]
    if action.kind in ("first_aid", "block"):
        return [action.kind]
    return []


def resolve(state: EncounterState) -> list[Choice]:
    action = next_action(state)
    fields = {
        "modifiers": MODIFIERS,
        "hit": {"type": "boolean", "description": "The GM's override of hit or miss."},
        "boons": {
            "type": "array",
            "description": "Spend a hit's Boon Points at once (NOV-BOON-1).",
            "items": {"properties": {"name": {"enum": sorted(boon_table.TABLE)}}},
        },
        "snags": {
            "type": "array",
            "description": "Spend a bad miss's Snag Points at once (NOV-SNAG-1).",
            "items": {"properties": {"name": {"enum": sorted(snag_table.TABLE)}}},
        },
    }
    if action is None:  # every action left is lost (NOV-HITS-3, -5, NOV-COND-3)
        return [choice("resolve", None, {}, "Resolve: the actions left can no longer happen")]
    return [
        choice(
            "resolve",
            action.combatant,
            {"action": action.id},
            f"Resolve {name_of(state, action.combatant)}'s {action_label(state, action)}",
            resolve_rolls(state, action),
            fields if act.CATALOGUE[action.kind].attack else {"modifiers": MODIFIERS},
        )
    ]


def boons(state: EncounterState) -> list[Choice]:
    """NOV-BOON-1..4: spend the hit's Boon Points at once, one Boon a choice (or none)."""
    pending = encounter_marks_of(state).pending_boons
    assert pending is not None
    who = state.combatants[pending.combatant]
    stats = combat.stats_of(who)
    weapon = stats.weapon(pending.weapon)
    points = pending.points + pending.head_points
    out = [
        choice(
            "spend_boons",
            who.id,
            {"boons": []},
            f"{who.name} forgoes the {points} Boon Point{'s' if points != 1 else ''}",
            fields=_boon_fields(points),
        )
    ]
    for boon in boon_table.TABLE.values():
        spec = BoonSpec(name=boon.name)
        try:  # NOV-BOON-2, -4: its cost, its weapon, the head shot's points
            boon_table.check_purchase([spec], pending.points, weapon, stats, pending.head_points)
        except RuleViolation:
            continue
        out.append(
            choice(
                "spend_boons",
                who.id,
                {"boons": [{"name": boon.name}]},
                f"{who.name} buys {boon.label} ({boon.effect}) for {boon.cost} of {points} "
                "Boon Points",
                ["disarm_save"] if boon.name == "disarm_foe" else [],
                _boon_fields(points),
            )
        )
    return out


def _boon_fields(points: int) -> dict[str, Any]:
    return {
        "boons": {
            "type": "array",
            "description": f"Boons for up to {points} points, each once; a '+' Boon takes "
            "more points for more effect; a Boon the table does not list is the GM's, with "
            "its points and effect (NOV-BOON-2, -5).",
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "examples": sorted(boon_table.TABLE)},
                    "points": {"type": "integer", "minimum": 1, "maximum": points},
                    "effect": {"type": "string"},
                },
                "required": ["name"],
            },
        }
    }


def snags(state: EncounterState) -> list[Choice]:
    """NOV-SNAG-1, -2: the roller picks Snags for the points of his bad miss (the GM
    approves by sending them), one Snag a choice (or none)."""
    pending = encounter_marks_of(state).pending_snags
    assert pending is not None
    who = state.combatants[pending.combatant]
    points = pending.points
    friends = [f for f in living(state) if f.side == who.side and f.id != who.id]
    fields = {
        "snags": {
            "type": "array",
            "description": f"Snags for up to {points} points (NOV-SNAG-1).",
            "items": {
                "type": "object",
                "properties": {
                    "name": {"enum": sorted(snag_table.TABLE)},
                    "target": {"enum": [f.id for f in friends]},
                    "spell_points": {"type": "integer", "minimum": 0},
                },
                "required": ["name"],
            },
        }
    }
    out = [
        choice(
            "spend_snags",
            who.id,
            {"snags": []},
            f"{who.name} takes no Snag for the {points} Snag Point{'s' if points != 1 else ''}",
            fields=fields,
        )
    ]
    for snag in snag_table.TABLE.values():
        if snag.cost > points:
            continue
        label = f"{who.name}'s Snag: {snag.label} ({snag.cost} of {points} points)"
        if snag.name == "hit_friend":  # NOV-SNAG-2: a living friend, not himself
            out += [
                choice(
                    "spend_snags",
                    who.id,
                    {"snags": [{"name": snag.name, "target": f.id}]},
                    f"{label}: {f.name}",
                    ["friend_attack"],
                    fields,
                )
                for f in friends
            ]
            continue
        spec: dict[str, Any] = {"name": snag.name}
        if snag.name == "spell_backlash":
            spec["spell_points"] = 1
        rolls = ["hurt_yourself"] if snag.name == "hurt_yourself" else []
        out.append(choice("spend_snags", who.id, {"snags": [spec]}, label, rolls, fields))
    return out
