"""The interface every rule system implements, and the context a command runs in."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, ClassVar

from pydantic import BaseModel, ValidationError

from domain import commands as c
from domain import events as ev
from domain.dice import DiceSource
from domain.errors import RuleViolation
from domain.state import CombatantState, EncounterState
from domain.visibility import HEALTH_SHOWN, HEALTH_WORDS, HealthState

Choice = dict[str, Any]
"""A command that may be sent now: `type`, `combatant` (who acts, or None for the
encounter's own), `command` (the whole body, no dice), `label` (in the table's words),
`rolls` (the roll names it may ask for, in order), and optionally `fields` (what else the
sender may set, e.g. metres to move)."""


def choice(
    kind: str,
    who: str | None,
    command: dict[str, Any],
    label: str,
    rolls: list[str] | None = None,
    fields: dict[str, Any] | None = None,
) -> Choice:
    """A `Choice` of type `kind` for combatant id `who` (None: the encounter's own): its
    command is `command` with `type` first (`kind`; `command` may leave it out), and it
    has `fields` only where there are any."""
    made: Choice = {
        "type": kind,
        "combatant": who,
        "command": {"type": kind, **command},
        "label": label,
        "rolls": rolls or [],
    }
    if fields:
        made["fields"] = dict(fields)
    return made


class Context:
    """One command's run: the working state, its dice and a way to record events."""

    def __init__(
        self, state_of: Callable[[], EncounterState], record: Callable[..., Any], dice: DiceSource
    ) -> None:
        self._state_of = state_of
        self._record = record
        self.dice = dice
        self.first_position = state_of().version + 1
        self._emitted: dict[int, ev.EncounterEvent] = {}

    @property
    def state(self) -> EncounterState:
        return self._state_of()

    def emit(
        self, event_class: type[ev.EncounterEvent], cause: int | None = None, **kw: Any
    ) -> int:
        """Record an event now (the state moves on) and return its position."""
        event = self._record(event_class, cause=cause, **kw)
        self._emitted[event.originator_version] = event
        return event.originator_version

    def apply_condition(
        self,
        combatant: str,
        condition: str,
        reason: str,
        *,
        cause: int | None = None,
        count: int | None = None,
        rate: int | None = None,
    ) -> int:
        """Record ConditionApplied: a bleeding wound (`rate`) or a condition (`count`)."""
        return self.emit(
            ev.ConditionApplied,
            cause=cause,
            combatant=combatant,
            condition=condition,
            count=count,
            rate=rate,
            reason=reason,
        )

    def apply_damage(
        self,
        combatant: str,
        breakdown: dict[str, Any],
        *,
        cause: int | None,
        rolls: dict[str, Any] | None = None,
    ) -> int:
        """Record DamageApplied: `breakdown["total"]` off the combatant's hits."""
        hits = self.state.combatants[combatant].hits
        return self.emit(
            ev.DamageApplied,
            cause=cause,
            combatant=combatant,
            amount=breakdown["total"],
            hits_before=hits,
            hits_after=hits - breakdown["total"],
            breakdown=breakdown,
            rolls=rolls or {},
        )

    def clear_condition(
        self,
        combatant: str,
        condition: str,
        reason: str,
        *,
        cause: int | None = None,
        wound: int | None = None,
    ) -> int:
        """Record ConditionCleared (one bleeding wound by its position, or a condition)."""
        return self.emit(
            ev.ConditionCleared,
            cause=cause,
            combatant=combatant,
            condition=condition,
            wound=wound,
            reason=reason,
        )

    def last(self, position: int) -> Any:
        """An event this command recorded, by its position."""
        return self._emitted[position]


def with_situational(parts: dict[str, int], situational: dict[str, int]) -> dict[str, int]:
    """Computed modifiers plus the GM's situational ones, which may not replace a computed one."""
    clash = sorted(set(parts) & set(situational))
    if clash:
        raise RuleViolation(
            "MODIFIERS",
            f"{', '.join(clash)} is computed by the rules; name "
            "a situational modifier differently (or use set_modifier)",
            field="modifiers",
        )
    return {**parts, **situational}


class RuleSystem(ABC):
    """Initiative, the action catalogue with costs, validation, resolution, upkeep."""

    name: ClassVar[str]
    title: ClassVar[str]  # the book's name as its readers spell it ("PHANTÄSIA")
    # the languages its log reads in, the first its own (PHANTÄSIA: Spanish on request)
    languages: ClassVar[tuple[str, ...]] = ("en",)
    hits_word: ClassVar[str] = "hits"  # what the book calls a combatant's hits ("PV")
    # the book's own commands, beyond the core's (domain.commands.CORE_COMMANDS)
    commands: ClassVar[tuple[type[BaseModel], ...]] = ()
    stats_model: ClassVar[type[BaseModel]]
    conditions: ClassVar[frozenset[str]]
    # the combatant view's health figures (its view module declares them, docs/visibility.md)
    health_figures: ClassVar[tuple[str, ...]]

    options_model: ClassVar[type[BaseModel] | None] = None
    # roll_initiative's `group` and `simultaneous` (PHA-INIT-1, -3): only where the rules have them
    shared_initiative: ClassVar[bool] = False

    def _validated(self, model: type[BaseModel], data: dict[str, Any], field: str) -> Any:
        try:
            return model.model_validate(data)
        except ValidationError as e:
            first = e.errors()[0]
            where = ".".join([field, *(str(p) for p in first["loc"])])
            raise RuleViolation(
                f"{self.name.upper()}-{field.upper()}", f"{where}: {first['msg']}", field=where
            ) from None

    # -- encounters and combatants -----------------------------------------------
    def options_of(self, options: dict[str, Any]) -> dict[str, Any]:
        """Validate an encounter's options; return them with every default filled in, so
        the first event records the defaults the fight is played with."""
        if self.options_model is None:
            if options:
                raise RuleViolation(
                    f"{self.name.upper()}-OPTIONS",
                    f"the {self.name} rule system takes no options",
                    field="options",
                )
            return {}
        return self._validated(self.options_model, options, "options").model_dump(mode="json")

    def new_combatant(self, stats: dict[str, Any]) -> tuple[dict[str, Any], int, int]:
        """Validate stats; return them normalised with maximum and current hits."""
        return self.hits_of(self._validated(self.stats_model, stats, "stats"))

    @abstractmethod
    def hits_of(self, model: Any) -> tuple[dict[str, Any], int, int]: ...

    @abstractmethod
    def catalogue(self) -> list[dict[str, Any]]:
        """Every action with its cost and roll names, for docs and frontends."""

    def describe(self) -> dict[str, Any]:
        """What a frontend needs to offer this rule system: stats, actions, conditions."""
        return {
            "name": self.name,
            "stats_schema": self.stats_model.model_json_schema(by_alias=True),
            "options_schema": (
                self.options_model.model_json_schema() if self.options_model else None
            ),
            "actions": self.catalogue(),
            "conditions": sorted(self.conditions),
            "health_states": {state: words["en"] for state, words in HEALTH_WORDS.items()},
        }

    def acting_for(self, state: EncounterState, command: BaseModel) -> str | None:
        """The combatant a command acts for (a player may send it for his own only,
        domain.access): the one it names; a book's commands that name none say otherwise."""
        return getattr(command, "combatant", None)

    @abstractmethod
    def health_state(self, state: EncounterState, who: CombatantState) -> HealthState:
        """His health in words: unhurt, hurt, badly_hurt or down (docs/visibility.md)."""

    @abstractmethod
    def view(self, state: EncounterState) -> dict[str, Any]:
        """What follows from the facts: step, order, whose turn, AP left, DEF, down."""

    # -- what can happen now ----------------------------------------------------------
    def choices(self, state: EncounterState) -> list[Choice]:
        """The commands of play that may make sense now, each complete (no dice): for every
        combatant who may act, each command type with each of its enumerable options
        (living targets, weapons, affordable actions, open defenses, statuses that may
        end), plus the encounter's own (end the round). Generous is fine: the app keeps
        only those the asking token may send and the rules accept (each is run on a copy
        up to its first die, nothing recorded), so a candidate the rules refuse is simply
        dropped; but a command the rules would accept must not be missing."""
        return []

    def overrides(self, state: EncounterState) -> list[dict[str, Any]]:
        """The GM's overrides as forms: a command type, for whom, and its fields (with
        their enumerable values). Not probed: the GM fills the free fields."""
        forms: list[dict[str, Any]] = []
        for who in state.combatants.values():
            forms.append(
                {
                    "type": "adjust_hits",
                    "combatant": who.id,
                    "fields": {"amount": {"type": "integer"}, "reason": {"type": "string"}},
                }
            )
            if who.hidden:
                forms.append(
                    {
                        "type": "reveal_combatant",
                        "combatant": who.id,
                        "fields": {
                            "earlier": {"enum": ["all", "from_reveal"]},
                            "reason": {"type": "string"},
                        },
                    }
                )
            else:
                forms.append(
                    {
                        "type": "hide_combatant",
                        "combatant": who.id,
                        "fields": {"until_acting": {"type": "boolean"}},
                    }
                )
            forms.append(
                {
                    "type": "show_health",
                    "combatant": who.id,
                    "fields": {"shown": {"enum": list(HEALTH_SHOWN)}},
                }
            )
            forms.append(
                {
                    "type": "take_note",
                    "combatant": who.id,
                    "fields": {"text": {"type": "string"}},
                }
            )
            forms.append(
                {
                    "type": "set_condition",
                    "combatant": who.id,
                    "fields": {
                        "condition": {"enum": sorted(self.conditions)},
                        "count": {"type": "integer"},
                        "reason": {"type": "string"},
                    },
                }
            )
            held = sorted({*who.conditions} | ({"bleeding"} if who.wounds else set()))
            if held:
                forms.append(
                    {
                        "type": "clear_condition",
                        "combatant": who.id,
                        "fields": {"condition": {"enum": held}, "reason": {"type": "string"}},
                    }
                )
            forms.append(
                {
                    "type": "set_modifier",
                    "combatant": who.id,
                    "fields": {
                        "name": {"type": "string"},
                        "applies_to": {"type": "string"},
                        "value": {"type": "integer"},
                        "rounds": {"type": "integer"},
                        "reason": {"type": "string"},
                    },
                }
            )
            if who.effects:
                forms.append(
                    {
                        "type": "clear_modifier",
                        "combatant": who.id,
                        "fields": {"name": {"enum": sorted({e.name for e in who.effects})}},
                    }
                )
        forms.append(  # the encounter's own: the GM's combatants' health, or the party's
            {
                "type": "show_health",
                "combatant": None,
                "fields": {"shown": {"enum": list(HEALTH_SHOWN)}, "party": {"type": "boolean"}},
            }
        )
        forms.append(
            {"type": "take_note", "combatant": None, "fields": {"text": {"type": "string"}}}
        )
        return forms

    # -- commands ---------------------------------------------------------------
    def execute(self, ctx: Context, command: BaseModel) -> None:
        if isinstance(command, c.RollInitiative) and not self.shared_initiative:
            chosen = "group" if command.group is not None else None
            chosen = chosen or ("simultaneous" if command.simultaneous else None)
            if chosen:
                raise RuleViolation(
                    f"{self.name.upper()}-CMD",
                    f"{chosen} is a PHANTÄSIA initiative choice; the {self.name} rule system "
                    "has none",
                    field=chosen,
                )
        handler = getattr(self, f"on_{command.type}", None)  # type: ignore[attr-defined]
        if handler is None:
            raise RuleViolation(
                f"{self.name.upper()}-CMD",
                f"the {self.name} rule system has no command {command.type!r}",  # type: ignore[attr-defined]
                field="type",
            )
        handler(ctx, command)

    def on_adjust_hits(self, ctx: Context, cmd: c.AdjustHits) -> int:
        who = ctx.state.combatant(cmd.combatant)
        return ctx.emit(
            ev.HitsAdjusted,
            combatant=who.id,
            amount=cmd.amount,
            hits_before=who.hits,
            hits_after=who.hits + cmd.amount,
            reason=cmd.reason,
        )

    def on_hide_combatant(self, ctx: Context, cmd: c.HideCombatant) -> None:
        who = ctx.state.combatant(cmd.combatant)
        if who.hidden:
            raise RuleViolation("HIDDEN", f"{who.name} is hidden already", field="combatant")
        ctx.emit(ev.CombatantHidden, combatant=who.id, until_acting=cmd.until_acting)

    def on_reveal_combatant(self, ctx: Context, cmd: c.RevealCombatant) -> None:
        who = ctx.state.combatant(cmd.combatant)
        if not who.hidden:
            raise RuleViolation("HIDDEN", f"{who.name} is not hidden", field="combatant")
        ctx.emit(ev.CombatantRevealed, combatant=who.id, earlier=cmd.earlier, reason=cmd.reason)

    def on_show_health(self, ctx: Context, cmd: c.ShowHealth) -> None:
        if cmd.combatant is not None and cmd.party:
            raise RuleViolation(
                "HEALTH", "show health for one combatant or for the party, not both", field="party"
            )
        who = ctx.state.combatant(cmd.combatant) if cmd.combatant is not None else None
        ctx.emit(
            ev.HealthShown,
            combatant=who.id if who else None,
            party=cmd.party,
            shown=cmd.shown,
        )

    def on_take_note(self, ctx: Context, cmd: c.TakeNote) -> None:
        who = ctx.state.combatant(cmd.combatant) if cmd.combatant is not None else None
        ctx.emit(ev.NoteTaken, combatant=who.id if who else None, text=cmd.text)

    def on_set_condition(self, ctx: Context, cmd: c.SetCondition) -> None:
        who = ctx.state.combatant(cmd.combatant)
        self.check_condition(cmd.condition, cmd.count, cmd.rate)
        ctx.emit(
            ev.ConditionApplied,
            combatant=who.id,
            condition=cmd.condition,
            count=cmd.count,
            rate=cmd.rate,
            reason=cmd.reason,
        )

    def on_clear_condition(self, ctx: Context, cmd: c.ClearCondition) -> None:
        who = ctx.state.combatant(cmd.combatant)
        if cmd.condition == "bleeding":
            if not who.wounds or (
                cmd.wound is not None and all(w.position != cmd.wound for w in who.wounds)
            ):
                raise RuleViolation("GM", f"{who.name} has no such bleeding wound", field="wound")
        elif not who.has(cmd.condition):
            raise RuleViolation("GM", f"{who.name} is not {cmd.condition}", field="condition")
        ctx.emit(
            ev.ConditionCleared,
            combatant=who.id,
            condition=cmd.condition,
            wound=cmd.wound,
            reason=cmd.reason,
        )

    def on_set_modifier(self, ctx: Context, cmd: c.SetModifier) -> None:
        who = ctx.state.combatant(cmd.combatant)
        last = None if cmd.rounds is None else ctx.state.round + cmd.rounds - 1
        ctx.emit(
            ev.ModifierSet,
            combatant=who.id,
            name=cmd.name,
            applies_to=cmd.applies_to,
            value=cmd.value,
            first_round=ctx.state.round,
            last_round=last,
            reason=cmd.reason,
        )

    def on_clear_modifier(self, ctx: Context, cmd: c.ClearModifier) -> None:
        who = ctx.state.combatant(cmd.combatant)
        if all(e.name != cmd.name for e in who.effects):
            raise RuleViolation("GM", f"{who.name} has no modifier {cmd.name!r}", field="name")
        ctx.emit(ev.ModifierCleared, combatant=who.id, name=cmd.name, reason=cmd.reason)

    def check_condition(self, name: str, count: int | None, rate: int | None) -> None:
        if name not in self.conditions:
            raise RuleViolation(
                f"{self.name.upper()}-COND",
                f"unknown condition {name!r}; known: {', '.join(sorted(self.conditions))}",
                field="condition",
            )
        if name == "bleeding" and rate is None:
            raise RuleViolation(
                f"{self.name.upper()}-COND", "a bleeding wound needs a rate", field="rate"
            )
