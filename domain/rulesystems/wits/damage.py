"""The damage of a hit: the dice, rolled up, less the target's Protection
(WIT-DMG-1..5, WIT-DMG-7, WIT-CHG-3, WIT-CRIT-1, -3, -4)."""

from __future__ import annotations

from domain.rulesystems.base import Context
from domain.rulesystems.wits import turns
from domain.rulesystems.wits.dice import damage_roll
from domain.rulesystems.wits.skills import gm_modifiers, weapon_of
from domain.rulesystems.wits.state import WitsAttack
from domain.rulesystems.wits.stats import Weapon, WitsStats
from domain.state import ActionState, CombatantState

CRITICAL = ("critical", "extraordinary")  # Default WIT-AMB-3: extraordinary is critical too


def deal_damage(
    ctx: Context,
    who: CombatantState,
    target: CombatantState,
    action: ActionState,
    degree: str,
    cause: int,
) -> None:
    """WIT-DMG-1..5, WIT-DMG-7, WIT-CHG-3, WIT-CRIT-1, -3, -4."""
    stats = turns.stats_of(who)
    weapon = weapon_of(stats, action.weapon, who)
    attack = WitsAttack.of(action)
    options = turns.options_of(ctx.state)
    roll = damage_roll(
        ctx.dice,
        "damage",
        _dice(stats, weapon, attack.charge, degree),
        roll_up=attack.physical,  # WIT-DMG-3, WIT-DMG-7
        open_ended=options.roll_up == "open",  # Default WIT-AMB-4
        by=who.id,
        whose=f"{who.name}'s {weapon.name} damage on {target.name}",
    )
    protection = turns.stats_of(target).armour.protection
    ignored = degree in CRITICAL  # WIT-CRIT-1
    bonus = sum(gm_modifiers(ctx.state, who, "damage").values())
    after = roll.total + bonus - (0 if ignored else protection)
    breakdown = {
        "dice": roll.total,
        "modifiers": bonus,
        "protection": protection,
        "protection_ignored": ignored,
        "total": max(0, after),  # WIT-DMG-2 (Default WIT-AMB-12): never below 0
    }
    ctx.apply_damage(target.id, breakdown, cause=cause, rolls={"damage": roll.to_dict()})


def _dice(stats: WitsStats, weapon: Weapon, charge: bool, degree: str) -> list[tuple[str, str]]:
    """The damage dice, by group: the weapon's, and the Base Damage die of a melee or
    unarmed attack, once more for a Charge and for an Extraordinary Success."""
    groups = [(weapon.name, weapon.damage)]  # WIT-DMG-1
    if weapon.ranged:  # WIT-DMG-4: no Base Damage die
        if degree == "extraordinary":  # WIT-DMG-5, WIT-CRIT-4: the weapon's dice twice
            groups.append((f"{weapon.name}, extraordinary", weapon.damage))
        return groups
    assert stats.base_damage is not None  # checked when announced
    groups.append(("base damage", stats.base_damage))  # WIT-DMG-1
    if charge:
        groups.append(("charge", stats.base_damage))  # WIT-CHG-3
    if degree == "extraordinary":
        groups.append(("extraordinary", stats.base_damage))  # WIT-CRIT-3
    return groups
