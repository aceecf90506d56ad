"""What Wits counts in the statistics (docs/read-models.md): its attack tests, its damage
dice, and as criticals the attack tests of a Critical or Extraordinary Success."""

from __future__ import annotations

from typing import Any

from domain.rulesystems.base import Statistics

CRITICAL_DEGREES = frozenset({"critical", "extraordinary"})


class WitsStatistics(Statistics):
    def roll_kind(self, event: Any, roll_name: str) -> str | None:
        """An AttackTestRolled's `attack` is a roll to hit (its `defense` is the
        defender's, counted by source only); a DamageApplied's `damage` is damage dice."""
        kind = type(event).__name__
        if kind == "AttackTestRolled" and roll_name == "attack":
            return "attack"
        if kind == "DamageApplied" and roll_name == "damage":
            return "damage"
        return None

    def criticals(self, event: Any) -> list[tuple[str, str, int]]:
        """An attack test of a Critical or an Extraordinary Success (WIT-TEST-3,
        WIT-CRIT-1..3; an Extraordinary one has the Critical's effects too, Default
        WIT-AMB-3), rolled or GM-entered, is the attacker's critical. The book defines no
        fumble, and a defense's degree has no effect (WIT-AMB-23): none is counted."""
        if type(event).__name__ == "AttackTestRolled" and event.degree in CRITICAL_DEGREES:
            return [(event.combatant, "criticals", 1)]
        return []
