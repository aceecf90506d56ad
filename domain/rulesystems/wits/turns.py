"""The round: acting order by Wits, whose turn it is, two actions each
(WIT-RND-1, WIT-ACT-1, WIT-ORD-1..3, WIT-ORD-5)."""

from __future__ import annotations

from domain import commands as c
from domain import events as ev
from domain.dice import Ask, Die, Roll, attempt_of, roll_off, source_name
from domain.errors import RuleViolation
from domain.rulesystems.base import Context
from domain.rulesystems.wits import commands as wc
from domain.rulesystems.wits import events as we
from domain.rulesystems.wits.state import marks_of, round_marks_of
from domain.rulesystems.wits.stats import WitsOptions, WitsStats
from domain.state import ActionState, CombatantState, EncounterState, stats_as

ACTIONS_PER_ROUND = 2  # WIT-ACT-1
SECONDS_PER_ROUND = 2  # WIT-RND-1
TIE_DIE = 6  # Default WIT-AMB-15: each tied character rolls 1d6, higher first, ties reroll


def stats_of(who: CombatantState) -> WitsStats:
    return stats_as(who, WitsStats)  # validated once per stat block


def options_of(state: EncounterState) -> WitsOptions:
    return WitsOptions.model_validate(state.options)


def actions_used(who: CombatantState) -> int:
    return round_marks_of(who).actions_used


def actions_left(who: CombatantState) -> int:
    return max(0, ACTIONS_PER_ROUND - actions_used(who))


def is_down(state: EncounterState, who: CombatantState) -> bool:
    """Default WIT-AMB-11: at or below `down_at` (0) Current Health he is down until the GM
    rules his state: unconscious, dead, or fighting on (conditions he sets)."""
    below = who.hits <= options_of(state).down_at and not who.has("fighting_on")
    return below or who.has("unconscious") or who.has("dead")


def _rank(who: CombatantState) -> tuple[int, int, int]:
    """WIT-ORD-1: descending Wits; WIT-ORD-2: ties by the roll-off or the GM's order; then
    the order they joined."""
    return (-(who.ip or 0), -(who.ip_raw or 0), who.entry)


def order(state: EncounterState) -> list[CombatantState]:
    return sorted((c for c in state.combatants.values() if c.ip is not None), key=_rank)


def pending_attack(state: EncounterState) -> ActionState | None:
    """An attack announced and not yet rolled (WIT-ATK-1, -2)."""
    return next((a for a in state.actions if a.kind == "attack" and a.status == "pending"), None)


def turn_done(state: EncounterState, who: CombatantState) -> bool:
    return (
        round_marks_of(who).turn_over
        or round_marks_of(who).held
        or actions_left(who) == 0
        or is_down(state, who)
    )


def acting(state: EncounterState) -> CombatantState | None:
    """Whose turn it is: the first in the order whose turn is not over (WIT-ORD-5: he takes
    all his actions on his own turn)."""
    return next((w for w in order(state) if not turn_done(state, w)), None)


def unplaced(state: EncounterState) -> list[CombatantState]:
    return [c for c in state.combatants.values() if c.ip is None and not is_down(state, c)]


def check_turn(state: EncounterState, who: CombatantState, out_of_order: bool) -> None:
    """May `who` take an action now? On his turn, or at any later point if he held
    (WIT-ORD-3); the GM may rule otherwise (`out_of_order`, WIT-ORD-4)."""
    if who.ip is None:
        raise RuleViolation(
            "WIT-ORD-1",
            f"{who.name} has no place in the order yet: roll_initiative first",
            field="combatant",
        )
    if is_down(state, who):
        raise RuleViolation(
            "WIT-AMB-11",
            f"{who.name} is down; the GM rules his state",
            field="combatant",
        )
    waiting = pending_attack(state)
    if waiting is not None:
        raise RuleViolation(
            "WIT-ATK-2",
            f"attack {waiting.id} is announced: its target may defend, then roll_attack",
        )
    if out_of_order:
        return
    if round_marks_of(who).turn_over:
        raise RuleViolation("WIT-ORD-5", f"{who.name}'s turn is over", field="combatant")
    now = acting(state)
    if round_marks_of(who).held or now is who:
        return
    raise RuleViolation(
        "WIT-ORD-1",
        f"it is {now.name}'s turn (order by Wits)" if now else "every turn of this round is over",
        field="combatant",
    )


def check_actions(who: CombatantState, needed: int, what: str) -> None:
    left = actions_left(who)
    if left < needed:
        raise RuleViolation(
            "WIT-ACT-1",
            f"{what} needs {needed} action{'s' if needed > 1 else ''}; "
            f"{who.name} has {left} left this round",
            field="combatant",
        )


MAX_AIM = 5  # WIT-AIM-3: up to 5 consecutive actions, +5


def aim_of(who: CombatantState) -> int:
    """The aiming bonus his next attack gets (WIT-AIM-1, at most +5 by WIT-AIM-3)."""
    return min(marks_of(who).aim, MAX_AIM)


def lose_aim(ctx: Context, who: CombatantState, reason: str, cause: int) -> None:
    """WIT-AIM-2, WIT-AIM-5: anything but the attack (or a stun, a knock-back) loses the
    accumulated aiming bonus."""
    aim = marks_of(who).aim
    if aim:
        ctx.emit(we.AimLost, cause=cause, combatant=who.id, aim=aim, reason=reason)


# -- the acting order -------------------------------------------------------------------


def _roll_off(ctx: Context, tied: list[CombatantState]) -> tuple[list[str], dict[str, Roll]]:
    """Default WIT-AMB-15: each rolls 1d6, higher first; those who tie with each other roll
    again among themselves, as often as it takes. Returns the ids in order and the rolls."""
    faces: dict[str, list[int]] = {w.id: [] for w in tied}

    def roll(w: CombatantState, group: list[CombatantState]) -> int:
        others = " and ".join(o.name for o in group if o is not w)
        wits = w.stats.get("wits")
        if faces[w.id]:
            why = f"{w.name} and {others} tied again on {faces[w.id][-1]}: {w.name} rolls again"
        else:
            why = f"{w.name} is tied with {others} at Wits {wits}: {w.name} rolls"
        ask = Ask(w.id, f"{why} — 1d6, the higher acts first (ties roll again)")
        faces[w.id].append(ctx.dice.face(f"tie:{w.name}", TIE_DIE, ask))
        return faces[w.id][-1]

    order = [w.id for w in roll_off(tied, roll)]
    rolls = {
        w.id: Roll(
            name=f"tie:{w.name}",
            expression="1d6 roll-off, ties reroll",
            dice=(Die(TIE_DIE, tuple(faces[w.id]), faces[w.id][-1]),),
            source=source_name(ctx.dice, f"tie:{w.name}"),
            attempt=attempt_of(ctx.dice, f"tie:{w.name}"),
        )
        for w in tied
    }
    return order, rolls


def place(ctx: Context, cmd: wc.RollInitiative) -> None:
    """`roll_initiative` in the Wits system: each combatant's place is his Wits
    (WIT-ORD-1); ties are rolled off or ordered by the GM (WIT-ORD-2). Combatants placed
    together roll off; one placed later at a Wits others already hold acts after them
    (fraylog's default; the GM may reorder with `tie_order`)."""
    state = ctx.state
    if cmd.ip is not None or cmd.modifiers:
        raise RuleViolation(
            "WIT-ORD-1",
            "Wits sets the order: nothing is rolled or entered but ties (tie_order)",
            field="ip" if cmd.ip is not None else "modifiers",
        )
    if cmd.tie_order is not None:
        if cmd.combatant is not None:
            raise RuleViolation(
                "WIT-ORD-2", "tie_order names its combatants itself", field="combatant"
            )
        _order_ties(ctx, cmd.tie_order)
        return
    due = unplaced(state)
    if cmd.combatant is not None:
        who = state.combatant(cmd.combatant)
        if who not in due:
            why = "is down" if is_down(state, who) else f"already has his place (Wits {who.ip})"
            raise RuleViolation("WIT-ORD-1", f"{who.name} {why}", field="combatant")
        due = [who]
    elif not due:
        raise RuleViolation("WIT-ORD-1", "every combatant already has his place in the order")
    for wits in sorted({stats_of(w).wits for w in due}, reverse=True):
        newcomers = [w for w in due if stats_of(w).wits == wits]
        there = [w.ip_raw or 0 for w in state.combatants.values() if w.ip == wits]
        order, rolls = _roll_off(ctx, newcomers) if len(newcomers) > 1 else ([newcomers[0].id], {})
        below = min(there) - 1 if there else len(order)  # after those placed before
        for rank, combatant in enumerate(order):
            roll = rolls.get(combatant)
            ctx.emit(
                ev.InitiativeRolled,
                combatant=combatant,
                ip=wits,
                raw=below - rank if there or roll else None,
                rolls={roll.name: roll.to_dict()} if roll else {},
                modifiers={"rank among equals": rank + 1} if roll else {},
                entered=False,
            )


def _order_ties(ctx: Context, ids: list[str]) -> None:
    """WIT-ORD-2: the GM decides who completes first among combatants tied on Wits."""
    state = ctx.state
    group = [state.combatant(i) for i in ids]
    if len({w.id for w in group}) != len(group) or len(group) < 2:
        raise RuleViolation(
            "WIT-ORD-2", "tie_order names two or more different combatants", field="tie_order"
        )
    wits = {stats_of(w).wits for w in group}
    if len(wits) != 1:
        raise RuleViolation(
            "WIT-ORD-2", "tie_order orders combatants tied on Wits only", field="tie_order"
        )
    (value,) = wits
    tied = [w for w in state.combatants.values() if stats_of(w).wits == value and w.ip is not None]
    missing = sorted(w.name for w in tied if w not in group)
    if missing:
        raise RuleViolation(
            "WIT-ORD-2",
            f"tie_order must order every combatant tied at Wits {value}: {', '.join(missing)} "
            "missing",
            field="tie_order",
        )
    for i, w in enumerate(group):
        ctx.emit(
            ev.InitiativeRolled,
            combatant=w.id,
            ip=value,
            raw=len(group) - i,
            rolls={},
            modifiers={"rank among equals": i + 1},
            entered=True,
        )


def end_round(ctx: Context, cmd: c.EndRound) -> None:
    """The round's 2 seconds are over (WIT-RND-1); unused actions are gone."""
    waiting = pending_attack(ctx.state)
    if waiting is not None:
        raise RuleViolation(
            "WIT-ATK-4", f"attack {waiting.id} is announced: roll it before the round ends"
        )
    ctx.emit(ev.RoundEnded, round=ctx.state.round, lost_actions=[])
