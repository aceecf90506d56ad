"""Novus behind the rule-system interface: each command goes to the module of its step."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from pydantic import BaseModel

from domain import commands as c
from domain.errors import RuleViolation
from domain.rulesystems.base import Choice, Context, RuleSystem
from domain.rulesystems.novus import actions as act
from domain.rulesystems.novus import (
    attacks,
    boons,
    cancel,
    declare,
    fold,  # noqa: F401  (registers its handlers)
    hits,
    initiative,
    resolve,
    rounds,
    saves,
    snags,
)
from domain.rulesystems.novus import choices as novus_choices
from domain.rulesystems.novus import commands as nc
from domain.rulesystems.novus import events as ne
from domain.rulesystems.novus import view as novus_views
from domain.rulesystems.novus.narrative import LINES
from domain.rulesystems.novus.state import (
    NovusEncounterMarks,
    NovusMarks,
    NovusRoundMarks,
    encounter_marks_of,
    marks_of,
)
from domain.rulesystems.novus.statistics import NovusStatistics
from domain.rulesystems.novus.stats import NovusStats
from domain.rulesystems.novus.table import TABLE
from domain.rulesystems.novus.view import novus_view
from domain.rulesystems.novus.view_model import NovusEncounter
from domain.state import CombatantState, EncounterState
from domain.visibility import HealthState

STATS = ("str", "dex", "spd", "con", "wil", "wis")


class NovusRules(RuleSystem):
    name = "novus"
    title = "Novus"
    table = TABLE  # how the web table presents it (its table.py)
    statistics = NovusStatistics()  # criticals, fumbles, rolls to hit (its statistics.py)
    health_figures = novus_views.HEALTH_FIGURES
    view_model = NovusEncounter
    marks_model = NovusMarks
    round_marks_model = NovusRoundMarks
    encounter_marks_model = NovusEncounterMarks
    stats_model = NovusStats
    commands = (
        nc.Declare,
        c.Hold,
        nc.Cancel,
        nc.OpportunityAttack,
        nc.SpendFatePoint,
        nc.Resolve,
        nc.SpendBoons,
        nc.SpendSnags,
        nc.Save,
    )
    rolls = nc.ROLLS
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
        if isinstance(command, nc.Resolve):
            pending = [a for a in rounds.queue(state) if rounds.is_blocked(state, a) is None]
            return pending[0].combatant if pending else None
        if isinstance(command, nc.SpendBoons):
            pending = encounter_marks_of(state).pending_boons
            return pending.combatant if pending else None
        if isinstance(command, nc.SpendSnags):
            pending = encounter_marks_of(state).pending_snags
            return pending.combatant if pending else None
        return None

    def tell(self, event: Any, state: EncounterState, lang: str) -> str | None:
        """The book's log line (its narrative module), in a language it is read in."""
        return LINES.tell(event, state, lang) if lang in self.languages else None

    def health_state(self, state: EncounterState, who: CombatantState) -> HealthState:
        return novus_views.health_state(state, who)

    def view(self, state: EncounterState) -> dict[str, Any]:
        return novus_view(state)

    def choices(self, state: EncounterState) -> list[Choice]:
        return novus_choices.choices(state)

    def overrides(self, state: EncounterState) -> list[dict[str, Any]]:
        return novus_choices.overrides(state, super().overrides(state))

    # The four steps of a round (NOV-SEQ-1) and what may happen within them.
    def handlers(self) -> dict[type[BaseModel], Callable[[Context, Any], Any]]:
        return {
            **super().handlers(),
            c.RollInitiative: self.on_roll_initiative,
            nc.Declare: self.on_declare,
            c.Hold: self.on_hold,
            nc.Cancel: self.on_cancel,
            nc.OpportunityAttack: self.on_opportunity_attack,
            nc.SpendFatePoint: self.on_spend_fate_point,
            nc.Resolve: self.on_resolve,
            nc.SpendBoons: self.on_spend_boons,
            nc.SpendSnags: self.on_spend_snags,
            c.EndRound: self.on_end_round,
            nc.Save: self.on_save,
        }

    def on_roll_initiative(self, ctx: Context, cmd: c.RollInitiative) -> None:
        initiative.roll_initiative(ctx, cmd)

    def on_declare(self, ctx: Context, cmd: nc.Declare) -> None:
        declare.declare(ctx, cmd)

    def on_hold(self, ctx: Context, cmd: c.Hold) -> None:
        declare.hold(ctx, cmd)

    def on_cancel(self, ctx: Context, cmd: nc.Cancel) -> None:
        cancel.cancel(ctx, cmd)

    def on_opportunity_attack(self, ctx: Context, cmd: nc.OpportunityAttack) -> None:
        cancel.opportunity_attack(ctx, cmd)

    def on_spend_fate_point(self, ctx: Context, cmd: nc.SpendFatePoint) -> None:
        """NOV-FATE-2: the spend is logged with the GM's effect; the count goes down."""
        who = ctx.state.combatant(cmd.combatant)
        if marks_of(who).fate_points < 1:
            raise RuleViolation("NOV-FATE-2", f"{who.name} has no Fate Point", field="combatant")
        ctx.emit(ne.FatePointSpent, combatant=who.id, effect=cmd.effect)

    def on_resolve(self, ctx: Context, cmd: nc.Resolve) -> None:
        resolve.resolve(ctx, cmd)

    def on_spend_boons(self, ctx: Context, cmd: nc.SpendBoons) -> None:
        pending = encounter_marks_of(ctx.state).pending_boons
        if pending is None:
            raise RuleViolation("NOV-BOON-1", "no hit is waiting for its Boon Points")
        hits.spend_boons(ctx, pending, cmd.boons)

    def on_spend_snags(self, ctx: Context, cmd: nc.SpendSnags) -> None:
        pending = encounter_marks_of(ctx.state).pending_snags
        if pending is None:
            raise RuleViolation("NOV-SNAG-1", "no roll is waiting for its Snag Points")
        attacks.spend_snags(ctx, pending, cmd.snags)

    def on_adjust_hits(self, ctx: Context, cmd: c.AdjustHits) -> None:
        pos = super().on_adjust_hits(ctx, cmd)
        who = ctx.state.combatants[cmd.combatant]
        if who.hits > 0 and who.has("stabilised"):  # NOV-HITS-4: stable only while down
            ctx.clear_condition(who.id, "stabilised", "hits above 0 again", cause=pos)

    def on_end_round(self, ctx: Context, cmd: c.EndRound) -> None:
        rounds.end_round(ctx, cmd)

    def on_save(self, ctx: Context, cmd: nc.Save) -> None:
        who = ctx.state.combatant(cmd.combatant)
        if cmd.stat not in STATS:
            raise RuleViolation(
                "NOV-SAVE-1", f"unknown stat {cmd.stat!r}; one of {', '.join(STATS)}", field="stat"
            )
        saves.roll_save(ctx, who.id, cmd.stat, cmd.tn, cmd.purpose, modifiers=cmd.modifiers)
