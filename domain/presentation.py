"""How the web table presents a rule book: declarative data each book gives in its own
package (`domain/rulesystems/<book>/table.py`, `RuleSystem.table`), served in `GET
/rulesets/{name}` as `table`, so the browser's screens read a book's words and fields from
it and never name a book (docs/web.md).

A *figure* is a labelled value read from the combatant view's fields, put in words by one
of a few named formats the browser implements; a *mark* is a word or short phrase shown
when a field holds (a tag on the card, a flag in the replay, the card's state badge).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

if TYPE_CHECKING:
    from domain.rulesystems.base import RuleSystem

FigureFormat = Literal["plain", "of", "of-words", "signed", "words", "count-warn", "nonzero"]
MarkFormat = Literal["text", "entries", "statuses"]


class Shape(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Figure(Shape):
    """A labelled value of a combatant's view."""

    label: str = Field(description='Its name on the screen ("AP left").')
    fields: list[str] = Field(
        min_length=1,
        description="The view fields it reads: the first not null; for `of` and `of-words` "
        "the value, then its maximum.",
    )
    format: FigureFormat = Field(
        default="plain",
        description="plain: as it is; of: `value / maximum`; of-words: `value of maximum`; "
        "signed: `+2` (0 as `0`); words: an enum value in words; count-warn: a count, marked "
        "when not 0; nonzero: hidden (on the card: `empty`) when 0 or false.",
    )
    empty: str = Field(default="—", description="Shown on the card when there is no value.")

    @model_validator(mode="after")
    def _two_for_of(self) -> Figure:
        if self.format in ("of", "of-words") and len(self.fields) != 2:
            raise ValueError(f"a figure in format {self.format!r} reads two fields")
        return self


class Mark(Shape):
    """A word shown when a field holds: a tag, a flag or a state."""

    field: str = Field(description='A view field; a dot reads into an object ("conditions.dead").')
    text: str = Field(default="", description='Its words; "{}" stands for the value.')
    plural: str | None = Field(default=None, description="Its words when the value is not 1.")
    values: dict[str, str] = Field(
        default_factory=dict, description="Its words by the field's value (an enum's)."
    )
    when: Literal["truthy", "set", "listed"] = Field(
        default="truthy",
        description="truthy: the value is true or not 0; set: not null; listed: the key is "
        "there, even null.",
    )
    unless: list[str] = Field(
        default_factory=list, description="Fields any of which, when true, hide it."
    )
    format: MarkFormat = Field(
        default="text",
        description="text: one mark; entries: a mark per key of a {name: count} object; "
        "statuses: a mark per status of a {name: {turns, es, kind}} object.",
    )


class Health(Shape):
    """The health measure: the card's big figure and meter, the replay's chart."""

    label: str = Field(description='What the book calls it ("PV").')
    current: str = Field(description="The view field of its current value.")
    maximum: str = Field(description="The view field of its maximum.")


class Card(Shape):
    """The table's card of a combatant, below his health."""

    stats: list[Figure] = Field(default_factory=list)
    statuses: str | None = Field(
        default=None,
        description="A view field of {name: {turns, es, kind}} listed as statuses (their "
        "Spanish names and turns left); null: none.",
    )
    tags: list[Mark] = Field(default_factory=list)
    state: list[Mark] = Field(
        default_factory=list, description="His state's badge: the first that holds."
    )


class Replay(Shape):
    """The replay viewer's card of a combatant, and its diff."""

    facts: list[Figure] = Field(default_factory=list)
    flags: list[Mark] = Field(default_factory=list)
    fields: dict[str, str] = Field(
        default_factory=dict,
        description="View fields' names in the book's words, for the diff (where not "
        "named here, the health fields are `health`'s label and `Maximum <label>`).",
    )


class Table(Shape):
    """How the web table presents a rule book (docs/web.md)."""

    title: str | None = Field(
        default=None,
        description="Its name on the screens; a book's declaration may leave it out: served, "
        "it is the rule system's title.",
    )
    languages: list[str] = Field(
        default_factory=list,
        description="The languages its log reads in, its own first (served: the rule system's).",
    )
    health: Health
    order: Figure | None = Field(
        default=None, description="The figure beside a name in the order of play."
    )
    card: Card = Field(default_factory=Card)
    replay: Replay = Field(default_factory=Replay)
    example: dict[str, Any] = Field(
        default_factory=dict, description="A valid stat block, the add-a-combatant form's."
    )
    key_stats: list[str] | None = Field(
        default=None,
        description="The stats the form asks for one by one; null: the stats schema's required.",
    )


def presented(system: RuleSystem) -> dict[str, Any]:
    """The rule system's `table`, as `GET /rulesets/{name}` serves it: its own declaration
    (or, where it has none, its health figures under its hits word), with its title and
    languages."""
    declared = system.table
    if declared is None:
        current, maximum = (*system.health_figures, *system.health_figures)[:2]
        word = system.hits_word[:1].upper() + system.hits_word[1:]
        declared = Table(health=Health(label=word, current=current, maximum=maximum))
    served = declared.model_copy(
        update={"title": declared.title or system.title, "languages": list(system.languages)}
    )
    return served.model_dump(mode="json")
