"""PHANTÄSIA behind the rule-system interface."""

from __future__ import annotations

from typing import Any, ClassVar

from domain import commands as c
from domain.rulesystems.base import Choice, Context, RuleSystem
from domain.rulesystems.phantasia import actions, attacks, choices, statuses, turns, upkeep
from domain.rulesystems.phantasia import view as phantasia_views
from domain.rulesystems.phantasia.record import end_status
from domain.rulesystems.phantasia.stats import PhantasiaOptions, PhantasiaStats
from domain.rulesystems.phantasia.view import phantasia_view
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
    hits_word = "PV"
    languages = ("en", "es")
    health_figures = phantasia_views.HEALTH_FIGURES
    stats_model = PhantasiaStats
    options_model = PhantasiaOptions
    shared_initiative = True  # a group's one roll, simultaneous turns (PHA-INIT-1, -3)
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
            "fumble_table": attacks.FUMBLES,
        }

    def acting_for(self, state: EncounterState, command: Any) -> str | None:
        """roll_damage and roll_fumble act for the attacker whose hit or fumble waits;
        start_turn for him whose turn comes next."""
        named = super().acting_for(state, command)
        if named is not None:  # a command that names its combatant acts for him
            return named
        if isinstance(command, c.RollDamage | c.RollFumble):
            open_attack = attacks.pending_attack(state)
            return open_attack.combatant if open_attack else None
        if isinstance(command, c.StartTurn):
            up = turns.next_up(state)
            return up.id if up else None
        return None

    def health_state(self, state: EncounterState, who: CombatantState) -> HealthState:
        return phantasia_views.health_state(state, who)

    def view(self, state: EncounterState) -> dict[str, Any]:
        return phantasia_view(state)

    def choices(self, state: EncounterState) -> list[Choice]:
        return choices.choices(state)

    def overrides(self, state: EncounterState) -> list[dict[str, Any]]:
        return choices.overrides(state, super().overrides(state))

    def on_roll_initiative(self, ctx: Context, cmd: c.RollInitiative) -> None:
        turns.place(ctx, cmd)

    def on_declare_surprise(self, ctx: Context, cmd: c.DeclareSurprise) -> None:
        turns.declare_surprise(ctx, cmd)

    def on_start_turn(self, ctx: Context, cmd: c.StartTurn) -> None:
        upkeep.start_turn(ctx, cmd)

    def on_end_turn(self, ctx: Context, cmd: c.EndTurn) -> None:
        upkeep.end_turn(ctx, cmd)

    def on_attack_check(self, ctx: Context, cmd: c.AttackCheck) -> None:
        attacks.attack_check(ctx, cmd)

    def on_roll_damage(self, ctx: Context, cmd: c.RollDamage) -> None:
        attacks.roll_damage(ctx, cmd)

    def on_roll_fumble(self, ctx: Context, cmd: c.RollFumble) -> None:
        attacks.roll_fumble(ctx, cmd)

    def on_check(self, ctx: Context, cmd: c.Check) -> None:
        actions.check(ctx, cmd)

    def on_contest(self, ctx: Context, cmd: c.Contest) -> None:
        actions.contest(ctx, cmd)

    def on_act(self, ctx: Context, cmd: c.Act) -> None:
        actions.act(ctx, cmd)

    def on_apply_status(self, ctx: Context, cmd: c.ApplyStatus) -> None:
        actions.apply_status(ctx, cmd)

    def on_set_load(self, ctx: Context, cmd: c.SetLoad) -> None:
        actions.set_load(ctx, cmd)

    def on_jump(self, ctx: Context, cmd: c.Jump) -> None:
        actions.jump(ctx, cmd)

    def on_fall(self, ctx: Context, cmd: c.Fall) -> None:
        actions.fall(ctx, cmd)

    def on_heal(self, ctx: Context, cmd: c.Heal) -> None:
        actions.heal(ctx, cmd)

    def on_spend_phantasia_point(self, ctx: Context, cmd: c.SpendPhantasiaPoint) -> None:
        actions.spend_phantasia_point(ctx, cmd)

    def on_award_phantasia_point(self, ctx: Context, cmd: c.AwardPhantasiaPoint) -> None:
        actions.award_phantasia_point(ctx, cmd)

    def on_adjust_pm(self, ctx: Context, cmd: c.AdjustPm) -> None:
        actions.adjust_pm(ctx, cmd)

    # -- the GM's overrides, as statuses ------------------------------------------------
    def on_set_condition(self, ctx: Context, cmd: c.SetCondition) -> None:
        """A status set by the GM (the same as apply_status with no check)."""
        actions.apply_status(
            ctx,
            c.ApplyStatus(
                combatant=cmd.combatant, status=cmd.condition, turns=cmd.count, reason=cmd.reason
            ),
        )

    def on_clear_condition(self, ctx: Context, cmd: c.ClearCondition) -> None:
        who = ctx.state.combatant(cmd.combatant)
        if not who.has(cmd.condition):
            raise turns.refuse(
                "PHA-STS-0",
                f"{who.name} has no status {cmd.condition!r}",
                f"{who.name} no tiene el status {cmd.condition!r}",
                "condition",
            )
        end_status(ctx, combatant=who.id, status=cmd.condition, reason=cmd.reason)

    def on_set_modifier(self, ctx: Context, cmd: c.SetModifier) -> None:
        """PHANTÄSIA's lasting modifiers are statuses, which stack by its rules (PHA-STK):
        a magic's or an item's bonus is apply_status 'magic'; a one-off is a command's
        situational `modifiers`."""
        raise turns.refuse(
            "PHA-STK-1",
            "use apply_status (status 'magic' with modifiers, item true for equipment) so "
            "the stacking rules apply, or a command's situational modifiers",
            "usa apply_status (status 'magic' con modificadores, item para el equipo) para "
            "que se apliquen las reglas de acumulación, o los modificadores de la orden",
            "type",
        )

    def on_adjust_hits(self, ctx: Context, cmd: c.AdjustHits) -> int:
        """A GM change to PV; healing wakes him at 1 PV or more (PHA-DTH-5)."""
        at = super().on_adjust_hits(ctx, cmd)
        from domain.rulesystems.phantasia import damage

        damage.wake_if_healed(ctx, cmd.combatant, at)
        return at
