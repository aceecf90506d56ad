"""Roll-under checks on 1d12 (1d20 under some statuses), criticals and fumbles, opposed
checks (PHA-CHK, PHA-CRIT-1, -4, -6)."""

from __future__ import annotations

from typing import Any

from domain.dice import Die, Roll, attempt_of, source_name
from domain.rulesystems.base import Context
from domain.rulesystems.phantasia.asks import check_ask


def roll_check(
    ctx: Context,
    name: str,
    parts: dict[str, int],
    die: int = 12,
    *,
    auto_success: bool = False,
    by: str | None = None,
    says: tuple[str, str] | None = None,
    crits: bool = False,
    several: bool = False,
) -> dict[str, Any]:
    """PHA-CHK-1: roll 1d12 (PHA-CHK-3: or 1d20) and succeed on a result ≤ the target, the
    sum of `parts` (PHA-CHK-2: score + modifiers). Criticals and fumbles belong to the
    AT, AM, DF and DM checks (PHA-CRIT; attacks.outcome reads this roll's face for them):
    a characteristic check is plain roll-under. `auto_success` (a PHANTÄSIA point, PHA-PP-2
    b) rolls nothing. The table is asked for the die in its words: `by` picks it up,
    `says` what it is for (English, Spanish), `crits` on the checks that critical and
    fumble, `several` for one roll against several targets' numbers."""
    target = sum(parts.values())
    if auto_success:
        return {
            "target_number": target,
            "parts": parts,
            "die": die,
            "roll": None,
            "face": None,
            "success": True,
            "critical": False,
            "fumble": False,
            "margin": None,
            "automatic": True,
            "roll_name": None,
        }
    en, es = says or (f"{name} check", f"chequeo ({name})")
    ask = check_ask(by, en, es, None if several else target, die, crits=crits)
    face = ctx.dice.face(name, die, ask)
    roll = Roll(
        name=name,
        expression=f"1d{die} ≤ {target}",
        dice=(Die(die, (face,), face),),
        source=source_name(ctx.dice, name),
        attempt=attempt_of(ctx.dice, name),
    )
    critical = fumble = False
    success = face <= target
    return {
        "target_number": target,
        "parts": parts,
        "die": die,
        "roll": roll.to_dict(),
        "face": face,
        "success": success,
        "critical": critical,
        "fumble": fumble,
        "margin": target - face,
        "automatic": False,
        "roll_name": name,
    }


def attacker_wins(attacker: dict[str, Any], defender: dict[str, Any]) -> bool:
    """PHA-CHK-4 (Default PHA-AMB-5): the attacker wins only if he succeeds and either the
    defender fails or the attacker's margin (target − roll) is larger; ties and double
    failures go to the defender. An automatic success (a PHANTÄSIA point) beats any
    margin but another automatic success."""
    if not attacker["success"]:
        return False
    if not defender["success"]:
        return True
    if attacker["automatic"] or defender["automatic"]:
        return attacker["automatic"] and not defender["automatic"]
    return attacker["margin"] > defender["margin"]


def rolls_of(*checks: dict[str, Any]) -> dict[str, Any]:
    """The `rolls` an event records for its checks: roll name → the roll, as every event
    that rolls dice records them (audit, exports and statistics read them there)."""
    return {c["roll_name"]: c["roll"] for c in checks if c.get("roll_name") and c.get("roll")}
