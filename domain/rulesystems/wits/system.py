"""The Wits system behind the rule-system interface."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from pydantic import BaseModel

from domain import commands as c
from domain.errors import RuleViolation
from domain.rulesystems.base import Choice, Context, RuleSystem
from domain.rulesystems.wits import (
    actions,
    attacks,
    defenses,
    fold,  # noqa: F401  (registers its handlers)
    turns,
)
from domain.rulesystems.wits import commands as wc
from domain.rulesystems.wits import view as wits_views
from domain.rulesystems.wits.choices import choices
from domain.rulesystems.wits.narrative import LINES
from domain.rulesystems.wits.state import WitsMarks, WitsRoundMarks
from domain.rulesystems.wits.statistics import WitsStatistics
from domain.rulesystems.wits.stats import WitsOptions, WitsStats
from domain.rulesystems.wits.table import TABLE
from domain.rulesystems.wits.view import wits_view
from domain.rulesystems.wits.view_model import WitsEncounter
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
    table = TABLE  # how the web table presents it (its table.py)
    statistics = WitsStatistics()  # criticals, fumbles, rolls to hit (its statistics.py)
    hits_word = "Current Health"
    health_figures = wits_views.HEALTH_FIGURES
    view_model = WitsEncounter
    stats_model = WitsStats
    options_model = WitsOptions
    marks_model = WitsMarks
    round_marks_model = WitsRoundMarks
    commands = (
        wc.RollInitiative,
        wc.Attack,
        wc.Defend,
        wc.RollAttack,
        wc.Aim,
        wc.Move,
        wc.TakeAction,
        c.Hold,
        c.EndTurn,
        wc.KnockBack,
    )
    rolls = wc.ROLLS
    gm_commands = frozenset({"knock_back"})  # the GM rules a knock-back (WIT-CHG-4)
    # the GM orders a tie (WIT-ORD-2); more than one action is his call (WIT-ACT-3)
    gm_entered: ClassVar[dict[str, tuple[str, ...]]] = {
        "roll_initiative": ("tie_order",),
        "take_action": ("actions",),
    }
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
        if isinstance(command, wc.RollAttack):
            pending = turns.pending_attack(state)
            return pending.combatant if pending else None
        return None

    def tell(self, event: Any, state: EncounterState, lang: str) -> str | None:
        """The book's log line (its narrative module), in a language it is read in."""
        return LINES.tell(event, state, lang) if lang in self.languages else None

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

    def handlers(self) -> dict[type[BaseModel], Callable[[Context, Any], Any]]:
        return {
            **super().handlers(),
            wc.RollInitiative: self.on_roll_initiative,
            wc.Attack: self.on_attack,
            wc.Defend: self.on_defend,
            wc.RollAttack: self.on_roll_attack,
            wc.Aim: self.on_aim,
            wc.Move: self.on_move,
            wc.TakeAction: self.on_take_action,
            c.Hold: self.on_hold,
            c.EndTurn: self.on_end_turn,
            wc.KnockBack: self.on_knock_back,
            c.EndRound: self.on_end_round,
        }

    def answering_for(self, command: BaseModel) -> str | None:
        """An attack announced with the target's defense: the target declares his own."""
        if isinstance(command, wc.Attack) and command.defense is not None:
            return command.target
        return None

    def on_roll_initiative(self, ctx: Context, cmd: wc.RollInitiative) -> None:
        turns.place(ctx, cmd)

    def on_attack(self, ctx: Context, cmd: wc.Attack) -> None:
        attacks.announce(ctx, cmd)

    def on_defend(self, ctx: Context, cmd: wc.Defend) -> None:
        defenses.defend(ctx, cmd)

    def on_roll_attack(self, ctx: Context, cmd: wc.RollAttack) -> None:
        attacks.roll_attack(ctx, cmd.degree, cmd.hit)

    def on_aim(self, ctx: Context, cmd: wc.Aim) -> None:
        actions.aim(ctx, cmd)

    def on_move(self, ctx: Context, cmd: wc.Move) -> None:
        actions.move(ctx, cmd)

    def on_take_action(self, ctx: Context, cmd: wc.TakeAction) -> None:
        actions.take_action(ctx, cmd)

    def on_hold(self, ctx: Context, cmd: c.Hold) -> None:
        actions.hold(ctx, cmd)

    def on_end_turn(self, ctx: Context, cmd: c.EndTurn) -> None:
        actions.end_turn(ctx, cmd)

    def on_knock_back(self, ctx: Context, cmd: wc.KnockBack) -> None:
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
