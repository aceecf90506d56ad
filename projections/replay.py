"""A fight cut into rounds for replay: the narrative lines and the view after each round."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from domain.fold import evolve
from domain.state import EncounterState
from projections.narrative import Lang, narrative
from projections.view import encounter_view


def rounds_of(events: Sequence[Any], lang: Lang = "en") -> Iterator[dict[str, Any]]:
    """{round, lines, combatants} for each round (the last may be unfinished); the lines in
    `lang` (see `narrative`)."""
    lines = list(narrative(events, lang))
    state: EncounterState | None = None
    chunk: list[dict[str, Any]] = []
    for event, line in zip(events, lines, strict=True):
        state = evolve(state, event)
        chunk.append(line)
        if type(event).__name__ == "RoundEnded":
            yield {
                "round": event.round,
                "lines": chunk,
                "combatants": encounter_view(state)["combatants"],
            }
            chunk = []
    if chunk and state is not None:
        yield {
            "round": state.round,
            "lines": chunk,
            "combatants": encounter_view(state)["combatants"],
        }
