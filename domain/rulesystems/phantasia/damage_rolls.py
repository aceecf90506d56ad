"""The damage of an attack that hit (PHA-DMG-1..5): one roll for every target it hit, each
target's doublings and halvings (PHA-DMG-6, -9, -11), a shield that breaks (PHA-DEF-3), the
curse's backlash (PHA-STS-11)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain import events as ev
from domain.dice import Ask, dice_of, roll_plain
from domain.rulesystems.base import Context
from domain.rulesystems.phantasia import commands as ph
from domain.rulesystems.phantasia import damage
from domain.rulesystems.phantasia import events as pe
from domain.rulesystems.phantasia.asks import means_en, means_es, names
from domain.rulesystems.phantasia.attack_state import AttackResult, PhantasiaAttack
from domain.rulesystems.phantasia.attacks import pending_attack
from domain.rulesystems.phantasia.figures import score_change
from domain.rulesystems.phantasia.reasons import part
from domain.rulesystems.phantasia.refusals import refused
from domain.rulesystems.phantasia.state import StatusData
from domain.rulesystems.phantasia.stats import WEAPON_CODES, PhantasiaStats, Power, Weapon, adj
from domain.rulesystems.phantasia.turns import stats_of
from domain.state import ActionState, CombatantState, EncounterState

UNARMED_DIE = 4  # PHA-DMG-5

# the damage rolled: its parts (None: a power that deals none), its dice, its element
Rolled = tuple[dict[str, Any] | None, dict[str, Any], str | None]


def roll_damage(ctx: Context, cmd: ph.RollDamage) -> None:
    """PHA-DMG-1: the open attack hit: its damage, then what follows it."""
    state = ctx.state
    action, attack = _attack_that_hit(state)
    hits = attack.hits
    who = state.combatants[action.combatant]
    stats = stats_of(who)
    weapon = stats.weapon(attack.weapon) if attack.weapon else None
    power = stats.power(attack.power) if attack.power else None
    doubled = [  # a critical, or a fumbled defense whose shield did not break (PHA-DEF-3)
        state.combatants[r.target].name
        for r in hits
        if r.doubled and not (r.rolled_by == "defender" and r.target in cmd.shield_breaks)
    ]
    rolled = _damage_roll(
        ctx,
        who,
        stats,
        weapon,
        power,
        [state.combatants[r.target].name for r in hits],
        doubled,
    )
    fumbled_blocks = {r.target for r in hits if r.blocked and r.fumble}
    bad = sorted(set(cmd.shield_breaks) - fumbled_blocks)
    if bad:
        raise refused("PHA-DEF-3.not-fumbled-block", field="shield_breaks", bad=bad[0])
    first, dealt = _deal(ctx, cmd, action, attack, power, rolled)
    resolved = ctx.emit(
        ev.ActionResolved,
        cause=first or action.origin,
        combatant=who.id,
        action=action.id,
        kind="attack",
        detail={"damage": rolled[0], "dealt": dealt},
    )
    _curse_backlash(ctx, who.id, dealt, resolved)


def _attack_that_hit(state: EncounterState) -> tuple[ActionState, PhantasiaAttack]:
    """The open attack, which hit; its fumble first (PHA-CRIT-4)."""
    action = pending_attack(state)
    attack = PhantasiaAttack.of(action) if action else None
    if attack is not None and attack.hits and attack.fumble_due:
        raise refused("PHA-CRIT-4.this-attack-also")
    if action is None or attack is None or not attack.hits:
        raise refused("PHA-DMG-1.attack-hit-nothing")
    return action, attack


def _deal(
    ctx: Context,
    cmd: ph.RollDamage,
    action: ActionState,
    attack: PhantasiaAttack,
    power: Power | None,
    rolled: Rolled,
) -> tuple[int | None, int]:
    """The one roll dealt to each target hit (PHA-DMG-11); returns the first damage event's
    position and the damage dealt in all."""
    parts, rolls, element = rolled
    if parts is None:  # a power that deals no damage
        return None, 0
    who = ctx.state.combatants[action.combatant]
    reduction = {}
    weak = who.conditions.get("weakness")
    weakness = StatusData.of(weak).reduction if weak else None
    if weakness:  # PHA-DMG-10, PHA-STS-5
        reduction["weakness"] = weakness
    dealt = 0
    first = None
    recorded = False
    for r in attack.hits:
        target = ctx.state.combatants[r.target]
        doublings, coded = _doublings(r, attack, power, cmd)
        at = damage.suffer(
            ctx,
            target.id,
            parts,
            cause=first or action.origin,  # the first damage roots the rest: void it, re-roll
            rule="PHA-DMG-11",
            rolls={} if recorded else rolls,  # one roll for all targets, recorded once
            doublings=doublings,
            halvings=_halvings(target, power),
            reduction=reduction,
            element=element,
            coded=coded,
        )
        first = first or at
        recorded = recorded or (at is not None and bool(getattr(ctx.last(at), "rolls", None)))
        if at is not None:
            last = ctx.last(at)
            dealt += getattr(last, "amount", 0) if type(last).__name__ == "DamageApplied" else 0
        if r.target in cmd.shield_breaks:  # PHA-DEF-3: normal damage, no shield
            ctx.emit(
                pe.ActionSpent,
                cause=at,
                combatant=target.id,
                action="shield_breaks",
                offensive=False,
                reaction=False,
                details={"rule": "PHA-DEF-3"},
            )
    return first, dealt


def _doublings(
    result: AttackResult, attack: PhantasiaAttack, power: Power | None, cmd: ph.RollDamage
) -> tuple[list[str], dict[str, Any]]:
    """What doubles the damage to one target (PHA-DMG-6), and the parts written with figures."""
    doublings = list(result.doublings)
    if result.doubled and result.rolled_by != "automatic":  # automatic: its `doublings`
        if result.rolled_by == "defender":
            if result.target not in cmd.shield_breaks:  # PHA-DEF-3
                doublings.append("fumbled defense (PHA-CRIT-7)")
        else:
            doublings.append("critical (PHA-CRIT-1)")
    doublings += ["power (PHA-DMG-6)"] * attack.doublings
    coded = {}
    if power is not None and power.doubles:
        text, coded[text] = part("power_doubles", power=power.name)
        doublings.append(text)
    return doublings, coded


def _halvings(target: CombatantState, power: Power | None) -> list[str]:
    halvings = []
    weapon_damage = power is None or power.physical
    if target.has("defense") and weapon_damage and power is None:
        halvings.append("Defense (PHA-DMG-9)")  # PHA-STS-6: weapons only
    return halvings


def _curse_backlash(ctx: Context, combatant: str, dealt: int, cause: int) -> None:
    who = ctx.state.combatants[combatant]
    if who.has("curse") and dealt > 0:  # PHA-STS-11, PHA-DMG-10 (half, rounded down)
        damage.suffer(
            ctx,
            who.id,
            {"curse": dealt // 2, "total": dealt // 2, "not doubled": False},
            cause=cause,
            rule="PHA-STS-11",
        )


def _damage_roll(
    ctx: Context,
    who: CombatantState,
    stats: PhantasiaStats,
    weapon: Weapon | None,
    power: Power | None,
    hit: list[str],
    doubled: list[str],
) -> Rolled:
    """PHA-DMG-1..5: weapon dice + FUE or AGI adjustment + level; magic dice (× level) + INT
    adjustment after the multiplication, no level; unarmed 1d4 + FUE adjustment + level.
    One roll for every target hit (`hit`: their names; `doubled`: those it hits double)."""

    def ask(dice: str) -> Ask:
        return _ask_damage(who, stats, weapon, power, hit, doubled, dice)

    if power is not None:
        return _power_damage(ctx, who, stats, power, ask)
    if weapon is None:
        roll = roll_plain(ctx.dice, "damage", 1, UNARMED_DIE, ask(f"1d{UNARMED_DIE}"))
        ch = "fue"
        element = None
    else:
        count, sides = dice_of(weapon.damage)
        roll = roll_plain(ctx.dice, "damage", count, sides, ask(weapon.damage))
        ch = str(WEAPON_CODES[weapon.code]["damage"])  # PHA-DMG-2, PHA-WPN-2
        element = weapon.element
    parts = {
        "dice": roll.dice_total,
        f"{ch.upper()} adj": adj(stats, ch, score_change(who, ch)),
        "level": stats.level,  # PHA-DMG-3
    }
    return parts, {"damage": roll.to_dict()}, element


def _power_damage(
    ctx: Context,
    who: CombatantState,
    stats: PhantasiaStats,
    power: Power,
    ask: Callable[[str], Ask],
) -> Rolled:
    """PHA-DMG-4: a power's dice (× his level, where it says so) + INT adjustment."""
    if power.damage is None:
        return None, {}, power.element
    count, sides = dice_of(power.damage)
    roll = roll_plain(ctx.dice, "damage", count, sides, ask(power.damage))
    parts: dict[str, Any] = {"dice": roll.dice_total}
    if power.per_level:  # PHA-DMG-4: what was rolled and the level it was multiplied by
        parts["dice"] = roll.dice_total * stats.level
        parts["multiplied"] = {
            "dice": power.damage,
            "rolled": roll.dice_total,
            "level": stats.level,
        }
    ch = "int"
    parts[f"{ch.upper()} adj"] = adj(stats, ch, score_change(who, ch))
    return parts, {"damage": roll.to_dict()}, power.element


def _ask_damage(
    who: CombatantState,
    stats: PhantasiaStats,
    weapon: Weapon | None,
    power: Power | None,
    hit: list[str],
    doubled: list[str],
    dice: str,
) -> Ask:
    """The damage dice, in the table's words."""
    means = (
        means_en(weapon and weapon.name, power and power.name),
        means_es(weapon and weapon.name, power and power.name),
    )
    more_en = f" × level {stats.level}" if power is not None and power.per_level else ""
    more_es = f" × nivel {stats.level}" if power is not None and power.per_level else ""
    if doubled:
        more_en += f" (double damage on {names(doubled)})"
        more_es += f" (daño doble a {names(doubled)})"
    return Ask(
        who.id,
        f"{who.name}'s damage with {means[0]} on {names(hit)}: {dice}{more_en}",
        f"Daño de {who.name} con {means[1]} a {names(hit)}: {dice}{more_es}",
    )
