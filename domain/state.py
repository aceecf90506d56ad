"""The state of an encounter, as folded from its events (see domain.fold).

Only facts live here; what follows from them (helpless, dead, whose turn it is,
DEF, AP left) is computed by the rule system from these facts.
"""

from __future__ import annotations

from copy import deepcopy
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from domain.errors import NotFound
from domain.visibility import GM, GM_COMBATANTS_DEFAULT, HEALTH, PARTY_DEFAULT

EffectTarget = Literal["ab", "primary_attack", "act", "def", "ip", "damage"]


class Wound(BaseModel):
    """An open bleeding wound: `rate` hits lost at each End Round."""

    position: int  # the event that opened it
    rate: int
    round: int


class Limb(BaseModel):
    """A limb hit by Called Shots: its cumulative penalty and damage (NOV-CALL-3, -4)."""

    penalty: int = 0
    damage: int = 0
    useless: bool = False


class Condition(BaseModel):
    """A named condition; `count` rounds left, or None while it lasts until cleared."""

    count: int | None = None
    round: int  # the round it was applied in
    position: int
    data: dict[str, Any] = Field(default_factory=dict)  # rule-system facts (PHANTÄSIA statuses)


class Effect(BaseModel):
    """A named modifier in force from `first_round` to `last_round` (None: open-ended)."""

    name: str
    applies_to: EffectTarget
    value: int
    first_round: int | None = None
    last_round: int | None = None
    position: int

    def in_force(self, round_: int) -> bool:
        return (self.first_round is None or self.first_round <= round_) and (
            self.last_round is None or round_ <= self.last_round
        )


class CombatantState(BaseModel):
    id: str
    name: str
    side: str
    entry: int
    stats: Annotated[dict[str, Any], HEALTH]  # his stat block: it gives his hits
    max_hits: Annotated[int, HEALTH]
    hits: Annotated[int, HEALTH]
    ip: int | None = None
    ip_raw: int | None = None
    wounds: list[Wound] = Field(default_factory=list)
    conditions: dict[str, Condition] = Field(default_factory=dict)
    effects: list[Effect] = Field(default_factory=list)
    limbs: dict[str, Limb] = Field(default_factory=dict)
    fate_points: int = 0
    ap_budget: int | None = None  # this round's budget, once declared
    ap_spent: int = 0  # AP spent this round
    ap_carried: int = 0  # AP the next round owes to a multi-round action
    hold_ip: int | None = None  # this round, he holds his actions to act at this IP
    marks: dict[str, Any] = Field(default_factory=dict)  # rule-system facts that last
    round_marks: dict[str, Any] = Field(default_factory=dict)  # ... until the round ends
    hidden: bool = False  # kept from the players (docs/visibility.md)
    reveal_when_acting: bool = False  # hidden until his own first command
    seen_from: int | None = None  # revealed `from_reveal`: players read events from here
    health_shown: str | None = None  # how players see his health (None: as the encounter's)
    notes: Annotated[list[str], GM] = Field(default_factory=list)  # the GM's notes on him

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> CombatantState:
        """Copies share `stats`, which never change once the combatant is added."""
        return self.model_copy(
            update={
                name: deepcopy(getattr(self, name), memo)
                for name in (
                    "wounds",
                    "conditions",
                    "effects",
                    "limbs",
                    "marks",
                    "round_marks",
                    "notes",
                )
            }
        )

    @property
    def bleeding(self) -> int:
        return sum(w.rate for w in self.wounds)

    def count(self, condition: str) -> int:
        c = self.conditions.get(condition)
        return (c.count or 0) if c else 0

    def has(self, condition: str) -> bool:
        return condition in self.conditions

    def effects_for(self, applies_to: str, round_: int) -> list[Effect]:
        return [e for e in self.effects if e.applies_to == applies_to and e.in_force(round_)]


class ActionState(BaseModel):
    """A declared action, pending until resolved or lost."""

    id: str
    combatant: str
    kind: str
    round: int  # the round it resolves in
    declared_round: int
    cost: int
    order: int  # its place among the combatant's actions this round
    extra: bool = False  # a further attack: resolves after everyone's first actions
    immediate: bool = False  # resolves before anything else (e.g. a Lightning Attack)
    target: str | None = None
    weapon: str | None = None
    params: dict[str, Any] = Field(default_factory=dict)
    status: Literal["pending", "resolved", "lost", "cancelled"] = "pending"
    origin: int | None = None  # the event that declared or granted it


class PendingPoints(BaseModel):
    """An attack whose Boon (hit) or Snag (miss) Points are still to be spent, at once."""

    attack: int  # position of the attack roll
    action: str
    combatant: str
    target: str
    points: int
    head_points: int = 0  # head Called Shot extras, for head Boons only (NOV-BOON-4)
    margin: int
    weapon: str | None = None
    params: dict[str, Any] = Field(default_factory=dict)


class EncounterState(BaseModel):
    id: str
    name: str
    ruleset: str
    dice_source: str
    seed: str | None = None
    options: dict[str, Any] = Field(default_factory=dict)
    created_at: str
    version: int = 0
    round: int = 1
    combatants: dict[str, CombatantState] = Field(default_factory=dict)
    actions: list[ActionState] = Field(default_factory=list)
    declared: list[str] = Field(default_factory=list)
    pending_boons: PendingPoints | None = None
    pending_snags: PendingPoints | None = None
    dice_epoch: int = 0  # server dice secrets revealed so far
    dice_commitment: str | None = None  # SHA-256 of the secret now in use
    forked_from: dict[str, Any] | None = None
    ended: bool = False
    health_shown: str = GM_COMBATANTS_DEFAULT  # how players see the GM's combatants' health
    party_health_shown: str = PARTY_DEFAULT  # ... and each other's characters'
    notes: Annotated[list[str], GM] = Field(default_factory=list)  # the GM's, on the fight

    def combatant(self, combatant_id: str) -> CombatantState:
        try:
            return self.combatants[combatant_id]
        except KeyError:
            raise NotFound(
                "COMBATANT", f"no combatant {combatant_id!r} in this encounter", field="combatant"
            ) from None

    def action(self, action_id: str) -> ActionState:
        for a in self.actions:
            if a.id == action_id:
                return a
        raise NotFound("ACTION", f"no action {action_id!r} in this encounter", field="action")
