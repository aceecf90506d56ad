"""The fumble table (PHA-CRIT-4, -5): the d6 an attacker rolls when his attack fumbled, and
its mishap."""

from __future__ import annotations

from typing import Any

from domain.dice import Ask, roll_plain
from domain.rulesystems.base import Context
from domain.rulesystems.phantasia import commands as ph
from domain.rulesystems.phantasia import damage, messages
from domain.rulesystems.phantasia import events as pe
from domain.rulesystems.phantasia.asks import means_en, means_es
from domain.rulesystems.phantasia.attack_state import PhantasiaAttack
from domain.rulesystems.phantasia.attacks import pending_attack, pm_change
from domain.rulesystems.phantasia.reasons import said
from domain.rulesystems.phantasia.record import record_status
from domain.rulesystems.phantasia.refusals import refused
from domain.rulesystems.phantasia.turns import pm_of, stats_of
from domain.state import ActionState, CombatantState

FUMBLE_DIE = 6  # PHA-CRIT-5
POWER_LOCK_DIE = 4  # PHA-CRIT-5 result 1: a power unusable 1d4 turns
FUMBLES = {n: str(m.en) for n, m in messages.FUMBLES.items()}  # the d6 → its effect


def roll_fumble(ctx: Context, cmd: ph.RollFumble) -> None:
    """PHA-CRIT-4, -5: the open attack fumbled: its d6 on the table, then the mishap."""
    action = pending_attack(ctx.state)
    if action is None or not PhantasiaAttack.of(action).fumble_due:
        raise refused("PHA-CRIT-4.attack-fumbled-nothing")
    who = ctx.state.combatants[action.combatant]
    if cmd.choice == "pm" and pm_of(who) < 1:  # asked before the die, so no draw is lost
        raise refused("PHA-CRIT-5.no-pm-left", field="choice", who=who.name)
    roll = roll_plain(ctx.dice, "fumble", 1, FUMBLE_DIE, _ask_fumble(who, action))
    result = roll.dice_total  # Default PHA-AMB-9: numbered in printed order
    details, more_rolls = _mishap(ctx, who, action, result, cmd.choice)
    at = ctx.emit(
        pe.FumbleRolled,
        cause=action.origin,  # voiding the fumbled attack voids its mishap
        combatant=who.id,
        action=action.id,
        rolls={"fumble": roll.to_dict(), **more_rolls},
        result=result,
        effect=FUMBLES[result],
        details=details,
    )
    _suffer_mishap(ctx, who, result, details, at)


def _ask_fumble(who: CombatantState, action: ActionState) -> Ask:
    attack = PhantasiaAttack.of(action)
    means = (means_en(attack.weapon, attack.power), means_es(attack.weapon, attack.power))
    return Ask(
        who.id,
        f"{who.name} fumbled his attack with {means[0]}: 1d6 on the fumble table",
        f"{who.name} pifió su ataque con {means[1]}: 1d6 en la tabla de pifias",
    )


def _mishap(
    ctx: Context, who: CombatantState, action: ActionState, result: int, choice: str | None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """What the result does, as the fold keeps it (its details), and any further die."""
    attack = PhantasiaAttack.of(action)
    if result == 1 and attack.power:  # his power is locked 1d4 of his turns
        power_name = attack.power
        lock = roll_plain(
            ctx.dice,
            "power lock",
            1,
            POWER_LOCK_DIE,
            Ask(
                who.id,
                f"{who.name}'s fumble, result 1: {power_name} is unusable for 1d4 of his turns",
                f"Pifia de {who.name}, resultado 1: {power_name} queda inutilizable 1d4 "
                "de sus turnos",
            ),
        )
        details = {
            "power_locked": power_name,
            "turns": lock.dice_total,
            "available_from": who.marks.turn + lock.dice_total + 1,
        }
        return details, {"power lock": lock.to_dict()}
    if result == 1 and attack.weapon:  # he drops his weapon
        return {"dropped": attack.weapon}, {}
    if result == 5:  # his target gets a free attack on him, at once
        return {"free_attack_for": attack.targets[0]}, {}
    if result == 6:  # he loses 1 PM or a quarter of his PV, as he chose
        return {"choice": choice or "pv"}, {}
    return {}, {}


def _suffer_mishap(
    ctx: Context, who: CombatantState, result: int, details: dict[str, Any], fumbled: int
) -> None:
    """The mishaps the fold does not keep in his marks: prone, a status, PM or PV lost."""
    if result == 2:
        damage.lie_prone(ctx, who.id, fumbled, said("fumble_result", result=2))
    elif result in (3, 4):  # "until the end of his next turn" (Default PHA-AMB-11)
        name = "fumble_defense" if result == 3 else "fumble_attack"
        record_status(
            ctx,
            cause=fumbled,
            combatant=who.id,
            status=name,
            turns=1,
            reason=said("fumble_result", result=result),
        )
    elif result == 6:
        if details["choice"] == "pm":
            pm_change(ctx, who.id, -1, said("fumble_pm"), fumbled)
        else:  # Default PHA-AMB-23: floor(max PV / 4), applied like damage
            quarter = stats_of(who).pv // 4
            damage.suffer(
                ctx,
                who.id,
                {"a quarter of max PV": quarter},
                cause=fumbled,
                rule="PHA-CRIT-5",
            )
