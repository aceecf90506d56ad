"""What a Novus table sees: the encounter view's shape (NovusRules.view).
The API answers with it (RuleSystem.view_model)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field

from domain.view_model import CombatantSeen, EncounterHeader


class NovusCombatant(CombatantSeen):
    id: str
    name: str
    side: str
    hits: int | None = Field(
        description="Null where the GM shows his health to you as words or not at all."
    )
    max_hits: int | None = Field(
        description="Null where the GM shows his health to you as words or not at all."
    )
    ip: int | None
    effective_ip: int | None
    bleeding: int = Field(description="Hits lost at each End Round from open wounds.")
    wounds: list[dict[str, Any]]
    daze_count: int
    stun_count: int
    conditions: dict[str, int | None]
    modifiers: list[dict[str, Any]]
    ap_budget: int
    ap_spent: int
    action_points_left: int
    ap_carried: int
    fate_points: int
    def_: int = Field(alias="def", serialization_alias="def")
    helpless: bool
    dying: bool
    dead: bool
    down: bool
    declared: bool
    hold_ip: int | None = Field(description="The IP he holds his actions to, this round.")
    control_zone_ft: int = Field(description="Reach of his Control Zone (NOV-CZ-3).")
    limbs: dict[str, dict[str, Any]] = Field(
        description="Limbs hit by Called Shots: penalty, damage, useless (NOV-CALL-3, -4)."
    )

    model_config = ConfigDict(populate_by_name=True)


class NovusEncounter(EncounterHeader):
    ruleset: Literal["novus"]
    step: Literal["setup", "initiative", "declaration", "boons", "snags", "resolution", "end_round"]
    next_to_declare: str | None
    next_to_resolve: str | None
    acting: str | None = Field(
        description="Whose move it is: who spends the points waiting, the next to declare, "
        "or the owner of the next action to resolve."
    )
    pending_boons: dict[str, Any] | None = Field(description="A hit waiting for spend_boons.")
    pending_snags: dict[str, Any] | None = Field(description="A miss waiting for spend_snags.")
    order: list[str] = Field(description="Combatant ids in resolution order (highest IP first).")
    combatants: list[NovusCombatant]
    actions: list[dict[str, Any]] = Field(description="Actions left to resolve, in order.")
