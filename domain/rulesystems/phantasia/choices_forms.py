"""The narrator's forms in a PHANTÄSIA fight: the base overrides that apply to the book and
its own, one of each per combatant (statuses, healing, falls, PM, PHANTÄSIA points, the
load)."""

from __future__ import annotations

from typing import Any

from domain.rulesystems.phantasia import statuses
from domain.rulesystems.phantasia.choices_fields import CHARACTERISTICS, MODIFIERS
from domain.rulesystems.phantasia.stats import max_phantasia_points, max_pm
from domain.rulesystems.phantasia.turns import options_of, pm_of, pp_of, stats_of
from domain.state import CombatantState, EncounterState

Form = dict[str, Any]


def overrides(state: EncounterState, base: list[Form]) -> list[Form]:
    """The base forms that apply to PHANTÄSIA (not set_modifier: its lasting changes are
    statuses, PHA-STK-1; a status's count is his own turns, PHA-STS-0) and the book's own:
    statuses (PHA-STS), healing (PHA-DTH-5), falls (PHA-DMG-8), PM (PHA-PM-4, -5), awards
    (PHA-PP-1, -3), the load (PHA-WPN-7)."""
    forms = _base_forms(base)
    load_rule = options_of(state).load_rule
    ids = list(state.combatants)
    for who in state.combatants.values():
        forms.append(_apply_status(who, ids))
        if not who.has("dead"):
            forms.append(_heal(who, ids))
        forms.append(_fall(who))
        forms.append(_adjust_pm(who))
        forms.append(_award_point(who, ids))
        if load_rule:
            forms.append(_set_load(who))
    return forms


def _base_forms(base: list[Form]) -> list[Form]:
    """PHA-STK-1: no set_modifier (lasting changes are statuses); set_condition names the
    book's statuses (not the magic one) and counts his own turns (PHA-STS-0)."""
    named = sorted(n for n in statuses.NAMES if n != statuses.MAGIC)
    forms: list[Form] = []
    for form in base:
        if form["type"] in ("set_modifier", "clear_modifier"):
            continue
        if form["type"] == "set_condition":
            form = {
                **form,
                "fields": {
                    "condition": {"enum": named},
                    "count": {"type": "integer", "minimum": 1},
                    "reason": {"type": "string"},
                },
            }
        forms.append(form)
    return forms


def _form(kind: str, who: CombatantState, fields: dict[str, Any]) -> Form:
    return {"type": kind, "combatant": who.id, "fields": fields}


def _apply_status(who: CombatantState, ids: list[str]) -> Form:
    """PHA-STS: any status, for a number of his turns, with what it does."""
    return _form(
        "apply_status",
        who,
        {
            "status": {"enum": sorted(statuses.NAMES)},
            "turns": {"type": "integer", "minimum": 1},
            "name": {"type": "string", "maxLength": 60},
            "beneficial": {"type": "boolean"},
            "item": {"type": "boolean"},
            "modifiers": MODIFIERS,
            "damage": {"type": "string"},
            "reduction": {"type": "integer", "minimum": 0},
            "harmed_by": {"type": "string"},
            "resist": {"enum": list(CHARACTERISTICS)},
            "by": {"enum": ids},
            "replace": {"type": "string"},
            "from_attack": {"type": "string"},
            "reason": {"type": "string"},
        },
    )


def _heal(who: CombatantState, ids: list[str]) -> Form:
    """PHA-DTH-5: healing, by an amount or dice, by a caster."""
    return _form(
        "heal",
        who,
        {
            "amount": {"type": "integer", "minimum": 0},
            "heal_dice": {"type": "string"},
            "caster": {"enum": ids},
            "reason": {"type": "string"},
        },
    )


def _fall(who: CombatantState) -> Form:
    """PHA-DMG-8: a fall of so many metres."""
    return _form("fall", who, {"metres": {"type": "integer", "minimum": 1, "maximum": 1000}})


def _adjust_pm(who: CombatantState) -> Form:
    """PHA-PM-4, -5: PM gained or lost, never below 0 nor above his maximum."""
    pm = pm_of(who)
    return _form(
        "adjust_pm",
        who,
        {
            "amount": {
                "type": "integer",
                "minimum": -pm,
                "maximum": max_pm(stats_of(who)) - pm,
            },
            "reason": {"type": "string"},
        },
    )


def _award_point(who: CombatantState, ids: list[str]) -> Form:
    """PHA-PP-1, -3: a PHANTÄSIA point awarded; at his maximum, passed to another."""
    at_max = pp_of(who) >= max_phantasia_points(stats_of(who).level)
    return _form(
        "award_phantasia_point",
        who,
        {
            **({"pass_to": {"enum": [i for i in ids if i != who.id]}} if at_max else {}),
            "reason": {"type": "string"},
        },
    )


def _set_load(who: CombatantState) -> Form:
    """PHA-WPN-7: the kilos he carries (with the load rule)."""
    return _form("set_load", who, {"carried_kg": {"type": "number", "minimum": 0}})
