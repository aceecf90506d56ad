"""What Novus counts in the statistics (docs/read-models.md): its attack rolls, its damage
dice, and as criticals and fumbles the attack rolls that earn Boon or Snag Points."""

from __future__ import annotations

from typing import Any

from domain.rulesystems.base import Statistics


class NovusStatistics(Statistics):
    def roll_kind(self, event: Any, roll_name: str) -> str | None:
        """An AttackRolled's one roll (`attack`, a Snag's `friend_attack`, a spell's
        `casting`) is a roll to hit; a DamageApplied's (a Snag's `hurt_yourself`, 1d10) is
        damage dice. Novus damage is otherwise rolled with no dice (NOV-DMG-1..4)."""
        kind = type(event).__name__
        if kind == "AttackRolled":
            return "attack"
        if kind == "DamageApplied":
            return "damage"
        return None

    def criticals(self, event: Any) -> list[tuple[str, str, int]]:
        """Novus has no natural critical: an attack roll that earns Boon Points (a hit by a
        full 10 over DEF, NOV-CORE-6) is its critical, one that earns Snag Points (a miss by
        a full 10, NOV-CORE-7, Default NOV-AMB-40) its fumble; one each, whatever the
        points. Saves earn neither (NOV-AMB-40)."""
        if type(event).__name__ != "AttackRolled":
            return []
        if event.boon_points > 0:
            return [(event.combatant, "criticals", 1)]
        if event.snag_points > 0:
            return [(event.combatant, "fumbles", 1)]
        return []
