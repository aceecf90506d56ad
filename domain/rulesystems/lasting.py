"""What of a combatant lasts after a fight, and how the next fight starts from it: the
campaign's roster carries it from one encounter to the next (domain.roster, docs/api.md
"Campaigns"). Each rule book says what lasts in its `lasting.py` (a `Lasting` named
`LASTING`), reached through `RuleSystem.lasting`; a book without one carries the hits only.

A lasting state is plain JSON: `hits` always (his hits, or the book's word for them, when
the state was carried), and what else the book keeps. It enters the next encounter through
that encounter's own events: the copy's stat block starts from it (`starting_stats`: the
hits he starts with), and what the stat block cannot say is recorded by the GM's commands
in the same save (`commands`: e.g. a Novus bleeding wound), so the fight's record stays
self-contained and never reads the roster later."""

from __future__ import annotations

from functools import cache
from importlib import import_module
from typing import Any, ClassVar

from pydantic import BaseModel

from domain import commands as c
from domain.state import CombatantState, EncounterState

CARRIED = "carried from the roster"  # the reason the carried conditions are recorded with


class Lasting:
    """The default: the hits only (the book says nothing of what lasts)."""

    rules: ClassVar[tuple[str, ...]] = ()  # the rule ids it follows (docs/api.md lists them)
    # the stat that gives the hits he starts with (Novus `current_hits`); None: an
    # `adjust_hits` in the same save instead
    current_hits_stat: ClassVar[str | None] = None
    # the lowest that stat takes: hits carried below it (a body long past dying) start the
    # next fight at it, so the copy's stat block stays one its book accepts
    lowest_hits: ClassVar[int | None] = None

    def of(self, state: EncounterState, who: CombatantState) -> dict[str, Any]:
        """What lasts of `who` as `state` stands."""
        return {"hits": who.hits}

    def starting_stats(self, stats: dict[str, Any], lasting: dict[str, Any]) -> dict[str, Any]:
        """His stat block as the next fight starts him: the roster's, with what lasts."""
        if self.current_hits_stat is None:
            return dict(stats)
        hits = lasting["hits"]
        if self.lowest_hits is not None:
            hits = max(hits, self.lowest_hits)
        return {**stats, self.current_hits_stat: hits}

    def commands(self, combatant: CombatantState, lasting: dict[str, Any]) -> list[BaseModel]:
        """The GM's commands that record what the stat block cannot say, right after he is
        added (`combatant`: as added, from `starting_stats`)."""
        if self.current_hits_stat is None and lasting["hits"] != combatant.hits:
            amount = lasting["hits"] - combatant.hits
            return [c.AdjustHits(combatant=combatant.id, amount=amount, reason=CARRIED)]
        return []


@cache
def lasting_of(system: type) -> Lasting:
    """A rule book's `LASTING`, from the `lasting` module beside its system module; the
    default (hits only) where its package has none."""
    package = system.__module__.rpartition(".")[0]
    if not package:
        return Lasting()
    try:
        module = import_module(f"{package}.lasting")
    except ModuleNotFoundError as missing:
        if missing.name != f"{package}.lasting":
            raise
        return Lasting()
    found = getattr(module, "LASTING", None)
    return found if isinstance(found, Lasting) else Lasting()
