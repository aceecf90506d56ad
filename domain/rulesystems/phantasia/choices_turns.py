"""The step's own candidates in a PHANTÄSIA fight: surprise before initiative (PHA-SURP-1),
initiative and its ties (PHA-INIT), the start of the next turn and the end of the acting
one."""

from __future__ import annotations

from typing import Any

from domain.rulesystems.base import Choice, choice
from domain.rulesystems.phantasia import turns
from domain.rulesystems.phantasia.choices_fields import MODIFIERS, some_of
from domain.rulesystems.phantasia.end_checks import END_CHECKS
from domain.rulesystems.phantasia.state import StatusData
from domain.rulesystems.phantasia.turns import (
    is_player,
    next_up,
    options_of,
    stats_of,
    surprise_due,
    unplaced,
)
from domain.state import CombatantState, EncounterState


def before_initiative(state: EncounterState, now: CombatantState | None) -> list[Choice]:
    """PHA-SURP-1 (Default PHA-AMB-39): before any initiative the narrator may rule that
    some act once first; one candidate per combatant, the rest in `fields`."""
    if now is not None or any(w.ip is not None for w in state.combatants.values()):
        return []
    living = [w for w in state.combatants.values() if not w.has("dead")]
    return [
        choice(
            "declare_surprise",
            w.id,
            {"type": "declare_surprise", "combatants": [w.id]},
            f"Surprise! {w.name} acts once before initiative (sorpresa)",
            [],
            fields={"combatants": some_of([x.id for x in living], 1)},
        )
        for w in living
    ]


# -- initiative ----------------------------------------------------------------------------


def initiative(state: EncounterState) -> list[Choice]:
    """PHA-INIT-1, -4, -5: each combatant without initiative rolls (a late joiner too),
    or everyone at once; the narrator may roll once for a group of his creatures; tied
    on initiative and AGI, the narrator may order them or let them act at once (PHA-INIT-3)."""
    agi_order = options_of(state).initiative == "agi_order"
    fields: dict[str, Any] = {"simultaneous": {"type": "boolean"}}
    if not agi_order:
        fields |= {"ip": {"type": "integer"}, "modifiers": MODIFIERS}
    due = unplaced(state)
    creatures = [w for w in due if not is_player(w)]
    out = [
        _roll_one(state, who, agi_order, fields)
        for who in state.combatants.values()
        if who.ip is None
    ]
    if due:
        out.append(_roll_all(state, due, agi_order, fields))
    if len(creatures) >= 2 and not agi_order:  # PHA-INIT-1: one roll for a group
        out.append(_roll_group(state, creatures, fields))
    return out + _tie_orders(state)


def _roll_one(
    state: EncounterState, who: CombatantState, agi_order: bool, fields: dict[str, Any]
) -> Choice:
    """His own initiative: 1d12 + AGI, or his place by AGI (PHA-INIT-4)."""
    agi = stats_of(who).agi
    label = (
        f"Place {who.name} by his AGI {agi} (PHA-INIT-4)"
        if agi_order
        else f"Roll {who.name}'s initiative: 1d12 + AGI {agi}"
    )
    rolls = [] if agi_order else ["initiative", *_tie_rolls(state, [who])]
    return choice(
        "roll_initiative",
        who.id,
        {"type": "roll_initiative", "combatant": who.id},
        label,
        rolls,
        fields=fields,
    )


def _roll_all(
    state: EncounterState, due: list[CombatantState], agi_order: bool, fields: dict[str, Any]
) -> Choice:
    """Everyone without initiative at once, each his own roll."""
    names = [f"initiative:{w.name}" for w in due] if len(due) > 1 else ["initiative"]
    return choice(
        "roll_initiative",
        None,
        {"type": "roll_initiative"},
        "Initiative for everyone without it: "
        + ", ".join(w.name for w in due)
        + ("" if agi_order else " (1d12 + AGI each)"),
        [] if agi_order else [*names, *_tie_rolls(state, due)],
        fields=fields,
    )


def _roll_group(
    state: EncounterState, creatures: list[CombatantState], fields: dict[str, Any]
) -> Choice:
    """PHA-INIT-1: the narrator rolls once for a group of his creatures."""
    return choice(
        "roll_initiative",
        None,
        {"type": "roll_initiative", "group": [w.id for w in creatures]},
        "One initiative roll for the group " + ", ".join(w.name for w in creatures),
        ["initiative", *_tie_rolls(state, creatures)],
        fields={
            "group": some_of([w.id for w in creatures], 2),
            **fields,
        },
    )


def _tie_orders(state: EncounterState) -> list[Choice]:
    """PHA-INIT-3: tied on initiative and AGI, the narrator's order, or at the same time."""
    tied: dict[tuple[int, int], list[CombatantState]] = {}
    for w in turns.order(state):
        tied.setdefault((w.ip or 0, stats_of(w).agi), []).append(w)
    out: list[Choice] = []
    for group in tied.values():
        if len(group) < 2:
            continue
        ids = [w.id for w in group]
        names = ", ".join(w.name for w in group)
        for simultaneous in (False, True):
            out.append(
                choice(
                    "roll_initiative",
                    None,
                    {"type": "roll_initiative", "tie_order": ids, "simultaneous": simultaneous},
                    f"Tied on initiative and AGI: {names} "
                    + ("act at the same time" if simultaneous else "act in this order"),
                    [],
                    fields={"tie_order": some_of(ids, 2)},
                )
            )
    return out


def _tie_rolls(state: EncounterState, placing: list[CombatantState]) -> list[str]:
    """The tie re-rolls a placing may ask for: those who share an AGI score with another
    (PHA-INIT-3: ties on the result go by AGI, then a re-roll)."""
    agis = [stats_of(w).agi for w in state.combatants.values() if w.ip is not None]
    agis += [stats_of(w).agi for w in placing]
    return [
        f"tie:{w.name}"
        for w in state.combatants.values()
        if (w.ip is not None or w in placing) and agis.count(stats_of(w).agi) > 1
    ]


# -- turns ---------------------------------------------------------------------------------


def start_turn(state: EncounterState) -> list[Choice]:
    """PHA-INIT-2: the next in the order (a surprising one first, PHA-SURP-1); the start
    of his turn rolls his Fear check (PHA-STS-18) and suffocation (PHA-SUF)."""
    if unplaced(state) and not surprise_due(state):
        return []
    up = next_up(state)
    if up is None:
        return []
    rolls = []
    if up.has("fear"):
        rolls.append("fear")
    if up.has("suffocating"):
        rolls += ["suffocation", "death"]
        if up.marks.sustaining is not None:
            rolls.append("concentration")
    surprise = up.marks.surprise == "due"
    return [
        choice(
            "start_turn",
            up.id,
            {"type": "start_turn", "combatant": up.id},
            f"Start {up.name}'s {'surprise action' if surprise else 'turn'}",
            rolls,
        )
    ]


def end_turn(state: EncounterState, now: CombatantState) -> Choice:
    """His end-of-turn checks (PHA-STS-2, -3, -14, -20) and durations (PHA-STS-0); the
    round ends after the last turn."""
    rolls: list[str] = []
    for name, cond in now.conditions.items():
        status = StatusData.of(cond).status_or(name)
        if status in END_CHECKS and (cond.count is None or status == "poisoned"):
            rolls.append(name)
            if status == "poisoned":
                rolls += ["poison damage", "death"]
    if rolls and now.marks.sustaining is not None:
        rolls.append("concentration")
    return choice(
        "end_turn",
        now.id,
        {"type": "end_turn", "combatant": now.id},
        f"End {now.name}'s turn",
        rolls,
    )
