"""PHANTÄSIA's own events: turns, checks, attacks and powers, statuses, PM and points."""

from __future__ import annotations

from typing import Annotated, Any

from domain.events import EncounterEvent, moved_here
from domain.visibility import HEALTH


class SurpriseDeclared(EncounterEvent):
    """The narrator judges a surprise: each surprising combatant acts once before
    initiative (PHA-SURP-1)."""

    combatants: list[str]


class TieBroken(EncounterEvent):
    """Combatants tied on initiative and AGI, ordered by a re-roll or by the narrator
    (PHA-INIT-3)."""

    order: list[str]  # first acts first
    rolls: dict[str, Any]
    entered: bool
    simultaneous: bool  # they act at the same time: results apply after all have acted


class TurnStarted(EncounterEvent):
    combatant: str
    round: int
    turn: int  # his own turn number (durations count these, PHA-STS-0)
    actions: int  # action points this turn (PHA-ACT-6)
    surprise: bool  # his one action before initiative (PHA-SURP-1)
    prepared_lost: str | None  # a prepared action not used is lost (PHA-RX-3)


class StatusApplied(EncounterEvent):
    combatant: str
    status: str  # the condition's name
    kind: str  # the status: one of the twenty (or a fumble result, suffocation), or magic
    turns: int | None  # his own turns it lasts; None: until a check, an action or the GM
    data: dict[str, Any]  # beneficial/harmful, modifiers, end check, damage, since_turn
    reason: str
    reason_code: str | None = None  # a rule's reason: its code in the book's catalogue
    reason_params: dict[str, Any] | None = None  # (messages.REASONS) and its parameters


class StatusTicked(EncounterEvent):
    """A status's duration, or the count it keeps, moves on at one of his turns."""

    combatant: str
    status: str
    turns_before: int | None
    turns_after: int | None
    data: dict[str, Any]  # what changes in the status's data


class StatusEnded(EncounterEvent):
    combatant: str
    status: str
    reason: str
    reason_code: str | None = None  # a rule's reason: its code in the book's catalogue
    reason_params: dict[str, Any] | None = None  # (messages.REASONS) and its parameters


class CheckRolled(EncounterEvent):
    """A roll-under check (PHA-CHK-1): a characteristic, a status's end check, fear,
    suffocation, concentration, a jump."""

    combatant: str
    purpose: str
    characteristic: str
    check: dict[str, Any]  # target, parts, die, roll, face, success, critical, fumble, margin
    rolls: dict[str, Any]  # roll name → the roll
    spent: dict[str, Any] | None  # the action it used: {action, offensive, reaction}
    purpose_code: str | None = None  # a rule's purpose: its code in the book's catalogue
    purpose_params: dict[str, Any] | None = None  # (messages.REASONS) and its parameters


class ContestRolled(EncounterEvent):
    """An opposed check (PHA-CHK-4): grab, snatch, push, knock down, escape a grab."""

    combatant: str
    target: str
    kind: str
    attacker_check: dict[str, Any]
    defender_check: dict[str, Any]
    attacker_wins: bool
    rolls: dict[str, Any]  # roll name → the roll
    effect: dict[str, Any]
    spent: dict[str, Any] | None


class ActionSpent(EncounterEvent):
    """An action point spent on a non-check action (PHA-ACT-9, -13, -15..17, -19)."""

    combatant: str
    action: str
    offensive: bool
    reaction: bool
    details: dict[str, Any]


class AttackChecked(EncounterEvent):
    """An attack or power and the one check that decides it, made by whoever rolls
    (PHA-CORE-1, PHA-DEF-6): per target the check, its target number and the outcome."""

    combatant: str
    action: dict[str, Any]  # the ActionState: params weapon/power, targets, pending parts
    results: list[dict[str, Any]]
    spent: dict[str, Any] | None
    rolls: dict[str, Any]  # roll name → the roll


class CheckRerolled(EncounterEvent):
    """A PHANTÄSIA point re-rolls an AT, DF, AM or DM check; the second result stands
    (PHA-PP-2 a)."""

    combatant: str  # who rolled the check
    action: str
    results: list[dict[str, Any]]  # the attack's results, his check re-rolled
    replaced: list[dict[str, Any]]  # ... and as they were before (statistics read both)
    rolls: dict[str, Any]  # roll name → the roll


class DeathChecked(EncounterEvent):
    """d100 against the accumulated negative damage (PHA-DTH-2)."""

    combatant: str
    rolls: dict[str, Any]
    negative_damage: Annotated[int, HEALTH]
    dies: bool
    reroll: bool  # a PHANTÄSIA point re-rolled a failed check (PHA-DTH-6)
    moment: list[Any]  # whose turn it was: a re-roll comes at once, in that turn


class FumbleRolled(EncounterEvent):
    """The d6 on the fumble table (PHA-CRIT-5) and its effect."""

    combatant: str
    action: str
    rolls: dict[str, Any]
    result: int
    effect: str
    details: dict[str, Any]


class PmChanged(EncounterEvent):
    combatant: str
    pm_before: int
    pm_after: int
    reason: str
    reason_code: str | None = None  # a rule's reason: its code in the book's catalogue
    reason_params: dict[str, Any] | None = None  # (messages.REASONS) and its parameters


class PhantasiaPointsChanged(EncounterEvent):
    """Awarded, passed on or spent (PHA-PP-1..4)."""

    combatant: str
    points_before: int
    points_after: int
    use: str  # award | pass | reroll | auto_success | death_reroll | pm
    for_combatant: str | None
    reason: str


class Healed(EncounterEvent):
    """PV healed (PHA-DTH-5): negative PV first, never above the maximum."""

    combatant: str
    amount: Annotated[int, HEALTH]  # capped at what he lacked: it tells his PV
    hits_before: Annotated[int, HEALTH]
    hits_after: Annotated[int, HEALTH]
    parts: dict[str, int]  # dice or an amount, the caster's INT adjustment (PHA-DMG-4)
    rolls: dict[str, Any]
    reason: str
    reason_code: str | None = None  # a rule's reason: its code in the book's catalogue
    reason_params: dict[str, Any] | None = None  # (messages.REASONS) and its parameters


class ActionsLost(EncounterEvent):
    """Action points of this turn lost to what he failed (a Fear check, PHA-STS-18)."""

    combatant: str
    actions: int
    reason: str


# stored before they moved here from domain.events: their old topics read as these
moved_here(
    SurpriseDeclared,
    TieBroken,
    TurnStarted,
    StatusApplied,
    StatusTicked,
    StatusEnded,
    CheckRolled,
    ContestRolled,
    ActionSpent,
    AttackChecked,
    CheckRerolled,
    DeathChecked,
    FumbleRolled,
    PmChanged,
    PhantasiaPointsChanged,
    Healed,
    ActionsLost,
)
