"""Novus behind the rule-system interface: each command goes to the module of its step."""

from __future__ import annotations

from typing import Any, ClassVar

from domain import commands as c
from domain import events as ev
from domain.errors import RuleViolation
from domain.rulesystems.base import Choice, Context, RuleSystem
from domain.rulesystems.novus import actions as act
from domain.rulesystems.novus import (
    attacks,
    boons,
    cancel,
    declare,
    initiative,
    resolve,
    rounds,
    saves,
    snags,
)
from domain.rulesystems.novus import choices as novus_choices
from domain.rulesystems.novus import view as novus_views
from domain.rulesystems.novus.stats import NovusStats
from domain.rulesystems.novus.view import novus_view
from domain.state import CombatantState, EncounterState
from domain.visibility import HealthState

STATS = ("str", "dex", "spd", "con", "wil", "wis")


class NovusRules(RuleSystem):
    name = "novus"
    title = "Novus"
    health_figures = novus_views.HEALTH_FIGURES
    stats_model = NovusStats
    conditions: ClassVar[frozenset[str]] = frozenset(
        {
            "bleeding",
            "dazed",
            "stunned",
            "prone",
            "hasted",
            "unaware",
            "stabilised",
            "disarmed",
            rounds.REROLL,
        }
    )

    def hits_of(self, model: NovusStats) -> tuple[dict[str, Any], int, int]:
        assert model.hits is not None  # NovusStats fills it in from the values otherwise
        hits = model.hits if model.current_hits is None else model.current_hits
        return model.model_dump(by_alias=True), model.hits, hits

    def catalogue(self) -> list[dict[str, Any]]:
        return [
            {
                "needs_target": k.needs_target,
                "weapon_kinds": list(act.ATTACK_WEAPONS.get(k.kind, ())),
                "ap_by_weapon_size": act.MELEE_AP if k.kind == "melee_attack" else None,
                "kind": k.kind,
                "label": k.label,
                "ap": k.ap,
                "ap_range": k.ap_range,
                "rule": k.rule,
                "attack": k.attack,
                "spell": k.spell,
                "rolls": list(k.rolls),
            }
            for k in act.CATALOGUE.values()
        ]

    def describe(self) -> dict[str, Any]:
        return {
            **super().describe(),
            "combat_moves": {name: dict(m) for name, m in act.MOVES.items()},
            "boons": [vars(b) for b in boons.TABLE.values()],
            "snags": [vars(s) for s in snags.TABLE.values()],
        }

    def acting_for(self, state: EncounterState, command: Any) -> str | None:
        """Resolve acts for the owner of the action next to resolve; spend_boons and
        spend_snags for the attacker whose points wait."""
        named = super().acting_for(state, command)
        if named is not None:  # a command that names its combatant acts for him
            return named
        if isinstance(command, c.Resolve):
            pending = [a for a in rounds.queue(state) if rounds.is_blocked(state, a) is None]
            return pending[0].combatant if pending else None
        if isinstance(command, c.SpendBoons):
            return state.pending_boons.combatant if state.pending_boons else None
        if isinstance(command, c.SpendSnags):
            return state.pending_snags.combatant if state.pending_snags else None
        return None

    def health_state(self, state: EncounterState, who: CombatantState) -> HealthState:
        return novus_views.health_state(state, who)

    def view(self, state: EncounterState) -> dict[str, Any]:
        return novus_view(state)

    def choices(self, state: EncounterState) -> list[Choice]:
        return novus_choices.choices(state)

    def overrides(self, state: EncounterState) -> list[dict[str, Any]]:
        return novus_choices.overrides(state, super().overrides(state))

    # The four steps of a round (NOV-SEQ-1) and what may happen within them.
    def on_roll_initiative(self, ctx: Context, cmd: c.RollInitiative) -> None:
        initiative.roll_initiative(ctx, cmd)

    def on_declare(self, ctx: Context, cmd: c.Declare) -> None:
        declare.declare(ctx, cmd)

    def on_hold(self, ctx: Context, cmd: c.Hold) -> None:
        declare.hold(ctx, cmd)

    def on_cancel(self, ctx: Context, cmd: c.Cancel) -> None:
        cancel.cancel(ctx, cmd)

    def on_opportunity_attack(self, ctx: Context, cmd: c.OpportunityAttack) -> None:
        cancel.opportunity_attack(ctx, cmd)

    def on_spend_fate_point(self, ctx: Context, cmd: c.SpendFatePoint) -> None:
        """NOV-FATE-2: the spend is logged with the GM's effect; the count goes down."""
        who = ctx.state.combatant(cmd.combatant)
        if who.fate_points < 1:
            raise RuleViolation("NOV-FATE-2", f"{who.name} has no Fate Point", field="combatant")
        ctx.emit(ev.FatePointSpent, combatant=who.id, effect=cmd.effect)

    def on_resolve(self, ctx: Context, cmd: c.Resolve) -> None:
        resolve.resolve(ctx, cmd)

    def on_spend_boons(self, ctx: Context, cmd: c.SpendBoons) -> None:
        if ctx.state.pending_boons is None:
            raise RuleViolation("NOV-BOON-1", "no hit is waiting for its Boon Points")
        attacks.spend_boons(ctx, ctx.state.pending_boons, cmd.boons)

    def on_spend_snags(self, ctx: Context, cmd: c.SpendSnags) -> None:
        if ctx.state.pending_snags is None:
            raise RuleViolation("NOV-SNAG-1", "no roll is waiting for its Snag Points")
        attacks.spend_snags(ctx, ctx.state.pending_snags, cmd.snags)

    def on_adjust_hits(self, ctx: Context, cmd: c.AdjustHits) -> None:
        pos = super().on_adjust_hits(ctx, cmd)
        who = ctx.state.combatants[cmd.combatant]
        if who.hits > 0 and who.has("stabilised"):  # NOV-HITS-4: stable only while down
            ctx.clear_condition(who.id, "stabilised", "hits above 0 again", cause=pos)

    def on_end_round(self, ctx: Context, cmd: c.EndRound) -> None:
        rounds.end_round(ctx, cmd)

    def on_save(self, ctx: Context, cmd: c.Save) -> None:
        who = ctx.state.combatant(cmd.combatant)
        if cmd.stat not in STATS:
            raise RuleViolation(
                "NOV-SAVE-1", f"unknown stat {cmd.stat!r}; one of {', '.join(STATS)}", field="stat"
            )
        saves.roll_save(ctx, who.id, cmd.stat, cmd.tn, cmd.purpose, modifiers=cmd.modifiers)
