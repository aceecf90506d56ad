"""The Wits system's own events: announced attacks, defenses, aiming, moves, turns held."""

from __future__ import annotations

from typing import Any

from domain.events import EncounterEvent, moved_here


class AttackAnnounced(EncounterEvent):
    """An attacker states his target and what he does (WIT-ATK-1); one action."""

    combatant: str
    target: str
    action: dict[str, Any]  # the ActionState, its params the attack's situation
    actions: int  # actions it uses


class DefenseDeclared(EncounterEvent):
    """The target's defense against an announced attack, before its roll (WIT-ATK-2)."""

    combatant: str
    action: str  # the attack defended against
    kind: str  # parry | block | dodge
    mode: str  # basic | total | total_single
    actions: int  # actions it uses (0 for a further blow of a Total Defense)
    skill: dict[str, Any]  # {base, parts, effective}
    magical: bool


class AttackTestRolled(EncounterEvent):
    """An attack's Skill Test and the defense against it, and whether it hit (WIT-ATK-4)."""

    combatant: str
    action: str
    target: str
    rolls: dict[str, Any]
    skill: dict[str, Any]  # {base, parts, effective}
    success: bool
    degree: str  # failure | success | critical | extraordinary
    degree_source: str  # rolled | entered | option
    defense: dict[str, Any] | None  # {kind, mode, effective, total, success} or None
    hit: bool
    overridden: bool  # the GM set the hit


class Aimed(EncounterEvent):
    combatant: str
    aim_before: int
    aim_after: int


class AimLost(EncounterEvent):
    """The accumulated aiming bonus is lost (WIT-AIM-2, -5)."""

    combatant: str
    aim: int
    reason: str


class Moved(EncounterEvent):
    combatant: str
    metres: float
    actions: int
    charge_at: str | None  # the target of a Charge under way
    charge_from_m: float | None


class ActionTaken(EncounterEvent):
    """Any other action: a spell, a skill, a long talk (WIT-ACT-2)."""

    combatant: str
    what: str
    actions: int


class TurnHeld(EncounterEvent):
    combatant: str


class KnockBackTested(EncounterEvent):
    """A Strength test to stay on one's feet after a knock-back (WIT-CHG-4)."""

    combatant: str
    attack: str
    rolls: dict[str, Any]
    skill: dict[str, Any]
    stays_up: bool


# stored before they moved here from domain.events: their old topics read as these
moved_here(
    AttackAnnounced,
    DefenseDeclared,
    AttackTestRolled,
    Aimed,
    AimLost,
    Moved,
    ActionTaken,
    TurnHeld,
    KnockBackTested,
)
# stored before DefenceDeclared was respelled (domain.upcasting)
moved_here(DefenseDeclared, as_name="DefenceDeclared")
