"""The start and the end of a turn, and what happens at them: the fear check, the
Defense action ending, suffocation, the end-of-turn status checks, poison and the
statuses' durations (PHA-STS-0, -2, -3, -6, -14, -18, -20, PHA-SUF, PHA-RX-1, -3)."""

from __future__ import annotations

from domain import commands as c
from domain import events as ev
from domain.dice import Ask, dice_of, roll_plain
from domain.rulesystems.base import Context
from domain.rulesystems.phantasia import asks, damage, statuses
from domain.rulesystems.phantasia.attacks import pending_attack
from domain.rulesystems.phantasia.checks import roll_check
from domain.rulesystems.phantasia.record import end_status, record_check
from domain.rulesystems.phantasia.stats import overloaded
from domain.rulesystems.phantasia.turns import (
    acting,
    action_count,
    actions_left,
    check_parts,
    next_up,
    options_of,
    refuse,
    stats_of,
    surprise_due,
    unplaced,
)


def start_turn(ctx: Context, cmd: c.StartTurn) -> None:
    state = ctx.state
    now = acting(state)
    if now is not None:
        raise refuse(
            "PHA-INIT-2",
            f"{now.name}'s turn is under way: end_turn first",
            f"el turno de {now.name} está en curso: end_turn primero",
        )
    if unplaced(state) and not surprise_due(state):
        missing = ", ".join(w.name for w in unplaced(state))
        raise refuse(
            "PHA-INIT-1",
            f"roll initiative first: {missing}",
            f"tira primero la iniciativa: {missing}",
        )
    up = next_up(state)
    who = state.combatant(cmd.combatant) if cmd.combatant else up
    if who is None or who is not up:
        raise refuse(
            "PHA-INIT-2",
            f"it is {up.name}'s turn next" if up else "nobody has a turn left this round",
            f"el siguiente turno es de {up.name}" if up else "nadie tiene turno esta ronda",
            "combatant",
        )
    surprise = who.marks.get("surprise") == "due"
    turn = who.marks.get("turn", 0) + (0 if surprise else 1)
    paused = who.has("petrified")  # Default PHA-AMB-34: time does not pass for him
    fear = None
    if who.has("fear") and not paused and statuses.can_act(who):
        # PHA-STS-18: a CA check at the start of each of his turns; failed, he cannot act
        fear = roll_check(
            ctx,
            "fear",
            check_parts(who, "ca"),
            statuses.die_for(who, "ca"),
            by=who.id,
            says=(
                f"{who.name}'s turn starts in Fear: CA check (failed: he cannot act this turn)",
                f"{who.name} empieza su turno con Temor: chequeo de CA (si falla, no puede "
                "actuar este turno)",
            ),
        )
    count = action_count(who)
    if surprise:
        count = min(count, 1)  # PHA-SURP-1: exactly one action
    prepared = who.marks.get("prepared")
    started = ctx.emit(
        ev.TurnStarted,
        combatant=who.id,
        round=state.round,
        turn=turn,
        actions=count,
        surprise=surprise,
        prepared_lost=(prepared if isinstance(prepared, str) else "prepared action")
        if prepared
        else None,
    )
    if fear is not None:
        feared = record_check(
            ctx,
            cause=started,
            combatant=who.id,
            purpose="fear",
            characteristic="ca",
            check=fear,
            spent=None,
        )
        if not fear["success"] and count:  # PHA-STS-18: he cannot act this turn
            ctx.emit(
                ev.ActionsLost,
                cause=feared,
                combatant=who.id,
                actions=count,
                reason="failed his CA check against Fear (PHA-STS-18)",
            )
    if who.has("defense"):  # PHA-STS-6: normally until the start of his next turn
        end_status(
            ctx,
            cause=started,
            combatant=who.id,
            status="defense",
            reason="his next turn begins (PHA-ACT-13)",
        )
    stats = stats_of(who)
    if "carried_kg" in who.marks:
        stats = stats.model_copy(update={"carried_kg": who.marks["carried_kg"]})
    if overloaded(stats, options_of(state).load_rule) and not who.has("overloaded"):
        ctx.emit(  # PHA-WPN-7, Default PHA-AMB-53: Weakness (d20) and MO −3 while overloaded
            ev.StatusApplied,
            cause=started,
            combatant=who.id,
            status="overloaded",
            kind="overloaded",
            turns=None,
            data={"kind": "harmful", "since_turn": turn},
            reason=f"carries {stats.carried_kg} kg, more than FUE {stats.fue} × 7 kg (PHA-WPN-7)",
        )
    if who.has("suffocating") and not paused and not surprise:
        _suffocation(ctx, who.id, started)


def _suffocation(ctx: Context, combatant: str, cause: int) -> None:
    """PHA-SUF-1..4 (Default PHA-AMB-12): he holds his breath VIT turns; then a VIT check at
    the start of each turn at −1, −2, …; failed: PV 0, Unconscious, a death check; from his
    next turn on 5 negative damage a turn (not doubled), each with a death check."""
    who = ctx.state.combatants[combatant]
    cond = who.conditions["suffocating"]
    held = cond.data.get("held", 0) + 1
    breath = stats_of(who).vit
    ctx.emit(
        ev.StatusTicked,
        cause=cause,
        combatant=who.id,
        status="suffocating",
        turns_before=None,
        turns_after=None,
        data={"held": held},
    )
    if cond.data.get("out"):
        damage.suffer(
            ctx,
            who.id,
            {"suffocation": 5, "total": 5, "not doubled": True},
            cause=cause,
            rule="PHA-SUF-4",
        )
        return
    if held <= breath:
        return
    step = held - breath
    parts = {**check_parts(who, "vit"), "suffocation": -step}
    check = roll_check(
        ctx,
        "suffocation",
        parts,
        statuses.die_for(who, "vit"),
        by=who.id,
        says=(
            f"{who.name} has held his breath {held} turns (VIT {breath}): VIT check at "
            f"−{step} (failed: PV 0 and unconscious)",
            f"{who.name} lleva {held} turnos sin respirar (VIT {breath}): chequeo de VIT a "
            f"−{step} (si falla: PV 0 e inconsciente)",
        ),
    )
    checked = record_check(
        ctx,
        cause=cause,
        combatant=who.id,
        purpose="suffocation",
        characteristic="vit",
        check=check,
        spent=None,
    )
    if check["success"]:
        return
    ctx.emit(
        ev.StatusTicked,
        cause=checked,
        combatant=who.id,
        status="suffocating",
        turns_before=None,
        turns_after=None,
        data={"out": True},
    )
    who = ctx.state.combatants[combatant]
    if who.hits > 0:
        ctx.emit(
            ev.HitsAdjusted,
            cause=checked,
            combatant=who.id,
            amount=-who.hits,
            hits_before=who.hits,
            hits_after=0,
            reason="suffocation: PV set to 0 (PHA-SUF-3)",
        )
    damage.fall_unconscious(ctx, who.id, checked)


def end_turn(ctx: Context, cmd: c.EndTurn) -> None:
    """End his turn: the end-of-turn checks of his statuses (PHA-STS-2, -3, -14, -20), then
    their durations run one of his turns (PHA-STS-0, Default PHA-AMB-11); the round ends
    after the last turn of the order."""
    state = ctx.state
    who = state.combatant(cmd.combatant)
    if acting(state) is not who:
        raise refuse(
            "PHA-INIT-2",
            f"it is not {who.name}'s turn",
            f"no es el turno de {who.name}",
            "combatant",
        )
    waiting = pending_attack(state)
    if waiting is not None:
        raise refuse(
            "PHA-DMG-1",
            f"attack {waiting.id} is still open: roll_damage or roll_fumble before the turn ends",
            f"el ataque {waiting.id} sigue abierto: roll_damage o roll_fumble antes de terminar",
        )
    surprise = who.marks.get("surprise") == "acting"
    if not surprise and not who.has("petrified"):
        _end_checks(ctx, who.id)
        _durations(ctx, who.id)
    _deferred_take_hold(ctx, who.id)
    who = ctx.state.combatants[who.id]
    ctx.emit(ev.TurnEnded, combatant=who.id, actions_left=actions_left(who))
    state = ctx.state
    if not surprise and next_up(state) is None and not unplaced(state):
        ctx.emit(ev.RoundEnded, round=state.round, lost_actions=[])


END_CHECKS = {  # PHA-STS-0, from the statuses table; Poison: VIT (PHA-STS-20)
    **{name: spec["end_check"] for name, spec in statuses.STATUSES.items() if "end_check" in spec},
    "poisoned": ("vit",),
}


def _end_checks(ctx: Context, combatant: str) -> None:
    for name in list(ctx.state.combatants[combatant].conditions):
        who = ctx.state.combatants[combatant]
        cond = who.conditions.get(name)
        status = cond.data.get("status", name) if cond else name
        timed = cond is not None and cond.count is not None and status != "poisoned"
        if cond is None or status not in END_CHECKS or timed:  # Poison ends only by a check
            continue  # a status with a number of turns from its power ends by duration
        if cond.data.get("since_turn", 0) >= who.marks.get("turn", 0):
            continue  # applied during this turn: his first check ends his next (PHA-AMB-11)
        choices = END_CHECKS[status]
        # Default PHA-AMB-51: the one the narrator named, else the higher score
        characteristic = cond.data.get("end_check") or max(
            choices, key=lambda ch: stats_of(who).score(ch)
        )
        ch = characteristic.upper()
        poison_en = poison_es = ""
        if status == "poisoned" and cond.data.get("amount") is None:
            poison_en = f"; failed: {cond.data.get('damage') or '1d6'} poison damage"
            poison_es = f"; si falla: {cond.data.get('damage') or '1d6'} de daño de veneno"
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
            purpose=f"end of {name}",
            characteristic=characteristic,
            check=check,
            spent=None,
        )
        if check["success"]:
            end_status(
                ctx,
                cause=checked,
                combatant=who.id,
                status=name,
                reason=f"passed his {characteristic.upper()} check "
                f"({statuses.spec(status)['rule']})",
            )
        elif status == "poisoned":
            amount = cond.data.get("amount")
            if amount is None:
                count, sides = dice_of(cond.data.get("damage") or "1d6")
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
            else:
                rolls = {}
            damage.suffer(
                ctx,
                who.id,
                {"poison": amount, "total": amount},
                cause=checked,
                rule="PHA-STS-20",
                rolls=rolls,
            )


def _deferred_take_hold(ctx: Context, combatant: str) -> None:
    """PHA-INIT-3 (Default PHA-AMB-8): what a simultaneous partner's turn did to him takes
    hold once his own turn, at the same time, is over."""
    who = ctx.state.combatants[combatant]
    for name, cond in list(who.conditions.items()):
        if cond.data.get("deferred"):
            ctx.emit(
                ev.StatusTicked,
                combatant=who.id,
                status=name,
                turns_before=cond.count,
                turns_after=cond.count,
                data={"deferred": False},
            )


def _durations(ctx: Context, combatant: str) -> None:
    who = ctx.state.combatants[combatant]
    turn = who.marks.get("turn", 0)
    for name, cond in list(who.conditions.items()):
        if cond.count is None or cond.data.get("since_turn", 0) >= turn:
            continue  # it counts his turns that start after it was applied
        after = cond.count - 1
        ticked = ctx.emit(
            ev.StatusTicked,
            combatant=who.id,
            status=name,
            turns_before=cond.count,
            turns_after=after,
            data={},
        )
        if after <= 0:
            end_status(
                ctx,
                cause=ticked,
                combatant=who.id,
                status=name,
                reason="its duration is over (PHA-STS-0)",
            )
