"""Saving Throws: open-ended 2d10 + Stat Bonus + 5 + modifiers ≥ TN (NOV-SAVE-1..5)."""

from __future__ import annotations

from domain.rulesystems.base import Context, with_situational
from domain.rulesystems.novus import events as ne
from domain.rulesystems.novus.combat import stats_of
from domain.rulesystems.novus.dice import Asking, open_2d10
from domain.rulesystems.novus.initiative import gain_fate_point

SAVE_BONUS = 5  # NOV-SAVE-1
BASE_TN = 15  # NOV-SAVE-3


def roll_save(
    ctx: Context,
    combatant: str,
    stat: str,
    tn: int,
    purpose: str,
    *,
    roll_name: str = "save",
    modifiers: dict[str, int] | None = None,
    cause: int | None = None,
) -> tuple[int, bool]:
    """Roll and record a save (NOV-SAVE-1, -2); its position and whether it succeeded."""
    who = ctx.state.combatants[combatant]
    bonus = stats_of(who).bonuses.of(stat)  # type: ignore[arg-type]
    mods = with_situational({f"{stat} bonus": bonus, "save": SAVE_BONUS}, modifiers or {})
    for_ = f" ({purpose})" if purpose else ""
    # no TN in what the table is asked: a save's TN is the GM's secret (docs/visibility.md)
    asking = Asking(
        who.id, f"{who.name}'s Save vs. {stat.capitalize()}{for_}", f"{who.name}'s Save"
    )
    roll = open_2d10(ctx.dice, roll_name, mods, asking)
    saved = roll.total >= tn  # NOV-CORE-1: equal succeeds
    pos = ctx.emit(
        ne.SaveRolled,
        cause=cause,
        combatant=who.id,
        stat=stat,
        purpose=purpose,
        rolls={roll_name: roll.to_dict()},
        tn=tn,
        total=roll.total,
        saved=saved,
        margin=roll.total - tn,
    )
    gain_fate_point(ctx, who, roll, pos)  # NOV-SAVE-5 (Default): no Boon or Snag Points
    return pos, saved
