"""Healing (PHA-DTH-5), PM (PHA-PM) and PHANTÄSIA points (PHA-PP): spent on a check of
one's own or an ally's, awarded by the narrator, passed on."""

from __future__ import annotations

from typing import Any

from domain.dice import Ask, Roll, checked_dice, dice_of, roll_plain
from domain.rulesystems.base import Context
from domain.rulesystems.phantasia import attacks, damage, figures, rerolls
from domain.rulesystems.phantasia import commands as ph
from domain.rulesystems.phantasia import events as pe
from domain.rulesystems.phantasia.reasons import said
from domain.rulesystems.phantasia.refusals import refused
from domain.rulesystems.phantasia.stats import adj, max_phantasia_points, max_pm
from domain.rulesystems.phantasia.turns import moment, pm_of, pp_of, stats_of
from domain.state import CombatantState, EncounterState


def valid_dice(expression: str, field: str) -> str:
    """Dice as typed, checked and written the one way (e.g. ' 1D6' → '1d6')."""
    try:
        return checked_dice(expression)
    except ValueError as e:
        raise refused("PHA-DMG-1.bad-dice", field=field, error=str(e)) from None


# -- healing -----------------------------------------------------------------------------


def heal(ctx: Context, cmd: ph.Heal) -> None:
    """PHA-DTH-5: healing pays off negative PV first; he wakes at 1 PV or more. A healing
    magic adds its caster's INT adjustment (PHA-DMG-4). Never above maximum PV."""
    state = ctx.state
    who = state.combatant(cmd.combatant)
    if who.has("dead"):
        raise refused("PHA-DTH-7.dead-only-resurrection", field="combatant", who=who.name)
    if (cmd.amount is None) == (cmd.heal_dice is None):
        raise refused("PHA-DTH-5.heal-amount-roll", field="amount")
    parts, rolls = _healing_parts(ctx, cmd, who)
    amount = max(0, min(sum(parts.values()), who.max_hits - who.hits))
    at = ctx.emit(
        pe.Healed,
        combatant=who.id,
        amount=amount,
        hits_before=who.hits,
        hits_after=who.hits + amount,
        parts=parts,
        rolls=rolls,
        reason=cmd.reason,
    )
    damage.wake_if_healed(ctx, who.id, at)


def _healing_parts(
    ctx: Context, cmd: ph.Heal, who: CombatantState
) -> tuple[dict[str, int], dict[str, Any]]:
    """The healing's parts (the dice rolled or the amount given, the caster's INT
    adjustment) and the rolls they took."""
    state = ctx.state
    parts: dict[str, int] = {}
    rolls: dict[str, Any] = {}
    if cmd.heal_dice is not None:
        dice = valid_dice(cmd.heal_dice, "heal_dice")
        roll = _healing_roll(ctx, state, cmd, who, dice)
        parts["dice"] = roll.dice_total
        rolls["heal"] = roll.to_dict()
    else:
        parts["amount"] = cmd.amount or 0
    if cmd.caster is not None:
        caster = state.combatant(cmd.caster)
        parts["caster INT adj"] = adj(  # PHA-DMG-4, from his current INT (PHA-AMB-51)
            stats_of(caster), "int", figures.score_change(caster, "int")
        )
    return parts, rolls


def _healing_roll(
    ctx: Context, state: EncounterState, cmd: ph.Heal, who: CombatantState, dice: str
) -> Roll:
    count, sides = dice_of(dice)
    healer = state.combatants.get(cmd.caster or "")
    by_en = f" by {healer.name}" if healer else ""
    by_es = f" por {healer.name}" if healer else ""
    return roll_plain(
        ctx.dice,
        "heal",
        count,
        sides,
        Ask(
            healer.id if healer else who.id,
            f"Healing for {who.name}{by_en}: {dice}",
            f"Curación de {who.name}{by_es}: {dice}",
        ),
    )


# -- PHANTÄSIA points and PM ------------------------------------------------------------


def _ally(payer: CombatantState, helped: CombatantState) -> None:
    if helped.side != payer.side:  # PHA-PP-4: to help an ally
        raise refused(
            "PHA-PP-4.spends-points-himself",
            field="for_combatant",
            payer=payer.name,
            helped=helped.name,
        )


def spend_point(
    ctx: Context,
    payer: CombatantState,
    use: str,
    helped: CombatantState,
    cause: int | None = None,
) -> int:
    """PHA-PP-2, PHA-PP-4: his own point, or one spent to help an ally (his side)."""
    _ally(payer, helped)
    if pp_of(payer) < 1:
        raise refused("PHA-PP-2.no-point", field="combatant", payer=payer.name)
    return ctx.emit(
        pe.PhantasiaPointsChanged,
        cause=cause,
        combatant=payer.id,
        points_before=pp_of(payer),
        points_after=pp_of(payer) - 1,
        use=use,
        for_combatant=helped.id if helped is not payer else None,
        reason=f"spent: {use} (PHA-PP-2)",  # not in the log line
    )


def spend_phantasia_point(ctx: Context, cmd: ph.SpendPhantasiaPoint) -> None:
    """PHA-PP-2 a, c, d and PHA-PP-4 (on an ally's check)."""
    state = ctx.state
    payer = state.combatant(cmd.combatant)
    helped = state.combatant(cmd.for_combatant) if cmd.for_combatant else payer
    _ally(payer, helped)
    if cmd.use == "pm":  # PHA-PP-2 d, PHA-PM-3
        if pm_of(helped) >= max_pm(stats_of(helped)):
            raise refused("PHA-PM-3.already-all-pm", field="use", helped=helped.name)
        spent = spend_point(ctx, payer, "pm", helped)
        attacks.pm_change(ctx, helped.id, 1, said("point_for_pm"), spent)
        return
    if cmd.use == "death_reroll":  # PHA-DTH-6
        if not _may_reroll_death(state, helped):
            raise refused("PHA-DTH-6.failed-death-check", field="for_combatant", helped=helped.name)
        spent = spend_point(ctx, payer, "death_reroll", helped)
        damage.death_check(ctx, helped.id, spent, reroll=True)
        return
    rerolls.reroll(ctx, spend_point, payer, helped)


def _may_reroll_death(state: EncounterState, helped: CombatantState) -> bool:
    """PHA-DTH-6: his death check failed, not yet rerolled, and at once, in that turn."""
    death = helped.marks.death_check
    if death is None:
        return False
    late = death.moment != list(moment(state))
    return helped.has("dead") and death.dies and not death.reroll and not late


def award_phantasia_point(ctx: Context, cmd: ph.AwardPhantasiaPoint) -> None:
    """PHA-PP-1, -3: the narrator's award, up to the level's maximum; a player at his
    maximum may pass it to one below his."""
    state = ctx.state
    who = state.combatant(cmd.combatant)
    to = who
    if pp_of(who) >= max_phantasia_points(stats_of(who).level):
        if cmd.pass_to is None:
            raise refused("PHA-PP-3.at-maximum", field="pass_to", who=who.name, points=pp_of(who))
        to = state.combatant(cmd.pass_to)
        if pp_of(to) >= max_phantasia_points(stats_of(to).level):
            raise refused("PHA-PP-1.at-maximum-too", field="pass_to", to=to.name)
    ctx.emit(
        pe.PhantasiaPointsChanged,
        combatant=to.id,
        points_before=pp_of(to),
        points_after=pp_of(to) + 1,
        use="award" if to is who else "pass",
        for_combatant=None if to is who else who.id,
        reason=cmd.reason or "the narrator's award (PHA-PP-1)",
    )


def adjust_pm(ctx: Context, cmd: ph.AdjustPm) -> None:
    """PHA-PM-4, -5: PM the narrator grants or an ability spends, within 0..maximum."""
    who = ctx.state.combatant(cmd.combatant)
    attacks.pm_change(ctx, who.id, cmd.amount, cmd.reason or said("narrator"), None)
