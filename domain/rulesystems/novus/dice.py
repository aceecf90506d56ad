"""Novus dice: every check is open-ended 2d10 + modifiers against a TN (NOV-CORE)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from domain.dice import Ask, DiceSource, Die, Roll, attempt_of, source_name

OPEN_ENDED = "open-ended 2d10 (a 10 explodes, a 1 implodes, a 1 with a 10 is a Nova)"  # NOV-CORE


@dataclass(frozen=True)
class Asking:
    """Who rolls an open-ended 2d10 and what for, in the table's words: `what` opens the
    label of the two dice ("Brakka attacks Goblin with the sword"), `whose` names the roll
    in a chain's follow-ups ("Brakka's attack: die A showed 10 — roll it again and add")."""

    by: str | None
    what: str
    whose: str


def _follow_up(asking: Asking, which: str, first: int, again: bool, count: int) -> Ask:
    """The label of a chain's next face: why it is asked (NOV-CORE-2..4)."""
    showed = f"die {which} showed {first}{' again' if again else ''}"
    if first == 10:
        why = "roll it again and add (another 10 goes on)"
    else:
        why = "roll it again and subtract (another 1 goes on; a 10 is just −10)"
    return Ask(asking.by, f"{asking.whose}: {showed} — {why}", count=count)


def _chain(dice: DiceSource, roll: str, first: int, asking: Asking, which: str, after: int) -> Die:
    """One die's chain: a 10 explodes, a 1 implodes; a chain never turns (NOV-CORE-2..4).
    `after`: the faces known to follow this chain (die B's first reroll), for `count`."""
    chain = [first]
    if first == 10:  # NOV-CORE-2: add and roll again while it shows 10
        value = 10
        while chain[-1] == 10:
            ask = _follow_up(asking, which, 10, len(chain) > 1, 1 + after)
            chain.append(dice.face(roll, 10, ask))
            value += chain[-1]
        return Die(10, tuple(chain), value)
    if first == 1:  # NOV-CORE-3: subtract the rerolls while it shows 1
        value = 1
        while True:
            ask = _follow_up(asking, which, 1, len(chain) > 1, 1 + after)
            chain.append(dice.face(roll, 10, ask))
            value -= chain[-1]
            if chain[-1] != 1:  # NOV-CORE-4: a later 10 is just −10 and ends it
                break
        return Die(10, tuple(chain), value)
    return Die(10, (first,), first)


def open_2d10(
    dice: DiceSource, roll: str, modifiers: Mapping[str, int], asking: Asking | None = None
) -> Roll:
    """Open-ended 2d10 (NOV-CORE-1). Faces are drawn in order: the two dice, then die
    A's chain, then die B's; `asking` says, for a table asked one die at a time, who rolls
    and what for."""
    asking = asking or Asking(None, roll, roll)
    first = Ask(asking.by, f"{asking.what}: {OPEN_ENDED}", count=2)
    a, b = dice.face(roll, 10, first), dice.face(roll, 10, first.counting(1))
    if {a, b} == {1, 10}:  # NOV-CORE-5: a Nova Roll counts 11, nothing rerolls
        dies = (Die(10, (a,), a), Die(10, (b,), b))
        flags: tuple[str, ...] = ("nova",)
    else:
        b_rolls_on = 1 if b in (1, 10) else 0
        dies = (
            _chain(dice, roll, a, asking, "A", b_rolls_on),
            _chain(dice, roll, b, asking, "B", 0),
        )
        flags = tuple(
            sorted(
                {"exploded" for d in dies if d.chain[0] == 10 and len(d.chain) > 1}
                | {"imploded" for d in dies if d.chain[0] == 1 and len(d.chain) > 1}
            )
        )
    return Roll(
        name=roll,
        expression="2d10 open-ended",
        dice=dies,
        modifiers=dict(modifiers),
        source=source_name(dice, roll),
        attempt=attempt_of(dice, roll),
        flags=flags,
        drawn=(dies[0].chain[0], dies[1].chain[0], *dies[0].chain[1:], *dies[1].chain[1:]),
    )


def boon_points(margin: int) -> int:
    """NOV-CORE-6: one Boon Point per full 10 points over the TN."""
    return margin // 10 if margin >= 0 else 0


def snag_points(margin: int) -> int:
    """NOV-CORE-7 (Default NOV-AMB-40): one Snag Point per full 10 points short of the TN."""
    return (-margin) // 10 if margin < 0 else 0
