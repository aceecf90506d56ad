"""Domain errors. Each names the rule (or field) that refused a command."""

from __future__ import annotations

from typing import Any, Literal

DiceProblem = Literal["missing", "range", "unrolled", "left_over"]


class DomainError(Exception):
    """Raised when a command breaks a rule; nothing is recorded.

    `detail_es`, when given, is the same detail in Spanish: the API answers with it when
    the request asks for Spanish (`?lang=es`, `Accept-Language: es`)."""

    status = 422
    title = "Rule violation"
    sight: Any = None  # a player's: who he may not see, so the answer names none of them

    def __init__(
        self, rule: str, detail: str, *, field: str | None = None, detail_es: str | None = None
    ) -> None:
        super().__init__(f"{rule}: {detail}")
        self.rule = rule
        self.detail = detail
        self.field = field
        self.detail_es = detail_es


class RuleViolation(DomainError):
    """Raised when a command is refused by a rule of the encounter's rule system."""


class DiceError(DomainError):
    """Raised when a command's manual dice are out of range, missing or left over.

    Besides the roll and die, what went wrong (`problem`) and its figures: `sides` of the
    die, `given` (faces given for the roll, None when the roll was not given at all),
    `value` (the face out of range), `left` (faces left over)."""

    title = "Bad dice"

    def __init__(
        self,
        roll: str,
        detail: str,
        *,
        die: int | None = None,
        problem: DiceProblem | None = None,
        sides: int | None = None,
        given: int | None = None,
        value: Any = None,
        left: int | None = None,
        detail_es: str | None = None,
    ) -> None:
        super().__init__("DICE", detail, field=f"dice.{roll}", detail_es=detail_es)
        self.roll = roll
        self.die = die
        self.problem = problem
        self.sides = sides
        self.given = given
        self.value = value
        self.left = left


class DiceNeeded(DiceError):
    """Raised when a command whose dice come from the table needs a face it was not given:
    nothing is recorded, and `needed` says which roll comes next (roll, die, sides, count,
    for whom, in the table's words); the client adds the face and sends the command again.
    `so_far` is filled in by whoever ran the command: what the faces already given decided."""

    def __init__(self, needed: dict[str, Any], detail: str, *, given: int | None) -> None:
        super().__init__(
            needed["roll"],
            detail,
            die=needed["die"],
            problem="missing",
            sides=needed["sides"],
            given=given,
        )
        self.rule = "DICE_NEEDED"
        self.needed = needed
        self.so_far: list[Any] = []  # the events the faces given decided (not recorded)
        self.before: Any = None  # () -> the state those events follow


class NotFound(DomainError):
    """Raised when a command names a combatant or action the encounter does not have."""

    title = "Unknown reference"


class DamagedRecord(DomainError):
    """Raised when an encounter's stored events are not the unbroken run of positions its
    record is (one deleted or lost under fraylog): it is neither read nor added to. The
    store's fault, not the request's: a 500 that names the missing position, which the
    encounter's export and `fraylog verify` show too."""

    status = 500
    title = "Damaged record"

    @classmethod
    def gap(cls, encounter_id: Any, missing: int, found: int) -> DamagedRecord:
        return cls(
            "RECORD",
            f"the record of encounter {encounter_id} is damaged: position {missing} is "
            f"missing (the next one stored is {found}), so it can be neither read nor added "
            "to; its export and `fraylog verify` show the gap: restore the store from a "
            "backup",
            detail_es=f"el registro del encuentro {encounter_id} está dañado: falta la "
            f"posición {missing} (la siguiente guardada es la {found}), así que no se puede "
            "leer ni añadirle nada; su exportación y `fraylog verify` muestran el hueco: "
            "restaure el almacén desde una copia de seguridad",
        )


class UnknownRuleSystem(DomainError):
    """Raised when an encounter asks for a rule system fraylog does not implement."""
