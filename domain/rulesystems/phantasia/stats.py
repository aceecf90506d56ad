"""What a PHANTÄSIA combatant needs at the table, the figures that follow from it, and
the options of a PHANTÄSIA encounter.

The publisher's formulas for a player character's DF, DM and AM are not reachable; the
figures here are the Defaults of phantasia-core.md (PHA-CHAR-4, PHA-AMB-46), and the GM
may enter any figure instead (`figures`).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from domain.dice import checked_dice
from domain.strict import Whole

MAX_PV = 10_000
Score = Field(ge=0, le=30)
Characteristic = Literal["fue", "agi", "int", "vit", "sue", "ca"]
Figure = Literal["at", "df", "am", "dm", "movement"]
Element = Literal[
    "fire", "water", "earth", "air", "light", "darkness", "ice", "lightning", "poison"
]
ELEMENTS_ES = {  # PHA-DMG-7, the book's Elementos in Spanish (fuego, veneno: its own words)
    "fire": "fuego",
    "water": "agua",
    "earth": "tierra",
    "air": "aire",
    "light": "luz",
    "darkness": "oscuridad",
    "ice": "hielo",
    "lightning": "rayo",
    "poison": "veneno",
}
WeaponCode = Literal["AMM", "AMG", "AMP", "AA", "AP", "AF"]

# PHA-WPN-2 (Default PHA-AMB-4): the AT adjustment, damage adjustment and class per code
WEAPON_CODES: dict[str, dict[str, object]] = {
    "AMM": {"at": ("fue",), "damage": "fue", "ranged": False},
    "AMG": {"at": ("fue",), "damage": "fue", "ranged": False},
    "AMP": {"at": ("fue", "agi"), "damage": "fue", "ranged": False},
    "AA": {"at": ("fue", "agi"), "damage": "fue", "ranged": True},
    "AP": {"at": ("agi",), "damage": "agi", "ranged": True},
    "AF": {"at": ("agi",), "damage": "agi", "ranged": True},
}


def adjustment(score: int) -> int:
    """PHA-CHAR-2: the publisher's score → adjustment table, floor(score / 2) − 3 for
    scores 1–12; Default PHA-AMB-44: below 1 → −3, above 12 → +3. No ×5 of the older
    editions (PHA-CORE-9)."""
    return max(-3, min(3, score // 2 - 3))


class Weapon(BaseModel):
    """PHA-WPN-1: name, type code, damage dice, item bonus, crossbow-or-firearm flag."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=60)
    code: WeaponCode = Field(description="The type code the attack formula uses (PHA-ATK-1).")
    damage: str = Field(description="Damage dice, e.g. 1d8 (PHA-DMG-1).", examples=["1d8"])
    item_bonus: int = Field(default=0, ge=-20, le=20, description="Item bonus to AT.")
    crossbow_or_firearm: bool = Field(
        default=False, description="Reloaded (PHA-ACT-17); no −3 from the ground (PHA-STS-19)."
    )
    ranged: bool | None = Field(
        default=None,
        description="Override the class the code gives (PHA-WPN-2): ranged or melee.",
    )
    gauntlet: bool = Field(default=False, description="Gauntlets: their bonus counts unarmed.")
    two_handed: bool = Field(default=False, description="Not usable while Grabbed (PHA-STS-1).")
    element: Element | None = None

    @field_validator("damage")
    @classmethod
    def _check_damage(cls, v: str) -> str:
        return checked_dice(v)

    @property
    def is_ranged(self) -> bool:
        return bool(WEAPON_CODES[self.code]["ranged"]) if self.ranged is None else self.ranged


class Power(BaseModel):
    """A power, magic or technique: its damage formula, cost, uses and cooldown, entered
    from its text (PHA-PM-5, PHA-CORE-7, PHA-FOE-5)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=60)
    damage: str | None = Field(default=None, description="Damage dice, e.g. 1d10.")
    per_level: bool = Field(default=False, description="Damage dice × level (e.g. 1d10×Nv).")
    magic: bool = Field(
        default=False,
        description="Tagged magic: blocked by Mute (PHA-STS-12); untagged powers are allowed "
        "(Default PHA-AMB-38).",
    )
    targeted: bool = Field(
        default=True, description="Aimed at specific creatures: needs sight (PHA-STS-4)."
    )
    characteristic: Literal["fue", "agi", "int", "vit", "sue"] = Field(
        default="int", description="The adjustment its AM uses, if the power names another."
    )
    am: int | None = Field(default=None, ge=-30, le=40, description="An AM figure entered.")
    element: Element | None = None
    pm_cost: int = Field(default=0, ge=0, le=100)

    @field_validator("damage")
    @classmethod
    def _check_damage(cls, v: str | None) -> str | None:
        return None if v is None else checked_dice(v)

    doubles: bool = Field(default=False, description="Its damage doubles (PHA-DMG-6).")
    cooldown: int | None = Field(default=None, ge=1, le=100, description="© n (PHA-FOE-5).")
    uses_per_day: int | None = Field(default=None, ge=1, le=100)
    physical: bool = Field(
        default=False,
        description="A physical attack: avoided by DF, not DM (PHA-CORE-1); not halved by "
        "the Defense status unless it is a weapon.",
    )


class Shield(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(default="shield", min_length=1, max_length=60)
    df: int = Field(default=1, ge=0, le=20, description="DF adjustment on a block (PHA-DEF-2).")
    dm: int = Field(default=0, ge=0, le=20, description="DM adjustment on a block.")


class Figures(BaseModel):
    """Figures the GM enters instead of the Defaults of PHA-CHAR-4."""

    model_config = ConfigDict(extra="forbid")

    df: int | None = Field(default=None, ge=-30, le=40)
    dm: int | None = Field(default=None, ge=-30, le=40)
    am: int | None = Field(default=None, ge=-30, le=40)
    at_bonus: int | None = Field(
        default=None,
        ge=-30,
        le=40,
        description="Other AT adjustments: class increments, powers (a narrator's enemy's "
        "level increments come from enemy_type, PHA-FOE-4).",
    )


class PhantasiaStats(BaseModel):
    """A PHANTÄSIA character or creature (PHA-CHAR-1, PHA-FOE)."""

    controller: Literal["player", "narrator"] = Field(
        default="narrator",
        description="Who runs it: a player character rolls every to-hit check; the "
        "narrator's creatures roll none (PHA-CORE-1).",
    )
    fue: int = Score
    agi: int = Score
    int_: int = Field(alias="int", ge=0, le=30)
    vit: int = Score
    sue: int = Score
    ca: int = Field(default=6, ge=0, le=30, description="Charisma, entered (PHA-CHAR-5).")
    level: int = Field(default=1, ge=1, le=100)
    pv: int = Field(ge=1, le=MAX_PV, description="Maximum PV, entered (PHA-CHAR-7).")
    current_pv: int | None = Field(default=None, ge=-MAX_PV, le=MAX_PV)
    pm: int | None = Field(default=None, ge=0, le=1000, description="Current PM (default max).")
    phantasia_points: int = Field(default=0, ge=0, le=3)
    movement: int = Field(
        default=6,
        ge=0,
        le=100,
        description="MO: metres per Move action (PHA-CHAR-9); named in full so that it is "
        "never read as mo, gold coins (PHA-WPN-9).",
    )
    size: int = Field(default=2, ge=0, le=10, description="Size category (PHA-AMB-25).")
    large: Annotated[Literal[1, 2, 3], Whole] = Field(
        default=1, description="Large creature: adjustments ×2 or ×3 (PHA-FOE-3)."
    )
    enemy_type: Literal["none", "martial", "magical", "both"] = Field(
        default="none", description="Level increments of the narrator's enemies (PHA-FOE-4)."
    )
    protection_df: int = Field(default=0, ge=0, le=20, description="Armour DF (PHA-WPN-3).")
    protection_dm: int = Field(default=0, ge=0, le=20)
    shield: Shield | None = None
    gauntlet_bonus: int = Field(default=0, ge=0, le=20, description="PHA-ATK-3.")
    weapons: list[Weapon] = Field(default_factory=list, max_length=20)
    powers: list[Power] = Field(default_factory=list, max_length=40)
    elements: dict[Element, Literal["affinity", "immunity", "resistance", "vulnerability"]] = Field(
        default_factory=dict, description="PHA-DMG-7."
    )
    figures: Figures = Field(default_factory=Figures)
    repeat_reduction: int = Field(
        default=0, ge=0, le=30, description="Multi-attack and the like (PHA-ACT-4)."
    )
    carried_kg: float | None = Field(default=None, ge=0, le=10_000, description="PHA-WPN-7.")

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    @model_validator(mode="after")
    def _names_once(self) -> PhantasiaStats:
        for what, items in (("weapons", self.weapons), ("powers", self.powers)):
            names = [i.name for i in items]
            if len(set(names)) != len(names):
                raise ValueError(f"{what} are named once each")
        if self.pm is not None and self.pm > max_pm(self):  # PHA-PM-1
            raise ValueError(f"pm is at most the maximum, VIT + floor(level / 5) = {max_pm(self)}")
        return self

    def score(self, characteristic: str) -> int:
        return self.int_ if characteristic == "int" else int(getattr(self, characteristic))

    def weapon(self, name: str) -> Weapon | None:
        return next((w for w in self.weapons if w.name == name), None)

    def power(self, name: str) -> Power | None:
        return next((p for p in self.powers if p.name == name), None)


class PhantasiaOptions(BaseModel):
    """The encounter's choices among the book's variants and defaults."""

    model_config = ConfigDict(extra="forbid")

    initiative: Literal["roll", "agi_order"] = Field(
        default="roll", description="Roll 1d12 + AGI, or the AGI-order variant (PHA-INIT-4)."
    )
    who_rolls: Literal["publisher", "attacker"] = Field(
        default="publisher",
        description="publisher: players make every to-hit roll (PHA-CORE-1); attacker: the "
        "attacker always rolls AT/AM (the GM's 'both roll' switch, PHA-AMB-50).",
    )
    cover: int = Field(default=3, ge=1, le=5, description="Cover with no value (PHA-AMB-35).")
    load_rule: bool = Field(default=False, description="The optional load rule (PHA-WPN-7).")


# -- figures that follow from the sheet (PHA-CHAR-2..4, PHA-FOE-3, -4) ---------------------


def adj(stats: PhantasiaStats, characteristic: str, score_change: int = 0) -> int:
    """An adjustment as it feeds AT, damage, DF, DM or push: from the current score
    (Default PHA-AMB-51), × the large-creature factor (PHA-FOE-3, Default PHA-AMB-48)."""
    return adjustment(stats.score(characteristic) + score_change) * stats.large


def foe_increment(stats: PhantasiaStats, kind: Literal["martial", "magical"]) -> int:
    """PHA-FOE-4: +1 at each even level (floor(level / 2)) for its type (PHA-AMB-52)."""
    if stats.controller != "narrator" or stats.enemy_type not in (kind, "both"):
        return 0
    return stats.level // 2


def max_pm(stats: PhantasiaStats) -> int:
    """PHA-PM-1, PHA-CHAR-8: VIT score + floor(level / 5) (Default PHA-AMB-27)."""
    return stats.vit + stats.level // 5


def max_phantasia_points(level: int) -> int:
    """PHA-PP-3: 1 at levels 1–9, 2 at 10–19, 3 from 20."""
    return 1 if level < 10 else 2 if level < 20 else 3


def extra_uses(stats: PhantasiaStats, uses_per_day: int) -> int:
    """PHA-CHAR-6: the VIT adjustment adds uses to powers used several times a day, never to
    once-a-day powers; a negative adjustment adds none and removes none (PHA-AMB-45)."""
    return max(0, adjustment(stats.vit)) if uses_per_day > 1 else 0


def overloaded(stats: PhantasiaStats, load_rule: bool) -> bool:
    """PHA-WPN-7: more than FUE score × 7 kg carried, when the GM plays the load rule."""
    return load_rule and stats.carried_kg is not None and stats.carried_kg > stats.fue * 7
