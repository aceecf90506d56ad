"""Statuses put on a combatant: by the narrator or a power, with a resist check first where
the power allows one (PHA-STS, PHA-CHK-5), at most three beneficial ones (PHA-STK-3); the
load he carries (PHA-WPN-7)."""

from __future__ import annotations

from typing import Any

from domain.rulesystems.base import Context, with_situational
from domain.rulesystems.phantasia import asks, damage, statuses
from domain.rulesystems.phantasia import commands as ph
from domain.rulesystems.phantasia import events as pe
from domain.rulesystems.phantasia.attack_state import PhantasiaAttack
from domain.rulesystems.phantasia.checks import roll_check
from domain.rulesystems.phantasia.points import spend_point, valid_dice
from domain.rulesystems.phantasia.reasons import Said, said
from domain.rulesystems.phantasia.record import end_status, record_check, record_status
from domain.rulesystems.phantasia.refusals import refused
from domain.rulesystems.phantasia.state import StatusData
from domain.rulesystems.phantasia.turns import check_parts, options_of, stats_of
from domain.state import CombatantState, EncounterState


def since(who: CombatantState) -> dict[str, Any]:
    """The turn a status is applied in: it counts his turns that start after it."""
    return {"since_turn": who.marks.turn}


def apply_status(ctx: Context, cmd: ph.ApplyStatus) -> None:
    """PHA-STS: a status with its duration in his own turns (PHA-STS-0) or its ending
    check; a resist check first if the power allows one (PHA-CHK-5); at most three
    beneficial statuses (PHA-STK-3)."""
    who = ctx.state.combatant(cmd.combatant)
    if cmd.status not in statuses.NAMES:
        raise refused(
            "PHA-STS-0.unknown-status",
            field="status",
            status=cmd.status,
            known=", ".join(sorted(statuses.NAMES)),
        )
    name = _named(cmd)
    data = _status_data(cmd, who)
    cause = None
    if cmd.resist is not None:
        resisted, cause = _resist(ctx, cmd, who, name, cmd.resist)
        if resisted:
            return
    turns, why = _duration(ctx.state, cmd, who)
    add_status(
        ctx,
        who,
        name=name,
        kind=cmd.status,
        turns=turns,
        data=data,
        reason=why,
        replace=cmd.replace,
        cause=cause,
    )


def _named(cmd: ph.ApplyStatus) -> str:
    """The status's name: a magic names itself (PHA-STK-1), apart from the computed parts."""
    if cmd.status != statuses.MAGIC:
        return cmd.status
    if not cmd.name or not cmd.modifiers or cmd.beneficial is None:
        raise refused("PHA-STK-1.magic-names-itself", field="name")
    if cmd.name in statuses.STATUSES or statuses.clashes(cmd.name):
        raise refused("PHA-STK-1.names-status-computed", field="name", name=cmd.name)
    return cmd.name


def _status_data(cmd: ph.ApplyStatus, who: CombatantState) -> dict[str, Any]:
    """What the status keeps: its kind, a magic's modifiers, the check that ends it, the
    poison's damage, what harms the petrified, the weakness's reduction, the breath held."""
    data: dict[str, Any] = {**since(who)}
    if cmd.status == statuses.MAGIC:
        data.update(kind="beneficial" if cmd.beneficial else "harmful", modifiers=cmd.modifiers)
        if cmd.item:
            data["item"] = True
    else:
        data["kind"] = statuses.spec(cmd.status)["kind"]
    if cmd.end_check is not None:  # PHA-STS-0, Default PHA-AMB-51
        data["end_check"] = _offered_end_check(cmd.status, cmd.end_check)
    if cmd.status == "poisoned":
        data["damage"] = "1d6" if cmd.damage is None else valid_dice(cmd.damage, "damage")
    if cmd.status == "petrified" and cmd.harmed_by:
        data["harmed_by"] = cmd.harmed_by
    if cmd.status == "weakness" and cmd.reduction:
        data["reduction"] = cmd.reduction
    if cmd.status == "suffocating":
        data.update(held=0, breath=stats_of(who).vit)
    return data


def _offered_end_check(status: str, named: str) -> str:
    """Default PHA-AMB-51: the narrator may name one of the checks the status offers."""
    offered = statuses.spec(status).get("end_check", ())
    if named not in offered:
        shown = " or ".join(ch.upper() for ch in offered)
        raise refused(
            "PHA-AMB-51.ended-by" if offered else "PHA-AMB-51.no-choice",
            field="end_check",
            status=status,
            shown=shown,
            offered=offered,
            named=named.upper(),
        )
    return named


def _resist(
    ctx: Context, cmd: ph.ApplyStatus, who: CombatantState, name: str, characteristic: str
) -> tuple[bool, int]:
    """The resist check on `characteristic` (PHA-CHK-5: levels above the power's user
    add): whether he resisted, and the check recorded."""
    parts = check_parts(who, characteristic)
    if cmd.by is not None:  # PHA-CHK-5
        user = ctx.state.combatant(cmd.by)
        bonus = max(0, stats_of(who).level - stats_of(user).level)
        if bonus:
            parts["levels above the power's user"] = bonus
    parts = with_situational(parts, cmd.modifiers_check)
    if cmd.resist_point:
        spend_point(ctx, who, "auto_success", who)
    shown = name if cmd.status == statuses.MAGIC else None
    result = roll_check(
        ctx,
        "resist",
        parts,
        statuses.die_for(who, characteristic),
        auto_success=cmd.resist_point,
        by=who.id,
        says=(
            f"{who.name} resists {shown or asks.status_en(name)}: {characteristic.upper()} "
            "check (a success avoids it)",
            f"{who.name} resiste {shown or asks.status_es(name)}: chequeo de "
            f"{characteristic.upper()} (si lo supera, lo evita)",
        ),
    )
    resisted = record_check(
        ctx,
        combatant=who.id,
        purpose=said("resist", status=name),
        characteristic=characteristic,
        check=result,
        spent=None,
    )
    return bool(result["success"]), resisted


def _duration(
    state: EncounterState, cmd: ph.ApplyStatus, who: CombatantState
) -> tuple[int | None, str | Said]:
    """His turns the status lasts, and why: PHA-CRIT-7, a fumbled DF/DM doubles it."""
    turns, reason = cmd.turns, cmd.reason or ""
    if cmd.from_attack is None:
        return turns, reason
    fumbled = [
        r
        for r in PhantasiaAttack.of(state.action(cmd.from_attack)).results
        if r.target == who.id and r.rolled_by == "defender" and r.fumble
    ]
    if fumbled and turns:  # PHA-CRIT-7: a fumbled DF/DM doubles the effect's duration
        return turns * 2, said("duration_doubled", typed=reason)
    return turns, reason


def add_status(
    ctx: Context,
    who: CombatantState,
    *,
    name: str,
    kind: str,
    turns: int | None,
    data: dict[str, Any],
    reason: str | Said,
    replace: str | None,
    cause: int | None,
) -> None:
    """The status recorded, a beneficial one making way if he holds three (PHA-STK-3);
    asleep, unconscious or dead, he lies prone."""
    who = ctx.state.combatants[who.id]
    if data.get("kind") == "beneficial" and name not in who.conditions:
        _make_way(ctx, who, name, replace, cause)
    applied = record_status(
        ctx,
        cause=cause,
        combatant=who.id,
        status=name,
        kind=kind,
        turns=turns,
        data=data,
        reason=reason,
    )
    if kind in ("asleep", "unconscious", "dead"):  # PHA-STS-8, -13, -17: lies prone
        lies = said("lies_down", status=kind, rule=statuses.spec(kind)["rule"])
        damage.lie_prone(ctx, who.id, applied, lies)


def _make_way(
    ctx: Context, who: CombatantState, name: str, replace: str | None, cause: int | None
) -> None:
    """PHA-STK-3: at most three beneficial statuses; a fourth replaces the one named (or
    the one with the least time left)."""
    held = statuses.beneficial(who)
    if len(held) < statuses.MAX_BENEFICIAL:
        return
    if replace is None:
        raise refused("PHA-STK-3.three-beneficial", field="replace", who=who.name, held=held)
    ending = least_time(who, held) if replace == "least_time" else replace
    if ending not in held:
        raise refused("PHA-STK-3.not-beneficial", field="replace", replace=replace)
    end_status(
        ctx,
        cause=cause,
        combatant=who.id,
        status=ending,
        reason=said("makes_way", status=name),
    )


def least_time(who: CombatantState, names: list[str]) -> str:
    """The beneficial status with the least time left: turns left, the Defense action
    (until his next turn begins) counting as 1; open-ended ones last."""

    def left(n: str) -> tuple[float, int]:
        cond = who.conditions[n]
        if cond.count is not None:
            return (cond.count, 1)
        return (1, 0) if StatusData.of(cond).ends == "turn_start" else (float("inf"), 1)

    return min(names, key=left)


def set_load(ctx: Context, cmd: ph.SetLoad) -> None:
    """PHA-WPN-7 (Default PHA-AMB-53): above FUE score × 7 kg, Weakness (d20 on AT, DF, AM,
    DM) and MO −3 while overloaded; back within the limit, both end."""
    state = ctx.state
    who = state.combatant(cmd.combatant)
    if not options_of(state).load_rule:
        raise refused("PHA-WPN-7.load-rule-off", field="carried_kg")
    limit = stats_of(who).fue * 7
    over = cmd.carried_kg > limit
    done = ctx.emit(
        pe.ActionSpent,
        combatant=who.id,
        action="load",
        offensive=False,
        reaction=False,
        details={"carried_kg": cmd.carried_kg, "limit_kg": limit, "free": True},
    )
    if over and not who.has("overloaded"):
        add_status(
            ctx,
            who,
            name="overloaded",
            kind="overloaded",
            turns=None,
            data={"kind": "harmful", **since(who)},
            reason=said("overloaded_load", kg=cmd.carried_kg, limit=limit),
            replace=None,
            cause=done,
        )
    elif not over and who.has("overloaded"):
        end_status(
            ctx,
            cause=done,
            combatant=who.id,
            status="overloaded",
            reason=said("unloaded", limit=limit),
        )
