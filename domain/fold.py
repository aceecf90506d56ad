"""The one fold from events to state. The aggregate and every projection use it.

`evolve` applies one event to a state (in place, returning it). It only records what
the event says happened: every rule was applied when the event was decided, by the
rule-system module that decided it. Hits move by the amounts events carry, so a later
correction that skips an event (a void) folds to the right numbers.

Handlers are registered by event class (`folds`): the core's here, each rule book's in its
package (`domain/rulesystems/<book>/fold.py`, imported by its system module). An event of a
class with no handler yet loads the encounter's rule book, whose handlers then register; a
book may fold a core event its own way (`folds(..., book=name)`), as the books played by
turns fold TurnEnded.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from domain import events as ev
from domain.state import (
    ActionState,
    CombatantState,
    Condition,
    Effect,
    EncounterState,
    Wound,
    relocated,
)

Handler = Callable[[EncounterState, Any], "EncounterState | None"]
H = TypeVar("H", bound=Callable[..., Any])
_HANDLERS: dict[type, Handler] = {}
_BOOKS: dict[tuple[str, type], Handler] = {}  # (rule book, event class) -> its own handler


def folds(*event_classes: type[ev.EncounterEvent], book: str | None = None) -> Callable[[H], H]:
    """Register the decorated `handler(state, event) -> EncounterState | None` for these
    event classes (for one rule book's encounters only, with `book`)."""

    def register(fn: H) -> H:
        for cls in event_classes:
            if book is None:
                _HANDLERS[cls] = fn
            else:
                _BOOKS[(book, cls)] = fn
        return fn

    return register


def _handler(ruleset: str, cls: type) -> Handler | None:
    return _BOOKS.get((ruleset, cls)) or _HANDLERS.get(cls)


def evolve(state: EncounterState | None, event: Any) -> EncounterState:
    """Apply one event to the state."""
    if isinstance(event, ev.EncounterCreated):
        state = _created(event)
    else:
        assert state is not None, f"{type(event).__name__} before EncounterCreated"
        handler = _handler(state.ruleset, type(event))
        if handler is None:  # a rule book's own event: its system module registers them
            from domain.rulesystems import get_rule_system

            get_rule_system(state.ruleset)
            handler = _handler(state.ruleset, type(event))
        if handler is None:
            raise KeyError(f"no fold for {type(event).__name__} in {state.ruleset}")
        state = handler(state, event) or state
    state.version = event.originator_version
    return state


def _created(event: ev.EncounterCreated) -> EncounterState:
    from domain.rulesystems import get_rule_system  # the registry imports the fold

    return EncounterState(
        marks=get_rule_system(event.ruleset).encounter_marks_model(),
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


def fold(events: Iterable[Any], state: EncounterState | None = None) -> EncounterState | None:
    """Fold events, in order, onto a state (None for a new encounter)."""
    for event in events:
        state = evolve(state, event)
    return state


def add_effects(state: EncounterState, effects: list[dict[str, Any]], position: int) -> None:
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


def add_actions(state: EncounterState, actions: list[dict[str, Any]]) -> None:
    for a in actions:
        state.actions.append(ActionState(**a))


@folds(ev.CombatantAdded)
def _combatant_added(state: EncounterState, e: ev.CombatantAdded) -> None:
    from domain.rulesystems import get_rule_system  # the registry imports the fold

    book = get_rule_system(state.ruleset)
    state.combatants[e.combatant] = CombatantState(
        marks=book.marks_model(),
        round_marks=book.round_marks_model(),
        id=e.combatant,
        name=e.name,
        side=e.side,
        entry=len(state.combatants),
        stats=dict(e.stats),
        max_hits=e.max_hits,
        hits=e.hits,
    )


@folds(ev.CombatantHidden)
def _combatant_hidden(state: EncounterState, e: ev.CombatantHidden) -> None:
    who = state.combatants[e.combatant]
    who.hidden, who.reveal_when_acting = True, e.until_acting


@folds(ev.CombatantRevealed)
def _combatant_revealed(state: EncounterState, e: ev.CombatantRevealed) -> None:
    who = state.combatants[e.combatant]
    who.hidden, who.reveal_when_acting = False, False
    who.seen_from = e.originator_version if e.earlier == "from_reveal" else None


@folds(ev.HealthShown)
def _health_shown(state: EncounterState, e: ev.HealthShown) -> None:
    if e.combatant is not None:
        state.combatants[e.combatant].health_shown = e.shown
    elif e.party:
        state.party_health_shown = e.shown
    else:
        state.health_shown = e.shown


@folds(ev.NoteTaken)
def _note_taken(state: EncounterState, e: ev.NoteTaken) -> None:
    notes = state.combatants[e.combatant].notes if e.combatant is not None else state.notes
    notes.append(e.text)


@folds(ev.InitiativeRolled)
def _initiative_rolled(state: EncounterState, e: ev.InitiativeRolled) -> None:
    who = state.combatants[e.combatant]
    who.ip = e.ip
    who.ip_raw = e.raw


@folds(ev.DamageApplied)
def _damage_applied(state: EncounterState, e: ev.DamageApplied) -> None:
    # hits may go below 0 (NOV-HITS-2)
    state.combatants[e.combatant].hits -= e.amount


@folds(ev.ConditionApplied)
def _condition_applied(state: EncounterState, e: ev.ConditionApplied) -> None:
    who = state.combatants[e.combatant]
    if e.condition == "bleeding":
        who.wounds.append(Wound(position=e.originator_version, rate=e.rate, round=state.round))
    else:
        who.conditions[e.condition] = Condition(
            count=e.count, round=state.round, position=e.originator_version
        )


@folds(ev.ConditionCleared)
def _condition_cleared(state: EncounterState, e: ev.ConditionCleared) -> None:
    who = state.combatants[e.combatant]
    if e.condition == "bleeding":
        who.wounds = [w for w in who.wounds if e.wound is not None and w.position != e.wound]
    else:
        who.conditions.pop(e.condition, None)


@folds(ev.ActionResolved)
def _action_resolved(state: EncounterState, e: ev.ActionResolved) -> None:
    state.action(e.action).status = "resolved"


@folds(ev.TurnEnded)
def _turn_ended(state: EncounterState, e: ev.TurnEnded) -> None:
    """A turn's end changes nothing every book shares; the books played by turns fold it
    their own way (`folds(ev.TurnEnded, book=…)`)."""


@folds(ev.RoundEnded)
def round_ended(state: EncounterState, e: ev.RoundEnded) -> None:
    """The core's part of the end of a round (a book folding RoundEnded its own way calls it)."""
    state.round = e.round + 1
    # what was not resolved by the end of its round is over; multi-round actions carry on
    state.actions = [a for a in state.actions if a.status == "pending" and a.round > e.round]
    for who in state.combatants.values():
        who.round_marks = type(who.round_marks)()
        who.effects = [x for x in who.effects if x.last_round is None or x.last_round > e.round]


@folds(ev.HitsAdjusted)
def _hits_adjusted(state: EncounterState, e: ev.HitsAdjusted) -> None:
    state.combatants[e.combatant].hits += e.amount


@folds(ev.ModifierSet)
def _modifier_set(state: EncounterState, e: ev.ModifierSet) -> None:
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


@folds(ev.ModifierCleared)
def _modifier_cleared(state: EncounterState, e: ev.ModifierCleared) -> None:
    who = state.combatants[e.combatant]
    who.effects = [x for x in who.effects if x.name != e.name]


@folds(ev.DiceSecretRevealed)
def _dice_secret_revealed(state: EncounterState, e: ev.DiceSecretRevealed) -> None:
    state.dice_epoch = e.epoch + 1
    state.dice_commitment = e.next_commitment


@folds(ev.DiceCommitted)
def _dice_committed(state: EncounterState, e: ev.DiceCommitted) -> None:
    state.dice_epoch = e.epoch
    state.dice_commitment = e.commitment


@folds(ev.EncounterEnded)
def _encounter_ended(state: EncounterState, e: ev.EncounterEnded) -> None:
    state.ended = True


@folds(ev.RollVoided, ev.CommandUndone, ev.CommandRedone)
def _corrected(state: EncounterState, e: ev.Correction) -> EncounterState:
    return apply_changes(state, e.changes)


def apply_changes(state: EncounterState, patch: list[dict[str, Any]]) -> EncounterState:
    """The state with a correction's changes made (the fold of a correction)."""
    dump = state.model_dump()
    for change in patch:
        *parents, last = relocated(state, change["path"])
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
