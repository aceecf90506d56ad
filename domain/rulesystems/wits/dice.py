"""Wits dice: roll-under Skill Tests, and damage dice that roll up on their highest face.

Each face is asked for in the table's words (an `Ask`): who picks up the die, what the
roll is for, and why a roll-up asks for one more."""

from __future__ import annotations

from collections.abc import Sequence

from domain.dice import Ask, DiceSource, Die, Roll, attempt_of, dice_of, roll_plain, source_name


def a(number: int) -> str:
    """'a 6', 'an 8', 'an 11': the article a face is read with."""
    spoken = str(number)
    return f"an {spoken}" if spoken.startswith("8") or spoken in ("11", "18") else f"a {spoken}"


def under(die: str, effective: int) -> str:
    """A roll-under test as the table reads it (WIT-TEST-1: at or under the skill)."""
    count, _ = dice_of(die)
    if effective < count:
        return f"{die}, {effective} or less (no roll can make it)"
    return f"{die}, {effective} or less"


def test_roll(dice: DiceSource, name: str, die: str, ask: Ask | None = None) -> Roll:
    """The Skill Test die (Default WIT-AMB-2: 1d20; 3d6 as an encounter option)."""
    count, sides = dice_of(die)
    return roll_plain(dice, name, count, sides, ask)


def _rolled_up(
    dice: DiceSource,
    roll: str,
    sides: int,
    open_ended: bool,
    ask: Ask,
    again: str,
) -> Die:
    """WIT-DMG-3: a die showing its highest face is rolled again and the result added;
    open-ended (Default WIT-AMB-4) it goes on while the highest face comes up. `ask` asks
    for the first face; `again` (with the faces so far) says why a reroll is asked for."""
    chain = [dice.face(roll, sides, ask)]
    while chain[-1] == sides and (open_ended or len(chain) == 1):
        shown = (
            f"{a(sides)} again ({' + '.join(str(f) for f in chain)} so far)"
            if len(chain) > 1
            else a(sides)
        )
        more = f"another {sides} rolls up again" if open_ended else "this once only"
        label = f"{again} showed {shown}: it rolls up — roll it again and add ({more})"
        chain.append(dice.face(roll, sides, Ask(ask.by, label, count=ask.count)))
    return Die(sides, tuple(chain), sum(chain))


def damage_roll(
    dice: DiceSource,
    name: str,
    groups: Sequence[tuple[str, str]],
    *,
    roll_up: bool,
    open_ended: bool,
    by: str | None = None,
    whose: str | None = None,
) -> Roll:
    """Each (label, NdS) group in order, every die with its own roll-up chain, drawn die by
    die (a die's rerolls come before the next die). `by` rolls them; `whose` names the roll
    for the table (e.g. "Lief's damage on Farthan")."""
    expression = " + ".join(f"{expr} {label}" for label, expr in groups)
    whose = whose or "damage"
    dice_in_all = sum(dice_of(expr)[0] for _, expr in groups)
    dies: list[Die] = []
    for label, expr in groups:
        count, sides = dice_of(expr)
        for k in range(count):
            which = f"the d{sides} ({label}" + (f", {k + 1} of {count})" if count > 1 else ")")
            left = dice_in_all - len(dies)  # this die and those not rolled yet
            if roll_up:
                ask = Ask(by, f"{whose}, {expression}: {which} — {a(sides)} rolls up", count=left)
                dies.append(_rolled_up(dice, name, sides, open_ended, ask, f"{whose}: {which}"))
            else:  # WIT-DMG-7: damage that is not normal physical damage does not roll up
                ask = Ask(
                    by,
                    f"{whose}, {expression}: {which} (not physical damage: it does not roll up)",
                    count=left,
                )
                face = dice.face(name, sides, ask)
                dies.append(Die(sides, (face,), face))
    flags = ("rolled up",) if any(len(d.chain) > 1 for d in dies) else ()
    return Roll(
        name=name,
        expression=expression + (", rolling up" if roll_up else ""),
        dice=tuple(dies),
        source=source_name(dice, name),
        attempt=attempt_of(dice, name),
        flags=flags,
    )
