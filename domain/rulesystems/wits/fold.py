"""The Wits system's fold: actions used this round, defenses, aiming, charges."""

from __future__ import annotations

from domain import events as ev
from domain.fold import add_actions, folds
from domain.rulesystems.wits import events as we
from domain.rulesystems.wits.state import (
    AttackDefense,
    Charge,
    WitsAttack,
    marks_of,
    round_marks_of,
)
from domain.state import CombatantState, EncounterState


def _use_actions(who: CombatantState, n: int) -> None:
    round_marks_of(who).actions_used += n


@folds(we.AttackAnnounced)
def _attack_announced(state: EncounterState, e: we.AttackAnnounced) -> None:
    who = state.combatants[e.combatant]
    _use_actions(who, e.actions)
    round_marks_of(who).attacked_with.append(e.action["weapon"])
    add_actions(state, [e.action])


@folds(we.DefenseDeclared)
def _defense_declared(state: EncounterState, e: we.DefenseDeclared) -> None:
    who = state.combatants[e.combatant]
    _use_actions(who, e.actions)
    round_marks_of(who).defense = e.mode
    round_marks_of(who).blows += 1
    marks_of(who).charging = None
    action = state.action(e.action)
    attack = WitsAttack.of(action)
    attack.defense = AttackDefense(kind=e.kind, mode=e.mode, skill=e.skill, magical=e.magical)
    action.params = attack.as_params()


@folds(we.AttackTestRolled)
def _attack_test_rolled(state: EncounterState, e: we.AttackTestRolled) -> None:
    action = state.action(e.action)
    action.status = "resolved"
    attack = WitsAttack.of(action)
    attack.hit, attack.rolled_at = e.hit, e.originator_version
    action.params = attack.as_params()
    marks = marks_of(state.combatants[e.combatant])
    marks.aim = 0
    marks.charging = None


@folds(we.Aimed)
def _aimed(state: EncounterState, e: we.Aimed) -> None:
    who = state.combatants[e.combatant]
    _use_actions(who, 1)
    marks_of(who).aim += e.aim_after - e.aim_before
    marks_of(who).charging = None


@folds(we.AimLost)
def _aim_lost(state: EncounterState, e: we.AimLost) -> None:
    marks_of(state.combatants[e.combatant]).aim = 0


@folds(we.Moved)
def _moved(state: EncounterState, e: we.Moved) -> None:
    who = state.combatants[e.combatant]
    _use_actions(who, e.actions)
    if e.charge_at is None:
        marks_of(who).charging = None
    else:
        assert e.charge_from_m is not None  # a Charge is given its start (WIT-CHG-1)
        marks_of(who).charging = Charge(target=e.charge_at, from_m=e.charge_from_m)


@folds(we.ActionTaken)
def _action_taken(state: EncounterState, e: we.ActionTaken) -> None:
    who = state.combatants[e.combatant]
    _use_actions(who, e.actions)
    marks_of(who).charging = None


@folds(we.TurnHeld)
def _turn_held(state: EncounterState, e: we.TurnHeld) -> None:
    round_marks_of(state.combatants[e.combatant]).held = True


@folds(we.KnockBackTested)
def _knock_back_tested(state: EncounterState, e: we.KnockBackTested) -> None:
    action = state.action(e.attack)  # the fall and the lost aim are their own events
    attack = WitsAttack.of(action)
    attack.knocked_back = True
    action.params = attack.as_params()


@folds(ev.TurnEnded, book="wits")
def _turn_ended(state: EncounterState, e: ev.TurnEnded) -> None:
    round_marks_of(state.combatants[e.combatant]).turn_over = True
