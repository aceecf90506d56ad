"""What of a Novus combatant lasts after a fight (domain.rulesystems.lasting).

- his hits: damage and bleeding come off his current hits, which may be negative
  (NOV-HITS-2); healing is rest between fights, out of the log (NOV-HITS-7, OUT), so the
  GM records it on the roster (a rest, or revised stats);
- each open bleeding wound, at its rate: bleeding never stops without First Aid
  (NOV-COND-1);
- `stabilised`, where he is: it stops the dying loss below 0 hits (NOV-HITS-4).

Dazed, stunned and the other counted conditions end with their rounds (NOV-COND-2, -3, -5)
and do not last; nor do a round's AP. Fate Points (NOV-FATE-1) and limb wounds
(NOV-CALL-3, -4) are not carried: the stat block has no field to start them from."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel

from domain import commands as c
from domain.rulesystems.lasting import CARRIED, Lasting
from domain.rulesystems.novus.stats import LOWEST_HITS
from domain.state import CombatantState, EncounterState


class NovusLasting(Lasting):
    rules: ClassVar[tuple[str, ...]] = ("NOV-HITS-2", "NOV-HITS-7", "NOV-COND-1", "NOV-HITS-4")
    current_hits_stat: ClassVar[str | None] = "current_hits"
    lowest_hits: ClassVar[int | None] = LOWEST_HITS

    def of(self, state: EncounterState, who: CombatantState) -> dict[str, Any]:
        return {
            "hits": who.hits,
            "wounds": [{"rate": wound.rate} for wound in who.wounds],
            "stabilised": who.has("stabilised"),
        }

    def commands(self, combatant: CombatantState, lasting: dict[str, Any]) -> list[BaseModel]:
        wounds = [
            c.SetCondition(
                combatant=combatant.id, condition="bleeding", rate=wound["rate"], reason=CARRIED
            )
            for wound in lasting.get("wounds", [])
        ]
        if lasting.get("stabilised"):
            wounds.append(
                c.SetCondition(combatant=combatant.id, condition="stabilised", reason=CARRIED)
            )
        return [*super().commands(combatant, lasting), *wounds]


LASTING = NovusLasting()
