"""Wits dice: roll-under Skill Tests, and damage dice that roll up on their highest face."""

from __future__ import annotations

from collections.abc import Sequence

from domain.dice import DiceSource, Die, Roll, attempt_of, dice_of, roll_plain, source_name


def test_roll(dice: DiceSource, name: str, die: str) -> Roll:
    """The Skill Test die (Default WIT-AMB-2: 1d20; 3d6 as an encounter option)."""
    count, sides = dice_of(die)
    return roll_plain(dice, name, count, sides)


def _rolled_up(dice: DiceSource, roll: str, sides: int, open_ended: bool) -> Die:
    """WIT-DMG-3: a die showing its highest face is rolled again and the result added;
    open-ended (Default WIT-AMB-4) it goes on while the highest face comes up."""
    chain = [dice.face(roll, sides)]
    while chain[-1] == sides and (open_ended or len(chain) == 1):
        chain.append(dice.face(roll, sides))
    return Die(sides, tuple(chain), sum(chain))


def damage_roll(
    dice: DiceSource,
    name: str,
    groups: Sequence[tuple[str, str]],
    *,
    roll_up: bool,
    open_ended: bool,
) -> Roll:
    """Each (label, NdS) group in order, every die with its own roll-up chain, drawn die by
    die (a die's rerolls come before the next die)."""
    dies: list[Die] = []
    for _label, expression in groups:
        count, sides = dice_of(expression)
        for _ in range(count):
            if roll_up:
                dies.append(_rolled_up(dice, name, sides, open_ended))
            else:  # WIT-DMG-7: damage that is not normal physical damage does not roll up
                face = dice.face(name, sides)
                dies.append(Die(sides, (face,), face))
    flags = ("rolled up",) if any(len(d.chain) > 1 for d in dies) else ()
    return Roll(
        name=name,
        expression=" + ".join(f"{expr} {label}" for label, expr in groups)
        + (", rolling up" if roll_up else ""),
        dice=tuple(dies),
        source=source_name(dice, name),
        attempt=attempt_of(dice, name),
        flags=flags,
    )
