"""The encounter view's shape that every rule book shares: the header of an encounter and
what players see of a combatant (docs/visibility.md). Each book's view model
(`domain/rulesystems/<book>/view_model.py`, named by `RuleSystem.view_model`) derives from
these; the API answers with it."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class CombatantSeen(BaseModel):
    """What every book's combatant view says of what players see (docs/visibility.md)."""

    hidden: bool = Field(
        default=False,
        description="Kept from the players (only the GM's view lists him, docs/visibility.md).",
    )
    health_state: Literal["unhurt", "hurt", "badly_hurt", "down"] | None = Field(
        description="His health in words (GET /rulesets/{name} gives the book's words); null "
        "where the GM shows you nothing of it."
    )
    health_shown: Literal["exact", "described", "none"] | None = Field(
        default=None,
        description="The GM's view: how players see his health when set for him alone (null: "
        "as the encounter's `health_shown` says). Absent from a player's view.",
    )
    notes: list[str] | None = Field(
        default=None, description="The GM's notes on him (take_note); never in a player's view."
    )


class EncounterHeader(BaseModel):
    id: str
    name: str
    dice_source: str
    created_at: str
    version: int = Field(description="Position of the last event folded.")
    ended: bool = Field(description="Ended: only corrections are accepted.")
    dice_commitment: str | None = Field(
        description="SHA-256 of the server dice secret in use (docs/record.md)."
    )
    forked_from: dict[str, Any] | None = Field(description="{encounter, at, name} of a fork.")
    round: int
    elapsed_seconds: int = Field(description="Game time before the current round.")
    health_shown: dict[str, Literal["exact", "described", "none"]] | None = Field(
        default=None,
        description="The GM's view: how players see health, `gm_combatants` (those no player "
        "acts for) and `party` (each other's characters), docs/visibility.md.",
    )
    notes: list[str] | None = Field(
        default=None, description="The GM's notes on the fight; never in a player's view."
    )
