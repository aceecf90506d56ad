"""The Encounter aggregate: one event stream per fight."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import MISSING, fields
from datetime import datetime
from functools import cache
from typing import Any
from uuid import UUID, uuid4

from eventsourcing.domain import Aggregate, OriginatorVersionError, Snapshot
from pydantic import BaseModel

from domain import audit, corrections
from domain import events as ev
from domain.commands import GM_COMMANDS, DiceSourceName, Redo, Undo, Void
from domain.dice import DiceSource
from domain.errors import DamagedRecord, RuleViolation
from domain.rulesystems import get_rule_system
from domain.rulesystems.base import Context
from domain.state import EncounterState, state_copy

GM = "gm"


class Encounter(Aggregate):
    """A fight. Commands validate against `state` and record events; nothing else."""

    state: EncounterState

    def __init__(self) -> None:
        """Nothing to set: the state comes from EncounterCreated, through domain.fold."""

    last_hash: str = ""  # the hash of the last event, which the next one chains to

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Encounter:
        """A copy of the cached aggregate for a command: its own state (a deep copy) and
        pending events; its id, times and last hash, which are only ever replaced, shared."""
        copied = object.__new__(type(self))
        copied.__dict__.update(self.__dict__)
        copied._pending_events = list(self._pending_events)
        copied.state = state_copy(self.state, memo)
        return copied

    @classmethod
    def start(
        cls,
        name: str,
        ruleset: str,
        dice_source: DiceSourceName = "server",
        seed: str | None = None,
        options: dict[str, Any] | None = None,
        actor: str = GM,
        *,
        encounter_id: UUID | None = None,
        dice_commitment: str | None = None,
        forked_from: dict[str, Any] | None = None,
    ) -> Encounter:
        rules = get_rule_system(ruleset)  # refuses a rule system fraylog does not have
        if dice_source == "seeded" and not seed:
            raise RuleViolation("DICE", "a seeded encounter needs a seed", field="seed")
        data = audit.plain(
            {
                "name": name,
                "ruleset": ruleset,
                "dice_source": dice_source,
                "seed": seed,
                "options": rules.options_of(options or {}),
                "dice_commitment": dice_commitment,
                "forked_from": forked_from,
            }
        )
        return cls._create(
            ev.EncounterCreated,
            id=encounter_id or uuid4(),
            **_stamped(ev.EncounterCreated, "", 1, actor, None, 1, data),
        )

    def record(
        self,
        event_class: type[ev.EncounterEvent],
        *,
        actor: str,
        cause: int | None,
        command: int,
        timestamp: datetime | None = None,
        **data: Any,
    ) -> Any:
        """Trigger an event, stamped with its time (now, unless given) and chained hash. A
        field the call leaves out is recorded with its default (a reason's code: None), so
        the hash covers every field the event is read back with."""
        for name, (default, factory) in _defaults(event_class).items():
            if name not in data:
                data[name] = default() if factory else default
        stamped = _stamped(
            event_class,
            self.last_hash,
            self.version + 1,
            actor,
            cause,
            command,
            audit.plain(data),
            timestamp,
        )
        self.trigger_event(event_class, **stamped)
        return self.pending_events[-1]

    @property
    def rules(self):
        return get_rule_system(self.state.ruleset)

    def add_combatant(
        self,
        name: str,
        side: str,
        stats: dict[str, Any],
        actor: str = GM,
        *,
        hidden: bool = False,
        until_acting: bool = True,
        health: str | None = None,
    ) -> str:
        self.refuse_if_ended()
        if any(c.name == name for c in self.state.combatants.values()):
            raise RuleViolation(
                "COMBATANT",
                f"a combatant called {name!r} is already here; names are unique in an encounter",
                field="name",
            )
        normalised, max_hits, hits = self.rules.new_combatant(stats)
        combatant = str(uuid4())
        command = self.version + 1  # the position of this command's first event

        def record(event_class: type[ev.EncounterEvent], **kw: Any) -> None:
            self.record(event_class, actor=actor, cause=None, command=command, **kw)

        record(
            ev.CombatantAdded,
            combatant=combatant,
            name=name,
            side=side,
            stats=normalised,
            max_hits=max_hits,
            hits=hits,
        )
        if hidden:  # in the same command: no player read ever shows him until revealed
            record(ev.CombatantHidden, combatant=combatant, until_acting=until_acting)
        if health is not None:  # how players see his health, in the same command
            record(ev.HealthShown, combatant=combatant, party=False, shown=health)
        return combatant

    def execute(self, command: BaseModel, dice: DiceSource, actor: str = GM) -> None:
        """Run a command of the rule system; its events are pending on the aggregate."""
        self.refuse_if_ended()

        first = self.version + 1

        def record(event_class: type[ev.EncounterEvent], cause: int | None, **kw: Any) -> Any:
            return self.record(event_class, actor=actor, cause=cause, command=first, **kw)

        subject = self.state.combatants.get(getattr(command, "combatant", None) or "")
        kind = getattr(command, "type", "")
        gm_only = GM_COMMANDS | self.rules.gm_commands
        his_move = kind not in gm_only and kind != "roll_initiative"
        if subject is not None and subject.hidden and subject.reveal_when_acting and his_move:
            record(ev.CombatantRevealed, None, combatant=subject.id, earlier="all", reason="acts")
        self.rules.execute(Context(lambda: self.state, record, dice), command)
        dice.finish()

    def reveal_dice(
        self,
        secret: bytes,
        next_commitment: str | None,
        actor: str = GM,
        *,
        ending: str | None = None,
    ) -> None:
        """Reveal the secret of the epoch in use (it must match its commitment); end the
        encounter with it when `ending` gives the reason."""
        self.refuse_if_ended()
        commitment = hashlib.sha256(secret).hexdigest()
        if commitment != self.state.dice_commitment:
            raise RuleViolation("DICE", "the secret does not match the committed SHA-256")
        first = self.version + 1
        if ending is not None:
            self.record(ev.EncounterEnded, actor=actor, cause=None, command=first, reason=ending)
        self.record(
            ev.DiceSecretRevealed,
            actor=actor,
            cause=None,
            command=first,
            epoch=self.state.dice_epoch,
            secret=secret.hex(),
            commitment=commitment,
            next_commitment=next_commitment,
        )

    @classmethod
    def fork(
        cls,
        history: Sequence[Any],
        at: int,
        name: str,
        encounter_id: UUID,
        commit: Callable[[], str],
        actor: str = GM,
    ) -> Encounter:
        """A new encounter whose history is the first `at` events of another (corrections as
        of `at` included), its origin recorded in its first event and its own dice secret
        committed after the copied past (`commit()` keeps a fresh secret and returns its hash).
        A history with a position missing is a damaged record: a fork of it would renumber
        what follows the gap and look whole."""
        for expected, event in enumerate(history, start=1):
            if event.originator_version != expected:
                raise DamagedRecord.gap(event.originator_id, expected, event.originator_version)
        if not 1 <= at <= len(history):
            raise RuleViolation("FORK", f"fork at a position from 1 to {len(history)}", field="at")
        if at < len(history) and history[at].command == history[at - 1].command:
            raise RuleViolation(
                "FORK",
                f"event {at} is in the middle of a command: fork at the last event of a command",
                field="at",
            )
        first = history[0]
        fork = cls.start(
            name,
            first.ruleset,
            first.dice_source,
            first.seed,
            first.options,
            actor,
            encounter_id=encounter_id,
            dice_commitment=first.dice_commitment,
            forked_from={"encounter": str(first.originator_id), "at": at, "name": first.name},
        )
        for event in history[1:at]:
            data = {k: v for k, v in vars(event).items() if k not in audit.BASE_FIELDS}
            fork.record(
                type(event),
                actor=event.actor,
                cause=event.cause,
                command=event.command,
                timestamp=event.timestamp,
                **data,
            )
        fork.commit_dice(commit(), actor)
        return fork

    def commit_dice(self, commitment: str, actor: str = GM) -> None:
        """Commit a fresh secret for the epoch in use (a fork's own, after its copied past)."""
        self.record(
            ev.DiceCommitted,
            actor=actor,
            cause=None,
            command=self.version + 1,
            epoch=self.state.dice_epoch,
            commitment=commitment,
        )

    def refuse_if_ended(self) -> None:
        if self.state.ended:
            raise RuleViolation("ENDED", "the encounter has ended; only corrections remain")

    def correct(
        self,
        command: Void | Undo | Redo,
        history: Sequence[Any] | corrections.History,
        actor: str = GM,
    ) -> None:
        """Void, undo or redo: record a correction whose changes make the state the fold of
        the history without what it voids. `history` is every stored event, in order: a list,
        or a `corrections.History` read as far back as needed. The refold starts from the
        latest state that needs none of it redone (`corrections.refold_from`)."""
        if not isinstance(history, corrections.History):
            history = corrections.Held(history[: self.version])
        if len(history) != self.version:
            raise RuleViolation("VERSION", "the history given is shorter than the encounter")
        voided = corrections.voided_by(history.corrections)
        if isinstance(command, Void):
            target: int | None = command.target
            corrections.check_voidable(history, command.target)
            if command.target in voided:
                raise RuleViolation(
                    "VOID",
                    f"event {command.target} is already voided (by "
                    f"{voided[command.target]}); void that to restore it",
                    field="target",
                )
            cascade = corrections.void_cascade(history, command.target)
        elif isinstance(command, Undo):
            target = None
            cascade = corrections.consequences(history, corrections.last_command(history, voided))
        else:
            target = corrections.last_undo(history.corrections, voided)
            cascade = corrections.consequences(history, [target])
        if target is not None and corrections.is_correction(history[target - 1]):
            corrections.check_nothing_since(history, target, voided, command.type.upper())
        # with this correction as the latest (voiding a void restores what it voided)
        now_voided = corrections.voided_by(history.corrections, latest=(self.version + 1, cascade))
        start = corrections.refold_from(history.corrections, now_voided, self.version)
        state = history.state_at(start)
        try:
            corrected = corrections.fold_without(history[start:], now_voided, state)
        except Exception as e:  # a later command depends on what would be voided
            raise RuleViolation(
                command.type.upper(),
                f"the history without events {cascade} does not fold "
                f"({type(e).__name__}: {e}); later commands depend on them",
                field="target" if isinstance(command, Void) else "type",
            ) from None
        patch = corrections.changes(self.state.model_dump(), corrected.model_dump())
        self.record(
            CORRECTION_EVENTS[command.type],
            actor=actor,
            cause=None,
            command=self.version + 1,
            target=target,
            cascade=cascade,
            reason=command.reason,
            changes=patch,
        )


CORRECTION_EVENTS: dict[str, type[ev.Correction]] = {
    "void": ev.RollVoided,
    "undo": ev.CommandUndone,
    "redo": ev.CommandRedone,
}


def _stamped(
    event_class: type[ev.EncounterEvent],
    previous: str,
    position: int,
    actor: str,
    cause: int | None,
    command: int,
    data: dict[str, Any],
    timestamp: datetime | None = None,
) -> dict[str, Any]:
    """The event's keyword arguments with its timestamp and chained hash (domain.audit)."""
    timestamp = timestamp or event_class.create_timestamp()
    rec = audit.record(
        event_class.__name__, position, timestamp.isoformat(), actor, cause, command, data
    )
    return {
        **data,
        "timestamp": timestamp,
        "actor": actor,
        "cause": cause,
        "command": command,
        "hash": audit.chain(previous, rec),
    }


def project_encounter(aggregate: Encounter | None, events: Iterable[Any]) -> Encounter | None:
    """The aggregate projector, without the library's per-event isinstance assertion; a
    position missing from the stored events is a damaged record (DamagedRecord)."""
    for event in events:
        if aggregate is None and not isinstance(event, ev.EncounterCreated | Snapshot):
            raise DamagedRecord.gap(event.originator_id, 1, event.originator_version)
        try:
            aggregate = event.mutate(aggregate)
        except OriginatorVersionError:
            assert aggregate is not None
            missing = aggregate.version + 1
            raise DamagedRecord.gap(
                event.originator_id, missing, event.originator_version
            ) from None
    return aggregate


@cache
def _defaults(event_class: type[ev.EncounterEvent]) -> dict[str, tuple[Any, bool]]:
    """The fields of an event class that have a default: the default, or its factory (True:
    call it, so each event gets its own)."""
    return {
        f.name: (f.default, False) if f.default is not MISSING else (f.default_factory, True)
        for f in fields(event_class)
        if f.default is not MISSING or f.default_factory is not MISSING
    }
