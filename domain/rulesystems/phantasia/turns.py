"""The order of a PHANTÄSIA fight and its turns of two action points (PHA-INIT-2, -3, -4,
PHA-SURP-1, PHA-ACT-1, -3..6, PHA-RX): whose turn it is, who comes next, what an action
spends. Rolling initiative is in initiative.py, the start and end of a turn in upkeep.py."""

from __future__ import annotations

from typing import Any

from domain.rulesystems.phantasia import statuses
from domain.rulesystems.phantasia.refusals import refused
from domain.rulesystems.phantasia.stats import PhantasiaOptions, PhantasiaStats, max_pm
from domain.state import CombatantState, EncounterState, stats_as

ACTION_POINTS = 2  # PHA-ACT-1
REPEAT_STEP = 3  # PHA-ACT-3: −3 for each offensive action after the first in a turn


def stats_of(who: CombatantState) -> PhantasiaStats:
    return stats_as(who, PhantasiaStats)  # validated once per stat block


def options_of(state: EncounterState) -> PhantasiaOptions:
    return PhantasiaOptions.model_validate(state.options)


def pm_of(who: CombatantState) -> int:
    """PM: the sheet's (or the maximum) plus every change recorded."""
    stats = stats_of(who)
    start = max_pm(stats) if stats.pm is None else stats.pm
    return start + who.marks.pm_change


def pp_of(who: CombatantState) -> int:
    return stats_of(who).phantasia_points + who.marks.pp_change


def is_player(who: CombatantState) -> bool:
    return stats_of(who).controller == "player"


# -- the order ---------------------------------------------------------------------------


def _rank(state: EncounterState, who: CombatantState) -> tuple[int, ...]:
    """PHA-INIT-2: highest result first; PHA-INIT-3: ties by the higher AGI score, then the
    re-roll or the narrator's order. PHA-INIT-4 (AGI-order variant): a player character
    before a narrator's enemy at the same AGI; other ties by the narrator, else entry
    order (Default PHA-AMB-7)."""
    variant = options_of(state).initiative == "agi_order"
    pc_first = 0 if (variant and is_player(who)) else 1
    return (
        -(who.ip or 0),
        -stats_of(who).agi,
        pc_first,
        -who.marks.tie_rank,
        who.entry,
    )


def order(state: EncounterState) -> list[CombatantState]:
    placed = [w for w in state.combatants.values() if w.ip is not None]
    return sorted(placed, key=lambda w: _rank(state, w))


def acting(state: EncounterState) -> CombatantState | None:
    return next((w for w in state.combatants.values() if w.marks.in_turn), None)


def moment(state: EncounterState) -> tuple[Any, ...]:
    """Whose turn, which of his turns (None before his first own turn: a surprise action),
    whether a surprise action: "at once" for a re-roll means within it (PHA-PP-2)."""
    now = acting(state)
    return (now.id, now.marks.turn or None, now.marks.surprise) if now else ()


def surprise_due(state: EncounterState) -> list[CombatantState]:
    return [w for w in state.combatants.values() if w.marks.surprise == "due"]


def next_up(state: EncounterState) -> CombatantState | None:
    """Whose turn starts next: a surprising combatant still due (PHA-SURP-1), else the
    first in the order who has not had his turn this round; the dead have no turns."""
    due = surprise_due(state)
    if due:
        return due[0]
    return next(
        (
            w
            for w in order(state)
            if w.marks.done_round != state.round and not statuses.active(w, "dead")
        ),
        None,
    )


def unplaced(state: EncounterState) -> list[CombatantState]:
    return [w for w in state.combatants.values() if w.ip is None and not w.has("dead")]


# -- actions in a turn -------------------------------------------------------------------


def action_count(who: CombatantState) -> int:
    """PHA-ACT-6: 2; +1 with Rapidez; exactly 1 with Lentitud; both give 2 (Default
    PHA-AMB-14); none while a status forbids acting."""
    if not statuses.can_act(who):
        return 0
    haste, slow = who.has("haste"), who.has("slowness")
    if haste and slow:
        return ACTION_POINTS
    return 1 if slow else ACTION_POINTS + 1 if haste else ACTION_POINTS


def actions_left(who: CombatantState) -> int:
    if not who.marks.in_turn or not statuses.can_act(who):
        return 0
    return max(0, who.marks.actions - who.marks.spent)


def repeat_penalty(who: CombatantState, spent: dict[str, Any]) -> dict[str, int]:
    """PHA-ACT-3: the k-th offensive action of his turn takes −3 × (k − 1), powers too
    (PHA-MAG-3); PHA-ACT-4: a power such as Multiataque reduces it; PHA-ACT-5 (Default
    PHA-AMB-42): none, and not counted, outside his own turn."""
    if not spent.get("offensive") or spent.get("reaction") or spent.get("free"):
        return {}
    if not who.marks.in_turn:  # PHA-ACT-5: an out_of_order action outside his turn
        return {}
    k = who.marks.offensive + 1
    penalty = min(0, -REPEAT_STEP * (k - 1) + stats_of(who).repeat_reduction)
    return {"repeated offensive action": penalty} if penalty else {}


def check_action(
    state: EncounterState,
    who: CombatantState,
    *,
    offensive: bool,
    reaction: bool = False,
    out_of_order: bool = False,
    free: bool = False,
    costs: bool = True,
) -> dict[str, Any]:
    """May `who` take this action now? Returns what it spends (PHA-ACT-1, -6, -13, RX)."""
    spent = {"offensive": offensive, "reaction": reaction, "free": free}
    if statuses.active(who, "dead") or not statuses.can_act(who):
        blocking = [n for n in who.conditions if not statuses.spec(n).get("acts", True)]
        raise refused("PHA-ACT-6.cannot-act", field="combatant", who=who.name, blocking=blocking)
    if free:
        return spent
    if reaction:
        if who.marks.in_turn:
            raise refused("PHA-RX-1.own-turn-this", field="reaction")
        if who.marks.reaction_used:  # PHA-RX-4: one action as his one reaction
            raise refused("PHA-RX-1.used-one-reaction", field="reaction", who=who.name)
        return spent
    if not who.marks.in_turn and not out_of_order:
        now = acting(state)
        raise refused(
            "PHA-INIT-2.its-turn" if now else "PHA-INIT-2.no-turn-started",
            field="combatant",
            now=now.name if now else None,
        )
    if costs and who.marks.in_turn and actions_left(who) < 1:
        raise refused("PHA-ACT-1.no-action-left", field="combatant", who=who.name)
    if offensive and who.marks.defended:
        raise refused("PHA-ACT-13.took-defense-action", field="combatant", who=who.name)
    if not costs:
        spent["free"] = True
    return spent


def check_parts(who: CombatantState, characteristic: str) -> dict[str, int]:
    """PHA-CHK-2: the score plus the statuses' modifiers to it (PHA-STK)."""
    parts = {characteristic.upper(): stats_of(who).score(characteristic)}
    parts.update(statuses.modifiers(who, characteristic))
    return parts
