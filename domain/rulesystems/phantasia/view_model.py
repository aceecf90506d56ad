"""What a PHANTÄSIA table sees: the encounter view's shape (PhantasiaRules.view).
The API answers with it (RuleSystem.view_model)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from domain.view_model import CombatantSeen, EncounterHeader


class PhantasiaCombatant(CombatantSeen):
    id: str
    name: str
    side: str
    controller: Literal["player", "narrator"] = Field(
        description="A player character rolls every to-hit check (PHA-CORE-1)."
    )
    level: int
    pv: int | None = Field(
        description="PV, signed: below 0 is negative damage (PHA-DTH-1); null where the GM "
        "shows it to you as words or not at all."
    )
    max_pv: int | None = Field(
        description="Null where the GM shows his health to you as words or not at all."
    )
    negative_damage: int | None = Field(
        description="Null where the GM shows his health to you as words or not at all."
    )
    pm: int
    max_pm: int = Field(description="VIT + floor(level / 5) (PHA-PM-1).")
    phantasia_points: int
    max_phantasia_points: int = Field(description="1, 2 or 3 by level (PHA-PP-3).")
    scores: dict[str, int]
    adjustments: dict[str, int] = Field(description="By the publisher's table (PHA-CHAR-2).")
    df: int
    dm: int
    at: dict[str, int] = Field(description="AT figure per weapon, before the target's DF.")
    am: int
    movement: int = Field(description="MO: metres per Move action (PHA-CHAR-9).")
    initiative: int | None
    turn: int = Field(description="His own turns so far (durations count them, PHA-STS-0).")
    in_turn: bool
    actions_left: int = Field(description="Action points left this turn (PHA-ACT-1, -6).")
    offensive_actions: int = Field(description="Offensive actions this turn (PHA-ACT-3).")
    reaction_used: bool
    simultaneous_with: list[str] = Field(
        description="Tied combatants he acts at the same time with (PHA-INIT-3)."
    )
    prepared: str | bool | None
    statuses: dict[str, dict[str, Any]] = Field(
        description="Status → turns left (null: until its check or the GM), Spanish name, kind."
    )
    dropped: str | None
    free_attack_on: str | None
    sustaining: str | None
    extra_uses: dict[str, int]
    unconscious: bool
    dead: bool
    down: bool = Field(description="Unconscious or dead.")


class PhantasiaEncounter(EncounterHeader):
    ruleset: Literal["phantasia"]
    elapsed_seconds: None = Field(  # type: ignore[assignment]
        description="Always null: PHANTÄSIA counts turns, a round has no length in seconds."
    )
    step: Literal["setup", "surprise", "initiative", "attack", "turn", "between_turns"]
    acting: str | None = Field(description="Whose turn is under way.")
    next: str | None = Field(description="Whose turn start_turn starts next.")
    pending_attack: dict[str, Any] | None = Field(
        description="An attack that hit (roll_damage) or fumbled (roll_fumble)."
    )
    order: list[str] = Field(description="Combatant ids, highest initiative first.")
    options: dict[str, Any] = Field(description="The encounter's options, defaults included.")
    combatants: list[PhantasiaCombatant]
