"""What a Wits combatant needs at the table, and the options of a Wits encounter.

The source gives no Strength → Base Damage table (WIT-DMG-6, WIT-AMB-5): the GM enters
each character's Base Damage die.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from domain.dice import checked_dice

MAX_HEALTH = 10_000


Skill = Field(ge=0, le=100)


class Weapon(BaseModel):
    """A weapon with its damage dice and the skill that wields it."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=60)
    damage: str = Field(description="Damage dice, e.g. 1d8 (WIT-DMG-1).", examples=["1d8"])
    skill: str = Field(
        min_length=1, max_length=40, description="The skill it is used with (a key of skills)."
    )
    ranged: bool = Field(default=False, description="Ranged: no Base Damage die (WIT-DMG-4).")
    unarmed: bool = Field(default=False, description="A punch or kick: melee with Base Damage.")
    top_heavy: bool = Field(
        default=False, description="Most axes and hammers: parrying after attacking (WIT-DEF-8)."
    )
    parry_after_attack: Literal["minus_2", "none"] = Field(
        default="minus_2",
        description="The GM's ruling for a top-heavy weapon used to attack this round: "
        "parry at −2, or not at all (WIT-DEF-8, WIT-AMB-25).",
    )

    @field_validator("damage")
    @classmethod
    def _check_damage(cls, v: str) -> str:
        return checked_dice(v)

    @field_validator("skill")
    @classmethod
    def _skill_name(cls, v: str) -> str:
        return v.lower()


class Armour(BaseModel):
    model_config = ConfigDict(extra="forbid")

    protection: int = Field(default=0, ge=0, le=100, description="Off each hit (WIT-DMG-2).")
    defense: int = Field(default=0, ge=0, le=50, description="Added to defenses (WIT-DEF-7).")


class Shield(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(default="shield", min_length=1, max_length=60)
    defense: int = Field(ge=0, le=50, description="Added when Blocking (WIT-DEF-7, WIT-AMB-8).")


class WitsStats(BaseModel):
    """Wits, Move, Strength and its Base Damage die, skills, armour, shield, weapons."""

    model_config = ConfigDict(extra="forbid")

    wits: int = Field(ge=0, le=100, description="Sets the acting order (WIT-ORD-1).")
    move: int = Field(ge=0, le=100, description="Metres (hexes) a round (WIT-MOV-1, -2).")
    strength: int | None = Field(
        default=None, ge=0, le=100, description="Tested to stay up after a knock-back."
    )
    base_damage: str | None = Field(
        default=None,
        description="The Base Damage die from Strength, e.g. 1d6 for Strength 12 "
        "(WIT-DMG-6); required for melee and unarmed attacks.",
        examples=["1d6"],
    )
    health: int = Field(ge=1, le=MAX_HEALTH, description="Maximum Current Health.")
    current_health: int | None = Field(
        default=None, ge=-MAX_HEALTH, le=MAX_HEALTH, description="Current Health at entry."
    )
    skills: dict[str, int] = Field(
        default_factory=dict,
        description="Skill ratings by name: weapon skills, shield, acrobatics, ...",
        examples=[{"short sword": 13, "shield": 15, "acrobatics": 10}],
    )
    armour: Armour = Field(default_factory=Armour)
    shield: Shield | None = None
    weapons: list[Weapon] = Field(default_factory=list, max_length=20)

    @field_validator("base_damage")
    @classmethod
    def _check_base_damage(cls, v: str | None) -> str | None:
        return None if v is None else checked_dice(v)

    @field_validator("skills")
    @classmethod
    def _check_skills(cls, v: dict[str, int]) -> dict[str, int]:
        if len(v) > 50:
            raise ValueError("at most 50 skills")
        for name, rating in v.items():
            if not 1 <= len(name) <= 40 or not 0 <= rating <= 100:
                raise ValueError(f"skill {name[:40]!r}: a name of 1-40 characters rated 0..100")
        return {name.lower(): rating for name, rating in v.items()}

    @model_validator(mode="after")
    def _weapons_have_skills(self) -> WitsStats:
        names = [w.name for w in self.weapons]
        if len(set(names)) != len(names):
            raise ValueError("weapon names must be unique")
        for w in self.weapons:
            if w.skill not in self.skills:
                raise ValueError(f"weapon {w.name!r} uses skill {w.skill!r}, not in skills")
        return self


class WitsOptions(BaseModel):
    """The defaults of the ambiguity table (WIT-AMB), overridable per encounter."""

    model_config = ConfigDict(extra="forbid")

    test_die: Literal["1d20", "3d6"] = Field(
        default="1d20", description="The Skill Test die; success at or under the skill (AMB-2)."
    )
    roll_up: Literal["open", "once"] = Field(
        default="open",
        description="open: a reroll on the highest face rolls up again; once: one reroll "
        "(WIT-DMG-3, WIT-AMB-4).",
    )
    critical_at: int | None = Field(
        default=None,
        ge=1,
        le=20,
        description="A successful test whose die shows this or less is a Critical Success. "
        "Default none: the GM enters degrees (WIT-TEST-3, WIT-AMB-3).",
    )
    extraordinary_at: int | None = Field(
        default=None,
        ge=1,
        le=20,
        description="A successful test whose die shows this or less is an Extraordinary "
        "Success. Default none.",
    )
    down_at: int = Field(
        default=0,
        ge=-1000,
        le=1000,
        description="Current Health at or below this flags 'down (unresolved)' (WIT-AMB-11).",
    )
    shield_defense: Literal["block", "all"] = Field(
        default="block",
        description="The shield's Defense adds to Block only, or to every defense (WIT-AMB-8).",
    )
