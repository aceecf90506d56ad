"""The words every rule book's log lines are made of: figures with true minus signs, a
roll as the table reads it, a combatant's name, and a catalogue of messages keyed by code
(each in English and, where the book offers it, Spanish) with named parameters."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from domain.state import EncounterState

Text = str | Callable[..., str]  # a `str.format` template, or a function where grammar needs it


def number(n: int) -> str:
    """'12', '−3': every negative figure of a log line with a true minus sign (U+2212), as
    the modifiers print theirs."""
    return str(n) if n >= 0 else f"−{-n}"


def signed(n: int) -> str:
    """'+3', '−3': a modifier, its negative with the true minus sign too."""
    return f"+{n}" if n >= 0 else f"−{-n}"


def figures(
    before: int | None, after: int | None, number: Callable[[int], str] = number, head: str = ""
) -> str:
    """'(head 30 → 23)' — or nothing where the reader may not see the figures (a concealed
    event, projections.visibility: they are None)."""
    if before is None or after is None:
        return ""
    return f" ({head}{number(before)} → {number(after)})"


def plural(n: int, one: str, many: str) -> str:
    """'1 die', '2 dice', '0 dice'."""
    return f"{n} {one if n == 1 else many}"


def name_of(state: EncounterState, combatant: str | None) -> str:
    """A combatant's name, or the id itself where the state has no such combatant."""
    who = state.combatants.get(combatant or "")
    return who.name if who else str(combatant)


def roll_text(roll: dict[str, Any]) -> str:
    """'10→7 + 4 = 21, +9 (skill ranks +7, dex bonus +2) = 30'."""
    dice = " + ".join("→".join(str(f) for f in d["faces"]) for d in roll["dice"])
    text = f"{dice} = {number(roll['dice_total'])}"
    mods = {k: v for k, v in roll["modifiers"].items() if v}
    if mods:
        parts = ", ".join(f"{k} {signed(v)}" for k, v in mods.items())
        text += f" {signed(sum(mods.values()))} ({parts}) = {number(roll['total'])}"
    for flag in roll.get("flags", []):
        text += f" [{flag}]"
    return text


@dataclass(frozen=True)
class Message:
    """One entry of a catalogue: its English text and its Spanish one (None: the book's log
    has none, the English stands in)."""

    en: Text
    es: Text | None = None

    def say(self, lang: str = "en", **params: Any) -> str:
        text = self.es if lang == "es" and self.es is not None else self.en
        return text(**params) if callable(text) else text.format(**params)


Catalogue = Mapping[str, Message]


def say(catalogue: Catalogue, code: str, lang: str = "en", **params: Any) -> str:
    """`catalogue[code]` in `lang`, its parameters filled in."""
    return catalogue[code].say(lang, **params)


Line = Callable[[Any, EncounterState, str], str | None]


class Lines:
    """A book's log lines by event type: `tell` gives an event's line in a language, or
    None where the book has none (the core's line applies, projections.narrative)."""

    def __init__(self) -> None:
        self.by_type: dict[str, Line] = {}

    def line(self, *names: str) -> Callable[[Line], Line]:
        """Register the line of one or more event types (by the event class's name)."""

        def register(fn: Line) -> Line:
            for name in names:
                self.by_type[name] = fn
            return fn

        return register

    def tell(self, event: Any, state: EncounterState, lang: str) -> str | None:
        fn = self.by_type.get(type(event).__name__)
        return fn(event, state, lang) if fn else None
