"""The skirmish behind the rule-system interface (registered by the tests that play it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from domain import commands as c
from domain.rulesystems.base import Choice, RuleSystem, choice
from domain.state import CombatantState, EncounterState
from domain.visibility import HealthState, described
from domain.wording import Lines, name_of, number
from tests.skirmish import fold as _fold  # noqa: F401 (registers the Struck handler)
from tests.skirmish import rules
from tests.skirmish.commands import ROLLS, Strike
from tests.skirmish.events import Struck
from tests.skirmish.rules import SkirmishStats
from tests.skirmish.state import SkirmishRoundMarks, round_marks_of
from tests.skirmish.table import TABLE
from tests.skirmish.view_model import SkirmishEncounter

LINES = Lines()


@LINES.line("Struck")
def _struck(e: Struck, s: EncounterState, lang: str) -> str:
    who, foe = name_of(s, e.combatant), name_of(s, e.target)
    told = f"{who} strikes {foe}: {number(e.total)} against {e.tn}"
    if not e.hit:
        return f"{told}, a miss."
    return f"{told}, a hit for {e.hits}{' (a 6)' if e.hits == 2 else ''}."


class SkirmishRules(RuleSystem):
    name = "skirmish"
    title = "Skirmish"
    table = TABLE
    hits_word = "hits"
    commands = (Strike,)
    rolls = ROLLS
    stats_model = SkirmishStats
    conditions: ClassVar[frozenset[str]] = frozenset()
    health_figures = ("hits", "max_hits")
    view_model = SkirmishEncounter
    round_marks_model = SkirmishRoundMarks  # whether he has struck this round (state.py)

    def hits_of(self, model: SkirmishStats) -> tuple[dict[str, Any], int, int]:
        return model.model_dump(), model.hits, model.hits

    def catalogue(self) -> list[dict[str, Any]]:
        return [
            {
                "command": "strike",
                "actions": 1,
                "rule": "SKR-STR-1, SKR-STR-2",
                "label": "Strike: 1d6 + fight against the foe's guard + 3",
            }
        ]

    def health_state(self, state: EncounterState, who: CombatantState) -> HealthState:
        return described(who.hits, who.max_hits, rules.is_down(who))

    def choices(self, state: EncounterState) -> list[Choice]:
        """Initiative for all, the acting fighter's strike at each foe still up, the round's
        end once every fighter up has struck."""
        stage = rules.step(state)
        if stage == "initiative":
            return [choice("roll_initiative", None, {}, "Roll initiative", ["initiative:<name>"])]
        now = rules.acting(state)
        if now is not None:
            foes = [w for w in state.combatants.values() if w.side != now.side]
            return [
                choice(
                    "strike",
                    now.id,
                    {"combatant": now.id, "target": foe.id},
                    f"{now.name} strikes {foe.name}",
                    ["strike"],
                )
                for foe in foes
                if not rules.is_down(foe)
            ]
        return [choice("end_round", None, {}, "End the round")] if stage == "end_round" else []

    def tell(self, event: Any, state: EncounterState, lang: str) -> str | None:
        return LINES.tell(event, state, lang) if lang == "en" else None

    def view(self, state: EncounterState) -> dict[str, Any]:
        now = rules.acting(state)
        return {
            "round": state.round,
            "elapsed_seconds": (state.round - 1) * 6,
            "step": rules.step(state),
            "acting": now.id if now else None,
            "order": [w.id for w in rules.order(state)],
            "combatants": [self._combatant(w) for w in state.combatants.values()],
        }

    def _combatant(self, who: CombatantState) -> dict[str, Any]:
        stats = rules.stats_of(who)
        return {
            "id": who.id,
            "name": who.name,
            "side": who.side,
            "hits": who.hits,
            "max_hits": who.max_hits,
            "fight": stats.fight,
            "guard": stats.guard,
            "initiative": who.ip,
            "struck": round_marks_of(who).struck,
            "down": rules.is_down(who),
        }

    def handlers(self) -> dict[type[Any], Callable[..., Any]]:
        return {
            **super().handlers(),
            c.RollInitiative: rules.roll_initiative,
            c.EndRound: rules.end_round,
            Strike: rules.strike,
        }
