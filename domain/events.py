"""The events of an Encounter, in the past tense.

Every event carries `actor` (who issued the command) and `cause` (the position of the
event it follows from, or None). Each is complete enough to fold without looking
anything up: dice faces, named modifiers, target numbers, outcomes, and hits before
and after. Positions are the aggregate versions, starting at 1.
"""

from __future__ import annotations

from typing import Annotated, Any

from eventsourcing.domain import Aggregate
from eventsourcing.utils import register_topic

from domain.audit import BASE_FIELDS
from domain.fold import evolve
from domain.upcasting import upcast_event
from domain.visibility import GM, HEALTH


class EncounterEvent(Aggregate.Event):
    """Base of every Encounter event.

    Version 2: `defense` everywhere; a version-1 event (stored before) is read respelled,
    with the record as written kept in `recorded_as` (domain.upcasting)."""

    class_version = 2

    @classmethod
    def upcast_v1_v2(cls, state: dict[str, Any]) -> None:
        upcast_event(cls.__name__, state, BASE_FIELDS)

    actor: str
    cause: int | None
    command: int  # the position of the first event of the command that recorded it
    hash: str  # SHA-256 chained to the previous event's hash (domain.audit)

    def apply(self, aggregate: Any) -> None:
        aggregate.state = evolve(getattr(aggregate, "state", None), self)
        aggregate.last_hash = self.hash


class EncounterCreated(EncounterEvent, Aggregate.Created):
    name: str
    ruleset: str
    dice_source: str
    seed: str | None
    options: dict[str, Any]
    dice_commitment: str | None  # SHA-256 of the server dice secret (hex), never the secret
    forked_from: dict[str, Any] | None  # {"encounter": id, "at": N} for a fork


class CombatantAdded(EncounterEvent):
    combatant: str
    name: str
    side: str
    stats: Annotated[dict[str, Any], HEALTH]  # his stat block: it gives his hits
    max_hits: Annotated[int, HEALTH]
    hits: Annotated[int, HEALTH]


class CombatantHidden(EncounterEvent):
    """The GM keeps a combatant from the players: no player read shows a trace of him until
    he is revealed (docs/visibility.md); `until_acting`: revealed by his first command."""

    combatant: str
    until_acting: bool


class CombatantRevealed(EncounterEvent):
    """A hidden combatant shown to the players; `earlier`: `all` (what he did while hidden
    too) or `from_reveal` (the events before this one stay hidden from them)."""

    combatant: str
    earlier: str
    reason: str


class HealthShown(EncounterEvent):
    """How players see health (docs/visibility.md): `exact` figures, a `described` state, or
    `none`; for one `combatant` (overriding the encounter's), for the `party` (how players see
    each other's characters), or else for the GM's combatants (those no player acts for)."""

    combatant: str | None
    party: bool
    shown: str


class NoteTaken(EncounterEvent):
    """The GM's note, on a combatant or on the fight; players never read its text."""

    combatant: str | None
    text: Annotated[str, GM]


class InitiativeRolled(EncounterEvent):
    combatant: str
    ip: int
    raw: int | None  # the dice total, used to break ties (NOV-AMB-8)
    rolls: dict[str, Any]
    modifiers: dict[str, int]
    entered: bool  # True when the GM entered the IP instead of rolling


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


class DamageApplied(EncounterEvent):
    combatant: str
    amount: int
    hits_before: Annotated[int, HEALTH]
    hits_after: Annotated[int, HEALTH]
    breakdown: dict[str, Any]
    rolls: dict[str, Any]  # damage dice, where the damage was rolled


class ConditionApplied(EncounterEvent):
    combatant: str
    condition: str
    count: int | None
    rate: int | None
    reason: str


class ConditionCleared(EncounterEvent):
    combatant: str
    condition: str
    wound: int | None  # the position of the wound closed, for bleeding
    reason: str


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


class ActionResolved(EncounterEvent):
    combatant: str
    action: str
    kind: str
    detail: dict[str, Any]


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


class Correction(EncounterEvent):
    """Voids the events of its cascade; `changes` turn the state into the fold without them."""

    target: int | None
    cascade: list[int]
    reason: str
    changes: list[dict[str, Any]]


class RollVoided(Correction):
    """A disputed roll, and everything that followed from it, voided."""


class CommandUndone(Correction):
    """The events of the most recent command voided."""


class CommandRedone(Correction):
    """The last undo voided, so what it undid counts again."""


class DiceSecretRevealed(EncounterEvent):
    """The server dice secret of an epoch, revealed; `next_commitment` opens the next epoch."""

    epoch: int
    secret: str  # hex
    commitment: str
    next_commitment: str | None


class DiceCommitted(EncounterEvent):
    """A fresh server dice secret committed (a fork's own secret, after the copied history)."""

    epoch: int
    commitment: str


class EncounterEnded(EncounterEvent):
    reason: str


class RoundEnded(EncounterEvent):
    round: int
    lost_actions: list[str]


class HitsAdjusted(EncounterEvent):
    combatant: str
    amount: Annotated[int, HEALTH]
    hits_before: Annotated[int, HEALTH]
    hits_after: Annotated[int, HEALTH]
    reason: str


class ModifierSet(EncounterEvent):
    combatant: str
    name: str
    applies_to: str
    value: int
    first_round: int
    last_round: int | None
    reason: str


class ModifierCleared(EncounterEvent):
    combatant: str
    name: str
    reason: str


# -- the Wits system ------------------------------------------------------------------


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


class TurnEnded(EncounterEvent):
    combatant: str
    actions_left: int


class KnockBackTested(EncounterEvent):
    """A Strength test to stay on one's feet after a knock-back (WIT-CHG-4)."""

    combatant: str
    attack: str
    rolls: dict[str, Any]
    skill: dict[str, Any]
    stays_up: bool


# -- PHANTÄSIA ------------------------------------------------------------------------


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


class CheckRolled(EncounterEvent):
    """A roll-under check (PHA-CHK-1): a characteristic, a status's end check, fear,
    suffocation, concentration, a jump."""

    combatant: str
    purpose: str
    characteristic: str
    check: dict[str, Any]  # target, parts, die, roll, face, success, critical, fumble, margin
    rolls: dict[str, Any]  # roll name → the roll
    spent: dict[str, Any] | None  # the action it used: {action, offensive, reaction}


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


class ActionsLost(EncounterEvent):
    """Action points of this turn lost to what he failed (a Fear check, PHA-STS-18)."""

    combatant: str
    actions: int
    reason: str


# stored before DefenceDeclared was respelled (domain.upcasting): its old topic reads as the new
register_topic(f"{__name__}:DefenceDeclared", DefenseDeclared)
