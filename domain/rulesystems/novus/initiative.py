"""Step 1: initiative, rolled once per combat (NOV-INIT-1..5, NOV-RRI-1, NOV-FATE-1)."""

from __future__ import annotations

from typing import Any

from domain import commands as c
from domain import events as ev
from domain.errors import RuleViolation
from domain.rulesystems.base import Context, with_situational
from domain.rulesystems.novus import events as ne
from domain.rulesystems.novus import rounds
from domain.rulesystems.novus.combat import stats_of
from domain.rulesystems.novus.dice import Asking, open_2d10
from domain.rulesystems.novus.state import encounter_marks_of
from domain.state import CombatantState


def gain_fate_point(ctx: Context, who: CombatantState, roll: Any, cause: int) -> None:
    """NOV-CORE-5, NOV-FATE-1: a Nova Roll gives its roller one Fate Point."""
    if "nova" in roll.flags:
        ctx.emit(ne.FatePointGained, cause=cause, combatant=who.id, fate_points=1)


def roll_initiative(ctx: Context, cmd: c.RollInitiative) -> None:
    state = ctx.state
    if encounter_marks_of(state).declared:
        raise RuleViolation(
            "NOV-SEQ-2",
            "initiative is rolled in step 1, before anyone "
            "declares; a late joiner rolls next round (NOV-AMB-9)",
        )
    due = rounds.needs_initiative(state)
    if cmd.combatant is not None:
        who = state.combatant(cmd.combatant)
        if who.id not in {d.id for d in due}:
            why = (
                "is dead"
                if who.ip is None
                else f"already has an IP ({who.ip}); initiative is rolled once per combat"
            )
            raise RuleViolation("NOV-INIT-3", f"{who.name} {why}", field="combatant")
        due = [who]
    elif not due:
        raise RuleViolation("NOV-INIT-3", "every combatant already has an IP")
    if cmd.ip is not None and len(due) != 1:
        raise RuleViolation("NOV-INIT-5", "an entered IP needs one combatant", field="combatant")
    for who in due:
        if cmd.ip is not None:  # NOV-INIT-5, NOV-AMB-9: the GM enters it
            pos = ctx.emit(
                ev.InitiativeRolled,
                combatant=who.id,
                ip=cmd.ip,
                raw=None,
                rolls={},
                modifiers=dict(cmd.modifiers),
                entered=True,
            )
        else:
            name = "initiative" if cmd.combatant else f"initiative:{who.name}"
            bonuses = stats_of(who).bonuses
            # NOV-INIT-2: 2d10 (open-ended, Default NOV-AMB-39) + Spd + Wis bonuses + others
            mods = with_situational(
                {"spd bonus": bonuses.spd, "wis bonus": bonuses.wis}, cmd.modifiers
            )
            asking = Asking(who.id, f"{who.name}'s initiative", f"{who.name}'s initiative")
            roll = open_2d10(ctx.dice, name, mods, asking)
            pos = ctx.emit(
                ev.InitiativeRolled,
                combatant=who.id,
                ip=roll.total,
                raw=roll.dice_total,
                rolls={name: roll.to_dict()},
                modifiers=dict(roll.modifiers),
                entered=False,
            )
            gain_fate_point(ctx, who, roll, pos)
        if who.has(rounds.REROLL):  # NOV-RRI-1 (Default NOV-AMB-30): the new IP replaces it
            ctx.clear_condition(who.id, rounds.REROLL, "initiative rerolled", cause=pos)
