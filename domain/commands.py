"""Commands: what a table asks the encounter to do, in the imperative.

One model per command, discriminated by `type`. The rule system validates them
against the current state; an invalid command records nothing.

Each command that rolls says, per rule book, the roll names it may ask for in the order
they are drawn (`rolls`, shown in the OpenAPI as `x-rolls`); `<name>` in a roll name
stands for a combatant's name (`initiative:<name>` is `initiative:Brakka`). The reference
page (docs/reference.md, made by api/reference.py) is rendered from these models.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

DiceSourceName = Literal["server", "seeded", "manual"]
Rolls = dict[str, tuple[str, ...]]  # rule book -> the roll names, in the order drawn


def _type_is_required(schema: dict[str, Any]) -> None:
    """`type` has a default for Python callers, but a request must always name it."""
    schema.setdefault("required", [])
    if "type" not in schema["required"]:
        schema["required"].insert(0, "type")


def _command_schema(schema: dict[str, Any], model: type[BaseModel]) -> None:
    """A command's request schema: `type` required and described, and `x-rolls`: per rule
    book, the roll names it may ask for in the order drawn (none: it rolls nothing)."""
    _type_is_required(schema)
    kind = schema.get("properties", {}).get("type")
    if kind is not None and "const" in kind:
        kind.setdefault("description", f"The command: always `{kind['const']}`.")
    rolls: Rolls = getattr(model, "rolls", {})
    schema["x-rolls"] = {book: list(names) for book, names in rolls.items()}


class CommandBase(BaseModel):
    """The fields every command takes besides its `type`."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=_command_schema)
    # per rule book, the roll names the command may ask for, in the order drawn
    rolls: ClassVar[Rolls] = {}

    dice: dict[str, list[int]] | None = Field(
        default=None,
        description="Manual faces: roll name -> faces in the order rolled, explosions "
        "included. Rolls not named here use the encounter's dice source.",
        examples=[{"attack": [14, 3]}],
    )
    dice_source: DiceSourceName | None = Field(
        default=None,
        description="Override the encounter's dice source for the rolls not named in `dice` "
        "(the GM's).",
    )
    expected_version: int | None = Field(
        default=None,
        ge=0,
        le=2**31 - 1,
        description="The encounter version this command was decided on; a stale one is a 409.",
    )
    actor: str | None = Field(
        default=None, max_length=100, description="Who issues the command (default: gm)."
    )


Modifiers = dict[Annotated[str, Field(min_length=1, max_length=60)], int]
SITUATIONAL = "Situational modifiers by name, added to the roll and recorded (the GM's)."


class RollInitiative(CommandBase):
    """Roll initiative (step 1) for one combatant, or for every combatant without an IP.
    Novus: open-ended 2d10 + Spd and Wis bonuses. Wits: the order is by Wits; a tie is
    rolled off on 1d6. PHANTÄSIA: 1d12 + AGI score, a tie re-rolled."""

    rolls: ClassVar[Rolls] = {
        "novus": ("initiative", "initiative:<name>"),
        "phantasia": ("initiative", "initiative:<name>", "tie:<name>"),
        "wits": ("tie:<name>",),
    }

    type: Literal["roll_initiative"] = "roll_initiative"
    combatant: str | None = Field(
        default=None, description="Combatant id; all without IP if omitted."
    )
    ip: int | None = Field(default=None, description="An IP the GM enters instead of rolling.")
    modifiers: Modifiers = Field(
        default_factory=dict,
        description="Other named IP modifiers, added to the roll.",
        examples=[{"ambush": 2}],
    )
    tie_order: list[str] | None = Field(
        default=None,
        max_length=50,
        description="Wits: combatants tied on Wits in the order the GM rules they act, "
        "instead of the roll-off (WIT-ORD-2). PHANTÄSIA: those tied on initiative and AGI, "
        "in the narrator's order (PHA-INIT-3).",
    )
    simultaneous: bool = Field(
        default=False,
        description="PHANTÄSIA: the narrator lets combatants still tied after AGI act at the "
        "same time instead of re-rolling (PHA-INIT-3, Default PHA-AMB-8): in entry order, or "
        "in tie_order's.",
    )
    group: list[str] | None = Field(
        default=None,
        min_length=2,
        max_length=50,
        description="PHANTÄSIA: a group of the narrator's enemies sharing one initiative "
        "result (PHA-INIT-1).",
    )


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


class Hold(CommandBase):
    """Hold. Novus: after declaring, act at a lower IP, for 1 AP (`ip` required). Wits: hold
    the turn's actions to act at any later point of the round (WIT-ORD-3)."""

    type: Literal["hold"] = "hold"
    combatant: str = Field(description="Who holds.")
    ip: int | None = Field(
        default=None, description="Novus: the IP to act at, below the combatant's own."
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

    rolls: ClassVar[Rolls] = {
        "novus": (
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
    }

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

    rolls: ClassVar[Rolls] = {"novus": ("disarm_save",)}

    type: Literal["spend_boons"] = "spend_boons"
    boons: list[BoonSpec] = Field(
        default_factory=list,
        max_length=12,
        description="The Boons bought; an empty list spends nothing (the points are lost).",
    )


class SpendSnags(CommandBase):
    """Spend the Snag Points of the last miss (the player picks, the GM approves)."""

    rolls: ClassVar[Rolls] = {"novus": ("hurt_yourself", "friend_attack")}

    type: Literal["spend_snags"] = "spend_snags"
    snags: list[SnagSpec] = Field(
        default_factory=list,
        max_length=12,
        description="The Snags taken; an empty list takes none (the points are lost).",
    )


class Save(CommandBase):
    """A Saving Throw the GM calls for: open-ended 2d10 with the stat's bonus, against `tn`
    (NOV-SAVE-1, -2)."""

    rolls: ClassVar[Rolls] = {"novus": ("save",)}

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


Distance = Annotated[float, Field(gt=0, le=10_000)]


class WitsCommand(CommandBase):
    """A Wits action of one combatant: on his turn, or later if he held (WIT-ORD-1, -3)."""

    combatant: str = Field(description="The combatant who acts.")
    out_of_order: bool = Field(
        default=False,
        description="GM override: act outside the order (Wits: WIT-ORD-4; PHANTÄSIA: outside "
        "his turn).",
    )


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

    rolls: ClassVar[Rolls] = {"wits": ("attack", "defense", "damage")}

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

    rolls: ClassVar[Rolls] = {"wits": ("attack", "defense", "damage")}

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
    actions: Literal[1, 2] = Field(default=1, description="Actions it uses (GM-entered).")


class EndTurn(WitsCommand):
    """End the turn. Wits: keeping any action left for defenses (WIT-ORD-5). PHANTÄSIA:
    his end-of-turn checks are rolled and his statuses' durations run (PHA-STS-0)."""

    rolls: ClassVar[Rolls] = {
        "phantasia": (
            "stunned",
            "chaos",
            "paralysed",
            "poisoned",
            "poison damage",
            "death",
            "concentration",
        ),
    }

    type: Literal["end_turn"] = "end_turn"


class KnockBack(CommandBase):
    """Wits: the GM rules a hit knocked its target back; he tests Strength to stay on his
    feet, at −5 after a Charge (WIT-CHG-4, WIT-AMB-10)."""

    rolls: ClassVar[Rolls] = {"wits": ("strength",)}

    type: Literal["knock_back"] = "knock_back"
    combatant: str = Field(description="The combatant knocked back.")
    attack: str = Field(
        description="The action id of the attack that knocked him back.", examples=["6.attack"]
    )
    modifiers: Modifiers = Field(default_factory=dict, description=SITUATIONAL)


# -- PHANTÄSIA ------------------------------------------------------------------------

Characteristic = Literal["fue", "agi", "int", "vit", "sue", "ca"]
Targets = Annotated[list[str], Field(min_length=1, max_length=12)]


class PhantasiaCommand(WitsCommand):
    """A PHANTÄSIA action of one combatant, on his turn unless the GM rules otherwise
    (`out_of_order`) or it is a reaction; the same fields as a Wits action."""


class DeclareSurprise(CommandBase):
    """The narrator judges a surprise (PHA-SURP-1): each one named acts once first."""

    type: Literal["declare_surprise"] = "declare_surprise"
    combatants: Targets = Field(description="The combatants who surprise, each acting once.")


class StartTurn(CommandBase):
    """Start the next turn in the order (or the named combatant's): start-of-turn upkeep
    (Defense ends, reaction back, fear and suffocation checks) is rolled and recorded."""

    rolls: ClassVar[Rolls] = {"phantasia": ("fear", "suffocation", "death", "concentration")}

    type: Literal["start_turn"] = "start_turn"
    combatant: str | None = Field(default=None, description="Default: the next in the order.")


class AttackCheck(PhantasiaCommand):
    """An attack (AT) or a power (AM): the one check that decides it is rolled by whoever
    rolls under PHA-CORE-1 — the attacker (AT/AM) or the player defending (DF/DM)."""

    rolls: ClassVar[Rolls] = {"phantasia": ("attack", "defense", "defense:<name>")}

    type: Literal["attack_check"] = "attack_check"
    targets: Targets = Field(description="The targets (several only with a power).")
    weapon: str | None = Field(
        default=None, description="A weapon's name; none: unarmed.", examples=["sword"]
    )
    power: str | None = Field(default=None, description="A power's name (AM, PHA-MAG-1).")
    characteristic: Literal["fue", "agi"] | None = Field(
        default=None, description="AMP and AA: the attacker's choice (PHA-ATK-1)."
    )
    block: list[str] = Field(
        default_factory=list, max_length=12, description="Targets who block with a shield."
    )
    cover: dict[str, Annotated[int, Field(ge=1, le=5)] | None] = Field(
        default_factory=dict, description="Target → cover +1..+5 (null: the default +3)."
    )
    adjacent: bool | None = Field(
        default=None, description="Attacker adjacent to the target (default: not ranged)."
    )
    offensive: bool = Field(
        default=True, description="An offensive action (PHA-ACT-2): the narrator says."
    )
    reaction: bool = Field(default=False, description="Outside his turn (PHA-RX, PHA-ACT-5).")
    free: bool = Field(default=False, description="The free attack of fumble result 5.")
    doublings: int = Field(
        default=0, ge=0, le=5, description="Doubling effects of powers (PHA-DMG-6)."
    )
    critical_target: str | None = Field(
        default=None, description="A critical area power: the one target doubled (PHA-CRIT-2)."
    )
    hit: bool | None = Field(
        default=None, description="Creature against creature: the GM enters hit or miss."
    )
    modifiers: Modifiers = Field(
        default_factory=dict,
        description="The attacker's situational modifiers (on a defender's roll with the "
        "opposite sign; the GM's).",
    )


class RollDamage(CommandBase):
    """Roll the damage of the attack that hit (the narrator rolls his creatures')."""

    rolls: ClassVar[Rolls] = {"phantasia": ("damage", "death", "concentration")}

    type: Literal["roll_damage"] = "roll_damage"
    shield_breaks: list[str] = Field(
        default_factory=list,
        max_length=12,
        description="Blocking defenders who fumbled and let the shield break (PHA-DEF-3).",
    )


class RollFumble(CommandBase):
    """Roll the d6 on the fumble table for the attack that fumbled (PHA-CRIT-4, -5)."""

    rolls: ClassVar[Rolls] = {
        "phantasia": ("fumble", "power lock", "death", "concentration"),
    }

    type: Literal["roll_fumble"] = "roll_fumble"
    choice: Literal["pv", "pm"] | None = Field(
        default=None, description="Result 6: lose 1/4 of max PV or 1 PM (default PV)."
    )


class Check(PhantasiaCommand):
    """A characteristic check (PHA-ACT-12, PHA-CHK-2)."""

    rolls: ClassVar[Rolls] = {"phantasia": ("check",)}

    type: Literal["check"] = "check"
    characteristic: Characteristic = Field(description="The characteristic checked.")
    purpose: str = Field(
        default="check",
        max_length=80,
        description="What it is for, for the log.",
        examples=["climb"],
    )
    as_action: bool = Field(default=False, description="Spends an action point.")
    offensive: bool = Field(
        default=False, description="As an action: an offensive one (the narrator says)."
    )
    reaction: bool = Field(default=False, description="As an action: his reaction (PHA-RX).")
    phantasia_point: bool = Field(
        default=False, description="Spend a PHANTÄSIA point: succeed at once (PHA-PP-2 b)."
    )
    helped_by: str | None = Field(
        default=None, description="The ally who spends the point (PHA-PP-4)."
    )
    power_user_level: int | None = Field(
        default=None,
        ge=1,
        le=100,
        description="Resisting a power (PHA-CHK-5): its user's level (+1 per level he is "
        "above it).",
    )
    modifiers: Modifiers = Field(default_factory=dict, description=SITUATIONAL)


class Contest(PhantasiaCommand):
    """An opposed check: grab, snatch, push, knock down, or escape a grab (PHA-CHK-4)."""

    rolls: ClassVar[Rolls] = {"phantasia": ("attacker", "defender")}

    type: Literal["contest"] = "contest"
    kind: Literal["grab", "snatch", "push", "knock_down", "escape"] = Field(
        description="What he attempts (escape: from a grab; not offensive)."
    )
    target: str = Field(description="Whom he attempts it on.")
    characteristic: Literal["fue", "agi"] = Field(
        default="fue", description="His characteristic (FUE only to push or knock down)."
    )
    target_characteristic: Literal["fue", "agi"] = Field(
        default="fue", description="The target's characteristic."
    )
    item: str | None = Field(default=None, max_length=60, description="What is snatched.")
    reaction: bool = Field(default=False, description="His reaction, outside his turn (PHA-RX).")
    phantasia_point: bool = Field(
        default=False, description="Spend a PHANTÄSIA point: succeed at once (PHA-PP-2 b)."
    )
    modifiers: Modifiers = Field(
        default_factory=dict, description="Situational modifiers on his side (the GM's)."
    )


class Act(PhantasiaCommand):
    """Any other action for one action point (PHA-ACT)."""

    type: Literal["act"] = "act"
    action: Literal[
        "move",
        "switch_weapon",
        "reload",
        "use_item",
        "defense",
        "stand_up",
        "prepare",
        "cast_power",
        "other",
    ] = Field(description="The action (defense: DF +3 until his next turn, PHA-ACT-13).")
    metres: int | None = Field(
        default=None, ge=0, le=1000, description="move: how far (default: his MO)."
    )
    terrain: Literal["normal", "climb", "swim", "stealth"] = Field(
        default="normal", description="move: climb, swim and stealth go at half MO."
    )
    weapon: str | None = Field(
        default=None, description="switch_weapon, reload, use_item (pick up a dropped weapon)."
    )
    power: str | None = Field(default=None, description="cast_power: the power's name.")
    sustain: bool = Field(default=False, description="cast_power: kept active (PHA-CONC-1).")
    trigger: str | None = Field(
        default=None,
        max_length=200,
        description="prepare: what sets it off (required).",
        examples=["the orc steps through the door"],
    )
    replace: str | None = Field(
        default=None,
        description="defense with three beneficial statuses: the one to end, or 'least_time' "
        "(PHA-STK-3).",
    )
    what: str = Field(
        default="", max_length=200, description="What he does, for the log.", examples=["a potion"]
    )
    offensive: bool | None = Field(
        default=None, description="use_item, cast_power, other: the narrator says (PHA-ACT-2)."
    )
    reaction: bool = Field(default=False, description="His reaction, outside his turn (PHA-RX).")


class ApplyStatus(CommandBase):
    """A status on a combatant (PHA-STS): from a power, an item or the narrator."""

    rolls: ClassVar[Rolls] = {"phantasia": ("resist",)}

    type: Literal["apply_status"] = "apply_status"
    combatant: str = Field(description="Who gets the status.")
    status: str = Field(
        description="One of the twenty statuses (GET /rulesets/phantasia), or 'magic'.",
        examples=["poisoned"],
    )
    name: str | None = Field(
        default=None, max_length=60, description="A magic's name (status 'magic')."
    )
    turns: int | None = Field(default=None, ge=1, le=1000, description="His own turns.")
    beneficial: bool | None = Field(default=None, description="A magic: beneficial or not.")
    item: bool = Field(
        default=False, description="An item's bonus (a ring): adds to others (PHA-STK-1)."
    )
    modifiers: dict[
        Literal["fue", "agi", "int", "vit", "sue", "ca", "at", "df", "am", "dm", "movement"], int
    ] = Field(default_factory=dict, description="A magic's changes to scores and figures.")
    damage: str | None = Field(
        default=None, description="Poison: its damage dice (default 1d6).", examples=["2d6"]
    )
    reduction: int | None = Field(default=None, ge=0, le=1000, description="Weakness.")
    harmed_by: str | None = Field(
        default=None,
        max_length=40,
        description="Petrified: the element (or 'weapons') that can still harm it, for half "
        "damage (PHA-STS-15, Default PHA-AMB-36).",
    )
    resist: Characteristic | None = Field(
        default=None, description="The check that avoids it, rolled now (PHA-CHK-5)."
    )
    end_check: Characteristic | None = Field(
        default=None,
        description="Aturdido (int/vit), Caos (int/ca), Parálisis (vit/fue): the one the power "
        "calls for its ending check; none: the higher score (Default PHA-AMB-51).",
    )
    by: str | None = Field(default=None, description="The power's user (his level).")
    replace: str | None = Field(
        default=None,
        description="A fourth beneficial status: the one to end, or 'least_time' (PHA-STK-3).",
    )
    modifiers_check: Modifiers = Field(default_factory=dict, description="On the resist check.")
    resist_point: bool = Field(
        default=False,
        description="The creature resisting spends a PHANTÄSIA point: it resists at once "
        "(PHA-PP-2 b).",
    )
    from_attack: str | None = Field(
        default=None,
        description="The attack (action id) whose effect it is: after a fumbled DF/DM check "
        "its duration is doubled (PHA-CRIT-7).",
    )
    reason: str = Field(default="", max_length=200, description="Why, for the log.")


class SetLoad(CommandBase):
    """The weight a character carries, for the optional load rule (PHA-WPN-7)."""

    type: Literal["set_load"] = "set_load"
    combatant: str = Field(description="Who carries it.")
    carried_kg: float = Field(ge=0, le=10_000, description="What he carries, in kg.")


class Jump(PhantasiaCommand):
    """A jump: a FUE check against the base distance (PHA-JMP)."""

    rolls: ClassVar[Rolls] = {"phantasia": ("jump", "edge", "death", "concentration")}

    type: Literal["jump"] = "jump"
    kind: Literal["long", "high"] = Field(description="A long or a high jump.")
    metres: int = Field(ge=1, le=100, description="The distance or height he tries.")
    fall_m: int | None = Field(default=None, ge=0, le=1000, description="A miss falls this far.")
    phantasia_point: bool = Field(
        default=False, description="Spend a PHANTÄSIA point: succeed at once (PHA-PP-2 b)."
    )


class Fall(CommandBase):
    """Falling damage: metres × 3, and Prone (PHA-DMG-8)."""

    rolls: ClassVar[Rolls] = {"phantasia": ("death", "concentration")}

    type: Literal["fall"] = "fall"
    combatant: str = Field(description="Who falls.")
    metres: int = Field(ge=1, le=1000, description="How far.")


class Heal(CommandBase):
    """Healing: pays off negative PV first (PHA-DTH-5); a healing magic adds the caster's
    INT adjustment (PHA-DMG-4)."""

    rolls: ClassVar[Rolls] = {"phantasia": ("heal",)}

    type: Literal["heal"] = "heal"
    combatant: str = Field(description="Who is healed.")
    amount: int | None = Field(
        default=None, ge=0, le=10_000, description="PV healed (or `heal_dice`)."
    )
    heal_dice: str | None = Field(
        default=None, description="Dice to roll instead of `amount`.", examples=["2d6"]
    )
    caster: str | None = Field(
        default=None, description="A healing magic's caster: his INT adjustment adds."
    )
    reason: str = Field(default="", max_length=200, description="Why, for the log.")


class SpendPhantasiaPoint(CommandBase):
    """Spend a PHANTÄSIA point (PHA-PP-2, -4): re-roll the last AT/DF/AM/DM check, re-roll a
    failed death check, or regain 1 PM (succeeding at a check: `check` with
    phantasia_point)."""

    rolls: ClassVar[Rolls] = {"phantasia": ("reroll", "death")}

    type: Literal["spend_phantasia_point"] = "spend_phantasia_point"
    combatant: str = Field(description="Who spends the point.")
    use: Literal["reroll", "death_reroll", "pm"] = Field(
        description="reroll: the last AT/DF/AM/DM check; death_reroll: a failed death check; "
        "pm: regain 1 PM."
    )
    for_combatant: str | None = Field(default=None, description="An ally helped (PHA-PP-4).")


class AwardPhantasiaPoint(CommandBase):
    """The narrator awards a PHANTÄSIA point (PHA-PP-1); one at his maximum may pass it on."""

    type: Literal["award_phantasia_point"] = "award_phantasia_point"
    combatant: str = Field(description="Who earns the point.")
    pass_to: str | None = Field(
        default=None, description="One at his maximum passes it to this combatant."
    )
    reason: str = Field(default="", max_length=200, description="Why, for the log.")


class AdjustPm(CommandBase):
    """PM granted by the narrator or spent by an ability (PHA-PM-4, -5)."""

    type: Literal["adjust_pm"] = "adjust_pm"
    combatant: str = Field(description="Whose PM change.")
    amount: int = Field(
        ge=-1000, le=1000, description="PM added (negative: spent), within 0 … max PM."
    )
    reason: str = Field(default="", max_length=200, description="Why, for the log.")


class EndRound(CommandBase):
    """End the round (step 4): upkeep, then the next round begins."""

    type: Literal["end_round"] = "end_round"


class AdjustHits(CommandBase):
    """GM override: add (positive) or remove (negative) hits (Wits: Current Health;
    PHANTÄSIA: PV)."""

    type: Literal["adjust_hits"] = "adjust_hits"
    combatant: str = Field(description="Whose hits change.")
    amount: int = Field(
        ge=-10_000, le=10_000, description="Hits added (negative: removed); not capped."
    )
    reason: str = Field(default="GM adjustment", max_length=200, description="Why, for the log.")


class HideCombatant(CommandBase):
    """GM: keep a combatant from the players until he is revealed: no player read shows a
    trace of him (docs/visibility.md)."""

    type: Literal["hide_combatant"] = "hide_combatant"
    combatant: str = Field(description="Who is hidden.")
    until_acting: bool = Field(
        default=True,
        description="Revealed by his own first command (his declaration, action or turn); "
        "false: only by reveal_combatant.",
    )


class RevealCombatant(CommandBase):
    """GM: show a hidden combatant to the players."""

    type: Literal["reveal_combatant"] = "reveal_combatant"
    combatant: str = Field(description="Who is revealed.")
    earlier: Literal["all", "from_reveal"] = Field(
        default="all",
        description="all: players see what he did while hidden too; from_reveal: the events "
        "before the reveal stay hidden from them.",
    )
    reason: str = Field(default="GM", max_length=200, description="Why, for the log.")


class ShowHealth(CommandBase):
    """GM: how players see health (docs/visibility.md) — exact figures, a described state
    (unhurt, hurt, badly hurt, down) or nothing — for one combatant, for the party (how
    players see each other's characters; each always sees his own exactly), or else for the
    GM's combatants (those no player acts for; described until he says)."""

    type: Literal["show_health"] = "show_health"
    shown: Literal["exact", "described", "none"] = Field(description="How players see it.")
    combatant: str | None = Field(
        default=None, description="One combatant, overriding the encounter's setting."
    )
    party: bool = Field(
        default=False, description="The player characters, as the other players see them."
    )


class TakeNote(CommandBase):
    """GM: a note of his own, on a combatant or on the fight; players never read it."""

    type: Literal["take_note"] = "take_note"
    text: str = Field(min_length=1, max_length=2000, description="The note.")
    combatant: str | None = Field(default=None, description="Whom it is about (none: the fight).")


class SetCondition(CommandBase):
    """GM override: apply a condition (a bleeding wound with `rate`, a count with `count`)."""

    type: Literal["set_condition"] = "set_condition"
    combatant: str = Field(description="Who gets the condition.")
    condition: str = Field(
        description="A condition of the rule book (GET /rulesets/{name}: `conditions`).",
        examples=["stunned"],
    )
    count: int | None = Field(
        default=None,
        ge=1,
        le=10_000,
        description="A counted condition's count (PHANTÄSIA: a status's turns).",
    )
    rate: int | None = Field(
        default=None, ge=1, le=1000, description="Novus bleeding: hits lost per round."
    )
    reason: str = Field(default="GM", max_length=200, description="Why, for the log.")


class ClearCondition(CommandBase):
    """GM override: clear a condition (one bleeding wound by its position, or all)."""

    type: Literal["clear_condition"] = "clear_condition"
    combatant: str = Field(description="Whose condition ends.")
    condition: str = Field(description="The condition (PHANTÄSIA: status) to clear.")
    wound: int | None = Field(
        default=None, description="Novus bleeding: the position of the one wound to close."
    )
    reason: str = Field(default="GM", max_length=200, description="Why, for the log.")


class SetModifier(CommandBase):
    """GM override: a named modifier on a combatant, for `rounds` rounds or until cleared."""

    type: Literal["set_modifier"] = "set_modifier"
    combatant: str = Field(description="Who gets the modifier.")
    name: str = Field(
        min_length=1,
        max_length=60,
        description="Its name, as the log shows it.",
        examples=["bless"],
    )
    applies_to: Literal["ab", "act", "def", "ip", "damage"] = Field(
        description="What it modifies (Wits: ab, act, def, damage)."
    )
    value: int = Field(ge=-1000, le=1000, description="The modifier.")
    rounds: int | None = Field(
        default=None,
        ge=1,
        le=1000,
        description="Rounds it lasts, this one included; null: until cleared.",
    )
    reason: str = Field(default="GM", max_length=200, description="Why, for the log.")


class ClearModifier(CommandBase):
    """GM override: remove a named modifier."""

    type: Literal["clear_modifier"] = "clear_modifier"
    combatant: str = Field(description="Whose modifier ends.")
    name: str = Field(description="The modifier's name.")
    reason: str = Field(default="GM", max_length=200, description="Why, for the log.")


class Void(CommandBase):
    """Void a disputed roll (or an event a roll caused, or a correction) and its cascade."""

    type: Literal["void"] = "void"
    target: int = Field(ge=1, le=2**31 - 1, description="The position of the event to void.")
    reason: str = Field(
        min_length=1,
        max_length=500,
        description="Why, for the log.",
        examples=["the die fell off the table"],
    )


class Undo(CommandBase):
    """Void the events of the most recent command that is not a correction."""

    type: Literal["undo"] = "undo"
    reason: str = Field(default="undo", max_length=500, description="Why, for the log.")


class Redo(CommandBase):
    """Void the last undo."""

    type: Literal["redo"] = "redo"
    reason: str = Field(default="redo", max_length=500, description="Why, for the log.")


class RevealDice(CommandBase):
    """Reveal the server dice secret now; later rolls use a fresh committed secret."""

    type: Literal["reveal_dice"] = "reveal_dice"


class EndEncounter(CommandBase):
    """End the encounter: its server dice secret is revealed; nothing more is played."""

    type: Literal["end_encounter"] = "end_encounter"
    reason: str = Field(
        default="the fight is over", max_length=500, description="Why, for the log."
    )


Command = Annotated[
    RollInitiative
    | Declare
    | Hold
    | Cancel
    | OpportunityAttack
    | SpendFatePoint
    | Resolve
    | SpendBoons
    | SpendSnags
    | Save
    | Attack
    | Defend
    | RollAttack
    | Aim
    | Move
    | TakeAction
    | EndTurn
    | KnockBack
    | DeclareSurprise
    | StartTurn
    | AttackCheck
    | RollDamage
    | RollFumble
    | Check
    | Contest
    | Act
    | ApplyStatus
    | SetLoad
    | Jump
    | Fall
    | Heal
    | SpendPhantasiaPoint
    | AwardPhantasiaPoint
    | AdjustPm
    | EndRound
    | AdjustHits
    | HideCombatant
    | RevealCombatant
    | ShowHealth
    | TakeNote
    | SetCondition
    | ClearCondition
    | SetModifier
    | ClearModifier
    | Void
    | Undo
    | Redo
    | RevealDice
    | EndEncounter,
    Field(discriminator="type"),
]

# The commands only the GM sends: overrides, corrections, the round's and the fight's end,
# and the narrator's judgements; a hidden combatant is revealed by his own first command of
# any other kind but roll_initiative (Encounter.execute).
GM_COMMANDS = frozenset(
    {
        "void",
        "undo",
        "redo",
        "adjust_hits",
        "hide_combatant",
        "reveal_combatant",
        "show_health",
        "take_note",
        "set_condition",
        "clear_condition",
        "set_modifier",
        "clear_modifier",
        "end_round",
        "reveal_dice",
        "end_encounter",
        "knock_back",
        # PHANTÄSIA: the narrator's judgements and awards (PHA-SURP-1, PHA-STS-0, PHA-PP-1,
        # PHA-PM-4, PHA-WPN-7), and what happens to a character from outside
        "declare_surprise",
        "apply_status",
        "award_phantasia_point",
        "adjust_pm",
        "set_load",
        "fall",
        "heal",
    }
)
