"""The registries of narrative lines: an event type → the function that writes its line,
in English and in Spanish. projections.narrative and the rule systems' line modules
register into them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.state import EncounterState

Describe = Callable[[Any, EncounterState], str]
LINES: dict[str, Describe] = {}
LINES_ES: dict[str, Describe] = {}


def line(name: str, registry: dict[str, Describe] = LINES) -> Callable[[Describe], Describe]:
    """Register the line of an event type."""

    def register(fn: Describe) -> Describe:
        registry[name] = fn
        return fn

    return register


def line_es(name: str) -> Callable[[Describe], Describe]:
    """Register the Spanish line of an event type (the English one stands in without it)."""
    return line(name, LINES_ES)


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
