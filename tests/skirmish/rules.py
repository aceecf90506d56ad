"""The skirmish's rules over the folded state: the order, whose strike it is, the strike."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from domain import commands as c
from domain import events as ev
from domain.dice import Ask, roll_plain
from domain.errors import RuleViolation
from domain.rulesystems.base import Context
from domain.state import CombatantState, EncounterState
from tests.skirmish.commands import Strike
from tests.skirmish.events import Struck
from tests.skirmish.state import round_marks_of


class SkirmishStats(BaseModel):
    """A skirmisher's stat block (SKR-STAT-1)."""

    model_config = ConfigDict(extra="forbid")

    fight: int = Field(ge=1, le=6, description="Added to initiative and to each strike.")
    guard: int = Field(ge=1, le=6, description="A strike must reach guard + 3 to hit.")
    hits: int = Field(ge=1, le=20, description="Down at 0 (SKR-DOWN-1).")


def stats_of(who: CombatantState) -> SkirmishStats:
    return SkirmishStats.model_validate(who.stats)


def is_down(who: CombatantState) -> bool:
    return who.hits <= 0  # SKR-DOWN-1


def order(state: EncounterState) -> list[CombatantState]:
    """Those with an initiative, the higher first, equals as they joined (SKR-INIT-1)."""
    placed = [w for w in state.combatants.values() if w.ip is not None]
    return sorted(placed, key=lambda w: (-(w.ip or 0), w.entry))


def acting(state: EncounterState) -> CombatantState | None:
    """The first in the order still up who has not struck this round (SKR-STR-1)."""
    if any(w.ip is None for w in state.combatants.values()):
        return None
    due = (w for w in order(state) if not is_down(w) and not round_marks_of(w).struck)
    return next(due, None)


def step(state: EncounterState) -> str:
    if not state.combatants:
        return "setup"
    if any(w.ip is None for w in state.combatants.values()):
        return "initiative"
    return "strikes" if acting(state) is not None else "end_round"


def roll_initiative(ctx: Context, cmd: c.RollInitiative) -> None:
    """SKR-INIT-1: 1d6 + fight for one combatant or every one without an initiative; the
    GM may enter one instead (`ip`)."""
    due = [w for w in ctx.state.combatants.values() if w.ip is None]
    if cmd.combatant is not None:
        who = ctx.state.combatant(cmd.combatant)
        if who.ip is not None:
            raise RuleViolation(
                "SKR-INIT-1", f"{who.name} has his initiative already", field="combatant"
            )
        due = [who]
    elif cmd.ip is not None:
        raise RuleViolation("SKR-INIT-1", "an entered initiative names its combatant", field="ip")
    if not due:
        raise RuleViolation("SKR-INIT-1", "every combatant has his initiative already")
    for who in due:
        if cmd.ip is not None:
            ctx.emit(
                ev.InitiativeRolled,
                combatant=who.id,
                ip=cmd.ip,
                raw=None,
                rolls={},
                modifiers={},
                entered=True,
            )
            continue
        fight = stats_of(who).fight
        name = f"initiative:{who.name}"
        ask = Ask(who.id, f"{who.name}'s initiative: 1d6 + fight {fight}")
        roll = roll_plain(ctx.dice, name, 1, 6, ask, fight=fight, **cmd.modifiers)
        ctx.emit(
            ev.InitiativeRolled,
            combatant=who.id,
            ip=roll.total,
            raw=roll.dice_total,
            rolls={name: roll.to_dict()},
            modifiers=dict(roll.modifiers),
            entered=False,
        )


def strike(ctx: Context, cmd: Strike) -> None:
    """SKR-STR-1..3: the one whose strike it is rolls 1d6 + fight against a foe's guard + 3."""
    state = ctx.state
    attacker, target = state.combatant(cmd.combatant), state.combatant(cmd.target)
    now = acting(state)
    if now is None:
        why = "roll initiative first" if step(state) == "initiative" else "end the round"
        raise RuleViolation("SKR-STR-1", f"no strike is due: {why}", field="combatant")
    if now.id != attacker.id:
        raise RuleViolation(
            "SKR-STR-1", f"it is {now.name}'s strike, not {attacker.name}'s", field="combatant"
        )
    if target.id == attacker.id or target.side == attacker.side or is_down(target):
        raise RuleViolation(
            "SKR-STR-2", f"{target.name} is no foe of {attacker.name} still up", field="target"
        )
    fight, guard = stats_of(attacker).fight, stats_of(target).guard
    ask = Ask(attacker.id, f"{attacker.name} strikes {target.name}: 1d6 + fight {fight}")
    roll = roll_plain(ctx.dice, "strike", 1, 6, ask, fight=fight)
    hit = roll.total >= guard + 3
    hits = (2 if roll.dice_total == 6 else 1) if hit else 0  # SKR-STR-3
    position = ctx.emit(
        Struck,
        combatant=attacker.id,
        target=target.id,
        rolls={"strike": roll.to_dict()},
        total=roll.total,
        tn=guard + 3,
        hit=hit,
        hits=hits,
    )
    if hits:
        ctx.apply_damage(target.id, {"total": hits, "strike": hits}, cause=position)


def end_round(ctx: Context, cmd: c.EndRound) -> None:
    """SKR-RND-1: the GM ends the round; strikes not taken are lost (no action is kept)."""
    ctx.emit(ev.RoundEnded, round=ctx.state.round, lost_actions=[])
