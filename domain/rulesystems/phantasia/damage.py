"""Damage, unconsciousness and death (PHA-DMG-6, -7, -11, PHA-DTH-1..5, PHA-CONC-1,
PHA-STS-8, -13, -17)."""

from __future__ import annotations

from typing import Any

from domain.dice import Ask, roll_plain
from domain.rulesystems.base import Context
from domain.rulesystems.phantasia import events as pe
from domain.rulesystems.phantasia import statuses
from domain.rulesystems.phantasia.checks import roll_check
from domain.rulesystems.phantasia.reasons import Said, part, said
from domain.rulesystems.phantasia.record import end_status, record_check, record_status
from domain.rulesystems.phantasia.state import StatusData
from domain.rulesystems.phantasia.turns import check_parts, moment, stats_of
from domain.state import CombatantState

DEATH_DIE = 100  # PHA-DTH-2


def negative_damage(who: CombatantState) -> int:
    """PHA-DTH-1: PV is signed; negative damage is how far it is below 0."""
    return max(0, -who.hits)


def compute(
    who: CombatantState,
    parts: dict[str, int],
    *,
    doublings: list[str],
    halvings: list[str],
    reduction: dict[str, int] | None = None,
    element: str | None = None,
    double_if_unconscious: bool = True,
    coded: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """PHA-DMG-11 (Default PHA-AMB-17): (1) roll and add; (2) × the doubling factor, 1 + the
    number of doubling effects (PHA-DMG-6: two give ×3, not ×4); (3) each halving rounded
    down; (4) fixed reductions, minimum 0; (5) immunity → 0, affinity → heals."""
    stats = stats_of(who)
    doublings = list(doublings)
    halvings = list(halvings)
    if double_if_unconscious and statuses.active(who, "unconscious") and not who.has("dead"):
        doublings.append("unconscious (PHA-DTH-3)")
    affinity = stats.elements.get(element) if element else None  # type: ignore[call-overload]
    coded = dict(coded or {})  # the parts written with figures: their codes, for the log
    if affinity in ("vulnerability", "resistance"):  # PHA-DMG-7, PHA-FOE-6
        worse = affinity == "vulnerability"
        text, said_as = part("vulnerable" if worse else "resistant", element=element)
        (doublings if worse else halvings).append(text)
        coded[text] = said_as
    if who.has("petrified"):  # PHA-STS-15, Default PHA-AMB-36
        harmed_by = StatusData.of(who.conditions["petrified"]).harmed_by
        if harmed_by is not None and harmed_by == (element or "weapons"):
            halvings.append("petrified (PHA-AMB-36)")
        else:
            affinity = "immunity"
    base = sum(parts.values())
    factor = 1 + len(doublings)
    amount = max(0, base) * factor
    for _ in halvings:
        amount //= 2
    cut = sum((reduction or {}).values())
    amount = max(0, amount - cut)
    breakdown: dict[str, Any] = {
        **parts,
        "rolled": base,
        "factor": factor,
        "doublings": doublings,
        "halvings": halvings,
        "reduction": reduction or {},
    }
    if coded:
        breakdown["said"] = coded
    if affinity == "immunity":
        breakdown["immune"] = element or "petrified"
        amount = 0
    if affinity == "affinity":
        breakdown["absorbed"] = element
        breakdown["heals"] = amount  # Default PHA-AMB-18: the full damage, as PV
        amount = 0
    breakdown["total"] = amount
    return breakdown


def suffer(
    ctx: Context,
    combatant: str,
    parts: dict[str, Any],
    *,
    cause: int | None,
    rule: str,
    rolls: dict[str, Any] | None = None,
    doublings: list[str] | None = None,
    halvings: list[str] | None = None,
    reduction: dict[str, int] | None = None,
    element: str | None = None,
    coded: dict[str, Any] | None = None,
) -> int | None:
    """Damage through the pipeline, then its consequences; returns the position of the
    damage (or heal) event, None when nothing was dealt."""
    who = ctx.state.combatants[combatant]
    numbers = {
        k: v
        for k, v in parts.items()
        if isinstance(v, int) and not isinstance(v, bool) and k != "total"
    }
    breakdown = compute(
        who,
        numbers,
        doublings=doublings or [],
        halvings=halvings or [],
        reduction=reduction,
        element=element,
        double_if_unconscious=not parts.get("not doubled"),
        coded=coded,
    )
    breakdown["rule"] = rule
    if "multiplied" in parts:  # PHA-DMG-4: the dice rolled × the level, for the log
        breakdown["multiplied"] = parts["multiplied"]
    if breakdown.get("heals"):
        heal = min(breakdown["heals"], max(0, who.max_hits - who.hits))  # never above max
        at = ctx.emit(
            pe.Healed,
            cause=cause,
            combatant=who.id,
            amount=heal,
            hits_before=who.hits,
            hits_after=who.hits + heal,
            parts=numbers,
            rolls=rolls or {},  # the damage dice drawn stay on the record
            **said("affinity_heals", element=breakdown["absorbed"]),
        )
        wake_if_healed(ctx, who.id, at)
        return at
    if breakdown["total"] <= 0 and not breakdown.get("immune") and not rolls:
        return None  # nothing dealt and no die to keep
    was_down = who.has("unconscious")
    at = ctx.apply_damage(who.id, breakdown, cause=cause, rolls=rolls)
    if breakdown["total"] <= 0 or who.has("dead"):
        return at
    after_damage(ctx, who.id, at, was_down)
    return at


def after_damage(ctx: Context, combatant: str, cause: int, was_down: bool) -> None:
    """What damage does to him: a death check, unconsciousness, waking, concentration."""
    who = ctx.state.combatants[combatant]
    if was_down:  # PHA-DTH-3: a new death check for each instance
        death_check(
            ctx,
            who.id,
            cause,
            why=("hit again while unconscious", "recibe daño estando inconsciente"),
        )
    elif who.hits <= 0:
        fall_unconscious(ctx, who.id, cause)
    who = ctx.state.combatants[combatant]
    if who.has("asleep"):  # PHA-STS-17: damage wakes him; he stays Prone (PHA-AMB-33)
        end_status(
            ctx,
            cause=cause,
            combatant=who.id,
            status="asleep",
            reason=said("took_damage"),
        )
    if who.marks.sustaining is not None and not who.has("dead"):
        _keep_concentration(ctx, who, who.marks.sustaining, cause)


def _keep_concentration(ctx: Context, who: CombatantState, power: str, cause: int) -> None:
    """PHA-CONC-1: hurt while he sustains a power, a VIT check keeps it up (the fold drops
    it on a failure)."""
    check = roll_check(
        ctx,
        "concentration",
        check_parts(who, "vit"),
        statuses.die_for(who, "vit"),
        by=who.id,
        says=(
            f"{who.name} is hurt while sustaining {power}: VIT check to keep it up",
            f"{who.name} recibe daño mientras mantiene {power}: chequeo de VIT para mantenerlo",
        ),
    )
    record_check(
        ctx,
        cause=cause,
        combatant=who.id,
        purpose=said("concentration"),
        characteristic="vit",
        check={**check, "power": power},
        spent=None,
    )


def fall_unconscious(ctx: Context, combatant: str, cause: int) -> None:
    """PHA-DTH-2: at 0 PV or less he falls Unconscious (PHA-STS-8: Prone too) and at once
    makes a death check."""
    who = ctx.state.combatants[combatant]
    if not who.has("unconscious"):
        record_status(
            ctx,
            cause=cause,
            combatant=who.id,
            status="unconscious",
            reason=said("down"),  # no figure: players may not read his PV
        )
    lie_prone(ctx, who.id, cause, said("lies_down", status="unconscious", rule="PHA-STS-8"))
    death_check(
        ctx,
        who.id,
        cause,
        why=("falls unconscious", "cae inconsciente"),
    )


def lie_prone(ctx: Context, combatant: str, cause: int | None, reason: str | Said) -> None:
    who = ctx.state.combatants[combatant]
    if not who.has("prone"):
        record_status(
            ctx,
            cause=cause,
            combatant=who.id,
            status="prone",
            reason=reason,
        )


def death_check(
    ctx: Context,
    combatant: str,
    cause: int | None,
    *,
    reroll: bool = False,
    why: tuple[str, str] | None = None,
) -> bool:
    """PHA-DTH-2, -4: d100 ≤ the accumulated negative damage kills (at exactly 0 PV no
    d100 result can); returns whether he died. `why` he makes it, for the table."""
    who = ctx.state.combatants[combatant]
    negative = negative_damage(who)
    if reroll:
        why = ("re-rolled with a PHANTÄSIA point", "repetido con un punto de PHANTÄSIA")
    # no figure in what the table is asked: players may not read a GM's creature's PV
    en, es = why or ("unconscious", "inconsciente")
    kills_en, kills_es = "his negative damage or less kills him", "su daño negativo o menos lo mata"
    ask = Ask(
        who.id,
        f"{who.name}'s death check ({en}): 1d100, {kills_en}",
        f"Chequeo de muerte de {who.name} ({es}): 1d100, {kills_es}",
    )
    roll = roll_plain(ctx.dice, "death", 1, DEATH_DIE, ask)
    dies = roll.dice_total <= negative
    checked = ctx.emit(
        pe.DeathChecked,
        cause=cause,
        combatant=who.id,
        rolls={"death": roll.to_dict()},
        negative_damage=negative,
        dies=dies,
        reroll=reroll,
        moment=list(moment(ctx.state)),
    )
    if dies and not who.has("dead"):
        record_status(
            ctx,
            cause=checked,
            combatant=who.id,
            status="dead",
            reason=said("death_check", face=roll.dice_total),
        )
    if not dies and reroll and who.has("dead"):
        end_status(
            ctx,
            cause=checked,
            combatant=who.id,
            status="dead",
            reason=said("death_reroll_passed"),
        )
    return dies


def wake_if_healed(ctx: Context, combatant: str, cause: int) -> None:
    """PHA-DTH-5: he stays unconscious unless healing brings him to 1 PV or more."""
    who = ctx.state.combatants[combatant]
    if who.has("unconscious") and not who.has("dead") and who.hits >= 1:
        end_status(
            ctx,
            cause=cause,
            combatant=who.id,
            status="unconscious",
            reason=said("healed_pv"),
        )
