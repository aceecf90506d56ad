"""Novus's own commands: the declared round (NOV-SEQ-1) and what a hit or a miss buys."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from domain.commands import SITUATIONAL, CommandBase, Modifiers

# command type → the roll names it may ask for, in the order drawn (RuleSystem.rolls)
ROLLS: dict[str, tuple[str, ...]] = {
    "resolve": (
        "riding",
        "attack",
        "casting",
        "bystander_save:<name>",
        "disarm_save",
        "hurt_yourself",
        "friend_attack",
        "first_aid",
        "block",
    ),
    "spend_boons": ("disarm_save",),
    "spend_snags": ("hurt_yourself", "friend_attack"),
    "save": ("save",),
    "roll_initiative": ("initiative", "initiative:<name>"),
}


class ActionSpec(BaseModel):
    """Novus: one declared action (`declare.actions`, `cancel.replacement`)."""

    model_config = ConfigDict(extra="forbid")

    kind: str = Field(
        description="An action of the rule system's catalogue (docs/rules; "
        "GET /rulesets/novus lists them).",
        examples=["melee_attack"],
    )
    target: str | None = Field(default=None, description="Target combatant id, for attacks.")
    weapon: str | None = Field(default=None, description="Weapon name from the stats.")
    ap: int | None = Field(
        default=None, ge=0, le=20, description="AP for moves and GM-priced actions."
    )
    move: str | None = Field(default=None, description="Combat Move used with an attack.")
    wound: int | None = Field(
        default=None, description="First Aid: the position of the wound to close."
    )
    into_melee: bool = Field(default=False, description="A missile attack into a melee.")
    called_shot: Literal["arm", "leg", "head"] | None = Field(
        default=None, description="Aim at a body part: arm/leg −4, head −8 (NOV-CALL-1)."
    )
    location: str | None = Field(
        default=None, max_length=40, description="Which limb, e.g. 'left arm' (NOV-CALL-3)."
    )
    direction: Literal["front", "flank", "rear"] = Field(
        default="front", description="Where the attack comes from (NOV-CZ-2): +0, +2, +4."
    )
    defensive: int = Field(
        default=0, ge=0, le=100, description="Fighting Defensively: AB moved to DEF, 2 for 1."
    )
    off_hand: bool = Field(default=False, description="The weapon in the off hand (NOV-OFF-1).")
    limb: str | None = Field(
        default=None,
        max_length=40,
        description="The limb the action uses, e.g. 'left arm': its Called Shot penalty "
        "applies, and a useless limb refuses it (NOV-CALL-3, -4).",
    )
    two_handed: bool = Field(
        default=False, description="A one-handed weapon in both hands (NOV-TWO-1)."
    )
    improvised: bool = Field(
        default=False, description="An improvised weapon resembling `weapon` (NOV-IMP-1..3)."
    )
    mounted: bool = Field(default=False, description="Attacking from horseback (NOV-MNT).")
    foe_mounted: bool = Field(default=False, description="The foe is mounted too (NOV-MNT-3).")
    pace: int | None = Field(
        default=None, ge=1, le=10, description="Mounted charge: the mount's pace multiple."
    )
    riding_tn: int | None = Field(
        default=None, ge=1, le=100, description="Mounted charge above 4×: the GM's Riding TN."
    )
    mount_fast: bool = Field(
        default=True, description="The mount moves faster than a human (NOV-MCH-3)."
    )
    casting_tn: int | None = Field(
        default=None, ge=1, le=200, description="A spell cast vs. DEF: its casting TN."
    )
    spell_bonus: int | None = Field(
        default=None, ge=-50, le=200, description="A spell cast vs. DEF: the casting bonus."
    )
    spell_damage: int | None = Field(
        default=None, ge=0, le=1000, description="A spell cast vs. DEF: its Base Damage."
    )
    ab_share: int | None = Field(
        default=None, description="Multiple attacks: this attack's share of AB (NOV-MAS-3)."
    )
    bystanders: list[str] = Field(
        default_factory=list,
        max_length=20,
        description="Firing into melee: others near the line of fire, nearest first.",
    )


class Declare(CommandBase):
    """Declare one combatant's actions for the round (step 2)."""

    type: Literal["declare"] = "declare"
    combatant: str = Field(description="Who declares.")
    actions: list[ActionSpec] = Field(
        default_factory=list,
        max_length=12,
        description="The actions, in the order declared; an empty list declares nothing.",
    )
    out_of_order: bool = Field(default=False, description="GM override of the declaration order.")
    hold_ip: int | None = Field(
        default=None, description="Hold, announced with the declaration: act at this lower IP."
    )


class BoonSpec(BaseModel):
    """Novus: one Combat Boon bought with the Boon Points of a hit."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(
        description="A Boon of the table, or any name with `effect` for a GM Boon.",
        examples=["bleeder"],
    )
    points: int | None = Field(default=None, ge=1, le=50, description="Points for a '+' Boon.")
    effect: str | None = Field(
        default=None, max_length=500, description="Effect text of a GM Boon."
    )


class Cancel(CommandBase):
    """Cancel a combatant's unresolved actions this round, optionally for one replacement
    that happens at once (NOV-CANCEL-1..5)."""

    type: Literal["cancel"] = "cancel"
    combatant: str = Field(description="Whose actions are cancelled.")
    replacement: ActionSpec | None = Field(
        default=None,
        description="melee_attack (half AB), move (≤3 AP), dodge, counterspell, "
        "instant_spell_action, or any other action at −5.",
    )


class SpendFatePoint(CommandBase):
    """Spend a Fate Point; its effect is the GM's to enter (NOV-FATE-2)."""

    type: Literal["spend_fate_point"] = "spend_fate_point"
    combatant: str = Field(description="Who spends the Fate Point.")
    effect: str = Field(
        min_length=1,
        max_length=500,
        description="What the Fate Point does, as the GM rules (the GM's).",
        examples=["rerolls the failed save"],
    )


class OpportunityAttack(CommandBase):
    """An attack outside the initiative order, on a foe crossing the Control Zone (NOV-OA)."""

    type: Literal["opportunity_attack"] = "opportunity_attack"
    combatant: str = Field(description="Who attacks.")
    target: str = Field(description="The foe crossing his Control Zone.")
    weapon: str | None = Field(
        default=None, description="Weapon name from the stats (default: his first)."
    )


class SnagSpec(BaseModel):
    """Novus: one Snag bought with the Snag Points of a bad miss."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(
        description="A Snag of the table (docs/rules/novus.md).", examples=["hurt_yourself"]
    )
    target: str | None = Field(default=None, description="Hit the nearest friend: who.")
    spell_points: int | None = Field(
        default=None, ge=0, le=100, description="Spell backlash: the spell's points."
    )
    modifiers: Modifiers = Field(
        default_factory=dict, description="Hit the nearest friend: situational modifiers."
    )
    hit: bool | None = Field(default=None, description="Hit the nearest friend: GM override.")


class Resolve(CommandBase):
    """Resolve the next declared action (step 3): an attack (after a mounted one's Riding
    roll; a spell vs. DEF rolls its casting), a miss into melee's bystander saves, the Boons
    and Snags spent at once, First Aid, a Block."""

    type: Literal["resolve"] = "resolve"
    action: str | None = Field(
        default=None, description="The action id expected next (checked).", examples=["7.0"]
    )
    modifiers: Modifiers = Field(
        default_factory=dict, description=SITUATIONAL, examples=[{"high ground": 1}]
    )
    boons: list[BoonSpec] | None = Field(
        default=None, description="Spend the Boon Points of a hit at once; omit to spend later."
    )
    hit: bool | None = Field(default=None, description="GM override of the computed hit or miss.")
    snags: list[SnagSpec] | None = Field(
        default=None, description="Spend the Snag Points of a bad miss at once; omit to later."
    )


class SpendBoons(CommandBase):
    """Spend the Boon Points of the last hit."""

    type: Literal["spend_boons"] = "spend_boons"
    boons: list[BoonSpec] = Field(
        default_factory=list,
        max_length=12,
        description="The Boons bought; an empty list spends nothing (the points are lost).",
    )


class SpendSnags(CommandBase):
    """Spend the Snag Points of the last miss (the player picks, the GM approves)."""

    type: Literal["spend_snags"] = "spend_snags"
    snags: list[SnagSpec] = Field(
        default_factory=list,
        max_length=12,
        description="The Snags taken; an empty list takes none (the points are lost).",
    )


class Save(CommandBase):
    """A Saving Throw the GM calls for: open-ended 2d10 with the stat's bonus, against `tn`
    (NOV-SAVE-1, -2)."""

    type: Literal["save"] = "save"
    combatant: str = Field(description="Who saves.")
    stat: str = Field(description="The stat saved against, e.g. con, spd, str.", examples=["con"])
    tn: int = Field(default=15, ge=-100, le=200, description="The target number to reach.")
    modifiers: Modifiers = Field(default_factory=dict, description=SITUATIONAL)
    purpose: str = Field(
        default="",
        max_length=200,
        description="What the save is for, for the log.",
        examples=["poison"],
    )
