"""The start and the end of a turn, and what happens at them: the fear check, the
Defense action ending, Overloaded, suffocation (in `suffocation`), the end-of-turn status
checks and poison (in `end_checks`), the statuses' durations (PHA-STS-0, -6, -18,
PHA-WPN-7, PHA-RX-1, -3, PHA-INIT-3)."""

from __future__ import annotations

from typing import Any

from domain import commands as c
from domain import events as ev
from domain.rulesystems.base import Context
from domain.rulesystems.phantasia import commands as ph
from domain.rulesystems.phantasia import events as pe
from domain.rulesystems.phantasia import statuses
from domain.rulesystems.phantasia.attacks import pending_attack
from domain.rulesystems.phantasia.checks import roll_check
from domain.rulesystems.phantasia.end_checks import end_checks
from domain.rulesystems.phantasia.reasons import said
from domain.rulesystems.phantasia.record import end_status, record_check
from domain.rulesystems.phantasia.refusals import refused
from domain.rulesystems.phantasia.state import StatusData
from domain.rulesystems.phantasia.stats import overloaded
from domain.rulesystems.phantasia.suffocation import suffocation
from domain.rulesystems.phantasia.turns import (
    acting,
    action_count,
    actions_left,
    check_parts,
    next_up,
    options_of,
    stats_of,
    surprise_due,
    unplaced,
)
from domain.state import CombatantState, EncounterState


def start_turn(ctx: Context, cmd: ph.StartTurn) -> None:
    """His turn starts: the fear check (PHA-STS-18), his actions (one in a surprise round,
    PHA-SURP-1), a prepared action lost (PHA-RX-3), Defense over (PHA-STS-6), Overloaded
    (PHA-WPN-7), suffocation (PHA-SUF); time does not pass for the petrified."""
    state = ctx.state
    who = _whose_turn(state, cmd)
    surprise = who.marks.surprise == "due"
    turn = who.marks.turn + (0 if surprise else 1)
    paused = who.has("petrified")  # Default PHA-AMB-34: time does not pass for him
    fear = None
    if who.has("fear") and not paused and statuses.can_act(who):
        fear = _fear_check(ctx, who)  # PHA-STS-18
    count = action_count(who)
    if surprise:
        count = min(count, 1)  # PHA-SURP-1: exactly one action
    prepared = who.marks.prepared
    started = ctx.emit(
        pe.TurnStarted,
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
        _fear_recorded(ctx, who, fear, count, started)
    if who.has("defense"):  # PHA-STS-6: normally until the start of his next turn
        end_status(
            ctx,
            cause=started,
            combatant=who.id,
            status="defense",
            reason=said("next_turn"),
        )
    _overload(ctx, state, who, turn, started)
    if who.has("suffocating") and not paused and not surprise:
        suffocation(ctx, who.id, started)


def _whose_turn(state: EncounterState, cmd: ph.StartTurn) -> CombatantState:
    """PHA-INIT-1, -2: no turn under way, initiative rolled, and he is next."""
    now = acting(state)
    if now is not None:
        raise refused("PHA-INIT-2.turn-under-way", now=now.name)
    if unplaced(state) and not surprise_due(state):
        missing = ", ".join(w.name for w in unplaced(state))
        raise refused("PHA-INIT-1.roll-initiative-first", missing=missing)
    up = next_up(state)
    who = state.combatant(cmd.combatant) if cmd.combatant else up
    if who is None or who is not up:
        raise refused(
            "PHA-INIT-2.next-turn" if up else "PHA-INIT-2.nobody-left",
            field="combatant",
            up=up.name if up else None,
        )
    return who


def _fear_check(ctx: Context, who: CombatantState) -> dict[str, Any]:
    """PHA-STS-18: a CA check at the start of each of his turns; failed, he cannot act."""
    return roll_check(
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


def _fear_recorded(
    ctx: Context, who: CombatantState, fear: dict[str, Any], count: int, started: int
) -> None:
    feared = record_check(
        ctx,
        cause=started,
        combatant=who.id,
        purpose=said("fear"),
        characteristic="ca",
        check=fear,
        spent=None,
    )
    if not fear["success"] and count:  # PHA-STS-18: he cannot act this turn
        ctx.emit(
            pe.ActionsLost,
            cause=feared,
            combatant=who.id,
            actions=count,
            reason="failed his CA check against Fear (PHA-STS-18)",
        )


def _overload(
    ctx: Context, state: EncounterState, who: CombatantState, turn: int, started: int
) -> None:
    """PHA-WPN-7, Default PHA-AMB-53: Weakness (d20) and MO −3 while overloaded."""
    stats = stats_of(who)
    if who.marks.carried_kg is not None:
        stats = stats.model_copy(update={"carried_kg": who.marks.carried_kg})
    if overloaded(stats, options_of(state).load_rule) and not who.has("overloaded"):
        ctx.emit(
            pe.StatusApplied,
            cause=started,
            combatant=who.id,
            status="overloaded",
            kind="overloaded",
            turns=None,
            data={"kind": "harmful", "since_turn": turn},
            **said("overloaded", kg=stats.carried_kg, fue=stats.fue),
        )


def end_turn(ctx: Context, cmd: c.EndTurn) -> None:
    """End his turn: the end-of-turn checks of his statuses (PHA-STS-2, -3, -14, -20), then
    their durations run one of his turns (PHA-STS-0, Default PHA-AMB-11); the round ends
    after the last turn of the order."""
    state = ctx.state
    who = state.combatant(cmd.combatant)
    if acting(state) is not who:
        raise refused("PHA-INIT-2.not-his-turn", field="combatant", who=who.name)
    waiting = pending_attack(state)
    if waiting is not None:
        raise refused("PHA-DMG-1.attack-open-at-turn-end", waiting_id=waiting.id)
    surprise = who.marks.surprise == "acting"
    if not surprise and not who.has("petrified"):
        end_checks(ctx, who.id)
        _durations(ctx, who.id)
    _deferred_take_hold(ctx, who.id)
    who = ctx.state.combatants[who.id]
    ctx.emit(ev.TurnEnded, combatant=who.id, actions_left=actions_left(who))
    state = ctx.state
    if not surprise and next_up(state) is None and not unplaced(state):
        ctx.emit(ev.RoundEnded, round=state.round, lost_actions=[])


def _deferred_take_hold(ctx: Context, combatant: str) -> None:
    """PHA-INIT-3 (Default PHA-AMB-8): what a simultaneous partner's turn did to him takes
    hold once his own turn, at the same time, is over."""
    who = ctx.state.combatants[combatant]
    for name, cond in list(who.conditions.items()):
        if StatusData.of(cond).deferred:
            ctx.emit(
                pe.StatusTicked,
                combatant=who.id,
                status=name,
                turns_before=cond.count,
                turns_after=cond.count,
                data={"deferred": False},
            )


def _durations(ctx: Context, combatant: str) -> None:
    who = ctx.state.combatants[combatant]
    turn = who.marks.turn
    for name, cond in list(who.conditions.items()):
        if cond.count is None or StatusData.of(cond).since_turn >= turn:
            continue  # it counts his turns that start after it was applied
        after = cond.count - 1
        ticked = ctx.emit(
            pe.StatusTicked,
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
                reason=said("over"),
            )
