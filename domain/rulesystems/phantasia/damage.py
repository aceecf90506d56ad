"""Damage, unconsciousness and death (PHA-DMG-6, -7, -11, PHA-DTH-1..5, PHA-CONC-1,
PHA-STS-8, -13, -17)."""

from __future__ import annotations

from typing import Any

from domain import events as ev
from domain.dice import Ask, roll_plain
from domain.rulesystems.base import Context
from domain.rulesystems.phantasia import statuses
from domain.rulesystems.phantasia.checks import roll_check
from domain.rulesystems.phantasia.record import end_status, record_check, record_status
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
    if affinity == "vulnerability":  # PHA-DMG-7, PHA-FOE-6
        doublings.append(f"vulnerable to {element} (PHA-DMG-7)")
    if affinity == "resistance":
        halvings.append(f"resistant to {element} (PHA-DMG-7)")
    if who.has("petrified"):  # PHA-STS-15, Default PHA-AMB-36
        harmed_by = who.conditions["petrified"].data.get("harmed_by")
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
    )
    breakdown["rule"] = rule
    if "multiplied" in parts:  # PHA-DMG-4: the dice rolled × the level, for the log
        breakdown["multiplied"] = parts["multiplied"]
    if breakdown.get("heals"):
        heal = min(breakdown["heals"], max(0, who.max_hits - who.hits))  # never above max
        at = ctx.emit(
            ev.Healed,
            cause=cause,
            combatant=who.id,
            amount=heal,
            hits_before=who.hits,
            hits_after=who.hits + heal,
            parts=numbers,
            rolls=rolls or {},  # the damage dice drawn stay on the record
            reason=f"affinity to {breakdown['absorbed']}: the damage heals (PHA-DMG-7)",
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
            reason="he took damage (PHA-STS-17)",
        )
    if who.marks.get("sustaining") and not who.has("dead"):
        power = who.marks["sustaining"]
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
            purpose="concentration",
            characteristic="vit",
            check={**check, "power": who.marks["sustaining"]},
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
            reason="PV ≤ 0 (PHA-DTH-2)",  # no figure: players may not read his PV
        )
    lie_prone(ctx, who.id, cause, "unconscious (PHA-STS-8)")
    death_check(
        ctx,
        who.id,
        cause,
        why=("falls unconscious", "cae inconsciente"),
    )


def lie_prone(ctx: Context, combatant: str, cause: int | None, reason: str) -> None:
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
        ev.DeathChecked,
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
            reason=f"death check d100 {roll.dice_total} (PHA-DTH-2)",
        )
    if not dies and reroll and who.has("dead"):
        end_status(
            ctx,
            cause=checked,
            combatant=who.id,
            status="dead",
            reason="the re-rolled death check passed (PHA-DTH-6)",
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
            reason="PV ≥ 1 (PHA-DTH-5)",
        )
