"""PHANTÄSIA's fold: turns, action points, statuses, PM and PHANTÄSIA points."""

from __future__ import annotations

from typing import Any

from domain import events as ev
from domain.fold import add_actions, folds
from domain.rulesystems.phantasia import events as pe
from domain.rulesystems.phantasia.attack_state import PhantasiaAttack
from domain.rulesystems.phantasia.state import DeathCheck, StatusData
from domain.state import CombatantState, Condition, EncounterState


@folds(pe.Healed)
def _healed(state: EncounterState, e: pe.Healed) -> None:
    state.combatants[e.combatant].hits += e.amount


def _spend(who: CombatantState, spent: dict[str, Any] | None) -> None:
    """An action point spent: offensive ones in his own turn count for the repeat penalty
    (PHA-ACT-3, PHA-ACT-5); a reaction uses his one reaction (PHA-RX-1)."""
    if not spent:
        return
    marks = who.marks
    if spent.get("reaction"):
        marks.reaction_used = True
        marks.prepared = None
        return
    if spent.get("free"):
        return
    marks.spent += 1
    if spent.get("offensive"):
        marks.offensive += 1


@folds(pe.SurpriseDeclared)
def _surprise_declared(state: EncounterState, e: pe.SurpriseDeclared) -> None:
    for combatant in e.combatants:
        state.combatants[combatant].marks.surprise = "due"


@folds(pe.TieBroken)
def _tie_broken(state: EncounterState, e: pe.TieBroken) -> None:
    for rank, combatant in enumerate(e.order):
        marks = state.combatants[combatant].marks
        marks.tie_rank = len(e.order) - rank
        if e.simultaneous:  # PHA-INIT-3: they act at the same time
            marks.simultaneous = [c for c in e.order if c != combatant]
        else:
            marks.simultaneous = []


@folds(pe.TurnStarted)
def _turn_started(state: EncounterState, e: pe.TurnStarted) -> None:
    for other in state.combatants.values():
        other.marks.in_turn = False
        other.marks.free_attack = None  # fumble result 5: at once or not at all
    marks = state.combatants[e.combatant].marks
    marks.spent = marks.offensive = 0  # a new turn's action points (PHA-ACT-6)
    marks.defended = marks.reaction_used = False  # PHA-RX-1: his reaction is back
    marks.prepared = None  # PHA-RX-3: a prepared action not used is lost
    marks.in_turn = True
    marks.actions = e.actions
    if e.surprise:
        marks.surprise = "acting"
    else:
        marks.turn = e.turn
        marks.done_round = e.round


@folds(pe.StatusApplied)
def _status_applied(state: EncounterState, e: pe.StatusApplied) -> None:
    who = state.combatants[e.combatant]
    who.conditions[e.status] = Condition(
        count=e.turns,
        round=state.round,
        position=e.originator_version,
        data=StatusData.model_validate({**e.data, "status": e.kind}).as_data(),
    )


@folds(pe.StatusTicked)
def _status_ticked(state: EncounterState, e: pe.StatusTicked) -> None:
    condition = state.combatants[e.combatant].conditions[e.status]
    condition.count = e.turns_after
    condition.data = StatusData.model_validate({**condition.data, **e.data}).as_data()


@folds(pe.StatusEnded)
def _status_ended(state: EncounterState, e: pe.StatusEnded) -> None:
    state.combatants[e.combatant].conditions.pop(e.status, None)


@folds(pe.CheckRolled)
def _check_rolled(state: EncounterState, e: pe.CheckRolled) -> None:
    who = state.combatants[e.combatant]
    _spend(who, e.spent)
    if e.purpose == "concentration" and not e.check["success"]:
        state.combatants[
            e.combatant
        ].marks.sustaining = None  # PHA-CONC-1: that use of the power is lost


@folds(pe.ActionsLost)
def _actions_lost(state: EncounterState, e: pe.ActionsLost) -> None:
    state.combatants[e.combatant].marks.spent += e.actions


@folds(pe.ContestRolled)
def _contest_rolled(state: EncounterState, e: pe.ContestRolled) -> None:
    _spend(state.combatants[e.combatant], e.spent)


@folds(pe.ActionSpent)
def _action_spent(state: EncounterState, e: pe.ActionSpent) -> None:
    who = state.combatants[e.combatant]
    marks = state.combatants[e.combatant].marks
    if e.action == "shield_breaks":  # a fumbled block: the shield is destroyed (PHA-DEF-3)
        marks.shield_broken = True
        return
    if e.action == "load":  # the weight carried (PHA-WPN-7): no action point
        marks.carried_kg = e.details["carried_kg"]
        return
    _spend(who, {"offensive": e.offensive, "reaction": e.reaction})
    d = e.details
    if e.action == "defense":
        marks.defended = True
    elif e.action == "prepare":
        marks.prepared = d.get("trigger") or True
    elif e.action in ("switch_weapon", "use_item") and d.get("weapon"):
        marks.wielding = d["weapon"]
        if marks.dropped == d["weapon"]:
            marks.dropped = None
    if d.get("sustain"):
        marks.sustaining = d["power"]
    if d.get("power"):
        _power_used(who, d["power"], d.get("available_from"))


def _power_used(who: CombatantState, power: str, available_from: int | None) -> None:
    """A use of his power counted (PHA-CHAR-6), its cooldown begun (PHA-FOE-5)."""
    marks = who.marks
    marks.uses[power] = marks.uses.get(power, 0) + 1
    if available_from is not None:
        marks.cooldowns[power] = available_from


@folds(pe.AttackChecked)
def _attack_checked(state: EncounterState, e: pe.AttackChecked) -> None:
    who = state.combatants[e.combatant]
    _spend(who, e.spent)
    add_actions(state, [e.action])
    attack = PhantasiaAttack.of_params(e.action["params"])
    if attack.power:
        _power_used(who, attack.power, attack.available_from)
    if not e.spent or not e.spent.get("free"):
        return
    state.combatants[e.combatant].marks.free_attack = None


@folds(pe.CheckRerolled)
def _check_rerolled(state: EncounterState, e: pe.CheckRerolled) -> None:
    action = state.action(e.action)
    attack = PhantasiaAttack.of(action)
    attack.results = e.results
    action.params = attack.as_params()
    action.status = "pending" if any(r.follows for r in attack.results) else "resolved"


@folds(pe.FumbleRolled)
def _fumble_rolled(state: EncounterState, e: pe.FumbleRolled) -> None:
    marks = state.combatants[e.combatant].marks
    action = state.action(e.action)
    attack = PhantasiaAttack.of(action)
    attack.fumble_rolled = True
    action.params = attack.as_params()
    if not attack.hits:  # else its damage is still due
        action.status = "resolved"
    d = e.details
    if d.get("dropped"):
        marks.dropped = d["dropped"]
    if d.get("power_locked"):
        marks.cooldowns[d["power_locked"]] = d["available_from"]
    if d.get("free_attack_for"):
        state.combatants[d["free_attack_for"]].marks.free_attack = e.combatant


@folds(pe.DeathChecked)
def _death_checked(state: EncounterState, e: pe.DeathChecked) -> None:
    # death is its own StatusApplied; the last check is kept for a re-roll (PHA-DTH-6)
    state.combatants[e.combatant].marks.death_check = DeathCheck(
        dies=e.dies, reroll=e.reroll, moment=e.moment
    )


@folds(pe.PmChanged)
def _pm_changed(state: EncounterState, e: pe.PmChanged) -> None:
    # by the change, so a void folds right
    state.combatants[e.combatant].marks.pm_change += e.pm_after - e.pm_before


@folds(pe.PhantasiaPointsChanged)
def _phantasia_points_changed(state: EncounterState, e: pe.PhantasiaPointsChanged) -> None:
    state.combatants[e.combatant].marks.pp_change += e.points_after - e.points_before


@folds(ev.TurnEnded, book="phantasia")
def _turn_ended(state: EncounterState, e: ev.TurnEnded) -> None:
    marks = state.combatants[e.combatant].marks
    marks.in_turn = False
    if marks.surprise == "acting":
        marks.surprise = "done"
