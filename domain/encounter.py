"""The Encounter aggregate: one event stream per fight."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from uuid import uuid4

from eventsourcing.domain import Aggregate
from pydantic import BaseModel

from domain import events as ev
from domain.commands import DiceSourceName
from domain.dice import DiceSource
from domain.errors import RuleViolation
from domain.rulesystems import get_rule_system
from domain.rulesystems.base import Context
from domain.state import EncounterState

GM = "gm"


class Encounter(Aggregate):
    """A fight. Commands validate against `state` and record events; nothing else."""

    state: EncounterState

    def __init__(self) -> None:  # the state comes from EncounterCreated (domain.fold)
        pass

    @classmethod
    def start(
        cls,
        name: str,
        ruleset: str,
        dice_source: DiceSourceName = "server",
        seed: str | None = None,
        options: dict[str, Any] | None = None,
        actor: str = GM,
    ) -> Encounter:
        get_rule_system(ruleset)  # refuses a rule system fraylog does not have
        if dice_source == "seeded" and not seed:
            raise RuleViolation("DICE", "a seeded encounter needs a seed", field="seed")
        return cls._create(
            ev.EncounterCreated,
            id=uuid4(),
            name=name,
            ruleset=ruleset,
            dice_source=dice_source,
            seed=seed,
            options=options or {},
            actor=actor,
            cause=None,
        )

    @property
    def rules(self):
        return get_rule_system(self.state.ruleset)

    def add_combatant(self, name: str, side: str, stats: dict[str, Any], actor: str = GM) -> str:
        if any(c.name == name for c in self.state.combatants.values()):
            raise RuleViolation(
                "COMBATANT",
                f"a combatant called {name!r} is already here; names are unique in an encounter",
                field="name",
            )
        normalised, max_hits, hits = self.rules.new_combatant(stats)
        combatant = str(uuid4())
        self.trigger_event(
            ev.CombatantAdded,
            actor=actor,
            cause=None,
            combatant=combatant,
            name=name,
            side=side,
            stats=normalised,
            max_hits=max_hits,
            hits=hits,
        )
        return combatant

    def execute(self, command: BaseModel, dice: DiceSource, actor: str = GM) -> None:
        """Run a command of the rule system; its events are pending on the aggregate."""

        def record(event_class: type[ev.EncounterEvent], cause: int | None, **kw: Any) -> Any:
            self.trigger_event(event_class, actor=actor, cause=cause, **kw)
            return self.pending_events[-1]

        self.rules.execute(Context(lambda: self.state, record, dice), command)
        dice.finish()


def project_encounter(aggregate: Encounter | None, events: Iterable[Any]) -> Encounter | None:
    """The aggregate projector, without the library's per-event isinstance assertion."""
    for event in events:
        aggregate = event.mutate(aggregate)
    return aggregate
