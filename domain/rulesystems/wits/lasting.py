"""What of a Wits combatant lasts after a fight (domain.rulesystems.lasting): his Current
Health, which damage lowers (WIT-DMG-2). The book says nothing of recovery or of what
happens at 0 (WIT-AMB-11), so nothing else is carried: the hits only."""

from __future__ import annotations

from typing import ClassVar

from domain.rulesystems.lasting import Lasting
from domain.rulesystems.wits.stats import MAX_HEALTH


class WitsLasting(Lasting):
    rules: ClassVar[tuple[str, ...]] = ("WIT-DMG-2", "WIT-AMB-11")
    current_hits_stat: ClassVar[str | None] = "current_health"
    lowest_hits: ClassVar[int | None] = -MAX_HEALTH


LASTING = WitsLasting()
