"""Characteristic checks (PHA-ACT-12, PHA-CHK-1..3, -5) and opposed checks (PHA-CHK-4):
Grab, Snatch, Push, Knock Down and breaking free of a grab (PHA-ACT-7, -8, -14, -18,
PHA-STS-1)."""

from __future__ import annotations

from typing import Any

from domain.rulesystems.base import Context, with_situational
from domain.rulesystems.phantasia import commands as ph
from domain.rulesystems.phantasia import damage, figures, statuses
from domain.rulesystems.phantasia import events as pe
from domain.rulesystems.phantasia.checks import attacker_wins, roll_check, rolls_of
from domain.rulesystems.phantasia.points import spend_point
from domain.rulesystems.phantasia.reasons import said
from domain.rulesystems.phantasia.record import (
    end_status,
    offensive_action_taken,
    record_check,
    record_status,
)
from domain.rulesystems.phantasia.refusals import refused
from domain.rulesystems.phantasia.state import StatusData
from domain.rulesystems.phantasia.stats import adj
from domain.rulesystems.phantasia.turns import (
    check_action,
    check_parts,
    repeat_penalty,
    stats_of,
)
from domain.state import CombatantState

# what an opposed check tries, in the table's words: the attacker's (English, Spanish,
# {t} the target) and the defender's (Spanish)
CONTEST_WORDS = {
    "grab": ("grab {t}", "agarrar a {t}", "agarrarlo"),
    "snatch": ("snatch from {t}", "arrebatar algo a {t}", "arrebatarle algo"),
    "push": ("push {t}", "empujar a {t}", "empujarlo"),
    "knock_down": ("knock down {t}", "tumbar a {t}", "tumbarlo"),
    "escape": ("break free of {t}", "liberarse de {t}", "liberarse de él"),
}
# Default PHA-AMB-28: what is offensive unless the narrator marks otherwise
OFFENSIVE = {"grab": True, "snatch": True, "push": True, "knock_down": True, "escape": False}


def check(ctx: Context, cmd: ph.Check) -> None:
    """PHA-ACT-12, PHA-CHK-1..3, -5: a characteristic check; a PHANTÄSIA point makes it
    succeed (PHA-PP-2 b), the ally's own point if he helps (PHA-PP-4)."""
    state = ctx.state
    who = state.combatant(cmd.combatant)
    spent = None
    if cmd.as_action:
        spent = check_action(
            state,
            who,
            offensive=cmd.offensive,
            reaction=cmd.reaction,
            out_of_order=cmd.out_of_order,
        )
    parts = check_parts(who, cmd.characteristic)
    if spent:
        parts.update(repeat_penalty(who, spent))  # PHA-ACT-3: offensive checks too
    if cmd.power_user_level is not None:  # PHA-CHK-5, PHA-CORE-6
        bonus = max(0, stats_of(who).level - cmd.power_user_level)
        if bonus:
            parts["levels above the power's user"] = bonus
    parts = with_situational(parts, cmd.modifiers)
    if cmd.phantasia_point:
        payer = state.combatant(cmd.helped_by) if cmd.helped_by else who
        spend_point(ctx, payer, "auto_success", who)
    ch = cmd.characteristic.upper()
    purpose = "" if cmd.purpose == "check" else f" ({cmd.purpose})"
    result = roll_check(
        ctx,
        "check",
        parts,
        statuses.die_for(who, cmd.characteristic),
        auto_success=cmd.phantasia_point,
        by=who.id,
        says=(f"{who.name}'s {ch} check{purpose}", f"Chequeo de {ch} de {who.name}{purpose}"),
    )
    checked = record_check(
        ctx,
        combatant=who.id,
        purpose=said("check") if cmd.purpose == "check" else cmd.purpose,
        characteristic=cmd.characteristic,
        check=result,
        spent={**spent, "action": "check"} if spent else None,
    )
    if spent and cmd.offensive:
        offensive_action_taken(ctx, who.id, checked)


def contest(ctx: Context, cmd: ph.Contest) -> None:
    """Grab (PHA-ACT-7), Snatch (-8), Push (-14), Knock Down (-18), escaping a grab
    (PHA-STS-1): opposed checks (PHA-CHK-4, Default PHA-AMB-5). Both sides roll, a
    narrator's creature too (PHA-CORE-4, Default PHA-AMB-47)."""
    state = ctx.state
    who = state.combatant(cmd.combatant)
    target = state.combatant(cmd.target)
    _may_contest(cmd, who, target)
    spent = check_action(
        state,
        who,
        offensive=OFFENSIVE[cmd.kind],
        reaction=cmd.reaction,
        out_of_order=cmd.out_of_order,
    )
    mine_parts = with_situational(
        {**check_parts(who, cmd.characteristic), **repeat_penalty(who, spent)}, cmd.modifiers
    )
    if cmd.phantasia_point:
        spend_point(ctx, who, "auto_success", who)
    a = _attacker_roll(ctx, cmd, who, target, mine_parts)
    d = _defender_roll(ctx, cmd, who, target)
    wins = attacker_wins(a, d)
    effect = _effect(cmd, who, target) if wins else {}
    rolled = ctx.emit(
        pe.ContestRolled,
        combatant=who.id,
        target=target.id,
        kind=cmd.kind,
        attacker_check={**a, "characteristic": cmd.characteristic},
        defender_check={**d, "characteristic": cmd.target_characteristic},
        attacker_wins=wins,
        rolls=rolls_of(a, d),
        effect=effect,
        spent={**spent, "action": cmd.kind},
    )
    if OFFENSIVE[cmd.kind]:
        offensive_action_taken(ctx, who.id, rolled)
    if wins:
        _won(ctx, cmd, who, target, effect, rolled)


def _may_contest(cmd: ph.Contest, who: CombatantState, target: CombatantState) -> None:
    """The refusals before an opposed check: a living other side, FUE against FUE to push
    or knock down, no pushing the larger, breaking free only of the one who grabs him."""
    if target.has("dead"):
        raise refused("PHA-STS-13.target-dead", field="target", target=target.name)
    if target is who:
        raise refused("PHA-CHK-4.two-sides", field="target")
    ch, their_ch = cmd.characteristic, cmd.target_characteristic
    if cmd.kind in ("push", "knock_down") and (ch != "fue" or their_ch != "fue"):
        raise refused(
            "PHA-ACT-14.opposed-fue" if cmd.kind == "push" else "PHA-ACT-18.opposed-fue",
            field="characteristic",
        )
    if cmd.kind == "push" and stats_of(target).size > stats_of(who).size:
        raise refused("PHA-ACT-14.larger-push-only", field="target", target=target.name)
    grab = who.conditions.get("grabbed")
    by = StatusData.of(grab).by if grab is not None else None
    if cmd.kind == "escape" and (grab is None or by not in (None, target.id)):
        raise refused("PHA-STS-1.not-grabbed-by", field="target", who=who.name, target=target.name)


def _attacker_roll(
    ctx: Context,
    cmd: ph.Contest,
    who: CombatantState,
    target: CombatantState,
    parts: dict[str, int],
) -> dict[str, Any]:
    ch, their_ch = cmd.characteristic.upper(), cmd.target_characteristic.upper()
    en, es, _ = CONTEST_WORDS[cmd.kind]
    return roll_check(
        ctx,
        "attacker",
        parts,
        statuses.die_for(who, cmd.characteristic),
        auto_success=cmd.phantasia_point,
        by=who.id,
        says=(
            f"{who.name}'s {ch} to {en.format(t=target.name)}, against his "
            f"{their_ch} (the larger margin wins, a tie goes to the defender)",
            f"{ch} de {who.name} para {es.format(t=target.name)}, contra su "
            f"{their_ch} (gana el mayor margen; el empate, para el defensor)",
        ),
    )


def _defender_roll(
    ctx: Context, cmd: ph.Contest, who: CombatantState, target: CombatantState
) -> dict[str, Any]:
    their_ch = cmd.target_characteristic
    en, _, es_him = CONTEST_WORDS[cmd.kind]
    return roll_check(
        ctx,
        "defender",
        check_parts(target, their_ch),
        statuses.die_for(target, their_ch),
        by=target.id,
        says=(
            f"{target.name}'s {their_ch.upper()} against {who.name}'s attempt to "
            f"{en.format(t='him')}",
            f"{their_ch.upper()} de {target.name} contra {who.name}, que intenta {es_him}",
        ),
    )


def _effect(cmd: ph.Contest, who: CombatantState, target: CombatantState) -> dict[str, Any]:
    """What the attacker's win does: how far a push goes, what a snatch takes, whether a
    grabbed giant still moves freely."""
    mine, theirs = stats_of(who), stats_of(target)
    effect: dict[str, Any] = {}
    if cmd.kind == "push":  # PHA-ACT-14: FUE adjustment metres, minimum 1
        effect["metres"] = max(1, adj(mine, "fue", figures.score_change(who, "fue")))
    if cmd.kind == "snatch":
        effect["item"] = cmd.item or "what he held in one hand"
    if cmd.kind == "grab" and theirs.size >= 2 * max(mine.size, 1):
        effect["moves_freely"] = True  # PHA-ACT-7: twice the size or more
    return effect


def _won(
    ctx: Context,
    cmd: ph.Contest,
    who: CombatantState,
    target: CombatantState,
    effect: dict[str, Any],
    rolled: int,
) -> None:
    """The statuses a won contest puts on or ends: Grabbed, Prone, free of the grab."""
    if cmd.kind == "grab":
        record_status(
            ctx,
            cause=rolled,
            combatant=target.id,
            status="grabbed",
            data={"by": who.id, **effect},
            reason=said("grabbed_by", by=who.name),
        )
    elif cmd.kind == "knock_down":
        down = said("knocked_down_by", by=who.name, rule="PHA-ACT-18")
        damage.lie_prone(ctx, target.id, rolled, down)
    elif cmd.kind == "escape":
        end_status(
            ctx,
            cause=rolled,
            combatant=who.id,
            status="grabbed",
            reason=said("broke_free"),
        )
