"""Novus dice: every check is open-ended 2d10 + modifiers against a TN (NOV-CORE)."""

from __future__ import annotations

from collections.abc import Mapping

from domain.dice import DiceSource, Die, Roll, attempt_of, source_name


def _chain(dice: DiceSource, roll: str, first: int) -> Die:
    """One die's chain: a 10 explodes, a 1 implodes; a chain never turns (NOV-CORE-2..4)."""
    chain = [first]
    if first == 10:  # NOV-CORE-2: add and roll again while it shows 10
        value = 10
        while chain[-1] == 10:
            chain.append(dice.face(roll, 10))
            value += chain[-1]
        return Die(10, tuple(chain), value)
    if first == 1:  # NOV-CORE-3: subtract the rerolls while it shows 1
        value = 1
        while True:
            chain.append(dice.face(roll, 10))
            value -= chain[-1]
            if chain[-1] != 1:  # NOV-CORE-4: a later 10 is just −10 and ends it
                break
        return Die(10, tuple(chain), value)
    return Die(10, (first,), first)


def open_2d10(dice: DiceSource, roll: str, modifiers: Mapping[str, int]) -> Roll:
    """Open-ended 2d10 (NOV-CORE-1). Faces are drawn in order: the two dice, then die
    A's chain, then die B's."""
    a, b = dice.face(roll, 10), dice.face(roll, 10)
    if {a, b} == {1, 10}:  # NOV-CORE-5: a Nova Roll counts 11, nothing rerolls
        dies = (Die(10, (a,), a), Die(10, (b,), b))
        flags: tuple[str, ...] = ("nova",)
    else:
        dies = (_chain(dice, roll, a), _chain(dice, roll, b))
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
