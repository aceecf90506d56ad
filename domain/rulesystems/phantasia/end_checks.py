"""The end-of-turn checks against his statuses (PHA-STS-0, -2, -3, -14, Default
PHA-AMB-11, -51) and the poison's damage when the check against it fails (PHA-STS-20)."""

from __future__ import annotations

from typing import Any

from domain.dice import Ask, dice_of, roll_plain
from domain.rulesystems.base import Context
from domain.rulesystems.phantasia import asks, damage, statuses
from domain.rulesystems.phantasia.checks import roll_check
from domain.rulesystems.phantasia.reasons import said
from domain.rulesystems.phantasia.record import end_status, record_check
from domain.rulesystems.phantasia.state import StatusData
from domain.rulesystems.phantasia.turns import check_parts, stats_of
from domain.state import CombatantState, Condition

END_CHECKS = {  # PHA-STS-0, from the statuses table; Poison: VIT (PHA-STS-20)
    **{name: spec["end_check"] for name, spec in statuses.STATUSES.items() if "end_check" in spec},
    "poisoned": ("vit",),
}


def end_checks(ctx: Context, combatant: str) -> None:
    """PHA-STS-0, -2, -3, -14, -20: each status that ends by a check rolls it at the end
    of his turn; a success ends it, a failed poison check does its damage."""
    for name in list(ctx.state.combatants[combatant].conditions):
        who = ctx.state.combatants[combatant]
        cond = who.conditions.get(name)
        if cond is None or not _end_check_due(who, name, cond):
            continue
        data = StatusData.of(cond)
        status = data.status_or(name)
        # Default PHA-AMB-51: the one the narrator named, else the higher score
        characteristic = data.end_check or max(
            END_CHECKS[status], key=lambda ch: stats_of(who).score(ch)
        )
        check, checked = _end_check(ctx, who, name, cond, characteristic)
        if check["success"]:
            end_status(
                ctx,
                cause=checked,
                combatant=who.id,
                status=name,
                reason=said(
                    "passed_check",
                    characteristic=characteristic.upper(),
                    rule=statuses.spec(status)["rule"],
                ),
            )
        elif status == "poisoned":
            _poison_damage(ctx, who, cond, characteristic.upper(), checked)


def _end_check_due(who: CombatantState, name: str, cond: Condition) -> bool:
    """A status that ends by a check, not by a number of turns from its power (Poison ends
    only by a check), applied before this turn: his first check ends his next (PHA-AMB-11)."""
    data = StatusData.of(cond)
    status = data.status_or(name)
    timed = cond.count is not None and status != "poisoned"
    if status not in END_CHECKS or timed:
        return False
    return data.since_turn < who.marks.turn


def _end_check(
    ctx: Context, who: CombatantState, name: str, cond: Condition, characteristic: str
) -> tuple[dict[str, Any], int]:
    """The end-of-turn check against a status, and the check recorded."""
    data = StatusData.of(cond)
    status = data.status_or(name)
    ch = characteristic.upper()
    poison_en = poison_es = ""
    if status == "poisoned" and data.amount is None:
        poison_en = f"; failed: {data.damage or '1d6'} poison damage"
        poison_es = f"; si falla: {data.damage or '1d6'} de daño de veneno"
    check = roll_check(
        ctx,
        name,
        check_parts(who, characteristic),
        statuses.die_for(who, characteristic),
        by=who.id,
        says=(
            f"{who.name}'s end-of-turn {ch} check against {asks.status_en(status)} "
            f"(a success ends it{poison_en})",
            f"Chequeo de {ch} de {who.name} al final de su turno contra "
            f"{asks.status_es(status)} (si lo supera, se acaba{poison_es})",
        ),
    )
    checked = record_check(
        ctx,
        combatant=who.id,
        purpose=said("end_of", status=name),
        characteristic=characteristic,
        check=check,
        spent=None,
    )
    return check, checked


def _poison_damage(
    ctx: Context, who: CombatantState, cond: Condition, ch: str, checked: int
) -> None:
    """PHA-STS-20: a failed check against Poison: its damage, the amount set or rolled."""
    data = StatusData.of(cond)
    amount = data.amount
    rolls: dict[str, Any] = {}
    if amount is None:
        count, sides = dice_of(data.damage or "1d6")
        dice = f"{count}d{sides}"
        roll = roll_plain(
            ctx.dice,
            "poison damage",
            count,
            sides,
            Ask(
                who.id,
                f"{who.name} failed his {ch} check against Poison: poison damage {dice}",
                f"{who.name} falló su chequeo de {ch} contra Veneno: daño de veneno {dice}",
            ),
        )
        amount, rolls = roll.total, {"poison damage": roll.to_dict()}
    damage.suffer(
        ctx,
        who.id,
        {"poison": amount, "total": amount},
        cause=checked,
        rule="PHA-STS-20",
        rolls=rolls,
    )
