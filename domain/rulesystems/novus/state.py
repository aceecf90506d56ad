"""What Novus keeps beyond the shared state, folded from its events (fold.py): each
combatant's marks (`NovusRules.marks_model`, `round_marks_model`), the encounter's
(`NovusRules.encounter_marks_model`) and a declared action's facts (`NovusAction`, its
`ActionState.params`).

Each field's default means "absent"; a snapshot or event written before these models holds
the same keys as plain dicts, and validates into them."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_serializer, model_validator

from domain.state import ActionState, CombatantState, EncounterState, Marks

# keys written in the first hours of the book (2026-11-29) and read by nothing since:
# `def_mod`, `move_ab`, `ab_mod`, `ab_mod_name` (before def_mods / ab_mods), `spell`
RETIRED = frozenset({"def_mod", "move_ab", "ab_mod", "ab_mod_name", "spell"})


class NovusAction(BaseModel):
    """A declared action's facts, its `ActionState.params`: what every action carries (label,
    modifiers, the limb it uses), then by kind: First Aid's wound, a move's distance, a spell
    against DEF, an attack's move, situations, targets and share of AB, a cancel's half AB."""

    model_config = ConfigDict(extra="forbid")

    label: str | None = None  # as the table names it (else the kind's)
    ab_mods: dict[str, int] = Field(default_factory=dict)  # by name, on its roll
    def_mods: dict[str, int] = Field(default_factory=dict)  # for the whole round (NOV-DECL-2)
    limb: str | None = None  # the limb it uses (NOV-CALL-3, -4)
    wound: int | None = None  # First Aid: the wound to close, by position (NOV-COND-1)
    vs_def: bool = False  # a spell cast against DEF (NOV-ATK-6)
    casting_tn: int | None = None
    spell_bonus: int | None = None
    spell_damage: int = 0  # the spell's Base Damage, GM-entered
    move: str | None = None  # an attack's Combat Move (NOV-CMV-1, -2)
    bd: int = 0  # the move's Base Damage
    scaled: bool = True  # Scaled Damage counts (NOV-ATK-5; Cut: none)
    armour: bool = True  # armour counts (Cut: none)
    primary: bool = False  # his first attack of the round (NOV-BOON-3)
    bd_mods: dict[str, int] = Field(default_factory=dict)  # Base Damage extras
    called_shot: Literal["arm", "leg", "head"] | None = None  # NOV-CALL-1
    location: str | None = None  # the location hit by the Called Shot (NOV-CALL-3)
    defensive: int = 0  # AB moved to DEF (NOV-FDEF-1)
    improvised_ab: int | None = None  # NOV-IMP-2: the better of weapon skill and Brawling
    improvised: bool = False  # an improvised weapon (NOV-IMP-2, -3)
    riding_tn: int | None = None  # a Riding roll first (NOV-MNT-1, NOV-MCH-4)
    charge_damage: int = 0  # NOV-MCH-3: 15 × pace
    pace: int | None = None  # a Mounted Charge's pace (NOV-MCH-1..4)
    into_melee: bool = False  # a missile fired into melee (NOV-FIM-1)
    bystanders: list[str] = Field(default_factory=list)  # nearest first (NOV-FIM-3)
    feet: int | None = None  # a move's distance (NOV-MOVE-1)
    ab_share: int | None = None  # its share of AB among several attacks (NOV-MAS-3)
    half_ab: bool = False  # a cancel's melee attack at half AB (NOV-CANCEL-2)

    @model_validator(mode="before")
    @classmethod
    def _without_retired(cls, data: Any) -> Any:
        if isinstance(data, dict) and RETIRED & data.keys():
            return {k: v for k, v in data.items() if k not in RETIRED}
        return data

    @classmethod
    def of(cls, action: ActionState) -> NovusAction:
        return cls.model_validate(action.params)

    def as_params(self) -> dict[str, Any]:
        """Its params as stored: the facts it has (none of another kind's)."""
        return self.model_dump(exclude_unset=True)

    def named(self, kind: str) -> str:
        """Its label, else the name given (its kind's)."""
        return self.label if self.label is not None else kind


class Limb(BaseModel):
    """A limb hit by Called Shots: its cumulative penalty and damage (NOV-CALL-3, -4)."""

    penalty: int = 0
    damage: int = 0
    useless: bool = False


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
    params: NovusAction = Field(default_factory=NovusAction)  # the attack's, when it was rolled

    @field_serializer("params")
    def _params(self, params: NovusAction) -> dict[str, Any]:
        return params.as_params()  # as stored: the keys it has


class NovusMarks(Marks):
    """What lasts from round to round."""

    model_config = ConfigDict(extra="forbid")

    limbs: dict[str, Limb] = Field(default_factory=dict)  # by location (NOV-CALL-3, -4)
    fate_points: int = 0  # NOV-FATE-1, -2
    ap_carried: int = 0  # AP the next round owes to a multi-round action (NOV-DECL-4)


class NovusRoundMarks(Marks):
    """What ends with the round."""

    model_config = ConfigDict(extra="forbid")

    ap_budget: int | None = None  # this round's budget, once declared
    ap_spent: int = 0  # AP spent this round
    hold_ip: int | None = None  # he holds his actions to act at this IP


class NovusEncounterMarks(Marks):
    """What Novus keeps of the encounter: who has declared this round (NOV-SEQ-2), and
    the attack whose Boon or Snag Points wait (NOV-BOON-1, NOV-SNAG-1)."""

    model_config = ConfigDict(extra="forbid")

    declared: list[str] = Field(default_factory=list)  # this round, in the order declared
    pending_boons: PendingPoints | None = None
    pending_snags: PendingPoints | None = None


def marks_of(who: CombatantState) -> NovusMarks:
    """His Novus marks (the fold makes them so, and a snapshot reads back into them)."""
    assert isinstance(who.marks, NovusMarks), type(who.marks)
    return who.marks


def round_marks_of(who: CombatantState) -> NovusRoundMarks:
    """His Novus marks of this round."""
    assert isinstance(who.round_marks, NovusRoundMarks), type(who.round_marks)
    return who.round_marks


def encounter_marks_of(state: EncounterState) -> NovusEncounterMarks:
    """The encounter's Novus marks."""
    assert isinstance(state.marks, NovusEncounterMarks), type(state.marks)
    return state.marks


def has_declared(state: EncounterState, who: CombatantState) -> bool:
    """Whether he has declared this round (NOV-SEQ-2)."""
    return who.id in encounter_marks_of(state).declared
