"""A campaign's roster: an account's saved stat blocks, player characters (`character`) and
creatures (`creature`, the bestiary), each for one rule book and valid by it. An entry is an
aggregate of its own, one event stream per entry, so its history is kept: saved, its stats
revised, the lasting state carried back from a fight (which encounter, which position), a
rest that clears it, retired.

The entry never reads an encounter later and an encounter never reads the roster: a copy
into a fight takes the entry's stats and lasting state into the encounter's own events
(`RosterEntry.copy`), and a carry takes what lasts of a combatant, as the fight's state
stands, into the entry's (`RosterEntry.carry`). What lasts is each rule book's rule
(`RuleSystem.lasting`, domain/rulesystems/<book>/lasting.py)."""

from __future__ import annotations

from copy import deepcopy
from typing import Any, Literal
from uuid import UUID, uuid4

from eventsourcing.domain import Aggregate
from pydantic import BaseModel, Field

from domain import audit
from domain.errors import RuleViolation
from domain.rulesystems import get_rule_system
from domain.state import CombatantState, EncounterState

RosterKind = Literal["character", "creature"]
KINDS: tuple[str, ...] = ("character", "creature")


class CarriedFrom(BaseModel):
    """Where an entry's lasting state was carried from."""

    encounter: str
    position: int  # the encounter's position (version) it was read at
    combatant: str  # the combatant's id in that encounter
    combatant_name: str
    ended: bool  # the encounter had ended by then


class RosterEntryState(BaseModel):
    """An entry as its events leave it."""

    id: str
    account: str
    kind: RosterKind
    ruleset: str
    name: str
    side: str
    stats: dict[str, Any]
    lasting: dict[str, Any] | None = None  # None: fresh (nothing carried since saved or rest)
    carried_from: CarriedFrom | None = None
    retired: bool = False
    version: int = 1
    saved_at: str = ""
    revised_at: str = ""


class RosterEvent(Aggregate.Event):
    """Base of a roster entry's events, in the past tense."""

    def apply(self, aggregate: Any) -> None:
        aggregate.state = evolve(getattr(aggregate, "state", None), self)


class RosterEntrySaved(RosterEvent, Aggregate.Created):
    account: str
    kind: str
    ruleset: str
    name: str
    side: str
    stats: dict[str, Any]


class StatsRevised(RosterEvent):
    stats: dict[str, Any]
    name: str
    side: str


class LastingStateCarried(RosterEvent):
    encounter: str
    position: int
    combatant: str
    combatant_name: str
    ended: bool
    lasting: dict[str, Any]


class RestTaken(RosterEvent):
    """The lasting state cleared: he starts the next fight from his stat block again."""

    reason: str


class RosterEntryRetired(RosterEvent):
    reason: str


def evolve(state: RosterEntryState | None, event: RosterEvent) -> RosterEntryState:
    """The one fold of an entry's events."""
    when = event.timestamp.isoformat()
    if isinstance(event, RosterEntrySaved):
        return RosterEntryState(
            id=str(event.originator_id),
            account=event.account,
            kind=event.kind,  # type: ignore[arg-type]
            ruleset=event.ruleset,
            name=event.name,
            side=event.side,
            stats=deepcopy(event.stats),
            saved_at=when,
            revised_at=when,
        )
    assert state is not None
    changed: dict[str, Any] = {"version": event.originator_version, "revised_at": when}
    if isinstance(event, StatsRevised):
        changed |= {"stats": deepcopy(event.stats), "name": event.name, "side": event.side}
    elif isinstance(event, LastingStateCarried):
        changed["lasting"] = deepcopy(event.lasting)
        changed["carried_from"] = CarriedFrom(
            encounter=event.encounter,
            position=event.position,
            combatant=event.combatant,
            combatant_name=event.combatant_name,
            ended=event.ended,
        )
    elif isinstance(event, RestTaken):
        changed |= {"lasting": None, "carried_from": None}
    elif isinstance(event, RosterEntryRetired):
        changed["retired"] = True
    return state.model_copy(update=changed)


class Copy(BaseModel):
    """What a copy of an entry brings into an encounter: his name, side and stat block as
    the fight starts him (with what lasts), and the lasting state for the book's commands
    after he is added (`RuleSystem.lasting.commands`)."""

    kind: RosterKind
    name: str
    side: str
    stats: dict[str, Any]
    lasting: dict[str, Any] | None
    note: str = Field(description="The GM's note on the copy: which entry, which version.")


class RosterEntry(Aggregate):
    """One saved stat block of an account's roster."""

    state: RosterEntryState

    def __init__(self) -> None:
        """Nothing to set: the state comes from RosterEntrySaved, through `evolve`."""

    @classmethod
    def save(
        cls,
        account: str,
        kind: str,
        ruleset: str,
        name: str,
        side: str,
        stats: dict[str, Any],
        entry_id: UUID | None = None,
    ) -> RosterEntry:
        """A new entry, its stats valid by its rule book as a combatant's would be."""
        if kind not in KINDS:
            raise RuleViolation("ROSTER", f"kind is {' or '.join(KINDS)}", field="kind")
        get_rule_system(ruleset).new_combatant(stats)  # refuses as adding a combatant does
        return cls._create(
            RosterEntrySaved,
            id=entry_id or uuid4(),
            account=account,
            kind=kind,
            ruleset=ruleset,
            name=name,
            side=side,
            stats=audit.plain(stats),
        )

    def refuse_if_retired(self, field: str | None = None) -> None:
        if self.state.retired:
            raise RuleViolation(
                "RETIRED",
                f"{self.state.name} is retired from the roster; his history stays readable",
                field=field,
            )

    def revise(self, stats: dict[str, Any], name: str | None, side: str | None) -> None:
        """New stats (valid by the entry's rule book); a new name or side with them."""
        self.refuse_if_retired()
        get_rule_system(self.state.ruleset).new_combatant(stats)
        self.trigger_event(
            StatsRevised,
            stats=audit.plain(stats),
            name=self.state.name if name is None else name,
            side=self.state.side if side is None else side,
        )

    def carry(self, state: EncounterState, who: CombatantState) -> None:
        """What lasts of `who`, as the encounter `state` stands, by the book's rule."""
        self.refuse_if_retired()
        if state.ruleset != self.state.ruleset:
            raise RuleViolation(
                "RULESET",
                f"{self.state.name} is a {self.state.ruleset} entry; the encounter plays "
                f"{state.ruleset}",
                field="encounter",
            )
        lasting = get_rule_system(state.ruleset).lasting.of(state, who)
        self.trigger_event(
            LastingStateCarried,
            encounter=state.id,
            position=state.version,
            combatant=who.id,
            combatant_name=who.name,
            ended=state.ended,
            lasting=audit.plain(lasting),
        )

    def rest(self, reason: str) -> None:
        self.refuse_if_retired()
        self.trigger_event(RestTaken, reason=reason)

    def retire(self, reason: str) -> None:
        self.refuse_if_retired()
        self.trigger_event(RosterEntryRetired, reason=reason)

    def copy(self, ruleset: str, name: str | None, side: str | None) -> Copy:
        """The entry as a new combatant of an encounter playing `ruleset`."""
        self.refuse_if_retired("from_roster")
        entry = self.state
        if ruleset != entry.ruleset:
            raise RuleViolation(
                "RULESET",
                f"{entry.name} is a {entry.ruleset} entry; this encounter plays {ruleset}",
                field="from_roster",
            )
        lasting = deepcopy(entry.lasting)
        stats = deepcopy(entry.stats)
        if lasting is not None:
            rules = get_rule_system(ruleset)
            _, max_hits, _ = rules.new_combatant(stats)  # stats revised since: never above
            lasting["hits"] = min(lasting["hits"], max_hits)
            stats = rules.lasting.starting_stats(stats, lasting)
        note = (
            f"from the roster: {entry.kind} {entry.name}, entry {entry.id} "
            f"at version {entry.version}"
        )
        if entry.carried_from is not None:
            came = entry.carried_from
            note += f", lasting state from encounter {came.encounter} at position {came.position}"
        return Copy(
            kind=entry.kind,
            name=entry.name if name is None else name,
            side=entry.side if side is None else side,
            stats=stats,
            lasting=lasting,
            note=note,
        )
