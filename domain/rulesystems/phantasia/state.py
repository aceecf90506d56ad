"""What PHANTÄSIA keeps of a combatant beyond what every book shares (`CombatantState.marks`).

PHANTÄSIA counts by turns, not rounds: all it keeps lasts (it declares no round marks). Each
field's default means "absent" (never happened, none yet); a snapshot written before these
models holds the same keys as a plain dict, and validates into them.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from domain.state import Condition, Marks

Surprise = Literal["due", "acting", "done"]


class DeathCheck(BaseModel):
    """His last death check (PHA-DTH-2), kept for a PHANTÄSIA point's re-roll (PHA-DTH-6)."""

    model_config = ConfigDict(extra="forbid")

    dies: bool
    reroll: bool  # this was already a re-roll
    moment: list[Any]  # whose turn it was rolled in (turns.moment): a re-roll comes at once


class PhantasiaMarks(Marks):
    """A PHANTÄSIA combatant's turn, actions, powers and gear, as the fold keeps them."""

    model_config = ConfigDict(extra="forbid")

    # -- his turn (PHA-ACT, PHA-INIT, PHA-SURP)
    turn: int = 0  # his own turns so far; durations count these (PHA-STS-0)
    in_turn: bool = False  # it is his turn now
    actions: int = 0  # action points of this turn (PHA-ACT-6)
    spent: int = 0  # action points spent this turn (and actions lost)
    offensive: int = 0  # offensive actions this turn: the repeat penalty (PHA-ACT-3, -5)
    defended: bool = False  # took Defense this turn: no offensive action after (PHA-ACT-13)
    done_round: int | None = None  # the round of his last (not surprise) turn
    surprise: Surprise | None = None  # his surprise action: due, being taken, done (PHA-SURP-1)
    tie_rank: int = 0  # his place among those tied on initiative, higher first (PHA-INIT-3)
    simultaneous: list[str] = Field(default_factory=list)  # who act at once with him (PHA-INIT-3)
    # -- reactions (PHA-RX)
    reaction_used: bool = False  # his one reaction, till his next turn (PHA-RX-1, -4)
    prepared: str | Literal[True] | None = None  # a prepared action's trigger (PHA-RX-2)
    # -- powers (PHA-CONC, PHA-PW)
    sustaining: str | None = None  # the power he keeps up by concentration (PHA-CONC-1)
    uses: dict[str, int] = Field(default_factory=dict)  # a power's uses so far
    cooldowns: dict[str, int] = Field(default_factory=dict)  # a power: his turn it is back on
    # -- weapons and gear (PHA-CRIT-5, PHA-DEF-3, PHA-WPN-7)
    wielding: str | None = None  # the weapon switched to or picked up last
    dropped: str | None = None  # the weapon he dropped on a fumble, until picked up
    shield_broken: bool = False  # his shield was destroyed by a fumbled block
    carried_kg: float | None = None  # the load set during the encounter, over his stat block
    free_attack: str | None = None  # whose fumble gives him a free attack, at once (result 5)
    # -- death, PM and PHANTÄSIA points (PHA-DTH, PHA-PM, PHA-PP)
    death_check: DeathCheck | None = None
    pm_change: int = 0  # PM gained (+) or spent (-) since his stat block's
    pp_change: int = 0  # PHANTÄSIA points gained (+) or spent (-) since his stat block's


class StatusData(BaseModel):
    """What a status keeps (its `Condition.data`, statuses.py): its kind, the turn it came in,
    a magic's modifiers, the check that ends it, and each status's own facts. Read with
    `StatusData.of(condition)`; `as_data()` writes back only the facts it has, so the stored
    dict and the view's statuses keep the keys they had (a status read back holds them)."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    status: str | None = None  # the status it is (None: its name; a magic: "magic")
    kind: Literal["harmful", "beneficial"] | None = None  # None: as its spec says (PHA-STS)
    since_turn: int = 0  # his turn it came in: durations count his turns after it (PHA-STS-0)
    deferred: bool = False  # takes hold once his simultaneous turn is over (PHA-INIT-3)
    ends: Literal["turn_start"] | None = None  # Defense: ends as his next turn starts
    modifiers: dict[str, int] = Field(default_factory=dict)  # a magic's (PHA-STK-1)
    item: bool = False  # an item's bonus: adds to the others (PHA-STK-1)
    end_check: str | None = None  # the check the narrator named (Default PHA-AMB-51)
    damage: str | None = None  # Poison: its damage dice (PHA-STS-20)
    amount: int | None = None  # Poison: its damage set, not rolled (PHA-STS-20)
    harmed_by: str | None = None  # Petrified: what still harms it (PHA-STS-15)
    reduction: int | None = None  # Weakness: its damage reduction (PHA-DMG-10, PHA-STS-5)
    held: int = 0  # Suffocating: his turns without breath (PHA-SUF-1)
    breath: int | None = None  # Suffocating: the turns he holds it, his VIT (PHA-SUF-2)
    out: bool = False  # Suffocating: out of breath, unconscious (PHA-SUF-3, -4)
    by: str | None = None  # Grabbed: who holds him (PHA-ACT-7)
    moves_freely: bool = False  # Grabbed by one half his size or less (PHA-ACT-7)

    @classmethod
    def of(cls, condition: Condition) -> StatusData:
        return cls.model_validate(condition.data)

    def as_data(self) -> dict[str, Any]:
        """Its data as stored: the facts it has."""
        return self.model_dump(exclude_unset=True)

    def status_or(self, name: str) -> str:
        """The status it is: a status applied under its own name keeps no `status`."""
        return self.status or name
