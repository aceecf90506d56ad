"""The event records of the API, one schema per event type: `type` names it and `data` holds
its own fields, typed from the event class (domain.events), so a generated client knows
each event's shape. Made from the classes themselves: a field added to an event appears
here without a second list to keep."""

from __future__ import annotations

import dataclasses
import sys
from functools import cache
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from api.registered import OneOfRegistered
from domain import events as ev
from domain.audit import BASE_FIELDS
from domain.rulesystems import event_classes as registered_events
from domain.visibility import HEALTH, Secret


class Die(BaseModel):
    sides: int
    faces: list[int] = Field(description="Every face this die showed, its chain included.")
    value: int = Field(description="What it adds to the total (negative for an implosion).")


class RollRecord(BaseModel):
    """A roll as events keep it (domain.dice.Roll)."""

    expression: str
    source: Literal["server", "seeded", "manual"]
    faces: list[int] = Field(description="The faces in the order drawn (a `dice` entry).")
    sides: list[int] = Field(description="Each face's die.")
    dice: list[Die]
    dice_total: int
    modifiers: dict[str, int]
    total: int
    flags: list[str]
    attempt: int | None = Field(default=None, description="Server dice: the draw attempt.")


def event_classes() -> tuple[type[ev.EncounterEvent], ...]:
    """Every event class a record may name now: the core's and each registered book's."""
    return tuple(cls for cls in registered_events().values() if cls.__name__ != "Correction")


def _field_type(name: str, annotation: Any) -> Any:
    if name == "rolls" and annotation == dict[str, Any]:
        return dict[str, RollRecord]
    marks = [m for m in getattr(annotation, "__metadata__", ()) if isinstance(m, Secret)]
    if marks:  # a player may read it as null (docs/visibility.md): the record's `withheld`
        kind = "a health figure" if marks[0] is HEALTH else "the GM's"
        return Annotated[
            annotation.__origin__ | None,
            Field(description=f"{kind.capitalize()}: null where withheld from the reader."),
        ]
    return annotation


@cache
def _data_model(cls: type[ev.EncounterEvent]) -> type[BaseModel]:
    hints: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):  # the fields fraylog's event classes declare
        if issubclass(klass, ev.EncounterEvent):
            for name, annotation in vars(klass).get("__annotations__", {}).items():
                if isinstance(annotation, str):  # in their own module's names
                    annotation = eval(annotation, vars(sys.modules[klass.__module__]))
                hints[name] = annotation
    # a field with a default may be missing from a record written before it existed
    defaults = {f.name: f.default for f in dataclasses.fields(cls)}
    fields = {
        name: (_field_type(name, annotation), defaults.get(name, dataclasses.MISSING))
        for name, annotation in hints.items()
        if name not in BASE_FIELDS and not name.startswith("_")
    }
    fields = {
        name: (kind, ... if default is dataclasses.MISSING else default)
        for name, (kind, default) in fields.items()
    }
    doc = (cls.__doc__ or "").strip()
    if not doc or doc.startswith(f"{cls.__name__}("):  # the dataclass's made-up signature
        doc = f"The fields of {cls.__name__} (docs/architecture.md, the event table)."
    return create_model(  # type: ignore[call-overload, no-any-return]
        f"{cls.__name__}Data", __config__=ConfigDict(extra="forbid"), __doc__=doc, **fields
    )


class _RecordBase(BaseModel):
    position: int
    timestamp: str
    actor: str
    cause: int | None = Field(description="The position of the event it follows from.")
    command: int = Field(description="The position of its command's first event.")
    hash: str = Field(description="SHA-256 chained to the previous event's hash.")
    voided_by: int | None = Field(default=None, description="The correction that voids it.")
    text: str | None = Field(
        default=None, description="Its log line, where the answer gives one (`so_far`)."
    )
    withheld: list[str] | None = Field(
        default=None,
        description="A player's read: the members of `data` he may not read, null here; the "
        "hash covers them as recorded (docs/visibility.md, docs/audit-spec.md).",
    )


@cache
def _record_model(cls: type[ev.EncounterEvent]) -> type[BaseModel]:
    return create_model(  # type: ignore[call-overload, no-any-return]
        f"{cls.__name__}Record",
        __base__=_RecordBase,
        type=(Literal[cls.__name__], ...),  # type: ignore[valid-type]
        data=(_data_model(cls), ...),
    )


def record_models() -> tuple[type[BaseModel], ...]:
    """Each event type's record model, for the event classes `event_classes()` gives now."""
    return tuple(_record_model(cls) for cls in event_classes())


# an event record: one of the registered books' (and the core's) event types
EventRecord = Annotated[Any, OneOfRegistered(record_models, "type")]
