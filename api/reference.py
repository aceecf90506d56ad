"""The command reference page (docs/reference.md), rendered from the models themselves: each
command's docstring, fields (type, default, description, example), the rule books that take
it, the roll names it may ask for (domain/commands.py) and who may send it
(domain/access.py); each book's commands; each event type's fields (api/event_schemas.py).

    python -m api.reference > docs/reference.md     (or: fraylog reference > docs/reference.md)

tests/api/test_reference.py fails when the checked-in page differs from what this renders."""

from __future__ import annotations

import json
import sys
import typing
from typing import Any

from pydantic import BaseModel

from api.event_schemas import Die, RollRecord, event_classes, record_models
from domain import commands as c
from domain.access import GM_FIELDS, GM_ONLY, gm_entered
from domain.rulesystems import get_rule_system, rulesets
from domain.rulesystems.novus import commands as nc
from domain.rulesystems.wits import commands as wc

COMMANDS: dict[str, type[c.CommandBase]] = {
    model.model_fields["type"].default: model for model in c.every_command()
}
# a book that has a handler only to say why it refuses the command (its `refused`)
REFUSED = {
    (book, kind): why for book in rulesets() for kind, why in get_rule_system(book).refused.items()
}
# run by the application itself, whatever the rule book
EVERY_BOOK = ("void", "undo", "redo", "reveal_dice", "end_encounter")

# the GM's besides GM_FIELDS (domain.access.check_player): the core's and the books'
ALSO_GM = {kind: gm_entered(kind) for kind in COMMANDS if gm_entered(kind)}
# what an event record's fields without a description of their own mean
RECORD_FIELDS = {
    "position": "Its position in the stream: the encounter's version after it.",
    "timestamp": "When it was recorded (ISO 8601, UTC).",
    "actor": "Who issued its command: `gm` or `player:<label>`.",
}
# a roll's fields that api/event_schemas.py leaves undescribed (docs/architecture.md)
ROLL_FIELDS = {
    "expression": "What was rolled, in words: `2d10`, `1d8 short sword + 1d6 base damage`.",
    "source": "Who supplied these faces.",
    "dice": "Per die: its sides, its own chain of faces and its signed value.",
    "dice_total": "The dice alone.",
    "modifiers": "The named modifiers added.",
    "total": "The dice and the modifiers.",
    "flags": "`nova`, `exploded`, `imploded`; Wits damage: `rolled up`.",
}
SHAPES = (nc.ActionSpec, nc.BoonSpec, nc.SnagSpec, wc.DefenseSpec)
COMMON = tuple(c.CommandBase.model_fields)  # dice, dice_source, expected_version, actor
REF = "#/$defs/{model}"


def declared(kind: str, book: str) -> tuple[str, ...]:
    """The roll names `kind` declares for `book`, in the order drawn."""
    return get_rule_system(book).rolls.get(kind, ())


def matches(pattern: str, roll: str) -> bool:
    """A declared roll name and a roll asked: `tie:<name>` stands for every `tie:…`."""
    if pattern.endswith("<name>"):
        prefix = pattern.removesuffix("<name>")
        return roll.startswith(prefix) and len(roll) > len(prefix)
    return pattern == roll


def title(book: str) -> str:
    """The book's name as its readers spell it ("PHANTÄSIA")."""
    return get_rule_system(book).title


def refused(book: str, kind: str) -> str | None:
    """Why `book` always refuses `kind`, where it has a handler only to say so; None where
    it plays it."""
    return REFUSED.get((book, kind))


def books_of(kind: str) -> list[str]:
    """The rule books that take `kind`: those with an `on_<kind>` handler."""
    if kind in EVERY_BOOK:
        return list(rulesets())
    return [b for b in rulesets() if hasattr(get_rule_system(b), f"on_{kind}")]


# -- types in plain words --------------------------------------------------------------------


def _range(low: Any, high: Any) -> str:
    def n(x: Any) -> str:
        return (str(int(x)) if float(x).is_integer() else str(x)).replace("-", "−")

    if low is not None and high is not None:
        return f"{n(low)}–{n(high)}" if low >= 0 else f"{n(low)} to {n(high)}"
    return f"≥ {n(low)}" if low is not None else f"≤ {n(high)}" if high is not None else ""


def plain(schema: dict[str, Any]) -> str:
    """A JSON Schema in a few words: `integer 1–20`, `list of string (≤ 12)`."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{name.lower()})"
    if "const" in schema:
        return f"`{json.dumps(schema['const'], ensure_ascii=False)}`"
    if "enum" in schema:
        return "one of " + ", ".join(f"`{v}`" for v in schema["enum"])
    if "anyOf" in schema:
        options = [s for s in schema["anyOf"] if s.get("type") != "null"]
        words = " or ".join(plain(s) for s in options)
        return f"{words}, or null" if len(options) < len(schema["anyOf"]) else words
    kind = schema.get("type")
    if kind == "string":
        size = _range(schema.get("minLength"), schema.get("maxLength"))
        return f"string ({size} characters)" if size else "string"
    if kind in ("integer", "number"):
        size = _range(schema.get("minimum"), schema.get("maximum"))
        if "exclusiveMinimum" in schema:  # `gt`: e.g. a distance
            above = f"> {_range(schema['exclusiveMinimum'], None)[2:]}"
            size = f"{above}, {size}" if size else above
        return f"{kind} {size}" if size else kind
    if kind == "array":
        size = _range(schema.get("minItems"), schema.get("maxItems"))
        items = plain(schema.get("items", {})) if schema.get("items") else "anything"
        return f"list of {items}" + (f" ({size})" if size else "")
    if kind == "object":
        values = schema.get("additionalProperties")
        if not isinstance(values, dict):
            return "object"
        keys = schema.get("propertyNames", {})
        key = plain(keys) if "enum" in keys else "name"
        return f"object: {key} → {plain(values)}"
    return kind or "anything"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _json(value: Any) -> str:
    return f"`{json.dumps(value, ensure_ascii=False)}`"


def _doc(model: type[BaseModel]) -> str:
    return " ".join((model.__doc__ or "").split())


def field_rows(
    model: type[BaseModel], skip: tuple[str, ...] = (), described: dict[str, str] | None = None
) -> list[str]:
    """A model's fields as table rows: name, type, default, description, example."""
    props = model.model_json_schema(ref_template=REF)["properties"]
    rows = ["| Field | Type | Default | Description | Example |", "|---|---|---|---|---|"]
    names = sorted(model.model_fields, key=lambda n: n != "type")  # `type` first
    for name in names:
        info = model.model_fields[name]
        if name in skip:
            continue
        prop = props[info.alias or name]
        default = (
            "required"
            if info.is_required() or name == "type"
            else _json(info.get_default(call_default_factory=True))
        )
        text = info.description or (described or {}).get(name, "")
        example = ", ".join(_json(e) for e in info.examples or [])
        row = [f"`{name}`", plain(prop), default, text, example]
        rows.append("| " + " | ".join(_cell(x) for x in row) + " |")
    return rows


def gm_fields(model: type[BaseModel], path: str = "") -> list[str]:
    """The fields only the GM may set, nested ones by their path (`actions[].riding_tn`)."""
    out = []
    for name, info in model.model_fields.items():
        if name in COMMON:
            continue
        if name in GM_FIELDS:
            out.append(f"{path}{name}")
        inside = _types_in(info.annotation)
        for shape in SHAPES:
            if shape in inside:
                many = "[]" if list in {typing.get_origin(t) for t in inside} else ""
                out += gm_fields(shape, f"{path}{name}{many}.")
    return out


def _types_in(annotation: Any) -> list[Any]:
    """`annotation` and every type inside it (`list[X] | None`: the list, X, None)."""
    found = [annotation]
    for arg in typing.get_args(annotation):
        found += _types_in(arg)
    return found


# -- the page --------------------------------------------------------------------------------


def _book_list(kinds: list[str]) -> str:
    """Linked command names; a long list goes on over indented lines of the same item."""
    links = [f"[`{k}`](#{k})" for k in kinds]
    lines = [", ".join(links[i : i + 6]) for i in range(0, len(links), 6)]
    return ",\n  ".join(lines) or "none"


def command_section(kind: str) -> list[str]:
    model = COMMANDS[kind]
    books = books_of(kind)
    named = []
    for book in books:
        why = refused(book, kind)
        named.append(f"{title(book)} (always refused, {why})" if why else title(book))
    who = "the GM only" if kind in GM_ONLY else "the GM, or a player for his own combatant"
    gm = [*gm_fields(model), *ALSO_GM.get(kind, ())]
    if gm and kind not in GM_ONLY:
        who += "; only the GM may set " + ", ".join(f"`{f}`" for f in gm)
    rolls = [
        f"{title(b)}: " + (", ".join(f"`{r}`" for r in declared(kind, b)) or "none")
        for b in books
        if refused(b, kind) is None
    ]
    rolling = any(declared(kind, b) for b in books)
    return [
        f"## `{kind}`",
        "",
        _doc(model),
        "",
        f"**Rule books:** {', '.join(named)}. **Who:** {who}.",
        "",
        *field_rows(model, skip=COMMON),
        "",
        f"**Rolls**, in the order drawn: {'; '.join(rolls)}." if rolling else "**Rolls:** none.",
        "",
    ]


def book_section(book: str) -> list[str]:
    kinds = [k for k in COMMANDS if book in books_of(k) and refused(book, k) is None]
    play = [k for k in kinds if k not in GM_ONLY and k not in EVERY_BOOK]
    gm = [k for k in kinds if k in GM_ONLY and k not in EVERY_BOOK]
    return [
        f"### {title(book)}",
        "",
        f"- Play: {_book_list(play)}",
        f"- The GM's: {_book_list(gm)}",
        f"- Every book: {_book_list(list(EVERY_BOOK))}",
        "",
    ]


def event_section(record: type[BaseModel]) -> list[str]:
    data = record.model_fields["data"].annotation
    assert isinstance(data, type) and issubclass(data, BaseModel)
    props = data.model_json_schema(ref_template=REF)["properties"]
    rows = ["| Field | Type |", "|---|---|"]
    rows += [f"| `{name}` | {_cell(plain(prop))} |" for name, prop in props.items()]
    name = record.model_fields["type"].annotation.__args__[0]  # type: ignore[union-attr]
    doc = _doc(data)
    about = [] if doc.startswith("The fields of ") else [doc, ""]  # no docstring of its own
    return [f"### `{name}`", "", *about, *rows, ""]


INTRODUCTION = (
    "# Command reference",
    "",
    "<!-- Generated from domain/commands.py, the rule books, domain/access.py and",
    "api/event_schemas.py by `python -m api.reference > docs/reference.md` (or `fraylog",
    "reference`): do not edit by hand. tests/api/test_reference.py fails when it is stale. -->",
    "",
    "Every command is a JSON body sent to `POST /encounters/{id}/commands`, named by its",
    "`type`; [api.md](api.md) is the guide (concepts, the steps of each rule book,",
    "walk-throughs). Here, per command: the rule books that take it (any other answers 422",
    "`<BOOK>-CMD`), who may send it, its fields besides the [common ones](#common-fields),",
    "and the **roll names** it may ask for: the keys of its `dice` object and the",
    "`needed.roll` of a `DICE_NEEDED` answer, in the order the command draws them (only",
    "those its situation calls for). `<name>` stands for a combatant's name:",
    "`initiative:<name>` is `initiative:Brakka`. The same facts are in the OpenAPI",
    "(`/openapi.json`): each command's schema has its field descriptions and examples, and",
    "`x-rolls` (rule book → roll names).",
    "",
)


def render() -> str:
    """docs/reference.md: the rule books, the common fields, each command, the shapes
    inside commands, the events."""
    lines = [
        *INTRODUCTION,
        "## Rule books",
        "",
        *[line for book in rulesets() for line in book_section(book)],
        "## Common fields",
        "",
        "Every command takes these besides its own. A player may send `dice` only where the",
        "encounter's dice come from the table; `dice_source` is the GM's.",
        "",
        *field_rows(c.CommandBase),
        "",
        *[line for kind in sorted(COMMANDS) for line in command_section(kind)],
        *shapes_section(),
        *events_section(),
    ]
    return "\n".join(lines).rstrip("\n") + "\n"


def shapes_section() -> list[str]:
    """The shapes a command holds (an action, a Boon, a Snag, a defense), with their GM's
    fields."""
    lines = ["## Shapes inside commands", ""]
    for shape in SHAPES:
        gm = ", ".join(f"`{f}`" for f in gm_fields(shape))
        only = f" Only the GM may set {gm}." if gm else ""
        lines += [f"### `{shape.__name__}`", "", _doc(shape) + only, "", *field_rows(shape), ""]
    return lines


def events_section() -> list[str]:
    """An event record's fields, each event type's data, and the rolls and dice in them."""
    records = sorted(record_models(), key=lambda r: r.__name__)
    assert len(records) == len(event_classes())
    return [
        "## Events",
        "",
        "Each event record (`GET /encounters/{id}/events`, a command's answer, the live feed)",
        "has these fields, its own in `data`:",
        "",
        *[
            f"- `{name}`: {_cell(field.description or RECORD_FIELDS.get(name, ''))}"
            for name, field in records[0].model_fields.items()
            if name not in ("type", "data")
        ],
        "- `type`: the event type, below; `data`: its fields.",
        "",
        "A roll in an event's `rolls` (roll name → roll) is a [RollRecord](#rollrecord).",
        "",
        *[line for record in records for line in event_section(record)],
        "### `RollRecord`",
        "",
        _doc(RollRecord),
        "",
        *field_rows(RollRecord, described=ROLL_FIELDS),
        "",
        "### `Die`",
        "",
        "One die of a roll.",
        "",
        *field_rows(Die),
        "",
    ]


if __name__ == "__main__":
    sys.stdout.buffer.write(render().encode())
