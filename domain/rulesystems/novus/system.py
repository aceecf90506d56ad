"""Novus behind the rule-system interface: each command goes to the module of its step."""

from __future__ import annotations

from typing import Any, ClassVar

from domain import commands as c
from domain import events as ev
from domain.errors import RuleViolation
from domain.rulesystems.base import Context, RuleSystem, with_situational
from domain.rulesystems.novus import actions as act
from domain.rulesystems.novus import attacks, combat, declare, initiative, resolve, rounds
from domain.rulesystems.novus.dice import open_2d10
from domain.rulesystems.novus.stats import NovusStats
from domain.rulesystems.novus.view import novus_view
from domain.state import EncounterState

SAVE_BONUS = 5  # NOV-SAVE-1
STATS = ("str", "dex", "spd", "con", "wil", "wis")


class NovusRules(RuleSystem):
    name = "novus"
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

    def view(self, state: EncounterState) -> dict[str, Any]:
        return novus_view(state)

    # The four steps of a round (NOV-SEQ-1) and what may happen within them.
    def on_roll_initiative(self, ctx: Context, cmd: c.RollInitiative) -> None:
        initiative.roll_initiative(ctx, cmd)

    def on_declare(self, ctx: Context, cmd: c.Declare) -> None:
        declare.declare(ctx, cmd)

    def on_hold(self, ctx: Context, cmd: c.Hold) -> None:
        declare.hold(ctx, cmd)

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

    def on_end_round(self, ctx: Context, cmd: c.EndRound) -> None:
        rounds.end_round(ctx, cmd)

    def on_save(self, ctx: Context, cmd: c.Save) -> None:
        """NOV-SAVE-1..3: open-ended 2d10 + Stat Bonus + 5 + modifiers ≥ TN."""
        who = ctx.state.combatant(cmd.combatant)
        if cmd.stat not in STATS:
            raise RuleViolation(
                "NOV-SAVE-1", f"unknown stat {cmd.stat!r}; one of {', '.join(STATS)}", field="stat"
            )
        bonus = combat.stats_of(who).bonuses.of(cmd.stat)  # type: ignore[arg-type]
        mods = with_situational({f"{cmd.stat} bonus": bonus, "save": SAVE_BONUS}, cmd.modifiers)
        roll = open_2d10(ctx.dice, "save", mods)
        pos = ctx.emit(
            ev.SaveRolled,
            combatant=who.id,
            stat=cmd.stat,
            purpose=cmd.purpose,
            rolls={"save": roll.to_dict()},
            tn=cmd.tn,
            total=roll.total,
            saved=roll.total >= cmd.tn,
            margin=roll.total - cmd.tn,
        )
        initiative.gain_fate_point(ctx, who, roll, pos)  # NOV-SAVE-5: no Boons or Snags
