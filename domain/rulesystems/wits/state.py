"""What the Wits system keeps beyond the shared state: a combatant's marks
(`WitsRules.marks_model`, `round_marks_model`) and an attack's facts (`WitsAttack`, its
`ActionState.params`), folded from the Wits events (fold.py).

Each field's default means "absent"; a snapshot written before these models holds the same
keys as plain dicts, and validates into them."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from domain.state import ActionState, CombatantState, Marks

DefenseMode = Literal["basic", "total", "total_single"]


class Charge(BaseModel):
    """A Charge under way over moves (WIT-CHG-5): at whom, and from how far it started."""

    model_config = ConfigDict(extra="forbid")

    target: str
    from_m: float  # metres to the target when it started (WIT-CHG-1)


class WitsMarks(Marks):
    """What lasts from round to round."""

    model_config = ConfigDict(extra="forbid")

    charging: Charge | None = None  # WIT-CHG-5: a Charge begun by moving
    aim: int = 0  # WIT-AIM-1: consecutive actions aimed (the bonus is at most +5, WIT-AIM-3)


class WitsRoundMarks(Marks):
    """What ends with the round."""

    model_config = ConfigDict(extra="forbid")

    actions_used: int = 0  # of the round's two (WIT-ACT-1)
    attacked_with: list[str] = Field(default_factory=list)  # weapons attacked with (WIT-DEF-8)
    defense: DefenseMode | None = None  # the defense mode taken (WIT-DEF-2..4)
    blows: int = 0  # blows defended against (WIT-DEF-3)
    held: bool = False  # he holds his actions (WIT-ORD-3)
    turn_over: bool = False  # he ended his turn (WIT-ORD-5)


class AttackDefense(BaseModel):
    """The defense declared against an attack (WIT-ATK-2, WIT-DEF-1..8)."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["parry", "block", "dodge"]
    mode: DefenseMode
    skill: dict[str, Any]  # skills.skill_of: base, base_from, parts, effective
    magical: bool = False  # allowed against a Critical Success (WIT-CRIT-2, WIT-AMB-20)


class WitsAttack(BaseModel):
    """A Wits attack's facts, its `ActionState.params`: the situation announced
    (WIT-ATK-1..3, WIT-CALL-1, WIT-CHG), then the defense declared, the roll, a knock-back."""

    model_config = ConfigDict(extra="forbid")

    called_shot: str | None = None  # a body part of attacks.CALLED_SHOT (WIT-CALL-1)
    charge: bool = False  # a Charge (WIT-CHG-2, -3)
    charge_from_m: float | None = None  # metres the Charge started from (WIT-CHG-1)
    visible: bool = True  # the target sees it (WIT-ATK-2, Default WIT-AMB-21)
    physical: bool = True  # normal physical damage, which rolls up (WIT-DMG-7)
    modifiers: dict[str, int] = Field(default_factory=dict)  # the GM's situational ones
    ranged: bool = False
    defense: AttackDefense | None = None  # declared before the roll (WIT-DEF-5)
    hit: bool | None = None  # rolled: it landed (WIT-ATK-4)
    rolled_at: int | None = None  # the roll's event
    knocked_back: bool = False  # the GM ruled it knocked its target back (WIT-CHG-4)

    @classmethod
    def of(cls, action: ActionState) -> WitsAttack:
        return cls.model_validate(action.params)

    def as_params(self) -> dict[str, Any]:
        """Its params as stored: the facts it has so far (no defense, hit or knock-back
        before there is one)."""
        return self.model_dump(exclude_unset=True)


def marks_of(who: CombatantState) -> WitsMarks:
    """His Wits marks (the fold makes them so, and a snapshot reads back into them)."""
    assert isinstance(who.marks, WitsMarks), type(who.marks)
    return who.marks


def round_marks_of(who: CombatantState) -> WitsRoundMarks:
    """His Wits marks of this round."""
    assert isinstance(who.round_marks, WitsRoundMarks), type(who.round_marks)
    return who.round_marks
