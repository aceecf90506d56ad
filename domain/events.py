"""The events of an Encounter, in the past tense.

Every event carries `actor` (who issued the command) and `cause` (the position of the
event it follows from, or None). Each is complete enough to fold without looking
anything up: dice faces, named modifiers, target numbers, outcomes, and hits before
and after. Positions are the aggregate versions, starting at 1.
"""

from __future__ import annotations

from typing import Annotated, Any

from eventsourcing.domain import Aggregate
from eventsourcing.utils import register_topic

from domain.audit import BASE_FIELDS
from domain.upcasting import upcast_event
from domain.visibility import GM, HEALTH


class EncounterEvent(Aggregate.Event):
    """Base of every Encounter event.

    Version 2: `defense` everywhere; a version-1 event (stored before) is read respelled,
    with the record as written kept in `recorded_as` (domain.upcasting)."""

    class_version = 2

    @classmethod
    def upcast_v1_v2(cls, state: dict[str, Any]) -> None:
        upcast_event(cls.__name__, state, BASE_FIELDS)

    actor: str
    cause: int | None
    command: int  # the position of the first event of the command that recorded it
    hash: str  # SHA-256 chained to the previous event's hash (domain.audit)

    def apply(self, aggregate: Any) -> None:
        aggregate.state = fold.evolve(getattr(aggregate, "state", None), self)
        aggregate.last_hash = self.hash


class EncounterCreated(EncounterEvent, Aggregate.Created):
    name: str
    ruleset: str
    dice_source: str
    seed: str | None
    options: dict[str, Any]
    dice_commitment: str | None  # SHA-256 of the server dice secret (hex), never the secret
    forked_from: dict[str, Any] | None  # {"encounter": id, "at": N} for a fork


class CombatantAdded(EncounterEvent):
    combatant: str
    name: str
    side: str
    stats: Annotated[dict[str, Any], HEALTH]  # his stat block: it gives his hits
    max_hits: Annotated[int, HEALTH]
    hits: Annotated[int, HEALTH]


class CombatantHidden(EncounterEvent):
    """The GM keeps a combatant from the players: no player read shows a trace of him until
    he is revealed (docs/visibility.md); `until_acting`: revealed by his first command."""

    combatant: str
    until_acting: bool


class CombatantRevealed(EncounterEvent):
    """A hidden combatant shown to the players; `earlier`: `all` (what he did while hidden
    too) or `from_reveal` (the events before this one stay hidden from them)."""

    combatant: str
    earlier: str
    reason: str


class HealthShown(EncounterEvent):
    """How players see health (docs/visibility.md): `exact` figures, a `described` state, or
    `none`; for one `combatant` (overriding the encounter's), for the `party` (how players see
    each other's characters), or else for the GM's combatants (those no player acts for)."""

    combatant: str | None
    party: bool
    shown: str


class NoteTaken(EncounterEvent):
    """The GM's note, on a combatant or on the fight; players never read its text."""

    combatant: str | None
    text: Annotated[str, GM]


class InitiativeRolled(EncounterEvent):
    combatant: str
    ip: int
    raw: int | None  # the dice total, used to break ties (NOV-AMB-8)
    rolls: dict[str, Any]
    modifiers: dict[str, int]
    entered: bool  # True when the GM entered the IP instead of rolling


class DamageApplied(EncounterEvent):
    combatant: str
    amount: int
    hits_before: Annotated[int, HEALTH]
    hits_after: Annotated[int, HEALTH]
    breakdown: dict[str, Any]
    rolls: dict[str, Any]  # damage dice, where the damage was rolled


class ConditionApplied(EncounterEvent):
    combatant: str
    condition: str
    count: int | None
    rate: int | None
    reason: str


class ConditionCleared(EncounterEvent):
    combatant: str
    condition: str
    wound: int | None  # the position of the wound closed, for bleeding
    reason: str


class ActionResolved(EncounterEvent):
    combatant: str
    action: str
    kind: str
    detail: dict[str, Any]


class Correction(EncounterEvent):
    """Voids the events of its cascade; `changes` turn the state into the fold without them."""

    target: int | None
    cascade: list[int]
    reason: str
    changes: list[dict[str, Any]]


class RollVoided(Correction):
    """A disputed roll, and everything that followed from it, voided."""


class CommandUndone(Correction):
    """The events of the most recent command voided."""


class CommandRedone(Correction):
    """The last undo voided, so what it undid counts again."""


class DiceSecretRevealed(EncounterEvent):
    """The server dice secret of an epoch, revealed; `next_commitment` opens the next epoch."""

    epoch: int
    secret: str  # hex
    commitment: str
    next_commitment: str | None


class DiceCommitted(EncounterEvent):
    """A fresh server dice secret committed (a fork's own secret, after the copied history)."""

    epoch: int
    commitment: str


class EncounterEnded(EncounterEvent):
    reason: str


class RoundEnded(EncounterEvent):
    round: int
    lost_actions: list[str]


class HitsAdjusted(EncounterEvent):
    combatant: str
    amount: Annotated[int, HEALTH]
    hits_before: Annotated[int, HEALTH]
    hits_after: Annotated[int, HEALTH]
    reason: str
    # a rule's reason: its code in the book's catalogue and its parameters (the book's log
    # tells it in the reader's language); None: the GM's words, as typed
    reason_code: str | None = None
    reason_params: dict[str, Any] | None = None


class ModifierSet(EncounterEvent):
    combatant: str
    name: str
    applies_to: str
    value: int
    first_round: int
    last_round: int | None
    reason: str


class ModifierCleared(EncounterEvent):
    combatant: str
    name: str
    reason: str


class TurnEnded(EncounterEvent):
    """A combatant's turn over, in the books played by turns (each folds it its own way)."""

    combatant: str
    actions_left: int


# A rule book's own events live in its package (domain/rulesystems/<book>/events.py); those
# that were defined here once are stored under this module's topic, `domain.events:<Name>`.
MOVED: dict[str, type[EncounterEvent]] = {}


def moved_here(*classes: type[EncounterEvent], as_name: str | None = None) -> None:
    """A book's event classes once defined here (or `as_name`, a name it was stored under):
    their stored topics `domain.events:<Name>` read as them."""
    for cls in classes:
        name = as_name or cls.__name__
        MOVED[name] = cls
        register_topic(f"{__name__}:{name}", cls)


def __getattr__(name: str) -> type[EncounterEvent]:
    """A book's event under its old topic: loading the rule books registers them."""
    if name.startswith("__"):
        raise AttributeError(name)
    if name not in MOVED:
        from domain.rulesystems import all_rule_systems  # each book loads its events

        all_rule_systems()
    if name not in MOVED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return MOVED[name]


def event_class(name: str) -> type[EncounterEvent] | None:
    """The event class a record's `type` names: the core's or a registered rule book's
    (None for a type no longer written)."""
    from domain.rulesystems import event_classes  # the registry imports this module

    return event_classes().get(name) or MOVED.get(name)


# last: the fold registers its handlers by these classes (and this module folds with it)
from domain import fold  # noqa: E402
