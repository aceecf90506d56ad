"""What PHANTÄSIA counts in the statistics (docs/read-models.md): its AT and AM checks, its
damage dice, and the criticals and fumbles its checks record (PHA-CRIT)."""

from __future__ import annotations

from typing import Any

from domain.rulesystems.base import Statistics

TO_HIT = frozenset({"AT", "AM"})  # the attacker's checks; DF and DM are the defender's


def _result_of(results: list[dict[str, Any]], roll_name: str) -> dict[str, Any] | None:
    return next((r for r in results if r.get("roll_name") == roll_name), None)


def _marks(results: list[dict[str, Any]], sign: int) -> list[tuple[str, str, int]]:
    """The criticals and fumbles of an attack's checks, once per roll: the attacker rolls
    one AT or AM against all his targets, each defender his own DF or DM."""
    out, seen = [], set()
    for r in results:
        name = r.get("roll_name")
        if not name or name in seen:  # an automatic hit or a GM-entered one rolls nothing
            continue
        seen.add(name)
        for flag, counter in (("critical", "criticals"), ("fumble", "fumbles")):
            if r.get(flag):
                out.append((r["roller"], counter, sign))
    return out


class PhantasiaStatistics(Statistics):
    def roll_kind(self, event: Any, roll_name: str) -> str | None:
        """An AT or AM check of an attack (AttackChecked, or its re-roll with a PHANTÄSIA
        point, CheckRerolled) is a roll to hit, a DF or DM check is not; the `damage` of a
        DamageApplied is damage dice (a power's one roll, in its first target's)."""
        kind = type(event).__name__
        if kind == "AttackChecked":
            result = _result_of(event.results, roll_name)
            return "attack" if result is not None and result.get("check") in TO_HIT else None
        if kind == "CheckRerolled":
            mine = next((r for r in event.results if r.get("roller") == event.combatant), None)
            return "attack" if mine is not None and mine.get("check") in TO_HIT else None
        if kind == "DamageApplied" and roll_name == "damage":
            return "damage"
        return None

    def criticals(self, event: Any) -> list[tuple[str, str, int]]:
        """A natural 1 on an AT, AM, DF or DM check is a critical, the die's top face a
        fumble (PHA-CRIT-1, -4, -6, -7; Default PHA-AMB-10), as the check records them, for
        whoever rolled it (PHA-CORE-1: a player defending rolls his DF). A re-roll's result
        stands (PHA-PP-2 a): the critical or fumble it replaces is taken back. Any other
        check that records one (a characteristic check never does) counts the same way."""
        kind = type(event).__name__
        if kind == "AttackChecked":
            return _marks(event.results, 1)
        if kind == "CheckRerolled":

            def mine(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
                return [r for r in results if r.get("roller") == event.combatant]

            return _marks(mine(event.results), 1) + _marks(mine(event.replaced), -1)
        checks: list[tuple[str, Any]] = []
        if kind == "CheckRolled":
            checks = [(event.combatant, event.check)]
        elif kind == "ContestRolled":
            checks = [
                (event.combatant, event.attacker_check),
                (event.target, event.defender_check),
            ]
        return [
            (who, counter, 1)
            for who, check in checks
            for flag, counter in (("critical", "criticals"), ("fumble", "fumbles"))
            if isinstance(check, dict) and check.get(flag)
        ]
