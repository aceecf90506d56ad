"""A PHANTÄSIA point's re-roll of an attack's check (PHA-PP-2 a, PHA-PP-4)."""

from __future__ import annotations

from typing import Any

from domain.rulesystems.base import Context
from domain.rulesystems.phantasia import events as pe
from domain.rulesystems.phantasia.attack_state import PhantasiaAttack
from domain.rulesystems.phantasia.attacks import last_attack, pm_change
from domain.rulesystems.phantasia.checks import roll_check, rolls_of
from domain.rulesystems.phantasia.hits import critical_area, outcome
from domain.rulesystems.phantasia.reasons import said
from domain.rulesystems.phantasia.refusals import refused
from domain.rulesystems.phantasia.turns import moment
from domain.state import CombatantState


def reroll(ctx: Context, spend_point: Any, payer: CombatantState, helped: CombatantState) -> None:
    """PHA-PP-2 a, PHA-PP-4: re-roll the last AT, DF, AM or DM check `helped` made, after
    seeing it and before its damage or fumble is rolled; the second result stands."""
    action = last_attack(ctx.state)
    attack = PhantasiaAttack.of(action) if action else None
    results = attack.results if attack else []
    mine = [r for r in results if r.roller == helped.id and r.face is not None]
    settled = action is not None and action.status == "resolved" and any(r.follows for r in results)
    # "after seeing it": in the turn it was rolled, once (PHA-PP-2 a)
    stale = attack is not None and attack.moment != list(moment(ctx.state))
    if action is None or not mine or settled or stale or mine[0].rerolled:
        raise refused("PHA-PP-2.nothing-to-reroll", field="use", helped=helped.name)
    spent = spend_point(ctx, payer, "reroll", helped, action.origin)
    first = mine[0]
    assert first.die is not None, first  # a check rolled (it has its face) has its die
    name = first.check
    check = roll_check(
        ctx,
        "reroll",
        first.parts,
        first.die,
        by=helped.id,
        says=(
            f"{helped.name} re-rolls his {name} with a PHANTÄSIA point (the second result stands)",
            f"{helped.name} repite su {name} con un punto de PHANTÄSIA (vale el segundo resultado)",
        ),
        crits=True,
    )
    was = [r.as_result() for r in results]
    now = [
        outcome({**r, "rerolled": True}, check) if r.get("roller") == helped.id else dict(r)
        for r in was
    ]
    critical_area(now, None)
    rerolled = ctx.emit(
        pe.CheckRerolled,
        cause=spent,
        combatant=helped.id,
        action=action.id,
        results=now,
        replaced=was,
        rolls=rolls_of(check),
    )
    if check["critical"]:  # PHA-CRIT-3
        pm_change(ctx, helped.id, 1, said("natural_1"), rerolled)
