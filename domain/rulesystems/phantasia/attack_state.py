"""What PHANTÄSIA keeps of an attack (its `ActionState.params`): the means and targets of the
check (PHA-ACT-10, -11), each target's result (PHA-ATK-2, PHA-DEF-1, PHA-CRIT), the turn it
was rolled in (PHA-PP-2 a) and whether its fumble's d6 is rolled (PHA-CRIT-4).

`PhantasiaAttack.of(action)` reads an attack's params; `as_params()` writes back only the
facts it has, so the stored dict (and the view's `pending_attack`) keeps the keys it had. An
action read back from a snapshot or an old event holds the same keys, and validates."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from domain.state import ActionState

RolledBy = Literal["attacker", "program", "defender", "gm", "automatic"]


class AttackResult(BaseModel):
    """One target's result (hits.check_targets): who rolled which check, and what it means
    for him: a hit, its damage doubled, what follows (its damage or the fumble's d6)."""

    model_config = ConfigDict(extra="forbid")

    target: str
    blocked: bool = False  # he blocked with his shield (PHA-DEF-2)
    critical: bool = False  # a natural 1 (PHA-CRIT-1, -3)
    fumble: bool = False  # the die's top face (PHA-CRIT-4, -6)
    doubled: bool = False  # its damage ×2 (PHA-CRIT-1, -7, PHA-ATK-4)
    follows: bool = False  # damage or a fumble's d6 is due
    check: str | None = None  # AT, AM, DF or DM; None: no roll (automatic, entered)
    roller: str | None = None  # who rolled it
    rolled_by: RolledBy  # PHA-CORE-1, -2, PHA-DEF-6, Default PHA-AMB-50
    automatic: bool = False  # hit without a roll (PHA-ATK-4)
    hit: bool
    doublings: list[str] = Field(default_factory=list)  # an automatic hit's reasons (PHA-ATK-4)
    # the check as rolled (checks.roll_check), when there was a roll
    target_number: int | None = None
    parts: dict[str, int] = Field(default_factory=dict)
    die: int | None = None
    roll: dict[str, Any] | None = None  # the Roll's dict
    face: int | None = None
    success: bool | None = None
    margin: int | None = None
    roll_name: str | None = None
    pushes_back: bool = False  # a critical block pushes the attacker back 1 m (PHA-DEF-4)
    rerolled: bool = False  # re-rolled with a PHANTÄSIA point (PHA-PP-2 a)

    @property
    def attackers_fumble(self) -> bool:
        """The attacker's (or the program's) roll fumbled: the fumble table (PHA-CRIT-4)."""
        return self.fumble and self.rolled_by in ("attacker", "program")

    def as_result(self) -> dict[str, Any]:
        """The result as events and the stored params hold it: the keys it has."""
        return self.model_dump(exclude_unset=True)


class PhantasiaAttack(BaseModel):
    """A PHANTÄSIA attack's facts, its `ActionState.params`."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    targets: list[str]  # in the order named; the first gets a fumble's free attack
    weapon: str | None = None  # None with no power: bare hands
    power: str | None = None
    magic: bool = False  # an AM check against DM (PHA-MAG-1)
    ranged: bool = False
    doublings: int = 0  # the power's own doublings of its damage (PHA-DMG-6)
    results: list[AttackResult] = Field(default_factory=list)
    moment: list[Any] | None = None  # the turn it was rolled in (turns.moment, PHA-PP-2 a)
    available_from: int | None = None  # a power's cooldown: his turn it is back (PHA-FOE-5)
    fumble_rolled: bool = False  # the fumble's d6 is rolled (PHA-CRIT-4)

    @classmethod
    def of(cls, action: ActionState) -> PhantasiaAttack:
        return cls.model_validate(action.params)

    @classmethod
    def of_params(cls, params: dict[str, Any]) -> PhantasiaAttack:
        """An attack as an event records it (`AttackChecked.action["params"]`)."""
        return cls.model_validate(params)

    def as_params(self) -> dict[str, Any]:
        """Its params as stored: the facts it has (no `available_from` but for a power, no
        `fumble_rolled` before its d6)."""
        return self.model_dump(exclude_unset=True)

    @property
    def means(self) -> str | None:
        """The power or weapon it was made with (None: bare hands)."""
        return self.power or self.weapon

    @property
    def hits(self) -> list[AttackResult]:
        """The results that hit: its damage is due to these targets (PHA-DMG-1)."""
        return [r for r in self.results if r.hit]

    @property
    def fumble_due(self) -> bool:
        """The attacker's roll fumbled and its d6 is not rolled yet (PHA-CRIT-4)."""
        return not self.fumble_rolled and any(r.attackers_fumble for r in self.results)
