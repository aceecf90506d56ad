"""The interface every rule system implements, and the context a command runs in."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from functools import cache
from typing import Annotated, Any, ClassVar, Union

from pydantic import (
    BaseModel,
    Field,
    TypeAdapter,
    ValidationError,
)

from domain import commands as c
from domain import events as ev
from domain.dice import DiceSource
from domain.errors import RuleViolation
from domain.presentation import Table, presented
from domain.rulesystems.lasting import Lasting, lasting_of
from domain.state import CombatantState, EncounterState, Marks
from domain.strict import said
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


class Statistics:
    """What a rule book counts in the statistics (projections.read_models, docs/read-models.md)
    beyond what every book shares: which rolls are a roll to hit or damage dice (for their
    averages), and which results are criticals and fumbles as the book defines them. A book
    says so in its statistics.py; this default counts neither."""

    def roll_kind(self, event: Any, roll_name: str) -> str | None:
        """`attack` (a roll to hit), `damage` (damage dice) or None (counted by source only)."""
        return None

    def criticals(self, event: Any) -> list[tuple[str, str, int]]:
        """Each critical and fumble an event records: (who rolled it, `criticals` or
        `fumbles`, +1), or −1 where a re-roll takes one back."""
        return []


class RuleSystem(ABC):
    """Initiative, the action catalogue with costs, validation, resolution, upkeep."""

    name: ClassVar[str]
    title: ClassVar[str]  # the book's name as its readers spell it ("PHANTÄSIA")
    # the languages its log reads in, the first its own (PHANTÄSIA: Spanish on request)
    languages: ClassVar[tuple[str, ...]] = ("en",)
    hits_word: ClassVar[str] = "hits"  # what the book calls a combatant's hits ("PV")
    # how the web table presents it (its table.py, docs/web.md); None: its health alone
    table: ClassVar[Table | None] = None
    # the book's own commands, beyond the core's (domain.commands.CORE_COMMANDS)
    commands: ClassVar[tuple[type[BaseModel], ...]] = ()
    # command type -> the roll names it may ask for, in the order drawn (OpenAPI `x-rolls`)
    rolls: ClassVar[dict[str, tuple[str, ...]]] = {}
    # the book's commands only the GM sends, beyond the core's (domain.commands.GM_COMMANDS)
    gm_commands: ClassVar[frozenset[str]] = frozenset()
    stats_model: ClassVar[type[BaseModel]]
    conditions: ClassVar[frozenset[str]]
    # the combatant view's health figures (its view module declares them, docs/visibility.md)
    health_figures: ClassVar[tuple[str, ...]]
    # a command it has a handler for only to refuse it, and why (the reference page says so)
    refused: ClassVar[dict[str, str]] = {}
    # its typed facts of a combatant: what lasts, and what ends with the round (state.Marks)
    marks_model: ClassVar[type[Marks]] = Marks
    round_marks_model: ClassVar[type[Marks]] = Marks
    encounter_marks_model: ClassVar[type[Marks]] = Marks  # ... and of the encounter
    view_model: ClassVar[type[BaseModel]]  # the view's shape, the API's answer (its view_model.py)
    # what its statistics count as a roll to hit, damage dice, a critical, a fumble
    statistics: ClassVar[Statistics] = Statistics()

    options_model: ClassVar[type[BaseModel] | None] = None
    # command type -> its fields only the GM may set, beyond domain.access.GM_FIELDS and the
    # core's (domain.commands.GM_ENTERED): a player leaves them at their defaults (in any
    # book: domain.access.gm_entered)
    gm_entered: ClassVar[dict[str, tuple[str, ...]]] = {}

    def _validated(self, model: type[BaseModel], data: dict[str, Any], field: str) -> Any:
        """Stats or options as entered: JSON types taken strictly (domain.strict)."""
        try:
            return model.model_validate(data, strict=True)
        except ValidationError as e:
            first = e.errors()[0]
            where = ".".join([field, *(str(p) for p in first["loc"])])
            raise RuleViolation(
                f"{self.name.upper()}-{field.upper()}", f"{where}: {said(first)}", field=where
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

    @property
    def lasting(self) -> Lasting:
        """What of a combatant lasts after a fight, and how the next starts from it (the
        book's lasting.py; without one, the hits only: domain.rulesystems.lasting)."""
        return lasting_of(type(self))

    @abstractmethod
    def catalogue(self) -> list[dict[str, Any]]:
        """Every action with its cost and roll names, for docs and frontends."""

    def describe(self) -> dict[str, Any]:
        """What a frontend needs to offer this rule system: stats, actions, conditions."""
        return {
            "name": self.name,
            "title": self.title,
            "stats_schema": self.stats_model.model_json_schema(by_alias=True),
            "options_schema": (
                self.options_model.model_json_schema() if self.options_model else None
            ),
            "actions": self.catalogue(),
            "conditions": sorted(self.conditions),
            "health_states": {state: words["en"] for state, words in HEALTH_WORDS.items()},
            "table": presented(self),
        }

    def acting_for(self, state: EncounterState, command: BaseModel) -> str | None:
        """The combatant a command acts for (a player may send it for his own only,
        domain.access): the one it names; a book's commands that name none say otherwise."""
        return getattr(command, "combatant", None)

    @abstractmethod
    def health_state(self, state: EncounterState, who: CombatantState) -> HealthState:
        """His health in words: unhurt, hurt, badly_hurt or down (docs/visibility.md)."""

    def tell(self, event: Any, state: EncounterState, lang: str) -> str | None:
        """The book's log line for an event in `lang`, told from the state before it (from
        its message catalogue, domain/rulesystems/<book>/); None: the core's line applies
        (projections.narrative)."""
        return None

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
        forms = [
            {"type": kind, "combatant": who.id, "fields": fields}
            for who in state.combatants.values()
            for kind, fields in self._overrides_of(who)
        ]
        # the encounter's own: the GM's combatants' health, or the party's
        shown = {"shown": {"enum": list(HEALTH_SHOWN)}, "party": {"type": "boolean"}}
        forms.append({"type": "show_health", "combatant": None, "fields": shown})
        note = {"text": {"type": "string"}}
        forms.append({"type": "take_note", "combatant": None, "fields": note})
        return forms

    def _overrides_of(self, who: CombatantState) -> list[tuple[str, dict[str, Any]]]:
        """The GM's override forms for one combatant, as (command type, fields), each with
        fields of its own (a book's `overrides` may change them)."""
        if who.hidden:
            earlier = {"enum": ["all", "from_reveal"]}
            seen = ("reveal_combatant", {"earlier": earlier, "reason": {"type": "string"}})
        else:
            seen = ("hide_combatant", {"until_acting": {"type": "boolean"}})
        condition = {
            "condition": {"enum": sorted(self.conditions)},
            "count": {"type": "integer"},
            "reason": {"type": "string"},
        }
        forms: list[tuple[str, dict[str, Any]]] = [
            ("adjust_hits", {"amount": {"type": "integer"}, "reason": {"type": "string"}}),
            seen,
            ("show_health", {"shown": {"enum": list(HEALTH_SHOWN)}}),
            ("take_note", {"text": {"type": "string"}}),
            ("set_condition", condition),
        ]
        held = sorted({*who.conditions} | ({"bleeding"} if who.wounds else set()))
        if held:
            cleared = {"condition": {"enum": held}, "reason": {"type": "string"}}
            forms.append(("clear_condition", cleared))
        modifier = {
            "name": {"type": "string"},
            "applies_to": {"type": "string"},
            "value": {"type": "integer"},
            "rounds": {"type": "integer"},
            "reason": {"type": "string"},
        }
        forms.append(("set_modifier", modifier))
        if who.effects:
            named = {"name": {"enum": sorted({e.name for e in who.effects})}}
            forms.append(("clear_modifier", named))
        return forms

    # -- commands ---------------------------------------------------------------
    @classmethod
    def command_adapter(cls) -> CommandParser:
        """The book's commands, the core's and its own, as one union discriminated by
        `type`; a type of another registered book parses as that book's command, which
        `execute` refuses (`<BOOK>-CMD`), and any other type is not a command."""
        return _command_adapter(cls)

    def handlers(self) -> dict[type[BaseModel], Callable[[Context, Any], Any]]:
        """Each command class the rule system plays, to its handler: the core's overrides
        here; a book adds its own commands' (and the core's it plays its way)."""
        return {
            c.AdjustHits: self.on_adjust_hits,
            c.HideCombatant: self.on_hide_combatant,
            c.RevealCombatant: self.on_reveal_combatant,
            c.ShowHealth: self.on_show_health,
            c.TakeNote: self.on_take_note,
            c.SetCondition: self.on_set_condition,
            c.ClearCondition: self.on_clear_condition,
            c.SetModifier: self.on_set_modifier,
            c.ClearModifier: self.on_clear_modifier,
        }

    def _handlers(self) -> dict[type[BaseModel], Callable[[Context, Any], Any]]:
        """`handlers()`, made once for this book (each book is one instance, registered
        once), not at each command."""
        made = self.__dict__.get("_handler_table")
        if made is None:
            made = self.__dict__["_handler_table"] = self.handlers()
        return made

    def gm_entries(self, command: BaseModel) -> list[str]:
        """The fields of `command` set to what only the GM may set, beyond the fields every
        book leaves to him (domain.access.GM_FIELDS) and those `gm_entered` names."""
        return []

    def answering_for(self, command: BaseModel) -> str | None:
        """Another combatant whose part `command` declares (he answers for himself)."""
        return None

    def execute(self, ctx: Context, command: BaseModel) -> None:
        handlers = self._handlers()
        handler = handlers.get(type(command))
        own = None
        if handler is None:  # the core's class (or a book's) of its own type
            own = _command_adapter(type(self)).models.get(command.type)  # type: ignore[attr-defined]
        if own is not None:
            body = command.model_dump(exclude_defaults=True)
            command = own.model_validate(_without_other_choices(self.name, own, body))
            handler = handlers.get(own)
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


def _without_other_choices(name: str, own: type[BaseModel], body: dict[str, Any]) -> dict[str, Any]:
    """`body` without the fields that another book's command of its type has and this book's
    lacks, where they keep that book's default (accepted as they always were); one set to
    anything else (a `group` sent to Novus) is that book's choice, refused as such."""
    fields = own.model_fields
    if fields.keys() >= body.keys():  # only its own fields: most bodies
        return body
    kind = fields["type"].default
    kept = dict(body)
    for field, value in body.items():
        if field in fields:
            continue
        having = _having(kind, field)
        if not having:
            continue  # no book's: pydantic refuses it as an extra field
        if value != having[0][1].get_default(call_default_factory=True):
            what = getattr(own, "choice_of", kind)
            titles = " or ".join(title for title, _ in having)
            raise RuleViolation(
                f"{name.upper()}-CMD",
                f"{field} is a {titles} {what} choice; the {name} rule system has none",
                field=field,
            )
        del kept[field]
    return kept


def _having(kind: str, field: str) -> list[tuple[str, Any]]:
    """The registered books whose command of type `kind` has `field`, those whose command
    adds the fewest fields first: (title, the field)."""
    from domain.rulesystems import all_rule_systems  # the registry imports this module

    found = []
    for system in all_rule_systems():
        model = _command_adapter(type(system)).models.get(kind)
        if model is not None and field in model.model_fields:
            found.append((len(model.model_fields), system.title, model.model_fields[field]))
    return [(title, info) for _, title, info in sorted(found, key=lambda f: f[0])]


class CommandParser:
    """A book's command bodies: its own union (the core's commands and its own, by `type`),
    and any other body through the union of every registered book's commands, so a command
    of another book parses as that book's (`execute` refuses it, `<BOOK>-CMD`) and a type no
    book has, or none, is refused as the one union refused it before the books had their own
    (`union_tag_invalid`, `union_tag_not_found`, naming `type`)."""

    def __init__(self, system: type[RuleSystem], own: tuple[type[BaseModel], ...]) -> None:
        self.system = system
        self.models = {m.model_fields["type"].default: m for m in own}
        self.tags = frozenset(self.models)
        self._own = _union(own)

    def validate_python(self, body: Any) -> Any:
        """A command's body, its JSON types taken strictly (domain.strict): what a table
        sends, and what a rule book offers it to send (its choices)."""
        kind = body.get("type") if isinstance(body, dict) else getattr(body, "type", None)
        if kind in self.tags:
            if isinstance(body, dict):  # a field of another book's command of this type
                body = _without_other_choices(self.system.name, self.models[kind], body)
            return self._own.validate_python(body, strict=True)
        return _union(c.every_command()).validate_python(body, strict=True)


@cache
def _union(members: tuple[type[BaseModel], ...]) -> TypeAdapter[Any]:
    return TypeAdapter(Annotated[Union[members], Field(discriminator="type")])  # noqa: UP007


@cache
def _command_adapter(system: type[RuleSystem]) -> CommandParser:
    """The core's commands and the book's, one per type: the book's own class where the core
    has the type too (a subclass with the book's fields)."""
    models = {m.model_fields["type"].default: m for m in (*c.CORE_COMMANDS, *system.commands)}
    return CommandParser(system, tuple(models.values()))
