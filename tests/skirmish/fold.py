"""The skirmish's fold: what its own event changes in the state (domain.fold.folds)."""

from __future__ import annotations

from domain.fold import folds
from domain.state import EncounterState
from tests.skirmish.events import Struck
from tests.skirmish.state import round_marks_of


@folds(Struck)
def struck(state: EncounterState, e: Struck) -> None:
    """He has struck this round (SKR-STR-1); the hits follow as DamageApplied."""
    round_marks_of(state.combatants[e.combatant]).struck = True
