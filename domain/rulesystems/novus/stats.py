"""What a Novus combatant needs at the table (entered by the GM: NOV-CORE-9, NOV-AMB-32)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from domain.strict import Whole

StatName = Literal["str", "dex", "spd", "con", "wil", "wis"]
MAX_HITS = 10_000
LOWEST_HITS = -1000  # current hits of a stat block: no lower
SHIELD_DEF = {"none": 0, "small": 2, "normal": 3, "full": 4}  # NOV-ATK-3, table §4.1


class StatBonuses(BaseModel):
    """Stat Bonuses, entered (the Stat Value → Bonus table is not available, NOV-AMB-32)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    str_: int = Field(default=0, alias="str", ge=-10, le=20)
    dex: int = Field(default=0, ge=-10, le=20)
    spd: int = Field(default=0, ge=-10, le=20)
    con: int = Field(default=0, ge=-10, le=20)
    wil: int = Field(default=0, ge=-10, le=20)
    wis: int = Field(default=0, ge=-10, le=20)

    def of(self, stat: StatName) -> int:
        return self.str_ if stat == "str" else getattr(self, stat)


class StatValues(BaseModel):
    """Stat Values, where the table has them (NOV-CORE-9; used for hits, NOV-HITS-1)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    str_: int | None = Field(default=None, alias="str", ge=1, le=60)
    dex: int | None = Field(default=None, ge=1, le=60)
    spd: int | None = Field(default=None, ge=1, le=60)
    con: int | None = Field(default=None, ge=1, le=60)
    wil: int | None = Field(default=None, ge=1, le=60)
    wis: int | None = Field(default=None, ge=1, le=60)


class Weapon(BaseModel):
    """A weapon (or unarmed move) with its Damage Rating and the skill that wields it."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=60)
    kind: Literal["melee", "missile", "unarmed"] = "melee"
    size: Literal["tiny", "small", "medium", "large", "huge"] = "medium"
    dr: int = Field(ge=0, le=100, description="Damage Rating (NOV-DMG-1).")
    stat: StatName = Field(default="str", description="The stat its skill and damage use.")
    ranks: int = Field(default=0, ge=0, le=100, description="Ranks in its Combat Skill.")
    ab_bonus: int = Field(default=0, ge=-50, le=50, description="Talents and other AB bonuses.")
    damage_type: Literal["slashing", "piercing", "bludgeoning"] = "slashing"
    family: str = Field(
        default="", max_length=40, description="e.g. bow, crossbow, sling, pole arm."
    )
    hands: Annotated[Literal[1, 2], Whole] = Field(
        default=1, description="Hands it is made for (NOV-TWO-1)."
    )

    @property
    def skill_bonus(self) -> int:
        """Its Combat Skill's ranks and talents (the stat bonus is added by the wielder)."""
        return self.ranks + self.ab_bonus


class NovusStats(BaseModel):
    """A Novus combatant: hits, Stat Bonuses, DEF parts, armour and weapons."""

    model_config = ConfigDict(extra="forbid")

    hits: int | None = Field(
        default=None,
        gt=0,
        le=MAX_HITS,
        description="Maximum hits; or give racial_max_hits and Str and Con values.",
    )
    current_hits: int | None = Field(default=None, ge=LOWEST_HITS, le=MAX_HITS)
    racial_max_hits: int | None = Field(default=None, gt=0, le=MAX_HITS)
    special_hits: int = Field(default=0, ge=0, le=1000, description="Class and talent hits.")
    bonuses: StatBonuses = Field(default_factory=StatBonuses)
    values: StatValues = Field(default_factory=StatValues)
    base_movement: int | None = Field(
        default=None, ge=0, le=1000, description="Feet per AP moved (NOV-MOVE-1)."
    )
    melee_ranks: int = Field(default=0, ge=0, le=100, description="Best melee skill ranks.")
    shield: Literal["none", "small", "normal", "full"] = "none"
    magic_def: int = Field(default=0, ge=0, le=50, description="Magical DEF bonuses.")
    ar: int = Field(default=0, ge=0, le=100, description="Armour Rating (NOV-DMG-3).")
    first_aid: int = Field(default=0, ge=-10, le=100, description="First Aid skill bonus.")
    minor_foe: bool = Field(default=False, description="Dies at 0 hits (NOV-HITS-6).")
    weapons: list[Weapon] = Field(default_factory=list, max_length=20)
    called_shot_ar: dict[Literal["head", "arm", "leg"], int] = Field(
        default_factory=dict, description="Called Shot AR by location (NOV-CALL-2); 0 if none."
    )
    size: Literal["tiny", "small", "medium", "large", "huge"] = Field(
        default="medium", description="For the Control Zone's reach (NOV-CZ-3)."
    )
    humanoid: bool = True
    ambidextrous: bool = Field(default=False, description="NOV-OFF-1 (Default NOV-AMB-38).")
    unarmed_training: bool = Field(default=False, description="NOV-BRAWL-3.")
    mounted_combat: Annotated[Literal[0, 1, 2], Whole] = Field(
        default=0, description="Mounted Combat talent: 0 none, 1 (MC I), 2 (MC I and II)."
    )
    riding: int = Field(default=0, ge=-10, le=100, description="Riding skill bonus.")
    advanced_combat_training: bool = Field(
        default=False, description="Replaces multiple attacks from high skill (NOV-MAS-4)."
    )
    mount_trained: bool = Field(default=False, description="Mount trained for combat.")

    @model_validator(mode="after")
    def _check(self) -> NovusStats:
        names = [w.name for w in self.weapons]
        if len(names) != len(set(names)):
            raise ValueError("weapon names must be unique")
        if self.hits is None:
            v = self.values
            if self.racial_max_hits is None or v.str_ is None or v.con is None:
                raise ValueError("give hits, or racial_max_hits with the Str and Con values")
            # NOV-HITS-1 (character creation, for convenience): maximum = racial maximum +
            # Str + Con values; starting hits = 20 + Str + Con + special
            self.hits = self.racial_max_hits + v.str_ + v.con
            if self.current_hits is None:
                self.current_hits = 20 + v.str_ + v.con + self.special_hits
            if self.hits > MAX_HITS or self.current_hits > MAX_HITS:
                raise ValueError(f"hits worked out from the values pass {MAX_HITS}")
        return self

    def weapon(self, name: str | None) -> Weapon | None:
        if name is None:
            return self.weapons[0] if self.weapons else None
        return next((w for w in self.weapons if w.name == name), None)
