"""What of a PHANTÄSIA combatant lasts after a fight (domain.rulesystems.lasting):

- his PV: damage lowers them (PHA-DTH); natural healing is rest, out of the log
  (PHA-OUT-1, OUT), so the GM records it on the roster;
- his PM: spent on powers (PHA-PM-1..3), back only after a long rest (PHA-OUT-1);
- his PHANTÄSIA points: a spent one comes back only by the narrator's award (PHA-PP-5).

Statuses end with their turns or checks (PHA-STS) and are not carried; neither are a
power's uses per day (PHA-CHAR-6) nor a death check's negative damage: the stat block has
no field to start them from."""

from __future__ import annotations

from typing import Any, ClassVar

from domain.rulesystems.lasting import Lasting
from domain.rulesystems.phantasia.stats import (
    MAX_PV,
    PhantasiaStats,
    max_phantasia_points,
    max_pm,
)
from domain.rulesystems.phantasia.turns import pm_of, pp_of
from domain.state import CombatantState, EncounterState


class PhantasiaLasting(Lasting):
    rules: ClassVar[tuple[str, ...]] = ("PHA-DTH", "PHA-OUT-1", "PHA-PM-1", "PHA-PP-5")
    current_hits_stat: ClassVar[str | None] = "current_pv"
    lowest_hits: ClassVar[int | None] = -MAX_PV

    def of(self, state: EncounterState, who: CombatantState) -> dict[str, Any]:
        return {"hits": who.hits, "pm": pm_of(who), "phantasia_points": pp_of(who)}

    def starting_stats(self, stats: dict[str, Any], lasting: dict[str, Any]) -> dict[str, Any]:
        started = super().starting_stats(stats, lasting)
        sheet = PhantasiaStats.model_validate(stats)  # the roster's, validated when saved
        if "pm" in lasting:  # never above the maximum of the stats as they are now
            started["pm"] = max(0, min(lasting["pm"], max_pm(sheet)))
        if "phantasia_points" in lasting:
            top = max_phantasia_points(sheet.level)
            started["phantasia_points"] = max(0, min(lasting["phantasia_points"], top))
        return started


LASTING = PhantasiaLasting()
