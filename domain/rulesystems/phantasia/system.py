"""PHANTÄSIA behind the rule-system interface."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from pydantic import BaseModel

from domain import commands as c
from domain.rulesystems.base import Choice, Context, RuleSystem
from domain.rulesystems.phantasia import (
    actions,
    attacks,
    choices,
    contests,
    damage_rolls,
    fold,  # noqa: F401  (registers its handlers)
    fumbles,
    initiative,
    jumps,
    points,
    status_changes,
    statuses,
    turns,
    upkeep,
)
from domain.rulesystems.phantasia import commands as ph
from domain.rulesystems.phantasia import view as phantasia_views
from domain.rulesystems.phantasia.narrative import LINES
from domain.rulesystems.phantasia.record import end_status
from domain.rulesystems.phantasia.refusals import refused
from domain.rulesystems.phantasia.state import PhantasiaMarks
from domain.rulesystems.phantasia.statistics import PhantasiaStatistics
from domain.rulesystems.phantasia.stats import PhantasiaOptions, PhantasiaStats
from domain.rulesystems.phantasia.table import TABLE
from domain.rulesystems.phantasia.view import phantasia_view
from domain.rulesystems.phantasia.view_model import PhantasiaEncounter
from domain.state import CombatantState, EncounterState
from domain.visibility import HEALTH_WORDS, HealthState

# PHA-ACT-7..19: the action list, one action point each (PHA-ACT-1); ☻ offensive (PHA-ACT-2)
CATALOGUE = [
    {"command": "contest", "kind": "grab", "offensive": True, "rule": "PHA-ACT-7", "es": "Agarrar"},
    {
        "command": "contest",
        "kind": "snatch",
        "offensive": True,
        "rule": "PHA-ACT-8",
        "es": "Arrebatar",
    },
    {
        "command": "act",
        "kind": "switch_weapon",
        "offensive": False,
        "rule": "PHA-ACT-9",
        "es": "Cambiar Arma",
    },
    {
        "command": "attack_check",
        "kind": "weapon",
        "offensive": True,
        "rule": "PHA-ACT-10",
        "es": "Chequeo de Ataque (AT)",
    },
    {
        "command": "attack_check",
        "kind": "power",
        "offensive": True,
        "rule": "PHA-ACT-11",
        "es": "Chequeo de Ataque Mágico (AM)",
    },
    {
        "command": "check",
        "kind": "characteristic",
        "offensive": None,
        "rule": "PHA-ACT-12",
        "es": "Chequeo de Característica",
    },
    {
        "command": "act",
        "kind": "defense",
        "offensive": False,
        "rule": "PHA-ACT-13",
        "es": "Defensa",
    },
    {
        "command": "contest",
        "kind": "push",
        "offensive": True,
        "rule": "PHA-ACT-14",
        "es": "Empujar",
    },
    {
        "command": "act",
        "kind": "cast_power",
        "offensive": None,
        "rule": "PHA-ACT-15",
        "es": "Lanzar Poder",
    },
    {
        "command": "act",
        "kind": "move",
        "offensive": False,
        "rule": "PHA-ACT-16",
        "es": "Movimiento",
    },
    {
        "command": "act",
        "kind": "reload",
        "offensive": False,
        "rule": "PHA-ACT-17",
        "es": "Recargar",
    },
    {
        "command": "contest",
        "kind": "knock_down",
        "offensive": True,
        "rule": "PHA-ACT-18",
        "es": "Tumbar",
    },
    {
        "command": "act",
        "kind": "use_item",
        "offensive": None,
        "rule": "PHA-ACT-19",
        "es": "Usar Ítem",
    },
    {
        "command": "act",
        "kind": "stand_up",
        "offensive": False,
        "rule": "PHA-STS-19",
        "es": "Levantarse",
    },
    {
        "command": "act",
        "kind": "prepare",
        "offensive": False,
        "rule": "PHA-RX-2",
        "es": "Preparar una acción",
    },
    {
        "command": "contest",
        "kind": "escape",
        "offensive": False,
        "rule": "PHA-STS-1",
        "es": "Liberarse",
    },
]


class PhantasiaRules(RuleSystem):
    name = "phantasia"
    title = "PHANTÄSIA"
    table = TABLE  # how the web table presents it (its table.py)
    statistics = PhantasiaStatistics()  # criticals, fumbles, rolls to hit (its statistics.py)
    hits_word = "PV"
    languages = ("en", "es")
    health_figures = phantasia_views.HEALTH_FIGURES
    view_model = PhantasiaEncounter
    marks_model = PhantasiaMarks  # what it keeps of a combatant (its state.py)
    # a command it has a handler for only to refuse it, and why (the reference page says so)
    refused: ClassVar[dict[str, str]] = {
        "set_modifier": "PHA-STK-1: use `apply_status` or `modifiers`"
    }
    stats_model = PhantasiaStats
    options_model = PhantasiaOptions
    commands = (
        ph.RollInitiative,
        c.EndTurn,
        ph.DeclareSurprise,
        ph.StartTurn,
        ph.AttackCheck,
        ph.RollDamage,
        ph.RollFumble,
        ph.Check,
        ph.Contest,
        ph.Act,
        ph.ApplyStatus,
        ph.SetLoad,
        ph.Jump,
        ph.Fall,
        ph.Heal,
        ph.SpendPhantasiaPoint,
        ph.AwardPhantasiaPoint,
        ph.AdjustPm,
    )
    rolls = ph.ROLLS
    # the narrator's judgements and awards (PHA-SURP-1, PHA-STS-0, PHA-PP-1, PHA-PM-4,
    # PHA-WPN-7), and what happens to a character from outside
    gm_commands = frozenset(
        {"declare_surprise", "apply_status", "award_phantasia_point", "adjust_pm", "set_load"}
        | {"fall", "heal"}
    )
    # the narrator orders a tie, lets it act at once, groups his enemies (PHA-INIT-1, -3)
    gm_entered: ClassVar[dict[str, tuple[str, ...]]] = {
        "roll_initiative": ("tie_order", "group", "simultaneous")
    }
    conditions: ClassVar[frozenset[str]] = statuses.NAMES

    def hits_of(self, model: PhantasiaStats) -> tuple[dict[str, Any], int, int]:
        pv = model.pv if model.current_pv is None else model.current_pv
        return model.model_dump(by_alias=True), model.pv, pv

    def catalogue(self) -> list[dict[str, Any]]:
        return [{**entry, "action_points": 1} for entry in CATALOGUE]

    def describe(self) -> dict[str, Any]:
        return {
            **super().describe(),
            "health_states_es": {state: w["es"] for state, w in HEALTH_WORDS.items()},
            "statuses": {
                name: {k: v for k, v in spec.items() if k in ("es", "kind", "rule", "mods")}
                for name, spec in statuses.STATUSES.items()
            },
            "fumble_table": fumbles.FUMBLES,
        }

    def acting_for(self, state: EncounterState, command: Any) -> str | None:
        """roll_damage and roll_fumble act for the attacker whose hit or fumble waits;
        start_turn for him whose turn comes next."""
        named = super().acting_for(state, command)
        if named is not None:  # a command that names its combatant acts for him
            return named
        if isinstance(command, ph.RollDamage | ph.RollFumble):
            open_attack = attacks.pending_attack(state)
            return open_attack.combatant if open_attack else None
        if isinstance(command, ph.StartTurn):
            up = turns.next_up(state)
            return up.id if up else None
        return None

    def tell(self, event: Any, state: EncounterState, lang: str) -> str | None:
        """The book's log line (its narrative module), in a language it is read in."""
        return LINES.tell(event, state, lang) if lang in self.languages else None

    def health_state(self, state: EncounterState, who: CombatantState) -> HealthState:
        return phantasia_views.health_state(state, who)

    def view(self, state: EncounterState) -> dict[str, Any]:
        return phantasia_view(state)

    def choices(self, state: EncounterState) -> list[Choice]:
        return choices.choices(state)

    def overrides(self, state: EncounterState) -> list[dict[str, Any]]:
        return choices.overrides(state, super().overrides(state))

    def handlers(self) -> dict[type[BaseModel], Callable[[Context, Any], Any]]:
        return {
            **super().handlers(),
            ph.RollInitiative: self.on_roll_initiative,
            ph.DeclareSurprise: self.on_declare_surprise,
            ph.StartTurn: self.on_start_turn,
            c.EndTurn: self.on_end_turn,
            ph.AttackCheck: self.on_attack_check,
            ph.RollDamage: self.on_roll_damage,
            ph.RollFumble: self.on_roll_fumble,
            ph.Check: self.on_check,
            ph.Contest: self.on_contest,
            ph.Act: self.on_act,
            ph.ApplyStatus: self.on_apply_status,
            ph.SetLoad: self.on_set_load,
            ph.Jump: self.on_jump,
            ph.Fall: self.on_fall,
            ph.Heal: self.on_heal,
            ph.SpendPhantasiaPoint: self.on_spend_phantasia_point,
            ph.AwardPhantasiaPoint: self.on_award_phantasia_point,
            ph.AdjustPm: self.on_adjust_pm,
        }

    def on_roll_initiative(self, ctx: Context, cmd: ph.RollInitiative) -> None:
        initiative.place(ctx, cmd)

    def on_declare_surprise(self, ctx: Context, cmd: ph.DeclareSurprise) -> None:
        initiative.declare_surprise(ctx, cmd)

    def on_start_turn(self, ctx: Context, cmd: ph.StartTurn) -> None:
        upkeep.start_turn(ctx, cmd)

    def on_end_turn(self, ctx: Context, cmd: c.EndTurn) -> None:
        upkeep.end_turn(ctx, cmd)

    def on_attack_check(self, ctx: Context, cmd: ph.AttackCheck) -> None:
        attacks.attack_check(ctx, cmd)

    def on_roll_damage(self, ctx: Context, cmd: ph.RollDamage) -> None:
        damage_rolls.roll_damage(ctx, cmd)

    def on_roll_fumble(self, ctx: Context, cmd: ph.RollFumble) -> None:
        fumbles.roll_fumble(ctx, cmd)

    def on_check(self, ctx: Context, cmd: ph.Check) -> None:
        contests.check(ctx, cmd)

    def on_contest(self, ctx: Context, cmd: ph.Contest) -> None:
        contests.contest(ctx, cmd)

    def on_act(self, ctx: Context, cmd: ph.Act) -> None:
        actions.act(ctx, cmd)

    def on_apply_status(self, ctx: Context, cmd: ph.ApplyStatus) -> None:
        status_changes.apply_status(ctx, cmd)

    def on_set_load(self, ctx: Context, cmd: ph.SetLoad) -> None:
        status_changes.set_load(ctx, cmd)

    def on_jump(self, ctx: Context, cmd: ph.Jump) -> None:
        jumps.jump(ctx, cmd)

    def on_fall(self, ctx: Context, cmd: ph.Fall) -> None:
        jumps.fall(ctx, cmd)

    def on_heal(self, ctx: Context, cmd: ph.Heal) -> None:
        points.heal(ctx, cmd)

    def on_spend_phantasia_point(self, ctx: Context, cmd: ph.SpendPhantasiaPoint) -> None:
        points.spend_phantasia_point(ctx, cmd)

    def on_award_phantasia_point(self, ctx: Context, cmd: ph.AwardPhantasiaPoint) -> None:
        points.award_phantasia_point(ctx, cmd)

    def on_adjust_pm(self, ctx: Context, cmd: ph.AdjustPm) -> None:
        points.adjust_pm(ctx, cmd)

    # -- the GM's overrides, as statuses ------------------------------------------------
    def on_set_condition(self, ctx: Context, cmd: c.SetCondition) -> None:
        """A status set by the GM (the same as apply_status with no check)."""
        status_changes.apply_status(
            ctx,
            ph.ApplyStatus(
                combatant=cmd.combatant, status=cmd.condition, turns=cmd.count, reason=cmd.reason
            ),
        )

    def on_clear_condition(self, ctx: Context, cmd: c.ClearCondition) -> None:
        who = ctx.state.combatant(cmd.combatant)
        if not who.has(cmd.condition):
            raise refused(
                "PHA-STS-0.no-such-status", field="condition", who=who.name, status=cmd.condition
            )
        end_status(ctx, combatant=who.id, status=cmd.condition, reason=cmd.reason)

    def on_set_modifier(self, ctx: Context, cmd: c.SetModifier) -> None:
        """PHANTÄSIA's lasting modifiers are statuses, which stack by its rules (PHA-STK):
        a magic's or an item's bonus is apply_status 'magic'; a one-off is a command's
        situational `modifiers`."""
        raise refused("PHA-STK-1.use-apply-status", field="type")

    def on_adjust_hits(self, ctx: Context, cmd: c.AdjustHits) -> int:
        """A GM change to PV; healing wakes him at 1 PV or more (PHA-DTH-5)."""
        at = super().on_adjust_hits(ctx, cmd)
        from domain.rulesystems.phantasia import damage

        damage.wake_if_healed(ctx, cmd.combatant, at)
        return at
