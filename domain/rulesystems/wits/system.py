"""The Wits system behind the rule-system interface."""

from __future__ import annotations

from typing import Any, ClassVar

from domain import commands as c
from domain.errors import RuleViolation
from domain.rulesystems.base import Choice, Context, RuleSystem
from domain.rulesystems.wits import actions, attacks, turns
from domain.rulesystems.wits import view as wits_views
from domain.rulesystems.wits.choices import choices
from domain.rulesystems.wits.stats import WitsOptions, WitsStats
from domain.rulesystems.wits.view import wits_view
from domain.state import CombatantState, EncounterState
from domain.visibility import HealthState

# Default WIT-ACT-3: what each action uses of the round's two (WIT-ACT-1)
CATALOGUE = [
    {
        "command": "attack",
        "actions": 1,
        "rule": "WIT-ACT-3, WIT-ATK-1",
        "label": "Attack: melee, unarmed, ranged, called shot; a Charge that closes uses 2",
    },
    {"command": "aim", "actions": 1, "rule": "WIT-AIM-1", "label": "Aim: +1, up to +5"},
    {"command": "move", "actions": 1, "rule": "WIT-MOV-1", "label": "Move up to half Move"},
    {"command": "move", "actions": 2, "rule": "WIT-MOV-2", "label": "Move up to Move"},
    {"command": "defend", "actions": 1, "rule": "WIT-DEF-2", "label": "Basic Defense"},
    {"command": "defend", "actions": 2, "rule": "WIT-DEF-3, -4", "label": "Total Defense"},
    {
        "command": "take_action",
        "actions": 1,
        "rule": "WIT-ACT-2",
        "label": "Spell, skill use, other (2 if the GM enters it)",
    },
    {"command": "hold", "actions": 0, "rule": "WIT-ORD-3", "label": "Hold: act later"},
    {
        "command": "end_turn",
        "actions": 0,
        "rule": "WIT-ORD-5",
        "label": "End the turn, keeping actions for defenses",
    },
]


class WitsRules(RuleSystem):
    name = "wits"
    title = "Wits"
    hits_word = "Current Health"
    health_figures = wits_views.HEALTH_FIGURES
    stats_model = WitsStats
    options_model = WitsOptions
    conditions: ClassVar[frozenset[str]] = frozenset(
        {"stunned", "knocked_back", "prone", "unconscious", "dead", "fighting_on"}
    )

    def hits_of(self, model: WitsStats) -> tuple[dict[str, Any], int, int]:
        health = model.health if model.current_health is None else model.current_health
        return model.model_dump(), model.health, health

    def catalogue(self) -> list[dict[str, Any]]:
        return [dict(entry) for entry in CATALOGUE]

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "called_shots": dict(attacks.CALLED_SHOT)}

    def acting_for(self, state: EncounterState, command: Any) -> str | None:
        """roll_attack acts for the attacker of the attack waiting to be rolled."""
        named = super().acting_for(state, command)
        if named is not None:  # a command that names its combatant acts for him
            return named
        if isinstance(command, c.RollAttack):
            pending = turns.pending_attack(state)
            return pending.combatant if pending else None
        return None

    def health_state(self, state: EncounterState, who: CombatantState) -> HealthState:
        return wits_views.health_state(state, who)

    def view(self, state: EncounterState) -> dict[str, Any]:
        return wits_view(state)

    def choices(self, state: EncounterState) -> list[Choice]:
        return choices(state)

    def overrides(self, state: EncounterState) -> list[dict[str, Any]]:
        """The base forms; a Wits modifier applies to attack tests, defenses, every test or
        damage, never to an IP (WIT-ORD-1: the order is by Wits)."""
        forms = super().overrides(state)
        for form in forms:
            if form["type"] == "set_modifier":
                form["fields"]["applies_to"] = {
                    "enum": ["ab", "def", "act", "damage"],
                    "description": "ab: attack tests; def: defenses; act: every test; "
                    "damage: damage rolled",
                }
        return forms

    def on_roll_initiative(self, ctx: Context, cmd: c.RollInitiative) -> None:
        turns.place(ctx, cmd)

    def on_attack(self, ctx: Context, cmd: c.Attack) -> None:
        attacks.announce(ctx, cmd)

    def on_defend(self, ctx: Context, cmd: c.Defend) -> None:
        attacks.defend(ctx, cmd)

    def on_roll_attack(self, ctx: Context, cmd: c.RollAttack) -> None:
        attacks.roll_attack(ctx, cmd.degree, cmd.hit)

    def on_aim(self, ctx: Context, cmd: c.Aim) -> None:
        actions.aim(ctx, cmd)

    def on_move(self, ctx: Context, cmd: c.Move) -> None:
        actions.move(ctx, cmd)

    def on_take_action(self, ctx: Context, cmd: c.TakeAction) -> None:
        actions.take_action(ctx, cmd)

    def on_hold(self, ctx: Context, cmd: c.Hold) -> None:
        actions.hold(ctx, cmd)

    def on_end_turn(self, ctx: Context, cmd: c.EndTurn) -> None:
        actions.end_turn(ctx, cmd)

    def on_knock_back(self, ctx: Context, cmd: c.KnockBack) -> None:
        actions.knock_back(ctx, cmd)

    def on_end_round(self, ctx: Context, cmd: c.EndRound) -> None:
        turns.end_round(ctx, cmd)

    def on_set_condition(self, ctx: Context, cmd: c.SetCondition) -> None:
        """WIT-AIM-5 (Default WIT-AMB-10): Stunned or Knocked back (GM-entered) loses the
        aiming bonus."""
        super().on_set_condition(ctx, cmd)
        if cmd.condition in ("stunned", "knocked_back"):
            who = ctx.state.combatants[cmd.combatant]
            turns.lose_aim(
                ctx, who, f"he was {cmd.condition.replace('_', ' ')} (WIT-AIM-5)", ctx.state.version
            )

    def on_set_modifier(self, ctx: Context, cmd: c.SetModifier) -> None:
        """Wits reads `ab` (attack tests), `def` (defenses), `act` (every test) and `damage`."""
        if cmd.applies_to == "ip":
            raise RuleViolation(
                "WIT-ORD-1", "the Wits order has no IP to modify", field="applies_to"
            )
        super().on_set_modifier(ctx, cmd)
