"""Novus's own events: the declared round, attacks and their Boons and Snags, saves, upkeep."""

from __future__ import annotations

from typing import Annotated, Any

from domain.events import EncounterEvent, moved_here
from domain.visibility import GM, HEALTH


class ActionsDeclared(EncounterEvent):
    combatant: str
    round: int
    actions: list[dict[str, Any]]
    ap_budget: int
    ap_spent: int
    ap_carried: int  # AP owed by the next round
    effects: list[dict[str, Any]]
    out_of_order: bool
    hold_ip: int | None  # a hold announced with the declaration


class ActionsCancelled(EncounterEvent):
    """Unresolved actions cancelled, and the replacement that happens at once (if any)."""

    combatant: str
    cancelled: list[str]
    replacement: list[dict[str, Any]]


class OpportunityTaken(EncounterEvent):
    """An Opportunity Attack: it uses a declared attack, or is paid in AP (NOV-OA-1..3)."""

    combatant: str
    target: str
    consumed: str | None
    ap_cost: int
    action: dict[str, Any]


class ActionHeld(EncounterEvent):
    combatant: str
    ip: int
    ap_cost: int
    ap_budget: int  # the round's budget after the hold


class AttackRolled(EncounterEvent):
    combatant: str
    action: str
    target: str
    rolls: dict[str, Any]
    attack_bonus: dict[str, int]
    defense: dict[str, Any]
    total: int
    hit: bool
    margin: int
    boon_points: int
    snag_points: int
    nova: bool
    head_points: int  # extra Boon Points of a head Called Shot, for head Boons only


class RidingRolled(EncounterEvent):
    """The mandatory Riding roll of a mounted attack or charge (NOV-MNT-1, NOV-MCH-4)."""

    combatant: str
    action: str
    rolls: dict[str, Any]
    tn: int
    total: int
    success: bool
    effects: list[dict[str, Any]]


class LimbWounded(EncounterEvent):
    """A Called Shot hit a limb: −2 on actions with it, useless past Con (NOV-CALL-3, -4)."""

    combatant: str
    location: str
    damage: int
    penalty: int  # the limb's total penalty now
    total_damage: int
    useless: bool


class FatePointGained(EncounterEvent):
    combatant: str
    fate_points: int


class FatePointSpent(EncounterEvent):
    combatant: str
    effect: str  # GM-entered (NOV-FATE-2)


class BlockRolled(EncounterEvent):
    """A Basic Block against an attack about to land (NOV-CMV-2, NOV-CANCEL-2, NOV-FDEF-3)."""

    combatant: str
    action: str
    attacker: str
    blocked: str | None  # the attack it stops, if it succeeds
    rolls: dict[str, Any]
    tn: int
    total: int
    success: bool


class BoonsSpent(EncounterEvent):
    combatant: str
    target: str
    points: int
    boons: list[dict[str, Any]]
    effects: list[dict[str, Any]]  # next-round effects granted, each with its combatant
    actions: list[dict[str, Any]]  # actions granted (a Lightning Attack)


class SnagsSpent(EncounterEvent):
    combatant: str
    points: int
    snags: list[dict[str, Any]]
    effects: list[dict[str, Any]]


class SaveRolled(EncounterEvent):
    combatant: str
    stat: str
    purpose: str
    rolls: dict[str, Any]
    tn: Annotated[int, GM]
    total: int
    saved: bool
    margin: Annotated[int, GM]


class FirstAidRolled(EncounterEvent):
    combatant: str
    target: str
    action: str
    purpose: str
    rolls: dict[str, Any]
    tn: int
    total: int
    success: bool


class ActionLost(EncounterEvent):
    combatant: str
    action: str
    kind: str
    rule: str
    reason: str


class UpkeepTicked(EncounterEvent):
    combatant: str
    round: int
    kind: str  # bleeding | dying | <condition name>
    amount: int  # hits lost (bleeding, dying) or 1 for a count going down
    hits_before: Annotated[int, HEALTH]
    hits_after: Annotated[int, HEALTH]
    count_before: int | None
    count_after: int | None
    wound: int | None


# stored before they moved here from domain.events: their old topics read as these
moved_here(
    ActionsDeclared,
    ActionsCancelled,
    OpportunityTaken,
    ActionHeld,
    AttackRolled,
    RidingRolled,
    LimbWounded,
    FatePointGained,
    FatePointSpent,
    BlockRolled,
    BoonsSpent,
    SnagsSpent,
    SaveRolled,
    FirstAidRolled,
    ActionLost,
    UpkeepTicked,
)
