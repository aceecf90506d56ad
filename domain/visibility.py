"""What a player may read of a field, declared once beside the event or state field that
carries it (docs/visibility.md): `Annotated[int, HEALTH]`, `Annotated[str, GM]`.

A field without a mark is the table's. `HEALTH` marks a health figure of the combatant the
model is about (an event's `combatant`, a combatant's state): players see it as the GM shows
that combatant's health (`exact`, `described` or `none`, `show_health`). `GM` marks a secret
of the GM's: a target number he sets, his notes; players never read it. The outcome the rules
make public (saved or not, the damage dealt) is never marked.
"""

from __future__ import annotations

import typing
from dataclasses import dataclass
from functools import cache
from typing import Literal

HealthShown = Literal["exact", "described", "none"]
HEALTH_SHOWN: tuple[HealthShown, ...] = ("exact", "described", "none")
# how players see health when the GM has not said (docs/visibility.md): his own combatants'
# as a described state, as the trackers tables use do it; the party's as it is
GM_COMBATANTS_DEFAULT: HealthShown = "described"
PARTY_DEFAULT: HealthShown = "exact"

# a described state, in the words of every rule book (each book says which applies,
# RuleSystem.health_state); PHANTÄSIA reads them in Spanish too
HealthState = Literal["unhurt", "hurt", "badly_hurt", "down"]
HEALTH_WORDS: dict[str, dict[str, str]] = {
    "unhurt": {"en": "unhurt", "es": "ileso"},
    "hurt": {"en": "hurt", "es": "herido"},
    "badly_hurt": {"en": "badly hurt", "es": "malherido"},
    "down": {"en": "down", "es": "caído"},
}


@dataclass(frozen=True)
class Secret:
    """Whose a field is, beyond the table's: `health` (a health figure) or `gm`."""

    kind: Literal["health", "gm"]


HEALTH = Secret("health")
GM = Secret("gm")


@cache
def secrets(model: type) -> dict[str, Secret]:
    """The marked fields of an event class or a state model: name -> its mark."""
    hints = typing.get_type_hints(model, include_extras=True)
    found: dict[str, Secret] = {}
    for name, hint in hints.items():
        for mark in getattr(hint, "__metadata__", ()):
            if isinstance(mark, Secret):
                found[name] = mark
    return found


def described(hits: int, max_hits: int, down: bool) -> HealthState:
    """The described state of a combatant with `hits` of `max_hits` (`down`: the book says he
    is out of the fight). Badly hurt from half his maximum down, as the trackers tables use
    mark "bloodied" (a program default: none of the three books describes health in words)."""
    if down:
        return "down"
    if hits >= max_hits:
        return "unhurt"
    return "badly_hurt" if 2 * hits <= max_hits else "hurt"
