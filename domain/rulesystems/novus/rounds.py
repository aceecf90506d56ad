"""The round: initiative order, whose turn it is, and End Round upkeep
(NOV-INIT, NOV-SEQ, NOV-DECL-1, NOV-RES-1..2, NOV-HOLD-2..3, NOV-END-1..2, NOV-COND-5,
NOV-HITS-4)."""

from __future__ import annotations

from typing import Any

from domain import commands as c
from domain import events as ev
from domain.errors import RuleViolation
from domain.rulesystems.base import Context
from domain.rulesystems.novus import events as ne
from domain.rulesystems.novus.actions import BASE_AP, HASTED_AP
from domain.rulesystems.novus.combat import is_dead, is_dying
from domain.rulesystems.novus.state import (
    encounter_marks_of,
    has_declared,
    marks_of,
    round_marks_of,
)
from domain.state import ActionState, CombatantState, EncounterState

REROLL = "reroll_initiative"  # marks a combatant who prepared to reroll (NOV-RRI-1)


def effective_ip(state: EncounterState, who: CombatantState) -> int | None:
    """Base IP plus changes in force this round (NOV-INIT-4: they revert by themselves)."""
    if who.ip is None:
        return None
    return who.ip + sum(e.value for e in who.effects_for("ip", state.round))


def _rank(state: EncounterState, who: CombatantState) -> tuple[int, int, int, int]:
    """Sort key: highest IP first (NOV-RES-1); a holder acts at his chosen IP and first on
    ties (NOV-HOLD-2, -3); then higher raw 2d10, then entry order (Default NOV-AMB-8)."""
    held = round_marks_of(who).hold_ip
    ip = held if held is not None else effective_ip(state, who) or 0
    return (-ip, 0 if held is not None else 1, -(who.ip_raw or 0), who.entry)


def resolution_order(state: EncounterState) -> list[CombatantState]:
    ranked = [c for c in state.combatants.values() if c.ip is not None]
    return sorted(ranked, key=lambda c: _rank(state, c))


def declaration_order(state: EncounterState) -> list[CombatantState]:
    """NOV-DECL-1: lowest IP first (the reverse of the resolution order, before holds)."""
    ranked = [c for c in state.combatants.values() if c.ip is not None]
    return sorted(ranked, key=lambda c: (effective_ip(state, c) or 0, c.ip_raw or 0, -c.entry))


def must_declare(who: CombatantState, state: EncounterState) -> bool:
    """Who still declares this round: ranked, alive, not stunned (NOV-COND-3)."""
    return (
        who.ip is not None
        and not has_declared(state, who)
        and not is_dead(who)
        and not who.has("stunned")
    )


def next_declarer(state: EncounterState) -> CombatantState | None:
    return next((w for w in declaration_order(state) if must_declare(w, state)), None)


def needs_initiative(state: EncounterState) -> list[CombatantState]:
    """NOV-SEQ-2, NOV-AMB-9: combatants without an IP roll in step 1 of a round; so do
    those who prepared to reroll (NOV-RRI-1, Default NOV-AMB-30)."""
    return [
        c for c in state.combatants.values() if (c.ip is None or c.has(REROLL)) and not is_dead(c)
    ]


def is_blocked(state: EncounterState, action: ActionState) -> str | None:
    """Why an action can no longer resolve, with its rule, or None."""
    who = state.combatants[action.combatant]
    if is_dead(who):
        return "NOV-HITS-5: dead"
    if who.has("stunned"):
        return "NOV-COND-3: stunned, his declared actions do not resolve"
    if who.hits <= 0 and not (action.kind == "first_aid" and action.target == who.id):
        return "NOV-HITS-3: helpless, he can only try to stabilise himself"
    if action.weapon is not None and who.has("disarmed"):
        weapon = next((w for w in who.stats.get("weapons", []) if w["name"] == action.weapon), {})
        if weapon.get("kind") != "unarmed":
            return "NOV-BOON-2: disarmed (Disarm Foe), his weapon is gone"
    target = state.combatants.get(action.target or "")
    if action.weapon is not None and target is not None and is_dead(target):
        return f"NOV-HITS-5: {target.name}, his target, is dead"
    return None


def queue(state: EncounterState) -> list[ActionState]:
    """NOV-RES-1, -2: first actions by IP, then further attacks by IP; immediate first."""
    rank = {c.id: i for i, c in enumerate(resolution_order(state))}
    pending = [a for a in state.actions if a.status == "pending" and a.round == state.round]
    ordered = sorted(
        pending,
        key=lambda a: (not a.immediate, a.extra, rank.get(a.combatant, len(rank)), a.order),
    )
    return _longer_weapon_first(state, ordered)


def _longer_weapon_first(state: EncounterState, ordered: list[ActionState]) -> list[ActionState]:
    """NOV-MCH-7 (Default NOV-AMB-24): in a Mounted Charge, when only one side has a pole
    arm, that side's attack resolves first whatever the IPs."""
    for charge in [a for a in ordered if a.kind == "mounted_charge"]:
        answer = next(
            (
                a
                for a in ordered
                if a.combatant == charge.target
                and a.target == charge.combatant
                and a.weapon is not None
            ),
            None,
        )
        if answer is None:
            continue
        poles = [_pole_arm(state, a) for a in (charge, answer)]
        if poles.count(True) != 1:
            continue
        first, second = (charge, answer) if poles[0] else (answer, charge)
        if ordered.index(first) > ordered.index(second):
            ordered.remove(first)
            ordered.insert(ordered.index(second), first)
    return ordered


def _pole_arm(state: EncounterState, action: ActionState) -> bool:
    weapons = state.combatants[action.combatant].stats.get("weapons", [])
    weapon = next((w for w in weapons if w["name"] == action.weapon), {})
    return weapon.get("family", "").lower() in ("pole arm", "polearm", "lance", "long spear")


def step(state: EncounterState) -> str:
    """Where the round stands, derived from the facts (NOV-SEQ-1)."""
    if not state.combatants:
        return "setup"
    marks = encounter_marks_of(state)
    if not marks.declared and needs_initiative(state):
        return "initiative"
    if next_declarer(state) is not None:
        return "declaration"
    if marks.pending_boons is not None:
        return "boons"
    if marks.pending_snags is not None:
        return "snags"
    if queue(state):
        return "resolution"
    return "end_round"


def require_points_spent(current: str) -> None:
    """Boon and Snag Points are spent at once, before anything else (NOV-BOON-1, NOV-SNAG-1)."""
    if current in ("boons", "snags"):
        rule = "NOV-BOON-1" if current == "boons" else "NOV-SNAG-1"
        raise RuleViolation(
            rule,
            f"spend the points of the last attack first (spend_{current}; "
            "an empty list forgoes them)",
        )


def _base_ap(who: CombatantState) -> int:
    return HASTED_AP if who.has("hasted") else BASE_AP  # NOV-AP-1, NOV-HASTE-1


def ap_budget(state: EncounterState, who: CombatantState) -> int:
    """NOV-AP-2: 5 (10 Hasted) less the AP a multi-round action already took."""
    fixed = round_marks_of(who).ap_budget
    if fixed is not None:
        return fixed
    return max(0, _base_ap(who) - marks_of(who).ap_carried)


def still_owed(state: EncounterState, who: CombatantState) -> int:
    """NOV-DECL-4: the carried AP this round's whole budget cannot pay are owed by the
    next round, and so on round by round until the last is paid (a Heavy crossbow reload
    at budget 3 carries 7: 5 from the next round, then 2 from the round after). Asked
    before he declares, while `ap_carried` is still what this round owes."""
    return max(0, marks_of(who).ap_carried - _base_ap(who))


def upkeep(state: EncounterState, who: CombatantState) -> list[dict[str, Any]]:
    """NOV-END-1: the ticks of one combatant's End Round, in order."""
    ticks: list[dict[str, Any]] = []
    if is_dead(who):
        return ticks
    hits = who.hits
    blank = {"count_before": None, "count_after": None, "wound": None}
    for wound in who.wounds:  # NOV-COND-1: every open wound, from the round it was made
        ticks.append(
            {
                **blank,
                "kind": "bleeding",
                "amount": wound.rate,
                "hits_before": hits,
                "hits_after": hits - wound.rate,
                "wound": wound.position,
                "cause": wound.position,
            }
        )
        hits -= wound.rate
    if is_dying(who.model_copy(update={"hits": hits})):  # NOV-HITS-4 (Default NOV-AMB-28)
        ticks.append(
            {
                **blank,
                "kind": "dying",
                "amount": 1,
                "hits_before": hits,
                "hits_after": hits - 1,
                "cause": None,
            }
        )
        hits -= 1
    for name, condition in who.conditions.items():
        if condition.count is None or condition.round == state.round:
            continue  # NOV-COND-5 (Default NOV-AMB-27): not lowered in the round applied
        ticks.append(
            {
                **blank,
                "kind": name,
                "amount": 1,
                "hits_before": hits,
                "hits_after": hits,
                "count_before": condition.count,
                "count_after": condition.count - 1,
                "cause": condition.position,
            }
        )
    return ticks


def lose_blocked(ctx: Context, *, all_: bool = False) -> list[str]:
    """Record ActionLost for blocked actions at the head of the queue (or all of them)."""
    lost = []
    for action in queue(ctx.state):
        why = is_blocked(ctx.state, action)
        if why is None:
            if all_:
                continue
            break
        rule, reason = why.split(": ", 1)
        ctx.emit(
            ne.ActionLost,
            combatant=action.combatant,
            action=action.id,
            kind=action.kind,
            rule=rule,
            reason=reason,
        )
        lost.append(action.id)
    return lost


def end_round(ctx: Context, cmd: c.EndRound) -> None:
    """Step 4: lose what cannot resolve, tick upkeep, end the round (NOV-END-1, -2)."""
    current = step(ctx.state)
    require_points_spent(current)
    if current in ("initiative", "declaration", "setup"):
        raise RuleViolation("NOV-SEQ-1", f"the round cannot end at '{current}'")
    lost = lose_blocked(ctx, all_=True)
    left = queue(ctx.state)
    if left:
        raise RuleViolation(
            "NOV-SEQ-1",
            f"{len(left)} declared action(s) have not resolved yet; next is {left[0].id}",
        )
    round_ = ctx.state.round
    for who in list(ctx.state.combatants.values()):
        for tick in upkeep(ctx.state, who):
            cause = tick.pop("cause")
            ctx.emit(ne.UpkeepTicked, cause=cause, combatant=who.id, round=round_, **tick)
    ctx.emit(ev.RoundEnded, round=round_, lost_actions=lost)
