"""What a Wits table sees: the encounter view's shape (WitsRules.view).
The API answers with it (RuleSystem.view_model)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from domain.view_model import CombatantSeen, EncounterHeader


class WitsCombatant(CombatantSeen):
    id: str
    name: str
    side: str
    health: int | None = Field(
        description="Current Health (may go below 0, WIT-AMB-11); null where the GM shows it "
        "to you as words or not at all."
    )
    max_health: int | None = Field(
        description="Null where the GM shows his health to you as words or not at all."
    )
    wits: int
    move: int
    placed: bool = Field(description="He has his place in the acting order.")
    tie_roll: int | None = Field(description="His roll-off (or GM rank) among equal Wits.")
    actions_used: int
    actions_left: int = Field(description="Of the round's two actions (WIT-ACT-1).")
    aim: int = Field(description="Aiming bonus for his next attack (WIT-AIM).")
    charging: dict[str, Any] | None = Field(description="A Charge under way: target, from_m.")
    defense: Literal["basic", "total", "total_single"] | None
    blows_defended: int
    attacked: bool = Field(description="He has attacked this round (WIT-DEF-1).")
    held: bool
    turn_over: bool
    conditions: dict[str, int | None]
    modifiers: list[dict[str, Any]]
    protection: int
    down: bool = Field(description="At or below down_at: the GM rules his state.")


class WitsEncounter(EncounterHeader):
    ruleset: Literal["wits"]
    step: Literal["setup", "order", "attack", "turns", "end_round"]
    acting: str | None = Field(description="Whose turn it is (order by Wits).")
    pending_attack: dict[str, Any] | None = Field(
        description="An attack announced, waiting for its defense and roll_attack."
    )
    order: list[str] = Field(description="Combatant ids by descending Wits, ties broken.")
    options: dict[str, Any] = Field(description="The encounter's options, defaults included.")
    combatants: list[WitsCombatant]
