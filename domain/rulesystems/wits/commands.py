"""The Wits system's own commands: attacks, defenses, aiming, moves, other actions."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from domain import commands as c
from domain.commands import SITUATIONAL, CommandBase, Modifiers, TurnCommand
from domain.strict import Whole

# command type → the roll names it may ask for, in the order drawn (RuleSystem.rolls)
ROLLS: dict[str, tuple[str, ...]] = {
    "attack": ("attack", "defense", "damage"),
    "roll_attack": ("attack", "defense", "damage"),
    "knock_back": ("strength",),
    "roll_initiative": ("tie:<name>",),
}


Distance = Annotated[float, Field(gt=0, le=10_000)]


class WitsCommand(TurnCommand):
    """A Wits action of one combatant: on his turn, or later if he held (WIT-ORD-1, -3)."""


class DefenseSpec(BaseModel):
    """The target's answer to an attack, declared before the attack die is rolled."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["parry", "block", "dodge"] = Field(
        description="Parry: half the weapon skill; Block: half Shield; Dodge: half Move or "
        "half Acrobatics (WIT-DEF-6)."
    )
    mode: Literal["basic", "total", "total_single"] = Field(
        default="basic",
        description="basic: one blow, one action; total: up to three blows this round; "
        "total_single: this blow only, at +3 (WIT-DEF-2..4). Total uses both actions.",
    )
    weapon: str | None = Field(default=None, description="Parry: the weapon (default: first).")
    dodge_with: Literal["move", "acrobatics"] | None = Field(
        default=None, description="Dodge: half Move or half Acrobatics (default: the better)."
    )
    magical: bool = Field(
        default=False,
        description="The GM allows this magical defense against a Critical Success "
        "(WIT-CRIT-2, WIT-AMB-20).",
    )
    modifiers: Modifiers = Field(default_factory=dict, description="Situational modifiers.")


Degree = Literal["failure", "success", "critical", "extraordinary"]


class Attack(WitsCommand):
    """Wits: announce an attack (WIT-ATK-1); with `roll` (the default) it is rolled at once,
    with the target's `defense` if he declared one (WIT-ATK-2)."""

    type: Literal["attack"] = "attack"
    target: str = Field(description="The combatant attacked.")
    weapon: str = Field(description="A weapon of the attacker's stats.", examples=["broadsword"])
    called_shot: (
        Literal["arm", "leg", "vitals", "groin", "head", "hand", "foot", "neck", "heart"] | None
    ) = Field(default=None, description="A body part: its modifier applies (WIT-CALL-1).")
    charge: bool = Field(default=False, description="A Charge from 5 m or more (WIT-CHG).")
    distance_m: Distance | None = Field(
        default=None, description="Charge: metres to the target (WIT-CHG-1, -5)."
    )
    distance_ft: Distance | None = Field(
        default=None, description="The distance in feet instead (3 ft = 1 m, WIT-MOV-3)."
    )
    visible: bool = Field(
        default=True, description="The target can see the attack (WIT-ATK-2, WIT-AMB-21)."
    )
    physical: bool = Field(
        default=True, description="Normal physical damage rolls up; other does not (WIT-DMG-7)."
    )
    modifiers: Modifiers = Field(
        default_factory=dict, description="GM situational modifiers.", examples=[{"dark": -2}]
    )
    defense: DefenseSpec | None = Field(
        default=None, description="The target's defense, declared with the announcement."
    )
    roll: bool = Field(
        default=True, description="Roll at once; false waits for `defend` and `roll_attack`."
    )
    degree: Degree | None = Field(
        default=None,
        description="GM-entered degree of the attack test; by default only success or "
        "failure is computed (WIT-TEST-3, WIT-AMB-3).",
    )
    hit: bool | None = Field(default=None, description="GM override of the computed hit.")


class Defend(CommandBase):
    """Wits: the target of the announced attack declares his defense (WIT-ATK-2, WIT-DEF-5)."""

    type: Literal["defend"] = "defend"
    combatant: str = Field(description="The target of the announced attack.")
    defense: DefenseSpec = Field(description="His defense against it.")


class RollAttack(CommandBase):
    """Wits: roll the announced attack, its defense and its damage."""

    type: Literal["roll_attack"] = "roll_attack"
    degree: Degree | None = Field(default=None, description="As on `attack`.")
    hit: bool | None = Field(default=None, description="GM override of the computed hit.")


class Aim(WitsCommand):
    """Wits: spend an action aiming: +1 to the next attack, up to +5 (WIT-AIM)."""

    type: Literal["aim"] = "aim"


class Move(WitsCommand):
    """Wits: move up to half Move for one action, or up to Move for both (WIT-MOV)."""

    type: Literal["move"] = "move"
    distance_m: Distance | None = Field(default=None, description="Metres (hexes).")
    distance_ft: Distance | None = Field(default=None, description="Feet (3 ft = 1 m).")
    charge_at: str | None = Field(
        default=None,
        description="Start or go on with a Charge at this target: the metres to it before "
        "the move go in `charge_from_m` (WIT-CHG-5).",
    )
    charge_from_m: Distance | None = Field(
        default=None, description="Charge: metres to the target before this move."
    )


class TakeAction(WitsCommand):
    """Wits: any other action: a spell, a skill, a long talk (WIT-ACT-2, -3)."""

    type: Literal["take_action"] = "take_action"
    what: str = Field(
        min_length=1, max_length=200, description="What he does.", examples=["casts Light"]
    )
    actions: Annotated[Literal[1, 2], Whole] = Field(
        default=1, description="Actions it uses (GM-entered)."
    )


class RollInitiative(c.RollInitiative):
    """Place one combatant, or every combatant without a place, in the order by Wits; the
    GM may order a tie himself (WIT-ORD-1, -2)."""

    tie_order: list[str] | None = Field(
        default=None,
        max_length=50,
        description="Combatants tied on Wits in the order the GM rules they act, instead of "
        "the roll-off (WIT-ORD-2).",
    )


class KnockBack(CommandBase):
    """Wits: the GM rules a hit knocked its target back; he tests Strength to stay on his
    feet, at −5 after a Charge (WIT-CHG-4, WIT-AMB-10)."""

    type: Literal["knock_back"] = "knock_back"
    combatant: str = Field(description="The combatant knocked back.")
    attack: str = Field(
        description="The action id of the attack that knocked him back.", examples=["6.attack"]
    )
    modifiers: Modifiers = Field(default_factory=dict, description=SITUATIONAL)
