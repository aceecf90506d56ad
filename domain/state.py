"""The state of an encounter, as folded from its events (see domain.fold).

Only facts live here; what follows from them (helpless, dead, whose turn it is,
DEF, AP left) is computed by the rule system from these facts.
"""

from __future__ import annotations

from copy import deepcopy
from typing import Annotated, Any, ClassVar, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, SerializeAsAny, model_validator

from domain.errors import DomainError, NotFound
from domain.visibility import GM, GM_COMBATANTS_DEFAULT, HEALTH, PARTY_DEFAULT

# values a copy may share, never changed in place: these exact types (a subclass of one is
# copied like any object)
_SHARED = frozenset({str, int, float, bool, type(None)})
_set = object.__setattr__  # a model's own slots, past pydantic's checks


def state_copy(model: Any, memo: dict[int, Any] | None = None) -> Any:
    """The `__deepcopy__` of the state's models: a deep copy for a command to work on (the
    cached state is copied for each): its models, lists and dicts copied by one walk
    (`_held`), its strings and numbers shared, an object held twice copied once (`memo`,
    as the generic deep copy does; an empty list or dict excepted, a new one in each place:
    no rule can count on one being held twice, since a snapshot read back never holds one
    twice), and what its class declares shared (`copy_shares`) shared. The generic deep
    copy, through each object's hooks and pydantic's, cost about two and a half times as
    much (a Novus fight of one combatant ~47 → ~18 µs in a tight loop)."""
    return _model(model, {} if memo is None else memo)


def _model(model: Any, memo: dict[int, Any]) -> Any:
    kind = type(model)
    copy = kind.__new__(kind)
    memo[id(model)] = copy
    held = dict(model.__dict__)
    shares = _shares(kind) or ()
    for key, value in held.items():
        if type(value) not in _SHARED and key not in shares:
            held[key] = _held(value, memo)
    _set(copy, "__dict__", held)
    extra, private = model.__pydantic_extra__, getattr(model, "__pydantic_private__", None)
    _set(copy, "__pydantic_extra__", None if extra is None else _held(extra, memo))
    _set(copy, "__pydantic_fields_set__", set(model.__pydantic_fields_set__))
    _set(copy, "__pydantic_private__", None if private is None else deepcopy(private, memo))
    return copy


def _held(value: Any, memo: dict[int, Any]) -> Any:
    """A copy of a value a state holds; an empty list or dict is a new empty one (most
    are, most of a fight), without a look in the memo."""
    kind = type(value)
    if kind in _SHARED:
        return value
    if (kind is list or kind is dict) and not value:
        return kind()
    done = memo.get(id(value))
    if done is not None:
        return done
    if kind is list:
        items: list[Any] = []
        memo[id(value)] = items
        items.extend(v if type(v) in _SHARED else _held(v, memo) for v in value)
        return items
    if kind is dict:
        entries: dict[Any, Any] = {}
        memo[id(value)] = entries
        for k, v in value.items():
            key = k if type(k) in _SHARED else deepcopy(k, memo)
            entries[key] = v if type(v) in _SHARED else _held(v, memo)
        return entries
    if _shares(kind) is not None:  # a state model: by the same walk
        return _model(value, memo)
    return deepcopy(value, memo)  # anything else by its own hook


def _shares(kind: type) -> frozenset[str] | None:
    """What a model class's copies share (`copy_shares`); None for a class that is not
    copied by the walk: not a model, or one with a deep copy of its own. Found once a
    class (a class attribute a pydantic model lacks is slow to miss)."""
    try:
        return _PLANS[kind]
    except KeyError:
        walked = isinstance(kind, type) and getattr(kind, "__deepcopy__", None) in _WALKED
        plan = _PLANS[kind] = frozenset(getattr(kind, "copy_shares", ())) if walked else None
        return plan


_WALKED = (state_copy, BaseModel.__deepcopy__)  # pydantic's own hook: a deep copy of each field
_PLANS: dict[type, frozenset[str] | None] = {}  # `_shares` of each class met


Book = TypeVar("Book", bound=BaseModel)
_PARSED: dict[tuple[int, type], tuple[dict[str, Any], Any]] = {}  # stat blocks, as their models
PARSED_KEPT = 4096


def stats_as(who: CombatantState, model: type[Book]) -> Book:
    """His stat block as his book's model, one model shared by every read: rule code reads a
    stat block and never changes it (tests/conftest.py checks every kept model against its
    block after each test). A stat block never changes once he is added and every copy of
    him shares it (CombatantState.__deepcopy__), so it is validated once, not at each of the
    many reads a command and its view make (two a combatant in a Novus view: a copy each
    was a fifth of the view's time); the entry holds the block, so its id is not reused
    while it is kept."""
    key = (id(who.stats), model)
    kept = _PARSED.get(key)
    if kept is None or kept[0] is not who.stats:
        if len(_PARSED) >= PARSED_KEPT:
            _PARSED.clear()
        kept = _PARSED[key] = (who.stats, model.model_validate(who.stats))
    return kept[1]


EffectTarget = Literal["ab", "primary_attack", "act", "def", "ip", "damage"]


class Wound(BaseModel):
    """An open bleeding wound: `rate` hits lost at each End Round."""

    position: int  # the event that opened it
    rate: int
    round: int


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


class Marks(BaseModel):
    """What a rule book keeps of a combatant beyond what every book shares: each book's
    typed model (`RuleSystem.marks_model` for what lasts, `round_marks_model` for what ends
    with the round), in its package; and of the encounter (`encounter_marks_model`, e.g.
    Novus: who has declared, the Boon Points waiting). This base declares nothing; it keeps
    the keys it is given only to read back a combatant without his book at hand (a departed
    combatant in a correction's changes)."""

    model_config = ConfigDict(extra="allow")
    __deepcopy__ = state_copy

    @model_validator(mode="before")
    @classmethod
    def _kept(cls, data: Any) -> Any:
        """Read back (a snapshot written by older code), a key the book no longer keeps is
        dropped rather than making the fight unreadable; writing one still fails (a book's
        model forbids extras, and a model has no attribute it does not declare)."""
        if not isinstance(data, dict) or cls.model_config.get("extra") != "forbid":
            return data
        names = set(cls.model_fields) | {
            f.alias for f in cls.model_fields.values() if f.alias is not None
        }
        return {key: value for key, value in data.items() if key in names}


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
    marks: SerializeAsAny[Marks] = Field(default_factory=Marks)  # the book's facts that last
    round_marks: SerializeAsAny[Marks] = Field(default_factory=Marks)  # ... till the round ends
    hidden: bool = False  # kept from the players (docs/visibility.md)
    reveal_when_acting: bool = False  # hidden until his own first command
    seen_from: int | None = None  # revealed `from_reveal`: players read events from here
    health_shown: str | None = None  # how players see his health (None: as the encounter's)
    notes: Annotated[list[str], GM] = Field(default_factory=list)  # the GM's notes on him

    # copies share `stats`, which never change once the combatant is added
    copy_shares: ClassVar[frozenset[str]] = frozenset({"stats"})
    __deepcopy__ = state_copy

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
    __deepcopy__ = state_copy


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
    marks: SerializeAsAny[Marks] = Field(default_factory=Marks)  # the book's own (its model)
    dice_epoch: int = 0  # server dice secrets revealed so far
    dice_commitment: str | None = None  # SHA-256 of the secret now in use
    forked_from: dict[str, Any] | None = None
    ended: bool = False
    health_shown: str = GM_COMBATANTS_DEFAULT  # how players see the GM's combatants' health
    party_health_shown: str = PARTY_DEFAULT  # ... and each other's characters'
    notes: Annotated[list[str], GM] = Field(default_factory=list)  # the GM's, on the fight

    @model_validator(mode="before")
    @classmethod
    def _books_marks(cls, data: Any) -> Any:
        """A state read back (a snapshot, a version): its marks and each combatant's as its
        book's models (a book not registered here: kept as they are). A state written before
        the books kept their own facts in marks holds them beside the core's: they move into
        the marks that declare them (`_gathered`)."""
        if not isinstance(data, dict) or "ruleset" not in data:
            return data
        book = _book(data["ruleset"])
        if book is None:
            return data
        data = _gathered(data, "marks", book.encounter_marks_model, cls)
        combatants = {}
        for key, who in (data.get("combatants") or {}).items():
            if isinstance(who, dict):
                who = _gathered(who, "marks", book.marks_model, CombatantState)
                who = _gathered(who, "round_marks", book.round_marks_model, CombatantState)
            combatants[key] = who
        return {**data, "combatants": combatants}

    __deepcopy__ = state_copy

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


def _book(ruleset: str) -> Any:
    """The rule book of that name, or None if it is not registered here."""
    from domain.rulesystems import get_rule_system  # the registry imports this module

    try:
        return get_rule_system(ruleset)
    except DomainError:
        return None


def _gathered(
    holder: dict[str, Any], key: str, model: type[Marks], core: type[BaseModel]
) -> dict[str, Any]:
    """`holder` (a dump of a `core` model) with its plain `key` marks as `model` (a model
    already made stays as it is). A fact `model` declares and `holder` keeps beside the
    core's fields, where states written before the books' typed marks (issue 17) kept it
    (Novus's `ap_budget`, `declared`), moves into them."""
    marks = holder.get(key)
    if not isinstance(marks, dict | None):
        return holder
    moved = {k: holder[k] for k in model.model_fields if k in holder and k not in core.model_fields}
    kept = {k: v for k, v in holder.items() if k not in moved}
    return {**kept, key: model.model_validate({**(marks or {}), **moved})}


def relocated(state: EncounterState, path: list[Any]) -> list[Any]:
    """A correction's path into the state as the state now holds it: one recorded before the
    books' typed marks (issue 17) may name a book's fact where the core kept it
    (`["combatants", id, "ap_budget"]`, `["pending_boons", "points"]`): it goes into the
    marks that declare it (`["combatants", id, "round_marks", "ap_budget"]`)."""
    book = _book(state.ruleset)
    if book is None or not path:
        return path
    if path[0] == "combatants":
        if len(path) < 3 or path[2] in CombatantState.model_fields:
            return path
        for key, model in (("marks", book.marks_model), ("round_marks", book.round_marks_model)):
            if path[2] in model.model_fields:
                return [*path[:2], key, *path[2:]]
        return path
    core, book_own = EncounterState.model_fields, book.encounter_marks_model.model_fields
    return ["marks", *path] if path[0] not in core and path[0] in book_own else path
