"""The encounter view: the folded state, and what its rule system derives from it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from domain.fold import fold
from domain.rulesystems import get_rule_system
from domain.state import EncounterState


def encounter_view(state: EncounterState) -> dict[str, Any]:
    """Everything a screen shows about an encounter at its version (the GM's: a player's
    is projections.visibility.view_for_player of it)."""
    view = {
        "id": state.id,
        "name": state.name,
        "ruleset": state.ruleset,
        "dice_source": state.dice_source,
        "created_at": state.created_at,
        "version": state.version,
        "ended": state.ended,
        "dice_commitment": state.dice_commitment,
        "forked_from": state.forked_from,
        **get_rule_system(state.ruleset).view(state),
    }
    for shown in view.get("combatants", []):
        shown["hidden"] = state.combatants[shown["id"]].hidden
    return view


def view_of(events: Iterable[Any]) -> dict[str, Any]:
    """The view after a run of events (a prefix gives the view at that version)."""
    state = fold(events)
    if state is None:
        raise ValueError("no events")
    return encounter_view(state)


def combatant_view_of(state: EncounterState, combatant_id: str) -> dict[str, Any]:
    """One combatant as the encounter view shows it."""
    view = encounter_view(state)
    return next(c for c in view["combatants"] if c["id"] == combatant_id)
