"""The skirmish's own command (its others are the core's: roll_initiative, end_round, the
GM's overrides and corrections)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from domain.commands import CommandBase

# command type → the roll names it may ask for, in the order drawn (RuleSystem.rolls)
ROLLS: dict[str, tuple[str, ...]] = {
    "roll_initiative": ("initiative:<name>",),
    "strike": ("strike",),
}


class Strike(CommandBase):
    """Skirmish: strike a foe, 1d6 + fight against his guard + 3 (SKR-STR-2)."""

    type: Literal["strike"] = "strike"
    combatant: str = Field(description="The combatant who strikes.")
    target: str = Field(description="The combatant struck.")
