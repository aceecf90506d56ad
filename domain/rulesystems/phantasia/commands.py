"""PHANTÄSIA's own commands: turns, checks, attacks and powers, statuses, PM and points."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from domain import commands as c
from domain.commands import SITUATIONAL, CommandBase, Modifiers, TurnCommand

# command type → the roll names it may ask for, in the order drawn (RuleSystem.rolls)
ROLLS: dict[str, tuple[str, ...]] = {
    "start_turn": ("fear", "suffocation", "death", "concentration"),
    "attack_check": ("attack", "defense", "defense:<name>"),
    "roll_damage": ("damage", "death", "concentration"),
    "roll_fumble": ("fumble", "power lock", "death", "concentration"),
    "check": ("check",),
    "contest": ("attacker", "defender"),
    "apply_status": ("resist",),
    "jump": ("jump", "edge", "death", "concentration"),
    "fall": ("death", "concentration"),
    "heal": ("heal",),
    "spend_phantasia_point": ("reroll", "death"),
    "roll_initiative": ("initiative", "initiative:<name>", "tie:<name>"),
    "end_turn": (
        "stunned",
        "chaos",
        "paralysed",
        "poisoned",
        "poison damage",
        "death",
        "concentration",
    ),
}


Characteristic = Literal["fue", "agi", "int", "vit", "sue", "ca"]


Targets = Annotated[list[str], Field(min_length=1, max_length=12)]


class PhantasiaCommand(TurnCommand):
    """A PHANTÄSIA action of one combatant, on his turn unless the GM rules otherwise
    (`out_of_order`) or it is a reaction; the same fields as a Wits action."""


class RollInitiative(c.RollInitiative):
    """Roll initiative, 1d12 + AGI score (PHA-INIT-1): for one combatant, every combatant
    without one, or a group of the narrator's enemies sharing one result; a tie on
    initiative and AGI is re-rolled, unless the narrator orders it or lets it act at once
    (PHA-INIT-3)."""

    tie_order: list[str] | None = Field(
        default=None,
        max_length=50,
        description="Those tied on initiative and AGI, in the narrator's order (PHA-INIT-3).",
    )
    simultaneous: bool = Field(
        default=False,
        description="The narrator lets combatants still tied after AGI act at the same time "
        "instead of re-rolling (PHA-INIT-3, Default PHA-AMB-8): in entry order, or in "
        "tie_order's.",
    )
    group: list[str] | None = Field(
        default=None,
        min_length=2,
        max_length=50,
        description="A group of the narrator's enemies sharing one initiative result (PHA-INIT-1).",
    )


class DeclareSurprise(CommandBase):
    """The narrator judges a surprise (PHA-SURP-1): each one named acts once first."""

    type: Literal["declare_surprise"] = "declare_surprise"
    combatants: Targets = Field(description="The combatants who surprise, each acting once.")


class StartTurn(CommandBase):
    """Start the next turn in the order (or the named combatant's): start-of-turn upkeep
    (Defense ends, reaction back, fear and suffocation checks) is rolled and recorded."""

    type: Literal["start_turn"] = "start_turn"
    combatant: str | None = Field(default=None, description="Default: the next in the order.")


class AttackCheck(PhantasiaCommand):
    """An attack (AT) or a power (AM): the one check that decides it is rolled by whoever
    rolls under PHA-CORE-1 — the attacker (AT/AM) or the player defending (DF/DM)."""

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

    type: Literal["jump"] = "jump"
    kind: Literal["long", "high"] = Field(description="A long or a high jump.")
    metres: int = Field(ge=1, le=100, description="The distance or height he tries.")
    fall_m: int | None = Field(default=None, ge=0, le=1000, description="A miss falls this far.")
    phantasia_point: bool = Field(
        default=False, description="Spend a PHANTÄSIA point: succeed at once (PHA-PP-2 b)."
    )


class Fall(CommandBase):
    """Falling damage: metres × 3, and Prone (PHA-DMG-8)."""

    type: Literal["fall"] = "fall"
    combatant: str = Field(description="Who falls.")
    metres: int = Field(ge=1, le=1000, description="How far.")


class Heal(CommandBase):
    """Healing: pays off negative PV first (PHA-DTH-5); a healing magic adds the caster's
    INT adjustment (PHA-DMG-4)."""

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
