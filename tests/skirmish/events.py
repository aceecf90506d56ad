"""The skirmish's own event (its others are the core's: InitiativeRolled, DamageApplied,
RoundEnded)."""

from __future__ import annotations

from typing import Any

from domain.events import EncounterEvent


class Struck(EncounterEvent):
    """A strike was rolled (SKR-STR-2); its hits, if any, follow as DamageApplied."""

    combatant: str
    target: str
    rolls: dict[str, Any]
    total: int
    tn: int  # the target's guard + 3
    hit: bool
    hits: int  # what the strike takes: 0, 1, or 2 on a natural 6 (SKR-STR-3)
