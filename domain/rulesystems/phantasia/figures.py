"""The AT, AM, DF and DM figures (PHA-ATK-1, PHA-MAG-1, PHA-DEF-1, Default PHA-CHAR-4,
PHA-AMB-46): an attacker's bonus and a target's defence, by named parts."""

from __future__ import annotations

from domain.rulesystems.phantasia import statuses
from domain.rulesystems.phantasia.refusals import refused
from domain.rulesystems.phantasia.stats import WEAPON_CODES, Power, Weapon, adj, foe_increment
from domain.rulesystems.phantasia.turns import stats_of
from domain.state import CombatantState

BASE = 6  # PHA-ATK-1, PHA-MAG-1: 6 + adjustment + item bonus − DF (or DM)


def attack_bonus(
    who: CombatantState,
    weapon: Weapon | None,
    power: Power | None,
    characteristic: str | None,
) -> dict[str, int]:
    """The attacker's AT or AM figure − 6, by named parts."""
    stats = stats_of(who)
    if power is not None:
        figure = power.am if power.am is not None else stats.figures.am
        if figure is not None:  # PHA-CHAR-4: the entered figure wins (it holds any increments)
            return {"AM figure": figure - BASE}
        else:  # PHA-MAG-1, Default PHA-AMB-3: INT adjustment (or the power's own)
            ch = power.characteristic
            parts = {f"{ch.upper()} adj": adj(stats, ch, score_change(who, ch))}
        parts["level increments"] = foe_increment(stats, "magical")  # PHA-FOE-4
        return {k: v for k, v in parts.items() if v or k.endswith("adj")}
    if weapon is None:  # PHA-ATK-3, PHA-WPN-5, Default PHA-AMB-21: unarmed, only gauntlets
        parts = {"FUE adj": adj(stats, "fue", score_change(who, "fue"))}
        parts["gauntlets"] = stats.gauntlet_bonus
    else:  # PHA-ATK-1: the characteristic the weapon's code names
        allowed = WEAPON_CODES[weapon.code]["at"]
        assert isinstance(allowed, tuple)
        ch = characteristic or allowed[0]
        if ch not in allowed:
            raise refused(
                "PHA-ATK-1.wrong-characteristic",
                field="characteristic",
                code=weapon.code,
                allowed=allowed,
            )
        parts = {f"{ch.upper()} adj": adj(stats, ch, score_change(who, ch))}
        parts["item bonus"] = weapon.item_bonus
    parts["level increments"] = foe_increment(stats, "martial")
    if stats.figures.at_bonus is not None:
        parts["other AT adjustments"] = stats.figures.at_bonus
    return {k: v for k, v in parts.items() if v or k.endswith("adj")}


def score_change(who: CombatantState, characteristic: str) -> int:
    """A magic changing a score changes its adjustment (Default PHA-AMB-51), after the
    stacking rules (PHA-STK-1, -2)."""
    return sum(statuses.modifiers(who, characteristic).values())


def defense(who: CombatantState, figure: str, *, block: bool) -> dict[str, int]:
    """DF = AGI adj + protection + other; DM = INT adj + protection DM + other (Default
    PHA-CHAR-4); a shield only on a declared block (PHA-DEF-2, PHA-WPN-4)."""
    stats = stats_of(who)
    if figure == "df":
        entered = stats.figures.df
        parts = (
            {"DF": entered}
            if entered is not None
            else {
                "AGI adj": adj(stats, "agi", score_change(who, "agi")),
                "protection": stats.protection_df,
                "level increments": foe_increment(stats, "martial"),
            }
        )
    else:
        entered = stats.figures.dm
        parts = (
            {"DM": entered}
            if entered is not None
            else {
                "INT adj": adj(stats, "int", score_change(who, "int")),
                "protection DM": stats.protection_dm,
                "level increments": foe_increment(stats, "magical"),
            }
        )
    if block and stats.shield is not None:
        parts["shield (block)"] = stats.shield.df if figure == "df" else stats.shield.dm
    return {k: v for k, v in parts.items() if v or k in ("DF", "DM")}
