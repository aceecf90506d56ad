"""The one fold from events to state. The aggregate and every projection use it.

`evolve` applies one event to a state (in place, returning it). It only records what
the event says happened: every rule was applied when the event was decided, by the
rule-system module that decided it. Hits move by the amounts events carry, so a later
correction that skips an event (a void) folds to the right numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from domain.state import (
    ActionState,
    CombatantState,
    Condition,
    Effect,
    EncounterState,
    Limb,
    PendingPoints,
    Wound,
)

Handler = Callable[[EncounterState, Any], "EncounterState | None"]
_HANDLERS: dict[str, Handler] = {}


def _on(name: str) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        _HANDLERS[name] = fn
        return fn

    return register


def evolve(state: EncounterState | None, event: Any) -> EncounterState:
    """Apply one event to the state."""
    kind = type(event).__name__
    if kind == "EncounterCreated":
        state = EncounterState(
            id=str(event.originator_id),
            name=event.name,
            ruleset=event.ruleset,
            dice_source=event.dice_source,
            seed=event.seed,
            options=dict(event.options),
            created_at=event.timestamp.isoformat(),
            dice_commitment=event.dice_commitment,
            forked_from=event.forked_from,
        )
    else:
        assert state is not None, f"{kind} before EncounterCreated"
        state = _HANDLERS[kind](state, event) or state
    state.version = event.originator_version
    return state


def fold(events: Iterable[Any], state: EncounterState | None = None) -> EncounterState | None:
    """Fold events, in order, onto a state (None for a new encounter)."""
    for event in events:
        state = evolve(state, event)
    return state


def _add_effects(state: EncounterState, effects: list[dict[str, Any]], position: int) -> None:
    for e in effects:
        who = state.combatants[e["combatant"]]
        who.effects.append(
            Effect(
                name=e["name"],
                applies_to=e["applies_to"],
                value=e["value"],
                first_round=e.get("first_round"),
                last_round=e.get("last_round"),
                position=position,
            )
        )


def _add_actions(state: EncounterState, actions: list[dict[str, Any]]) -> None:
    for a in actions:
        state.actions.append(ActionState(**a))


@_on("CombatantAdded")
def _combatant_added(state: EncounterState, e: Any) -> None:
    state.combatants[e.combatant] = CombatantState(
        id=e.combatant,
        name=e.name,
        side=e.side,
        entry=len(state.combatants),
        stats=dict(e.stats),
        max_hits=e.max_hits,
        hits=e.hits,
    )


@_on("CombatantHidden")
def _combatant_hidden(state: EncounterState, e: Any) -> None:
    who = state.combatants[e.combatant]
    who.hidden, who.reveal_when_acting = True, e.until_acting


@_on("CombatantRevealed")
def _combatant_revealed(state: EncounterState, e: Any) -> None:
    who = state.combatants[e.combatant]
    who.hidden, who.reveal_when_acting = False, False
    who.seen_from = e.originator_version if e.earlier == "from_reveal" else None


@_on("HealthShown")
def _health_shown(state: EncounterState, e: Any) -> None:
    if e.combatant is not None:
        state.combatants[e.combatant].health_shown = e.shown
    elif e.party:
        state.party_health_shown = e.shown
    else:
        state.health_shown = e.shown


@_on("NoteTaken")
def _note_taken(state: EncounterState, e: Any) -> None:
    notes = state.combatants[e.combatant].notes if e.combatant is not None else state.notes
    notes.append(e.text)


@_on("InitiativeRolled")
def _initiative_rolled(state: EncounterState, e: Any) -> None:
    who = state.combatants[e.combatant]
    who.ip = e.ip
    who.ip_raw = e.raw


@_on("ActionsDeclared")
def _actions_declared(state: EncounterState, e: Any) -> None:
    state.declared.append(e.combatant)
    who = state.combatants[e.combatant]
    who.ap_budget = e.ap_budget
    who.ap_spent = e.ap_spent
    who.ap_carried = e.ap_carried
    who.hold_ip = e.hold_ip
    _add_actions(state, e.actions)
    _add_effects(state, e.effects, e.originator_version)


@_on("AttackRolled")
def _attack_rolled(state: EncounterState, e: Any) -> None:
    action = state.action(e.action)
    action.status = "resolved"
    pending = dict(
        attack=e.originator_version,
        action=e.action,
        combatant=e.combatant,
        target=e.target,
        margin=max(e.margin, 0),
        weapon=action.weapon,
        params=action.params,
    )
    head = e.head_points
    if e.hit and e.boon_points + head > 0:
        state.pending_boons = PendingPoints(points=e.boon_points, head_points=head, **pending)
    if not e.hit and e.snag_points > 0:
        state.pending_snags = PendingPoints(points=e.snag_points, **pending)


@_on("ActionsCancelled")
def _actions_cancelled(state: EncounterState, e: Any) -> None:
    for action_id in e.cancelled:
        action = state.action(action_id)
        action.status = "cancelled"
        if action.round > state.round:  # its later AP will not be paid
            state.combatants[e.combatant].ap_carried = 0
    _add_actions(state, e.replacement)


@_on("OpportunityTaken")
def _opportunity_taken(state: EncounterState, e: Any) -> None:
    if e.consumed is not None:
        state.action(e.consumed).status = "cancelled"
    state.combatants[e.combatant].ap_spent += e.ap_cost
    _add_actions(state, [e.action])


@_on("ActionHeld")
def _action_held(state: EncounterState, e: Any) -> None:
    who = state.combatants[e.combatant]
    who.hold_ip = e.ip
    who.ap_budget = e.ap_budget


@_on("RidingRolled")
def _riding_rolled(state: EncounterState, e: Any) -> None:
    _add_effects(state, e.effects, e.originator_version)


@_on("LimbWounded")
def _limb_wounded(state: EncounterState, e: Any) -> None:
    state.combatants[e.combatant].limbs[e.location] = Limb(
        penalty=e.penalty, damage=e.total_damage, useless=e.useless
    )


@_on("FatePointGained")
def _fate_point_gained(state: EncounterState, e: Any) -> None:
    state.combatants[e.combatant].fate_points += e.fate_points


@_on("FatePointSpent")
def _fate_point_spent(state: EncounterState, e: Any) -> None:
    state.combatants[e.combatant].fate_points -= 1


@_on("BlockRolled")
def _block_rolled(state: EncounterState, e: Any) -> None:
    state.action(e.action).status = "resolved"
    if e.blocked is not None:
        state.action(e.blocked).status = "lost"


@_on("BoonsSpent")
def _boons_spent(state: EncounterState, e: Any) -> None:
    state.pending_boons = None
    _add_effects(state, e.effects, e.originator_version)
    _add_actions(state, e.actions)


@_on("SnagsSpent")
def _snags_spent(state: EncounterState, e: Any) -> None:
    state.pending_snags = None
    _add_effects(state, e.effects, e.originator_version)


@_on("DamageApplied")
def _damage_applied(state: EncounterState, e: Any) -> None:  # hits may go below 0 (NOV-HITS-2)
    state.combatants[e.combatant].hits -= e.amount


@_on("ConditionApplied")
def _condition_applied(state: EncounterState, e: Any) -> None:
    who = state.combatants[e.combatant]
    if e.condition == "bleeding":
        who.wounds.append(Wound(position=e.originator_version, rate=e.rate, round=state.round))
    else:
        who.conditions[e.condition] = Condition(
            count=e.count, round=state.round, position=e.originator_version
        )


@_on("ConditionCleared")
def _condition_cleared(state: EncounterState, e: Any) -> None:
    who = state.combatants[e.combatant]
    if e.condition == "bleeding":
        who.wounds = [w for w in who.wounds if e.wound is not None and w.position != e.wound]
    else:
        who.conditions.pop(e.condition, None)


@_on("SaveRolled")
def _save_rolled(state: EncounterState, e: Any) -> None:
    return None  # a save changes nothing by itself; its consequences are their own events


@_on("FirstAidRolled")
def _first_aid_rolled(state: EncounterState, e: Any) -> None:
    state.action(e.action).status = "resolved"


@_on("ActionResolved")
def _action_resolved(state: EncounterState, e: Any) -> None:
    state.action(e.action).status = "resolved"


@_on("ActionLost")
def _action_lost(state: EncounterState, e: Any) -> None:
    state.action(e.action).status = "lost"


@_on("UpkeepTicked")
def _upkeep_ticked(state: EncounterState, e: Any) -> None:
    who = state.combatants[e.combatant]
    if e.kind in ("bleeding", "dying"):
        who.hits -= e.amount
        return
    condition = who.conditions.get(e.kind)
    if condition is not None and condition.count is not None:
        condition.count -= e.amount
        if condition.count <= 0:
            del who.conditions[e.kind]


@_on("RoundEnded")
def _round_ended(state: EncounterState, e: Any) -> None:
    state.round = e.round + 1
    # what was not resolved by the end of its round is over; multi-round actions carry on
    state.actions = [a for a in state.actions if a.status == "pending" and a.round > e.round]
    for who in state.combatants.values():
        if who.id not in state.declared:
            who.ap_carried = 0  # nobody paid it: the multi-round action was lost
        who.ap_budget = None
        who.ap_spent = 0
        who.hold_ip = None
        who.round_marks = {}
        who.effects = [x for x in who.effects if x.last_round is None or x.last_round > e.round]
    state.declared = []


@_on("Healed")
@_on("HitsAdjusted")
def _hits_adjusted(state: EncounterState, e: Any) -> None:
    state.combatants[e.combatant].hits += e.amount


@_on("ModifierSet")
def _modifier_set(state: EncounterState, e: Any) -> None:
    who = state.combatants[e.combatant]
    who.effects = [x for x in who.effects if x.name != e.name]
    who.effects.append(
        Effect(
            name=e.name,
            applies_to=e.applies_to,
            value=e.value,
            first_round=e.first_round,
            last_round=e.last_round,
            position=e.originator_version,
        )
    )


@_on("ModifierCleared")
def _modifier_cleared(state: EncounterState, e: Any) -> None:
    who = state.combatants[e.combatant]
    who.effects = [x for x in who.effects if x.name != e.name]


@_on("DiceSecretRevealed")
def _dice_secret_revealed(state: EncounterState, e: Any) -> None:
    state.dice_epoch = e.epoch + 1
    state.dice_commitment = e.next_commitment


@_on("DiceCommitted")
def _dice_committed(state: EncounterState, e: Any) -> None:
    state.dice_epoch = e.epoch
    state.dice_commitment = e.commitment


@_on("EncounterEnded")
def _encounter_ended(state: EncounterState, e: Any) -> None:
    state.ended = True


# -- the Wits system: actions used this round, defenses, aiming, charges ---------------


def _use_actions(who: CombatantState, n: int) -> None:
    who.round_marks["actions_used"] = who.round_marks.get("actions_used", 0) + n


@_on("AttackAnnounced")
def _attack_announced(state: EncounterState, e: Any) -> None:
    who = state.combatants[e.combatant]
    _use_actions(who, e.actions)
    who.round_marks["attacked_with"] = [
        *who.round_marks.get("attacked_with", []),
        e.action["weapon"],
    ]
    _add_actions(state, [e.action])


@_on("DefenseDeclared")
def _defense_declared(state: EncounterState, e: Any) -> None:
    who = state.combatants[e.combatant]
    _use_actions(who, e.actions)
    who.round_marks["defense"] = e.mode
    who.round_marks["blows"] = who.round_marks.get("blows", 0) + 1
    who.marks.pop("charging", None)
    action = state.action(e.action)
    action.params = {
        **action.params,
        "defense": {"kind": e.kind, "mode": e.mode, "skill": e.skill, "magical": e.magical},
    }


@_on("AttackTestRolled")
def _attack_test_rolled(state: EncounterState, e: Any) -> None:
    action = state.action(e.action)
    action.status = "resolved"
    action.params = {**action.params, "hit": e.hit, "rolled_at": e.originator_version}
    marks = state.combatants[e.combatant].marks
    marks.pop("aim", None)
    marks.pop("charging", None)


@_on("Aimed")
def _aimed(state: EncounterState, e: Any) -> None:
    who = state.combatants[e.combatant]
    _use_actions(who, 1)
    who.marks["aim"] = who.marks.get("aim", 0) + e.aim_after - e.aim_before
    who.marks.pop("charging", None)


@_on("AimLost")
def _aim_lost(state: EncounterState, e: Any) -> None:
    state.combatants[e.combatant].marks.pop("aim", None)


@_on("Moved")
def _moved(state: EncounterState, e: Any) -> None:
    who = state.combatants[e.combatant]
    _use_actions(who, e.actions)
    if e.charge_at is None:
        who.marks.pop("charging", None)
    else:
        who.marks["charging"] = {"target": e.charge_at, "from_m": e.charge_from_m}


@_on("ActionTaken")
def _action_taken(state: EncounterState, e: Any) -> None:
    who = state.combatants[e.combatant]
    _use_actions(who, e.actions)
    who.marks.pop("charging", None)


@_on("TurnHeld")
def _turn_held(state: EncounterState, e: Any) -> None:
    state.combatants[e.combatant].round_marks["held"] = True


@_on("KnockBackTested")
def _knock_back_tested(state: EncounterState, e: Any) -> None:
    action = state.action(e.attack)  # the fall and the lost aim are their own events
    action.params = {**action.params, "knocked_back": True}


# -- PHANTÄSIA: turns, action points, statuses, PM and PHANTÄSIA points -----------------


def _spend(who: CombatantState, spent: dict[str, Any] | None) -> None:
    """An action point spent: offensive ones in his own turn count for the repeat penalty
    (PHA-ACT-3, PHA-ACT-5); a reaction uses his one reaction (PHA-RX-1)."""
    if not spent:
        return
    marks = who.marks
    if spent.get("reaction"):
        marks["reaction_used"] = True
        marks.pop("prepared", None)
        return
    if spent.get("free"):
        return
    marks["spent"] = marks.get("spent", 0) + 1
    if spent.get("offensive"):
        marks["offensive"] = marks.get("offensive", 0) + 1


@_on("SurpriseDeclared")
def _surprise_declared(state: EncounterState, e: Any) -> None:
    for combatant in e.combatants:
        state.combatants[combatant].marks["surprise"] = "due"


@_on("TieBroken")
def _tie_broken(state: EncounterState, e: Any) -> None:
    for rank, combatant in enumerate(e.order):
        marks = state.combatants[combatant].marks
        marks["tie_rank"] = len(e.order) - rank
        if e.simultaneous:  # PHA-INIT-3: they act at the same time
            marks["simultaneous"] = [c for c in e.order if c != combatant]
        else:
            marks.pop("simultaneous", None)


@_on("TurnStarted")
def _turn_started(state: EncounterState, e: Any) -> None:
    for other in state.combatants.values():
        other.marks.pop("in_turn", None)
    for other in state.combatants.values():
        other.marks.pop("free_attack", None)  # fumble result 5: at once or not at all
    marks = state.combatants[e.combatant].marks
    for key in ("spent", "offensive", "defended", "reaction_used", "prepared", "pushed_back"):
        marks.pop(key, None)
    marks.update(in_turn=True, actions=e.actions)
    if e.surprise:
        marks["surprise"] = "acting"
    else:
        marks["turn"] = e.turn
        marks["done_round"] = e.round


@_on("TurnEnded")
def _turn_ended(state: EncounterState, e: Any) -> None:
    who = state.combatants[e.combatant]
    if state.ruleset == "phantasia":
        who.marks.pop("in_turn", None)
        if who.marks.get("surprise") == "acting":
            who.marks["surprise"] = "done"
        return
    who.round_marks["turn_over"] = True


@_on("StatusApplied")
def _status_applied(state: EncounterState, e: Any) -> None:
    who = state.combatants[e.combatant]
    who.conditions[e.status] = Condition(
        count=e.turns,
        round=state.round,
        position=e.originator_version,
        data={**e.data, "status": e.kind},
    )


@_on("StatusTicked")
def _status_ticked(state: EncounterState, e: Any) -> None:
    condition = state.combatants[e.combatant].conditions[e.status]
    condition.count = e.turns_after
    condition.data = {**condition.data, **e.data}


@_on("StatusEnded")
def _status_ended(state: EncounterState, e: Any) -> None:
    state.combatants[e.combatant].conditions.pop(e.status, None)


@_on("CheckRolled")
def _check_rolled(state: EncounterState, e: Any) -> None:
    who = state.combatants[e.combatant]
    _spend(who, e.spent)
    if e.purpose == "concentration" and not e.check["success"]:
        who.marks.pop("sustaining", None)  # PHA-CONC-1: that use of the power is lost


@_on("ActionsLost")
def _actions_lost(state: EncounterState, e: Any) -> None:
    marks = state.combatants[e.combatant].marks
    marks["spent"] = marks.get("spent", 0) + e.actions


@_on("ContestRolled")
def _contest_rolled(state: EncounterState, e: Any) -> None:
    _spend(state.combatants[e.combatant], e.spent)


@_on("ActionSpent")
def _action_spent(state: EncounterState, e: Any) -> None:
    who = state.combatants[e.combatant]
    if e.action == "shield_breaks":  # a fumbled block: the shield is destroyed (PHA-DEF-3)
        who.marks["shield_broken"] = True
        return
    if e.action == "load":  # the weight carried (PHA-WPN-7): no action point
        who.marks["carried_kg"] = e.details["carried_kg"]
        return
    _spend(who, {"offensive": e.offensive, "reaction": e.reaction})
    d = e.details
    if e.action == "defense":
        who.marks["defended"] = True
    elif e.action == "prepare":
        who.marks["prepared"] = d.get("trigger") or True
    elif e.action in ("switch_weapon", "use_item") and d.get("weapon"):
        who.marks["wielding"] = d["weapon"]
        if who.marks.get("dropped") == d["weapon"]:
            who.marks.pop("dropped", None)
    if d.get("sustain"):
        who.marks["sustaining"] = d["power"]
    if d.get("power"):
        _power_used(who, d)


def _power_used(who: CombatantState, d: dict[str, Any]) -> None:
    uses = who.marks.setdefault("uses", {})
    uses[d["power"]] = uses.get(d["power"], 0) + 1
    if d.get("available_from") is not None:
        who.marks.setdefault("cooldowns", {})[d["power"]] = d["available_from"]


@_on("AttackChecked")
def _attack_checked(state: EncounterState, e: Any) -> None:
    who = state.combatants[e.combatant]
    _spend(who, e.spent)
    _add_actions(state, [e.action])
    params = e.action["params"]
    if params.get("power"):
        _power_used(who, params)
    if not e.spent or not e.spent.get("free"):
        return
    who.marks.pop("free_attack", None)


@_on("CheckRerolled")
def _check_rerolled(state: EncounterState, e: Any) -> None:
    action = state.action(e.action)
    action.params = {**action.params, "results": e.results}
    action.status = "pending" if any(r["follows"] for r in e.results) else "resolved"


@_on("FumbleRolled")
def _fumble_rolled(state: EncounterState, e: Any) -> None:
    who = state.combatants[e.combatant]
    action = state.action(e.action)
    action.params = {**action.params, "fumble_rolled": True}
    if not any(r["hit"] for r in action.params["results"]):  # else its damage is still due
        action.status = "resolved"
    d = e.details
    if d.get("dropped"):
        who.marks["dropped"] = d["dropped"]
    if d.get("power_locked"):
        who.marks.setdefault("cooldowns", {})[d["power_locked"]] = d["available_from"]
    if d.get("free_attack_for"):
        state.combatants[d["free_attack_for"]].marks["free_attack"] = e.combatant


@_on("DeathChecked")
def _death_checked(state: EncounterState, e: Any) -> None:
    # death is its own StatusApplied; the last check is kept for a re-roll (PHA-DTH-6)
    state.combatants[e.combatant].marks["death_check"] = {
        "dies": e.dies,
        "reroll": e.reroll,
        "moment": e.moment,
    }


@_on("PmChanged")
def _pm_changed(state: EncounterState, e: Any) -> None:  # by the change, so a void folds right
    marks = state.combatants[e.combatant].marks
    marks["pm_change"] = marks.get("pm_change", 0) + e.pm_after - e.pm_before


@_on("PhantasiaPointsChanged")
def _phantasia_points_changed(state: EncounterState, e: Any) -> None:
    marks = state.combatants[e.combatant].marks
    marks["pp_change"] = marks.get("pp_change", 0) + e.points_after - e.points_before


@_on("RollVoided")
@_on("CommandUndone")
@_on("CommandRedone")
def _corrected(state: EncounterState, e: Any) -> EncounterState:
    return apply_changes(state, e.changes)


def apply_changes(state: EncounterState, patch: list[dict[str, Any]]) -> EncounterState:
    """The state with a correction's changes made (the fold of a correction)."""
    dump = state.model_dump()
    for change in patch:
        *parents, last = change["path"]
        node = dump
        for key in parents:
            node = node.setdefault(key, {})
        if change.get("removed"):
            node.pop(last, None)
        else:
            node[last] = change["after"]
    corrected = EncounterState.model_validate(dump)
    corrected.version = state.version
    return corrected
