"""Commands: what a table asks the encounter to do, in the imperative.

One model per command, discriminated by `type`. The rule system validates them
against the current state; an invalid command records nothing.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

DiceSourceName = Literal["server", "seeded", "manual"]


def _type_is_required(schema: dict[str, Any]) -> None:
    """`type` has a default for Python callers, but a request must always name it."""
    schema.setdefault("required", [])
    if "type" not in schema["required"]:
        schema["required"].insert(0, "type")


class CommandBase(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra=_type_is_required)

    dice: dict[str, list[int]] | None = Field(
        default=None,
        description="Manual faces: roll name -> faces in the order rolled, explosions "
        "included. Rolls not named here use the encounter's dice source.",
        examples=[{"attack": [14, 3]}],
    )
    dice_source: DiceSourceName | None = Field(
        default=None, description="Override the encounter's dice source for this command."
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


class RollInitiative(CommandBase):
    """Roll initiative (step 1) for one combatant, or for every combatant without an IP."""

    type: Literal["roll_initiative"] = "roll_initiative"
    combatant: str | None = Field(
        default=None, description="Combatant id; all without IP if omitted."
    )
    ip: int | None = Field(default=None, description="An IP the GM enters instead of rolling.")
    modifiers: Modifiers = Field(default_factory=dict, description="Other named IP modifiers.")
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
    model_config = ConfigDict(extra="forbid")

    kind: str = Field(description="An action of the rule system's catalogue (docs/rules).")
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
    combatant: str
    actions: list[ActionSpec] = Field(default_factory=list, max_length=12)
    out_of_order: bool = Field(default=False, description="GM override of the declaration order.")
    hold_ip: int | None = Field(
        default=None, description="Hold, announced with the declaration: act at this lower IP."
    )


class Hold(CommandBase):
    """Hold. Novus: after declaring, act at a lower IP, for 1 AP (`ip` required). Wits: hold
    the turn's actions to act at any later point of the round (WIT-ORD-3)."""

    type: Literal["hold"] = "hold"
    combatant: str
    ip: int | None = Field(
        default=None, description="Novus: the IP to act at, below the combatant's own."
    )


class BoonSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="A Boon of the table, or any name with `effect` for a GM Boon.")
    points: int | None = Field(default=None, ge=1, le=50, description="Points for a '+' Boon.")
    effect: str | None = Field(
        default=None, max_length=500, description="Effect text of a GM Boon."
    )


class Cancel(CommandBase):
    """Cancel a combatant's unresolved actions this round, optionally for one replacement
    that happens at once (NOV-CANCEL-1..5)."""

    type: Literal["cancel"] = "cancel"
    combatant: str
    replacement: ActionSpec | None = Field(
        default=None,
        description="melee_attack (half AB), move (≤3 AP), dodge, counterspell, "
        "instant_spell_action, or any other action at −5.",
    )


class SpendFatePoint(CommandBase):
    """Spend a Fate Point; its effect is the GM's to enter (NOV-FATE-2)."""

    type: Literal["spend_fate_point"] = "spend_fate_point"
    combatant: str
    effect: str = Field(min_length=1, max_length=500)


class OpportunityAttack(CommandBase):
    """An attack outside the initiative order, on a foe crossing the Control Zone (NOV-OA)."""

    type: Literal["opportunity_attack"] = "opportunity_attack"
    combatant: str
    target: str
    weapon: str | None = None


class SnagSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="A Snag of the table (docs/rules/novus.md).")
    target: str | None = Field(default=None, description="Hit the nearest friend: who.")
    spell_points: int | None = Field(
        default=None, ge=0, le=100, description="Spell backlash: the spell's points."
    )
    modifiers: Modifiers = Field(
        default_factory=dict, description="Hit the nearest friend: situational modifiers."
    )
    hit: bool | None = Field(default=None, description="Hit the nearest friend: GM override.")


class Resolve(CommandBase):
    """Resolve the next declared action (step 3)."""

    type: Literal["resolve"] = "resolve"
    action: str | None = Field(default=None, description="The action id expected next (checked).")
    modifiers: Modifiers = Field(default_factory=dict, description="Situational named modifiers.")
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
    boons: list[BoonSpec] = Field(default_factory=list, max_length=12)


class SpendSnags(CommandBase):
    """Spend the Snag Points of the last miss (the player picks, the GM approves)."""

    type: Literal["spend_snags"] = "spend_snags"
    snags: list[SnagSpec] = Field(default_factory=list, max_length=12)


class Save(CommandBase):
    """A Saving Throw the GM calls for."""

    type: Literal["save"] = "save"
    combatant: str
    stat: str = Field(description="The stat saved against, e.g. con, spd, str.")
    tn: int = Field(default=15, ge=-100, le=200)
    modifiers: Modifiers = Field(default_factory=dict)
    purpose: str = Field(default="", max_length=200)


Distance = Annotated[float, Field(gt=0, le=10_000)]


class WitsCommand(CommandBase):
    """A Wits action of one combatant: on his turn, or later if he held (WIT-ORD-1, -3)."""

    combatant: str
    out_of_order: bool = Field(
        default=False, description="GM override: act outside the Wits order (WIT-ORD-4)."
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

    type: Literal["attack"] = "attack"
    target: str
    weapon: str = Field(description="A weapon of the attacker's stats.")
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
    modifiers: Modifiers = Field(default_factory=dict, description="GM situational modifiers.")
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
    combatant: str
    defense: DefenseSpec


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
    what: str = Field(min_length=1, max_length=200, examples=["casts Light"])
    actions: Literal[1, 2] = Field(default=1, description="Actions it uses (GM-entered).")


class EndTurn(WitsCommand):
    """End the turn. Wits: keeping any action left for defenses (WIT-ORD-5). PHANTÄSIA:
    his end-of-turn checks are rolled and his statuses' durations run (PHA-STS-0)."""

    type: Literal["end_turn"] = "end_turn"


class KnockBack(CommandBase):
    """Wits: the GM rules a hit knocked its target back; he tests Strength to stay on his
    feet, at −5 after a Charge (WIT-CHG-4, WIT-AMB-10)."""

    type: Literal["knock_back"] = "knock_back"
    combatant: str
    attack: str = Field(description="The action id of the attack that knocked him back.")
    modifiers: Modifiers = Field(default_factory=dict)


# -- PHANTÄSIA ------------------------------------------------------------------------

Characteristic = Literal["fue", "agi", "int", "vit", "sue", "ca"]
Targets = Annotated[list[str], Field(min_length=1, max_length=12)]


class PhantasiaCommand(WitsCommand):
    """A PHANTÄSIA action of one combatant, on his turn unless the GM rules otherwise
    (`out_of_order`) or it is a reaction; the same fields as a Wits action."""


class DeclareSurprise(CommandBase):
    """The narrator judges a surprise (PHA-SURP-1): each one named acts once first."""

    type: Literal["declare_surprise"] = "declare_surprise"
    combatants: Targets


class StartTurn(CommandBase):
    """Start the next turn in the order (or the named combatant's): start-of-turn upkeep
    (Defense ends, reaction back, fear and suffocation checks) is rolled and recorded."""

    type: Literal["start_turn"] = "start_turn"
    combatant: str | None = Field(default=None, description="Default: the next in the order.")


class AttackCheck(PhantasiaCommand):
    """An attack (AT) or a power (AM): the one check that decides it is rolled by whoever
    rolls under PHA-CORE-1 — the attacker (AT/AM) or the player defending (DF/DM)."""

    type: Literal["attack_check"] = "attack_check"
    targets: Targets
    weapon: str | None = Field(default=None, description="A weapon's name; none: unarmed.")
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
    offensive: bool = True
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
    modifiers: Modifiers = Field(default_factory=dict)


class RollDamage(CommandBase):
    """Roll the damage of the attack that hit (the narrator rolls his creatures')."""

    type: Literal["roll_damage"] = "roll_damage"
    shield_breaks: list[str] = Field(
        default_factory=list,
        max_length=12,
        description="Blocking defenders who fumbled and let the shield break (PHA-DEF-3).",
    )


class RollFumble(CommandBase):
    """Roll the d6 on the fumble table for the attack that fumbled (PHA-CRIT-4, -5)."""

    type: Literal["roll_fumble"] = "roll_fumble"
    choice: Literal["pv", "pm"] | None = Field(
        default=None, description="Result 6: lose 1/4 of max PV or 1 PM (default PV)."
    )


class Check(PhantasiaCommand):
    """A characteristic check (PHA-ACT-12, PHA-CHK-2)."""

    type: Literal["check"] = "check"
    characteristic: Characteristic
    purpose: str = Field(default="check", max_length=80)
    as_action: bool = Field(default=False, description="Spends an action point.")
    offensive: bool = False
    reaction: bool = False
    phantasia_point: bool = Field(
        default=False, description="Spend a PHANTÄSIA point: succeed at once (PHA-PP-2 b)."
    )
    helped_by: str | None = Field(
        default=None, description="The ally who spends the point (PHA-PP-4)."
    )
    power_user_level: int | None = Field(
        default=None, ge=1, le=100, description="Resisting a power (PHA-CHK-5)."
    )
    modifiers: Modifiers = Field(default_factory=dict)


class Contest(PhantasiaCommand):
    """An opposed check: grab, snatch, push, knock down, or escape a grab (PHA-CHK-4)."""

    type: Literal["contest"] = "contest"
    kind: Literal["grab", "snatch", "push", "knock_down", "escape"]
    target: str
    characteristic: Literal["fue", "agi"] = "fue"
    target_characteristic: Literal["fue", "agi"] = "fue"
    item: str | None = Field(default=None, max_length=60, description="What is snatched.")
    reaction: bool = False
    phantasia_point: bool = Field(
        default=False, description="Spend a PHANTÄSIA point: succeed at once (PHA-PP-2 b)."
    )
    modifiers: Modifiers = Field(default_factory=dict)


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
    ]
    metres: int | None = Field(default=None, ge=0, le=1000, description="move")
    terrain: Literal["normal", "climb", "swim", "stealth"] = "normal"
    weapon: str | None = Field(default=None, description="switch_weapon, reload")
    power: str | None = Field(default=None, description="cast_power")
    sustain: bool = Field(default=False, description="cast_power: kept active (PHA-CONC-1).")
    trigger: str | None = Field(default=None, max_length=200, description="prepare")
    replace: str | None = Field(
        default=None,
        description="defense with three beneficial statuses: the one to end, or 'least_time' "
        "(PHA-STK-3).",
    )
    what: str = Field(default="", max_length=200)
    offensive: bool | None = Field(
        default=None, description="use_item, cast_power, other: the narrator says (PHA-ACT-2)."
    )
    reaction: bool = False


class ApplyStatus(CommandBase):
    """A status on a combatant (PHA-STS): from a power, an item or the narrator."""

    type: Literal["apply_status"] = "apply_status"
    combatant: str
    status: str = Field(description="One of the twenty statuses, or 'magic'.")
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
    damage: str | None = Field(default=None, description="Poison: its damage dice (1d6).")
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
    reason: str = Field(default="", max_length=200)


class SetLoad(CommandBase):
    """The weight a character carries, for the optional load rule (PHA-WPN-7)."""

    type: Literal["set_load"] = "set_load"
    combatant: str
    carried_kg: float = Field(ge=0, le=10_000)


class Jump(PhantasiaCommand):
    """A jump: a FUE check against the base distance (PHA-JMP)."""

    type: Literal["jump"] = "jump"
    kind: Literal["long", "high"]
    metres: int = Field(ge=1, le=100)
    fall_m: int | None = Field(default=None, ge=0, le=1000, description="A miss falls this far.")
    phantasia_point: bool = Field(
        default=False, description="Spend a PHANTÄSIA point: succeed at once (PHA-PP-2 b)."
    )


class Fall(CommandBase):
    """Falling damage: metres × 3, and Prone (PHA-DMG-8)."""

    type: Literal["fall"] = "fall"
    combatant: str
    metres: int = Field(ge=1, le=1000)


class Heal(CommandBase):
    """Healing: pays off negative PV first (PHA-DTH-5); a healing magic adds the caster's
    INT adjustment (PHA-DMG-4)."""

    type: Literal["heal"] = "heal"
    combatant: str
    amount: int | None = Field(default=None, ge=0, le=10_000)
    heal_dice: str | None = Field(default=None, description="e.g. 2d6")
    caster: str | None = None
    reason: str = Field(default="", max_length=200)


class SpendPhantasiaPoint(CommandBase):
    """Spend a PHANTÄSIA point (PHA-PP-2, -4): re-roll the last AT/DF/AM/DM check, re-roll a
    failed death check, or regain 1 PM (succeeding at a check: `check` with
    phantasia_point)."""

    type: Literal["spend_phantasia_point"] = "spend_phantasia_point"
    combatant: str = Field(description="Who spends the point.")
    use: Literal["reroll", "death_reroll", "pm"]
    for_combatant: str | None = Field(default=None, description="An ally helped (PHA-PP-4).")


class AwardPhantasiaPoint(CommandBase):
    """The narrator awards a PHANTÄSIA point (PHA-PP-1); one at his maximum may pass it on."""

    type: Literal["award_phantasia_point"] = "award_phantasia_point"
    combatant: str
    pass_to: str | None = None
    reason: str = Field(default="", max_length=200)


class AdjustPm(CommandBase):
    """PM granted by the narrator or spent by an ability (PHA-PM-4, -5)."""

    type: Literal["adjust_pm"] = "adjust_pm"
    combatant: str
    amount: int = Field(ge=-1000, le=1000)
    reason: str = Field(default="", max_length=200)


class EndRound(CommandBase):
    """End the round (step 4): upkeep, then the next round begins."""

    type: Literal["end_round"] = "end_round"


class AdjustHits(CommandBase):
    """GM override: add (positive) or remove (negative) hits."""

    type: Literal["adjust_hits"] = "adjust_hits"
    combatant: str
    amount: int = Field(ge=-10_000, le=10_000)
    reason: str = Field(default="GM adjustment", max_length=200)


class SetCondition(CommandBase):
    """GM override: apply a condition (a bleeding wound with `rate`, a count with `count`)."""

    type: Literal["set_condition"] = "set_condition"
    combatant: str
    condition: str
    count: int | None = Field(default=None, ge=1, le=10_000)
    rate: int | None = Field(default=None, ge=1, le=1000)
    reason: str = Field(default="GM", max_length=200)


class ClearCondition(CommandBase):
    """GM override: clear a condition (one bleeding wound by its position, or all)."""

    type: Literal["clear_condition"] = "clear_condition"
    combatant: str
    condition: str
    wound: int | None = None
    reason: str = Field(default="GM", max_length=200)


class SetModifier(CommandBase):
    """GM override: a named modifier on a combatant, for `rounds` rounds or until cleared."""

    type: Literal["set_modifier"] = "set_modifier"
    combatant: str
    name: str = Field(min_length=1, max_length=60)
    applies_to: Literal["ab", "act", "def", "ip", "damage"]
    value: int = Field(ge=-1000, le=1000)
    rounds: int | None = Field(default=None, ge=1, le=1000)
    reason: str = Field(default="GM", max_length=200)


class ClearModifier(CommandBase):
    """GM override: remove a named modifier."""

    type: Literal["clear_modifier"] = "clear_modifier"
    combatant: str
    name: str
    reason: str = Field(default="GM", max_length=200)


class Void(CommandBase):
    """Void a disputed roll (or an event a roll caused, or a correction) and its cascade."""

    type: Literal["void"] = "void"
    target: int = Field(ge=1, le=2**31 - 1, description="The position of the event to void.")
    reason: str = Field(min_length=1, max_length=500)


class Undo(CommandBase):
    """Void the events of the most recent command that is not a correction."""

    type: Literal["undo"] = "undo"
    reason: str = Field(default="undo", max_length=500)


class Redo(CommandBase):
    """Void the last undo."""

    type: Literal["redo"] = "redo"
    reason: str = Field(default="redo", max_length=500)


class RevealDice(CommandBase):
    """Reveal the server dice secret now; later rolls use a fresh committed secret."""

    type: Literal["reveal_dice"] = "reveal_dice"


class EndEncounter(CommandBase):
    """End the encounter: its server dice secret is revealed; nothing more is played."""

    type: Literal["end_encounter"] = "end_encounter"
    reason: str = Field(default="the fight is over", max_length=500)


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
