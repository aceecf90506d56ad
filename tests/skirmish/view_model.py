"""What a skirmish table sees: the encounter view's shape (SkirmishRules.view), which the
API answers with (RuleSystem.view_model)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from domain.view_model import CombatantSeen, EncounterHeader


class SkirmishCombatant(CombatantSeen):
    id: str
    name: str
    side: str
    hits: int | None = Field(description="Null where the GM shows his health as words or not.")
    max_hits: int | None = Field(description="Null where the GM shows it as words or not.")
    fight: int
    guard: int
    initiative: int | None = Field(description="1d6 + fight (SKR-INIT-1); null: not rolled.")
    struck: bool = Field(description="He has struck this round (SKR-STR-1).")
    down: bool = Field(description="At 0 hits or fewer (SKR-DOWN-1).")


class SkirmishEncounter(EncounterHeader):
    ruleset: Literal["skirmish"]
    step: Literal["setup", "initiative", "strikes", "end_round"]
    acting: str | None = Field(description="Whose strike it is.")
    order: list[str] = Field(description="Combatant ids, highest initiative first.")
    combatants: list[SkirmishCombatant]
