"""What the skirmish keeps of a fighter through the round: whether he has struck."""

from __future__ import annotations

from pydantic import ConfigDict

from domain.state import CombatantState, Marks


class SkirmishRoundMarks(Marks):
    """Made anew at each round's end (the core fold's RoundEnded)."""

    model_config = ConfigDict(extra="forbid")

    struck: bool = False  # he has struck this round (SKR-STR-1)


def round_marks_of(who: CombatantState) -> SkirmishRoundMarks:
    marks = who.round_marks
    assert isinstance(marks, SkirmishRoundMarks), type(marks).__name__
    return marks
