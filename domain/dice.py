"""Dice as values, and where faces come from.

A roll keeps every face in the order rolled; a die whose chain explodes or implodes
keeps its chain with it (`chain[0]` is the first face). Rules that say *how* a die
chains (Novus's open-ended 2d10, the Wits roll-up) live in their rule-system module
and use `DiceSource.face` to draw each face.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from domain.errors import DiceError, DiceNeeded

T = TypeVar("T")


@dataclass(frozen=True)
class Die:
    """One physical die and every face it showed (its roll-up chain included)."""

    sides: int
    chain: tuple[int, ...]
    value: int  # what the die contributes to the total (signed for implosions)

    def to_dict(self) -> dict[str, Any]:
        return {"sides": self.sides, "faces": list(self.chain), "value": self.value}


@dataclass(frozen=True)
class Roll:
    """A roll: what was rolled, each die, named modifiers and the total."""

    name: str
    expression: str
    dice: tuple[Die, ...]
    modifiers: Mapping[str, int] = field(default_factory=dict)
    source: str = "manual"
    flags: tuple[str, ...] = ()
    drawn: tuple[int, ...] = ()  # every face in the order it was drawn (replays the roll)
    attempt: int = 0  # server dice: the draw at this position (refused commands burn one)

    @property
    def dice_total(self) -> int:
        return sum(d.value for d in self.dice)

    @property
    def total(self) -> int:
        return self.dice_total + sum(self.modifiers.values())

    @property
    def faces(self) -> list[int]:
        """Faces in the order drawn, as a `dice` object names them."""
        return list(self.drawn) if self.drawn else [f for d in self.dice for f in d.chain]

    @property
    def sides(self) -> list[int]:
        """The sides of each face, in the order drawn (all a roll's dice alike unless the
        rule that drew them says otherwise)."""
        if self.drawn:
            return [self.dice[0].sides] * len(self.drawn)
        return [d.sides for d in self.dice for _ in d.chain]

    def to_dict(self) -> dict[str, Any]:
        return {
            "expression": self.expression,
            "source": self.source,
            "faces": self.faces,
            "sides": self.sides,
            "dice": [d.to_dict() for d in self.dice],
            "dice_total": self.dice_total,
            "modifiers": dict(self.modifiers),
            "total": self.total,
            "flags": list(self.flags),
            **({"attempt": self.attempt} if self.attempt else {}),
        }


@dataclass(frozen=True)
class Ask:
    """What a face is for, as the table is asked for it: who rolls (a combatant id, or
    None for the GM's own roll), the roll in the table's words (and in Spanish where the
    book reads in Spanish), and how many faces of this roll are known to be needed now,
    this one included (a roll-up or an explosion is asked for when it happens)."""

    by: str | None
    label: str
    label_es: str | None = None
    count: int = 1

    def counting(self, count: int) -> Ask:
        return Ask(self.by, self.label, self.label_es, count)


class DiceSource(Protocol):
    """Where faces come from: the server, a seed, or the table (manual)."""

    name: str

    def face(self, roll: str, sides: int, ask: Ask | None = None) -> int:
        """Return the next face of the named roll, 1..sides; `ask` says what it is for,
        for a table asked one die at a time."""
        ...

    def finish(self) -> None:
        """Check nothing was left over once the command has rolled everything."""
        ...


class ManualDice:
    """Faces typed in by the table: roll name -> faces in the order rolled."""

    name = "manual"

    def __init__(self, faces: Mapping[str, list[int]]) -> None:
        self._faces = {k: list(v) for k, v in faces.items()}
        self._used: dict[str, int] = {k: 0 for k in faces}

    def face(self, roll: str, sides: int, ask: Ask | None = None) -> int:
        faces = self._faces.get(roll)
        used = self._used.get(roll, 0)
        if faces is None or used >= len(faces):
            raise needed(roll, used + 1, sides, ask, None if faces is None else len(faces))
        value = faces[used]
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= sides:
            raise DiceError(
                roll,
                f"die {used + 1} of roll '{roll}' is a d{sides}: {value!r} is not in 1..{sides}",
                die=used + 1,
                problem="range",
                sides=sides,
                value=value,
            )
        self._used[roll] = used + 1
        return value

    def finish(self) -> None:
        for roll, faces in self._faces.items():
            used = self._used.get(roll, 0)
            if used == 0:
                raise DiceError(
                    roll, f"roll '{roll}' was not rolled by this command", problem="unrolled"
                )
            if used < len(faces):
                raise DiceError(
                    roll,
                    f"roll '{roll}' has {len(faces) - used} face(s) left over after die {used}",
                    die=used + 1,
                    problem="left_over",
                    left=len(faces) - used,
                )


def derived_face(secret: bytes, key: str, sides: int) -> int:
    """A face drawn from HMAC-SHA256(secret, key) by rejection sampling (no modulo bias)."""
    counter = 0
    limit = (1 << 32) - ((1 << 32) % sides)
    while True:
        digest = hmac.new(secret, f"{key}#{counter}".encode(), hashlib.sha256).digest()
        for i in range(0, 32, 4):
            n = int.from_bytes(digest[i : i + 4], "big")
            if n < limit:
                return n % sides + 1
        counter += 1


def derivation_key(position: int, attempt: int, roll: str, n: int) -> str:
    """What a derived face is keyed by: the command's position (with the attempt, after a
    refused draw there), the roll name and the face's ordinal in the roll."""
    at = f"{position}.{attempt}" if attempt else str(position)
    return f"{at}/{roll}/{n}"


class DerivedDice:
    """Faces derived from a secret and a key per face; reproducible from the secret.

    Used with a public seed for `seeded` encounters (demos, tests). The key is the
    position the command starts at, the roll name and the face's ordinal in the roll.
    """

    def __init__(self, name: str, secret: bytes, position: int, attempt: int = 0) -> None:
        self.name = name
        self._secret = secret
        self._position = position
        self.attempt = attempt
        self._counts: dict[str, int] = {}

    def face(self, roll: str, sides: int, ask: Ask | None = None) -> int:
        n = self._counts.get(roll, 0)
        self._counts[roll] = n + 1
        return derived_face(
            self._secret, derivation_key(self._position, self.attempt, roll, n), sides
        )

    def finish(self) -> None:
        return None


class MixedDice:
    """Manual faces where the table gave them, the fallback source for every other roll."""

    def __init__(self, manual: ManualDice, fallback: DiceSource | None) -> None:
        self._manual = manual
        self._fallback = fallback
        self.name = manual.name

    def face(self, roll: str, sides: int, ask: Ask | None = None) -> int:
        if self._fallback is None or roll in self._manual._faces:
            return self._manual.face(roll, sides, ask)
        return self._fallback.face(roll, sides, ask)

    def source_of(self, roll: str) -> str:
        if self._fallback is None or roll in self._manual._faces:
            return "manual"
        return self._fallback.name

    def finish(self) -> None:
        self._manual.finish()


def attempt_of(dice: DiceSource, roll: str) -> int:
    """The draw attempt of the source that supplied the faces of `roll` (0 but for server)."""
    source = (
        dice._fallback
        if isinstance(dice, MixedDice) and source_name(dice, roll) != "manual"
        else dice
    )
    return getattr(source, "attempt", 0) if source is not None else 0


def source_name(dice: DiceSource, roll: str) -> str:
    """The name of the source that supplied the faces of `roll`."""
    if isinstance(dice, MixedDice):
        return dice.source_of(roll)
    return dice.name


def needed(roll: str, die: int, sides: int, ask: Ask | None, given: int | None) -> DiceNeeded:
    """The refusal of a command that needs a face the table has not given yet: which roll
    comes next, whose, in the table's words."""
    ask = ask or Ask(None, f"{roll}: a d{sides}")
    return DiceNeeded(
        {
            "roll": roll,
            "die": die,
            "sides": sides,
            "count": ask.count,
            "for": ask.by,
            "label": ask.label,
            **({"label_es": ask.label_es} if ask.label_es else {}),
        },
        f"roll '{roll}' needs a face for die {die} (a d{sides}), but "
        f"{'none was given' if given is None else f'only {given} were given'}: "
        f"{ask.label}",
        given=given,
    )


def roll_plain(
    dice: DiceSource, name: str, count: int, sides: int, ask: Ask | None = None, **mods: int
) -> Roll:
    """`count` dice of `sides` sides with no chains (e.g. 1d10 for a Snag's hurt)."""
    ask = ask or Ask(None, f"{name}: {count}d{sides}")
    faces = [dice.face(name, sides, ask.counting(count - i)) for i in range(count)]
    return Roll(
        name=name,
        expression=f"{count}d{sides}",
        dice=tuple(Die(sides, (f,), f) for f in faces),
        modifiers=mods,
        source=source_name(dice, name),
        attempt=attempt_of(dice, name),
    )


def roll_off(tied: list[T], roll: Callable[[T, list[T]], int]) -> list[T]:
    """A roll-off: each of `tied` rolls (`roll(who, his group)` draws his face), the higher
    first; those tied again roll again among themselves, as often as it takes, before anyone
    below them rolls again. Returns them in order. Iterative: a table whose dice tie a
    thousand times in a row gets an order, not a crash."""
    ordered: list[T] = []
    pending = [tied]
    while pending:
        group = pending.pop()
        if len(group) == 1:
            ordered.append(group[0])
            continue
        by_face: dict[int, list[T]] = {}
        for who in group:
            by_face.setdefault(roll(who, group), []).append(who)
        for face in sorted(by_face):  # the lowest pushed first: the highest is settled first
            pending.append(by_face[face])
    return ordered


DICE_EXPRESSION = re.compile(r"^(\d{1,2})d(\d{1,3})$")


def dice_of(expression: str) -> tuple[int, int]:
    """'2d6' → (2, 6), for an expression `checked_dice` wrote."""
    m = DICE_EXPRESSION.match(expression)
    assert m, expression  # validated on entry
    return int(m.group(1)), int(m.group(2))


def checked_dice(expression: str) -> str:
    """Dice as a sheet or a command types them, written the one way ('1D8 ' → '1d8');
    ValueError unless N is 1 to 20 and S 2 to 100."""
    m = DICE_EXPRESSION.match(expression.strip().lower())
    if not m or not 1 <= int(m.group(1)) <= 20 or not 2 <= int(m.group(2)) <= 100:
        raise ValueError("dice are written NdS, N from 1 to 20 and S from 2 to 100, e.g. 1d8")
    return f"{int(m.group(1))}d{int(m.group(2))}"
