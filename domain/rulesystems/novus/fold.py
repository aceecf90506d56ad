"""Novus's fold: declarations, attacks, Boons and Snags, upkeep."""

from __future__ import annotations

from domain import events as ev
from domain.fold import add_actions, add_effects, folds, round_ended
from domain.rulesystems.novus import events as ne
from domain.rulesystems.novus.state import (
    Limb,
    NovusAction,
    PendingPoints,
    encounter_marks_of,
    has_declared,
    marks_of,
    round_marks_of,
)
from domain.state import EncounterState


@folds(ne.ActionsDeclared)
def _actions_declared(state: EncounterState, e: ne.ActionsDeclared) -> None:
    encounter_marks_of(state).declared.append(e.combatant)
    who = state.combatants[e.combatant]
    this_round = round_marks_of(who)
    this_round.ap_budget = e.ap_budget
    this_round.ap_spent = e.ap_spent
    this_round.hold_ip = e.hold_ip
    marks_of(who).ap_carried = e.ap_carried
    add_actions(state, e.actions)
    add_effects(state, e.effects, e.originator_version)


@folds(ne.AttackRolled)
def _attack_rolled(state: EncounterState, e: ne.AttackRolled) -> None:
    action = state.action(e.action)
    action.status = "resolved"
    pending = dict(
        attack=e.originator_version,
        action=e.action,
        combatant=e.combatant,
        target=e.target,
        margin=max(e.margin, 0),
        weapon=action.weapon,
        params=NovusAction.of(action),
    )
    head = e.head_points
    marks = encounter_marks_of(state)
    if e.hit and e.boon_points + head > 0:
        marks.pending_boons = PendingPoints(points=e.boon_points, head_points=head, **pending)
    if not e.hit and e.snag_points > 0:
        marks.pending_snags = PendingPoints(points=e.snag_points, **pending)


@folds(ne.ActionsCancelled)
def _actions_cancelled(state: EncounterState, e: ne.ActionsCancelled) -> None:
    for action_id in e.cancelled:
        action = state.action(action_id)
        action.status = "cancelled"
        if action.round > state.round:  # its later AP will not be paid
            marks_of(state.combatants[e.combatant]).ap_carried = 0
    add_actions(state, e.replacement)


@folds(ne.OpportunityTaken)
def _opportunity_taken(state: EncounterState, e: ne.OpportunityTaken) -> None:
    if e.consumed is not None:
        state.action(e.consumed).status = "cancelled"
    round_marks_of(state.combatants[e.combatant]).ap_spent += e.ap_cost
    add_actions(state, [e.action])


@folds(ne.ActionHeld)
def _action_held(state: EncounterState, e: ne.ActionHeld) -> None:
    this_round = round_marks_of(state.combatants[e.combatant])
    this_round.hold_ip = e.ip
    this_round.ap_budget = e.ap_budget


@folds(ne.RidingRolled)
def _riding_rolled(state: EncounterState, e: ne.RidingRolled) -> None:
    add_effects(state, e.effects, e.originator_version)


@folds(ne.LimbWounded)
def _limb_wounded(state: EncounterState, e: ne.LimbWounded) -> None:
    marks_of(state.combatants[e.combatant]).limbs[e.location] = Limb(
        penalty=e.penalty, damage=e.total_damage, useless=e.useless
    )


@folds(ne.FatePointGained)
def _fate_point_gained(state: EncounterState, e: ne.FatePointGained) -> None:
    marks_of(state.combatants[e.combatant]).fate_points += e.fate_points


@folds(ne.FatePointSpent)
def _fate_point_spent(state: EncounterState, e: ne.FatePointSpent) -> None:
    marks_of(state.combatants[e.combatant]).fate_points -= 1


@folds(ne.BlockRolled)
def _block_rolled(state: EncounterState, e: ne.BlockRolled) -> None:
    state.action(e.action).status = "resolved"
    if e.blocked is not None:
        state.action(e.blocked).status = "lost"


@folds(ne.BoonsSpent)
def _boons_spent(state: EncounterState, e: ne.BoonsSpent) -> None:
    encounter_marks_of(state).pending_boons = None
    add_effects(state, e.effects, e.originator_version)
    add_actions(state, e.actions)


@folds(ne.SnagsSpent)
def _snags_spent(state: EncounterState, e: ne.SnagsSpent) -> None:
    encounter_marks_of(state).pending_snags = None
    add_effects(state, e.effects, e.originator_version)


@folds(ne.SaveRolled)
def _save_rolled(state: EncounterState, e: ne.SaveRolled) -> None:
    return None  # a save changes nothing by itself; its consequences are their own events


@folds(ne.FirstAidRolled)
def _first_aid_rolled(state: EncounterState, e: ne.FirstAidRolled) -> None:
    state.action(e.action).status = "resolved"


@folds(ne.ActionLost)
def _action_lost(state: EncounterState, e: ne.ActionLost) -> None:
    state.action(e.action).status = "lost"


@folds(ne.UpkeepTicked)
def _upkeep_ticked(state: EncounterState, e: ne.UpkeepTicked) -> None:
    who = state.combatants[e.combatant]
    if e.kind in ("bleeding", "dying"):
        who.hits -= e.amount
        return
    condition = who.conditions.get(e.kind)
    if condition is not None and condition.count is not None:
        condition.count -= e.amount
        if condition.count <= 0:
            del who.conditions[e.kind]


@folds(ev.RoundEnded, book="novus")
def _round_ended(state: EncounterState, e: ev.RoundEnded) -> None:
    """The core's end of the round (this round's marks cleared: AP budget and spent, hold),
    and the AP owed by whoever did not declare is dropped: nobody paid it, so his
    multi-round action was lost (NOV-DECL-4)."""
    for who in state.combatants.values():
        if not has_declared(state, who):
            marks_of(who).ap_carried = 0
    encounter_marks_of(state).declared = []
    round_ended(state, e)
