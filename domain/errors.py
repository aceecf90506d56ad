"""Domain errors. Each names the rule (or field) that refused a command."""

from __future__ import annotations


class DomainError(Exception):
    """Raised when a command breaks a rule; nothing is recorded."""

    status = 422
    title = "Rule violation"

    def __init__(self, rule: str, detail: str, *, field: str | None = None) -> None:
        super().__init__(f"{rule}: {detail}")
        self.rule = rule
        self.detail = detail
        self.field = field


class RuleViolation(DomainError):
    """Raised when a command is refused by a rule of the encounter's rule system."""


class DiceError(DomainError):
    """Raised when a command's manual dice are out of range, missing or left over."""

    title = "Bad dice"

    def __init__(self, roll: str, detail: str, *, die: int | None = None) -> None:
        super().__init__("DICE", detail, field=f"dice.{roll}")
        self.roll = roll
        self.die = die


class NotFound(DomainError):
    """Raised when a command names a combatant or action the encounter does not have."""

    title = "Unknown reference"


class UnknownRuleSystem(DomainError):
    """Raised when an encounter asks for a rule system fraylog does not implement."""
