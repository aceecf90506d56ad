"""Commands: what a table asks the encounter to do, in the imperative.

One model per command, discriminated by `type`. The core's commands (`CORE_COMMANDS`) are
played in every rule book; a book's own live in its package
(`domain/rulesystems/<book>/commands.py`) and its `RuleSystem.commands` names them, so each
book parses its bodies with its own union (`RuleSystem.command_adapter()`), its JSON types
taken strictly (domain.strict: `5` is an integer, `"5"`, `true` and `5.0` are not). The rule
system validates a command against the current state; an invalid command records nothing.

Each book says, per command type, the roll names it may ask for in the order they are drawn
(`RuleSystem.rolls`, shown in the OpenAPI as `x-rolls`: rule book → names); `<name>` in a
roll name stands for a combatant's name (`initiative:<name>` is `initiative:Brakka`). The
reference page (docs/reference.md, made by api/reference.py) is rendered from these models.
"""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any, ClassVar, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, create_model

DiceSourceName = Literal["server", "seeded", "manual"]
Rolls = dict[str, tuple[str, ...]]  # rule book -> the roll names, in the order drawn


def _type_is_required(schema: dict[str, Any]) -> None:
    """`type` has a default for Python callers, but a request must always name it."""
    schema.setdefault("required", [])
    if "type" not in schema["required"]:
        schema["required"].insert(0, "type")


def rolls_of(model: type[BaseModel]) -> Rolls:
    """Per rule book that declares any, the roll names a command may ask for, in the order
    drawn (each book's `RuleSystem.rolls`)."""
    from domain.rulesystems import all_rule_systems  # the registry imports the books

    kind = model.model_fields["type"].default if "type" in model.model_fields else None
    return {s.name: s.rolls[kind] for s in all_rule_systems() if kind in s.rolls}


def _command_schema(schema: dict[str, Any], model: type[BaseModel]) -> None:
    """A command's request schema: `type` required and described, and `x-rolls`: per rule
    book, the roll names it may ask for in the order drawn (none: it rolls nothing)."""
    _type_is_required(schema)
    kind = schema.get("properties", {}).get("type")
    if kind is not None and "const" in kind:
        kind.setdefault("description", f"The command: always `{kind['const']}`.")
    schema["x-rolls"] = {book: list(names) for book, names in rolls_of(model).items()}


class CommandBase(BaseModel):
    """The fields every command takes besides its `type`."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=_command_schema)

    dice: dict[str, list[int]] | None = Field(
        default=None,
        description="Manual faces: roll name -> faces in the order rolled, explosions "
        "included. Rolls not named here use the encounter's dice source.",
        examples=[{"attack": [14, 3]}],
    )
    dice_source: DiceSourceName | None = Field(
        default=None,
        description="Override the encounter's dice source for the rolls not named in `dice` "
        "(the GM's).",
    )
    expected_version: int | None = Field(
        default=None,
        ge=0,
        le=2**31 - 1,
        description="The encounter version this command was decided on; a stale one is a 409.",
    )
    actor: str | None = Field(
        default=None, max_length=100, description="Who issues the command (default: gm)."
    )


Modifiers = dict[Annotated[str, Field(min_length=1, max_length=60)], int]
SITUATIONAL = "Situational modifiers by name, added to the roll and recorded (the GM's)."


class TurnCommand(CommandBase):
    """One combatant's action on his turn, unless the GM rules otherwise (`out_of_order`):
    the fields the books that play by turns share."""

    combatant: str = Field(description="The combatant who acts.")
    out_of_order: bool = Field(
        default=False,
        description="GM override: act outside the order (Wits: WIT-ORD-4; PHANTÄSIA: outside "
        "his turn).",
    )


class RollInitiative(CommandBase):
    """Roll initiative (step 1) for one combatant, or for every combatant without an IP.
    Novus: open-ended 2d10 + Spd and Wis bonuses. Wits: the order is by Wits; a tie is
    rolled off on 1d6. PHANTÄSIA: 1d12 + AGI score, a tie re-rolled."""

    type: Literal["roll_initiative"] = "roll_initiative"
    combatant: str | None = Field(
        default=None, description="Combatant id; all without IP if omitted."
    )
    ip: int | None = Field(default=None, description="An IP the GM enters instead of rolling.")
    modifiers: Modifiers = Field(
        default_factory=dict,
        description="Other named IP modifiers, added to the roll.",
        examples=[{"ambush": 2}],
    )

    # what a field a book adds to it is, in a refusal by a book without it ("a … choice")
    choice_of: ClassVar[str] = "initiative"


class EndRound(CommandBase):
    """End the round (step 4): upkeep, then the next round begins."""

    type: Literal["end_round"] = "end_round"


class AdjustHits(CommandBase):
    """GM override: add (positive) or remove (negative) hits (Wits: Current Health;
    PHANTÄSIA: PV)."""

    type: Literal["adjust_hits"] = "adjust_hits"
    combatant: str = Field(description="Whose hits change.")
    amount: int = Field(
        ge=-10_000, le=10_000, description="Hits added (negative: removed); not capped."
    )
    reason: str = Field(default="GM adjustment", max_length=200, description="Why, for the log.")


class HideCombatant(CommandBase):
    """GM: keep a combatant from the players until he is revealed: no player read shows a
    trace of him (docs/visibility.md)."""

    type: Literal["hide_combatant"] = "hide_combatant"
    combatant: str = Field(description="Who is hidden.")
    until_acting: bool = Field(
        default=True,
        description="Revealed by his own first command (his declaration, action or turn); "
        "false: only by reveal_combatant.",
    )


class RevealCombatant(CommandBase):
    """GM: show a hidden combatant to the players."""

    type: Literal["reveal_combatant"] = "reveal_combatant"
    combatant: str = Field(description="Who is revealed.")
    earlier: Literal["all", "from_reveal"] = Field(
        default="all",
        description="all: players see what he did while hidden too; from_reveal: the events "
        "before the reveal stay hidden from them.",
    )
    reason: str = Field(default="GM", max_length=200, description="Why, for the log.")


class ShowHealth(CommandBase):
    """GM: how players see health (docs/visibility.md) — exact figures, a described state
    (unhurt, hurt, badly hurt, down) or nothing — for one combatant, for the party (how
    players see each other's characters; each always sees his own exactly), or else for the
    GM's combatants (those no player acts for; described until he says)."""

    type: Literal["show_health"] = "show_health"
    shown: Literal["exact", "described", "none"] = Field(description="How players see it.")
    combatant: str | None = Field(
        default=None, description="One combatant, overriding the encounter's setting."
    )
    party: bool = Field(
        default=False, description="The player characters, as the other players see them."
    )


class TakeNote(CommandBase):
    """GM: a note of his own, on a combatant or on the fight; players never read it."""

    type: Literal["take_note"] = "take_note"
    text: str = Field(min_length=1, max_length=2000, description="The note.")
    combatant: str | None = Field(default=None, description="Whom it is about (none: the fight).")


class SetCondition(CommandBase):
    """GM override: apply a condition (a bleeding wound with `rate`, a count with `count`)."""

    type: Literal["set_condition"] = "set_condition"
    combatant: str = Field(description="Who gets the condition.")
    condition: str = Field(
        description="A condition of the rule book (GET /rulesets/{name}: `conditions`).",
        examples=["stunned"],
    )
    count: int | None = Field(
        default=None,
        ge=1,
        le=10_000,
        description="A counted condition's count (PHANTÄSIA: a status's turns).",
    )
    rate: int | None = Field(
        default=None, ge=1, le=1000, description="Novus bleeding: hits lost per round."
    )
    reason: str = Field(default="GM", max_length=200, description="Why, for the log.")


class ClearCondition(CommandBase):
    """GM override: clear a condition (one bleeding wound by its position, or all)."""

    type: Literal["clear_condition"] = "clear_condition"
    combatant: str = Field(description="Whose condition ends.")
    condition: str = Field(description="The condition (PHANTÄSIA: status) to clear.")
    wound: int | None = Field(
        default=None, description="Novus bleeding: the position of the one wound to close."
    )
    reason: str = Field(default="GM", max_length=200, description="Why, for the log.")


class SetModifier(CommandBase):
    """GM override: a named modifier on a combatant, for `rounds` rounds or until cleared."""

    type: Literal["set_modifier"] = "set_modifier"
    combatant: str = Field(description="Who gets the modifier.")
    name: str = Field(
        min_length=1,
        max_length=60,
        description="Its name, as the log shows it.",
        examples=["bless"],
    )
    applies_to: Literal["ab", "act", "def", "ip", "damage"] = Field(
        description="What it modifies (Wits: ab, act, def, damage)."
    )
    value: int = Field(ge=-1000, le=1000, description="The modifier.")
    rounds: int | None = Field(
        default=None,
        ge=1,
        le=1000,
        description="Rounds it lasts, this one included; null: until cleared.",
    )
    reason: str = Field(default="GM", max_length=200, description="Why, for the log.")


class ClearModifier(CommandBase):
    """GM override: remove a named modifier."""

    type: Literal["clear_modifier"] = "clear_modifier"
    combatant: str = Field(description="Whose modifier ends.")
    name: str = Field(description="The modifier's name.")
    reason: str = Field(default="GM", max_length=200, description="Why, for the log.")


class Void(CommandBase):
    """Void a disputed roll (or an event a roll caused, or a correction) and its cascade."""

    type: Literal["void"] = "void"
    target: int = Field(ge=1, le=2**31 - 1, description="The position of the event to void.")
    reason: str = Field(
        min_length=1,
        max_length=500,
        description="Why, for the log.",
        examples=["the die fell off the table"],
    )


class Undo(CommandBase):
    """Void the events of the most recent command that is not a correction."""

    type: Literal["undo"] = "undo"
    reason: str = Field(default="undo", max_length=500, description="Why, for the log.")


class Redo(CommandBase):
    """Void the last undo."""

    type: Literal["redo"] = "redo"
    reason: str = Field(default="redo", max_length=500, description="Why, for the log.")


class RevealDice(CommandBase):
    """Reveal the server dice secret now; later rolls use a fresh committed secret."""

    type: Literal["reveal_dice"] = "reveal_dice"


class EndEncounter(CommandBase):
    """End the encounter: its server dice secret is revealed; nothing more is played."""

    type: Literal["end_encounter"] = "end_encounter"
    reason: str = Field(
        default="the fight is over", max_length=500, description="Why, for the log."
    )


# -- shared by the books that have them (each lists them in its `commands`) ----------


class Hold(CommandBase):
    """Hold. Novus: after declaring, act at a lower IP, for 1 AP (`ip` required). Wits: hold
    the turn's actions to act at any later point of the round (WIT-ORD-3)."""

    type: Literal["hold"] = "hold"
    combatant: str = Field(description="Who holds.")
    ip: int | None = Field(
        default=None, description="Novus: the IP to act at, below the combatant's own."
    )


class EndTurn(TurnCommand):
    """End the turn. Wits: keeping any action left for defenses (WIT-ORD-5). PHANTÄSIA:
    his end-of-turn checks are rolled and his statuses' durations run (PHA-STS-0)."""

    type: Literal["end_turn"] = "end_turn"


# the commands every rule book plays (each book adds its own: RuleSystem.commands)
CORE_COMMANDS: tuple[type[CommandBase], ...] = (
    RollInitiative,
    EndRound,
    AdjustHits,
    HideCombatant,
    RevealCombatant,
    ShowHealth,
    TakeNote,
    SetCondition,
    ClearCondition,
    SetModifier,
    ClearModifier,
    Void,
    Undo,
    Redo,
    RevealDice,
    EndEncounter,
)

# The core's commands only the GM sends: overrides, corrections, the round's and the fight's
# end (a book adds its own: RuleSystem.gm_commands); a hidden combatant is revealed by his
# own first command of any other kind but roll_initiative (Encounter.execute).
GM_COMMANDS = frozenset(
    {
        "void",
        "undo",
        "redo",
        "adjust_hits",
        "hide_combatant",
        "reveal_combatant",
        "show_health",
        "take_note",
        "set_condition",
        "clear_condition",
        "set_modifier",
        "clear_modifier",
        "end_round",
        "reveal_dice",
        "end_encounter",
    }
)


# The core's command fields only the GM sets (a book adds its own: RuleSystem.gm_entered)
GM_ENTERED: dict[str, tuple[str, ...]] = {"roll_initiative": ("ip",)}  # an IP entered


def entered(command: BaseModel, names: tuple[str, ...]) -> list[str]:
    """Those of `names` that `command` has set to other than their default."""
    fields = type(command).model_fields
    return [
        n
        for n in names
        if n in fields and getattr(command, n) != fields[n].get_default(call_default_factory=True)
    ]


def every_command() -> tuple[type[CommandBase], ...]:
    """The command classes of every rule book that may be played now, the core's first, one
    per type (the OpenAPI body schema): a type several books play with classes of their own
    (a subclass of the core's, with fields of the book's) is one documentation model that
    has every field any of them has (`documented`)."""
    from domain.rulesystems import all_rule_systems  # the registry imports the books

    return one_per_type([(s.title, s.commands) for s in all_rule_systems()])


def one_per_type(
    books: list[tuple[str, tuple[type[BaseModel], ...]]],
) -> tuple[type[CommandBase], ...]:
    """The core's commands and the books' (title, commands), one class per type: the only
    class of a type, or the `documented` model of its several."""
    kinds: dict[str, dict[type[BaseModel], list[str]]] = {}
    for model in CORE_COMMANDS:
        kinds.setdefault(model.model_fields["type"].default, {})[model] = []
    for title, commands in books:
        for model in commands:
            kind = model.model_fields["type"].default
            kinds.setdefault(kind, {}).setdefault(model, []).append(title)
    return tuple(
        next(iter(held)) if len(held) == 1 else documented(_signed(held)) for held in kinds.values()
    )


def _signed(held: dict[type[BaseModel], list[str]]) -> tuple[tuple[type[BaseModel], str], ...]:
    """Each class of one type with the titles of the books that play it, those adding the
    fewest fields first (the core's class, which none adds to, first of all)."""
    ordered = sorted(held, key=lambda m: len(m.model_fields))
    return tuple((model, " or ".join(held[model])) for model in ordered)


@cache
def documented(signed: tuple[tuple[type[BaseModel], str], ...]) -> type[CommandBase]:
    """One type's classes (each with the titles of the books that play it, the common base
    first) as one model named as the base: its fields and every field a book's class adds,
    described as `<book>: <its description>` (several books': each one's, in turn)."""
    base = signed[0][0]
    said: dict[str, dict[str, str]] = {}  # field -> description -> titles
    extra: dict[str, Any] = {}
    for model, titles in signed[1:]:
        for name, field in model.model_fields.items():
            if name in base.model_fields:
                continue
            extra.setdefault(name, field)
            told = said.setdefault(name, {})
            text = field.description or ""
            told[text] = f"{told[text]} or {titles}" if text in told else titles
    fields = {
        name: (
            field.annotation,
            _described(field, " ".join(f"{t}: {_lower_first(d)}" for d, t in said[name].items())),
        )
        for name, field in extra.items()
    }
    return create_model(  # type: ignore[call-overload,no-any-return]
        base.__name__, __base__=base, __module__=base.__module__, __doc__=base.__doc__, **fields
    )


def _described(field: Any, description: str) -> Any:
    """A copy of a model's field with another description."""
    from pydantic.fields import FieldInfo

    return FieldInfo.merge_field_infos(field, description=description)


def _lower_first(text: str) -> str:
    """A description to follow `<book>: `: its first letter small, unless it begins a name
    in capitals (AGI)."""
    word = text.split(" ", 1)[0]
    return text if len(word) > 1 and word.isupper() else text[:1].lower() + text[1:]


@cache
def _built_in_union() -> Any:
    from domain.rulesystems import BUILT_IN, get_rule_system

    books = [(s.title, s.commands) for s in map(get_rule_system, BUILT_IN)]
    return Annotated[Union[one_per_type(books)], Field(discriminator="type")]  # noqa: UP007


def __getattr__(name: str) -> Any:
    """`Command`: the union of fraylog's own books' commands, discriminated by `type` (until
    the API parses with each book's `RuleSystem.command_adapter()`)."""
    if name == "Command":
        return _built_in_union()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
