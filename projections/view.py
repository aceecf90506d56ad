"""The encounter view: the folded state, and what its rule system derives from it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from domain.fold import fold
from domain.rulesystems import get_rule_system
from domain.state import EncounterState

# the GM's own, in the view and in each combatant's: never in a player's (docs/visibility.md);
# a combatant's health figures are the rule book's (RuleSystem.health_figures)
GM_VIEW_FIELDS = ("health_shown", "notes")


def encounter_view(state: EncounterState) -> dict[str, Any]:
    """Everything a screen shows about an encounter at its version (the GM's: a player's
    is projections.visibility.view_for_player of it)."""
    rules = get_rule_system(state.ruleset)
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
        **rules.view(state),
        # what players see (docs/visibility.md): the GM's settings and notes
        "health_shown": {"gm_combatants": state.health_shown, "party": state.party_health_shown},
        "notes": list(state.notes),
    }
    for shown in view.get("combatants", []):
        who = state.combatants[shown["id"]]
        shown["hidden"] = who.hidden
        shown["health_state"] = rules.health_state(state, who)
        shown["health_shown"] = who.health_shown
        shown["notes"] = list(who.notes)
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
