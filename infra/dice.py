"""Dice sources that need the operating system or the encounter's settings."""

from __future__ import annotations

import secrets

from domain.dice import DerivedDice, DiceSource, ManualDice, MixedDice
from domain.errors import RuleViolation
from domain.state import EncounterState


class ServerDice:
    """Cryptographically strong faces from the operating system."""

    name = "server"

    def face(self, roll: str, sides: int) -> int:
        return secrets.randbelow(sides) + 1

    def finish(self) -> None:
        return None


def dice_for(
    state: EncounterState, manual: dict[str, list[int]] | None, source: str | None
) -> DiceSource:
    """The dice of one command: the table's faces where given, else the chosen source."""
    name = source or state.dice_source
    fallback: DiceSource | None
    if name == "manual":
        fallback = None
    elif name == "seeded":
        if not state.seed:
            raise RuleViolation("DICE", "this encounter has no seed", field="dice_source")
        fallback = DerivedDice("seeded", state.seed.encode(), state.version + 1)
    else:
        fallback = ServerDice()
    return MixedDice(ManualDice(manual or {}), fallback)
