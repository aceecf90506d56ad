"""Request and response schemas of the HTTP API."""

from __future__ import annotations

from typing import Annotated, Any, Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, model_validator

from api.event_schemas import EventRecord
from api.registered import CombatantPublic, EncounterPublic, RulesetName
from api.registered import EncounterCreated as EncounterCreated  # an answer of the routes
from domain.commands import DiceSourceName
from domain.presentation import Table

MAX_POSITION = 2**31 - 1  # positions and versions fit any store's integer column


class EncounterCreate(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # JSON types (domain.strict)

    name: str = Field(min_length=1, max_length=120, examples=["Ambush at the ford"])
    ruleset: RulesetName = Field(description="The rule system: novus, phantasia or wits.")
    options: dict[str, Any] = Field(
        default_factory=dict,
        description="The rule system's options, e.g. for wits the test die or the roll-up "
        "rule (GET /rulesets/{name} gives options_schema). Defaults are filled in and recorded.",
        examples=[{}],
    )
    dice_source: DiceSourceName = Field(
        default="server", description="server (strong randomness), seeded, or manual."
    )
    seed: str | None = Field(
        default=None,
        min_length=1,
        max_length=200,
        description="Required with dice_source 'seeded'.",
    )
    actor: str | None = Field(default=None, max_length=100)


class CombatantCreate(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # JSON types (domain.strict)

    name: str | None = Field(
        default=None,
        min_length=1,
        max_length=60,
        examples=["Brakka"],
        description="Required with `stats`; with `from_roster`, the entry's unless given.",
    )
    side: str = Field(default="", max_length=60, examples=["players"])
    stats: dict[str, Any] | None = Field(
        default=None,
        description="The rule system's stats; for novus see NovusStats in docs/rules/novus.md. "
        "Required unless `from_roster` is given.",
        examples=[
            {
                "hits": 30,
                "bonuses": {"spd": 2, "wis": 1, "dex": 2},
                "melee_ranks": 7,
                "ar": 4,
                "weapons": [{"name": "sword", "dr": 6, "stat": "dex", "ranks": 7}],
            }
        ],
    )
    hidden: bool = Field(
        default=False,
        description="Kept from the players until revealed: no player read shows a trace of "
        "him (docs/visibility.md).",
    )
    until_acting: bool = Field(
        default=True,
        description="A hidden combatant is revealed by his own first command (false: only "
        "by reveal_combatant).",
    )
    health: Literal["exact", "described", "none"] | None = Field(
        default=None,
        description="How players see his health, overriding the encounter's setting (null: "
        "as the encounter's, show_health; docs/visibility.md).",
    )
    expected_version: int | None = Field(default=None, ge=0)
    actor: str | None = Field(default=None, max_length=100)
    from_roster: UUID | None = Field(
        default=None,
        strict=False,  # a JSON string
        description="A roster entry of the account whose key is sent, instead of `stats`: a "
        "full copy of its stats, starting from the lasting state carried from its last fight "
        "(name and side: the entry's unless given). docs/api.md, Campaigns.",
    )

    @model_validator(mode="after")
    def _stats_or_roster(self) -> CombatantCreate:
        if self.from_roster is not None:
            if self.stats is not None:
                raise ValueError("give stats or from_roster, not both")
        elif self.stats is None or self.name is None:
            raise ValueError("give name and stats, or from_roster")
        return self


class EncounterSummary(BaseModel):
    id: str
    name: str
    ruleset: str
    created_at: str
    # from the read model (an account's list; null where it has not reached the encounter)
    status: Literal["active", "ended"] | None = None
    round: int | None = None
    last_activity: str | None = None
    events: int | None = None
    combatants_up: int | None = None
    combatants_down: int | None = None


class ReadModelLag(BaseModel):
    """How far the read models behind a list are from the store."""

    projected: int | None = Field(
        description="The last event (notification) the read models hold; null: never run."
    )
    latest: int = Field(description="The last event recorded in the store.")
    behind: int = Field(description="Events recorded that the list does not show yet.")


class EncounterList(BaseModel):
    encounters: list[EncounterSummary]
    next: str | None = Field(
        default=None,
        description="An account's list: the `after` of the next page; null on the last.",
    )
    read_models: ReadModelLag | None = Field(
        default=None, description="An account's list: the read models' lag."
    )


ExpiresIn = Annotated[
    int | None,
    Field(
        ge=60,
        le=365 * 24 * 3600,
        description="Seconds until the token stops opening anything (60 to 31536000, a "
        "year); without it, it never expires.",
    ),
]


class TokenCreate(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # JSON types (domain.strict)

    role: Literal["player", "gm"] = Field(
        default="player",
        description="player: bound to his combatants; gm: another GM token (a second "
        "device, a co-GM), with no combatants.",
    )
    combatants: list[str] = Field(
        default_factory=list,
        max_length=20,
        description="The combatant ids the player acts for (1 to 20); none for a GM token.",
    )
    label: str = Field(
        default="",
        max_length=60,
        description="Who holds it, e.g. 'Anna'; events record actor 'player:<label>' "
        "(default: the combatants' names).",
    )
    expires_in: ExpiresIn = None


class TokenRotate(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # JSON types (domain.strict)

    expires_in: ExpiresIn = None


class TokenIssued(BaseModel):
    token: str = Field(description="The bearer token, shown only here, once.")
    id: str = Field(description="A short id of the token (the start of its hash).")
    role: Literal["gm", "player"]
    combatants: list[str]
    label: str
    expires_at: str | None = Field(description="When it stops (UTC); null: never.")


class TokenPublic(BaseModel):
    id: str = Field(description="The first 16 hex digits of the token's SHA-256.")
    role: Literal["gm", "player"]
    combatants: list[str]
    label: str
    created_at: str
    expires_at: str | None = Field(description="When it stops (UTC); null: never.")


class TokenList(BaseModel):
    tokens: list[TokenPublic]
    next: str | None = Field(description="The `after` of the next page; null on the last.")


class StreamTicket(BaseModel):
    ticket: str = Field(
        description="Opens GET /encounters/{id}/stream?ticket=… once, as the token that "
        "asked for it; shown only here."
    )
    expires_in: int = Field(description="Seconds it may wait for its stream.")


class EventLog(BaseModel):
    events: list[EventRecord]
    next_after: int | None = Field(
        default=None, description="More events follow: ask again with after=next_after."
    )


class DiceAsked(BaseModel):
    """The next roll a command needs: the table rolls it and sends the command again with
    the face appended to `dice[roll]`."""

    roll: str = Field(description="The roll name, as the command's `dice` object names it.")
    die: int = Field(description="Which face of that roll (1-based, roll-ups counted).")
    sides: int = Field(description="The die to roll: a d`sides`.")
    count: int = Field(
        description="How many faces of this roll are needed now, this one included "
        "(a roll-up or an explosion is asked for when it happens)."
    )
    for_: str | None = Field(
        alias="for", description="The combatant who rolls it (null: the GM's own roll)."
    )
    label: str = Field(
        description="The roll in the table's words (Spanish with lang=es on PHANTÄSIA)."
    )
    source: Literal["server"] | None = Field(
        default=None,
        description="A preview only: the server rolls this when the command is sent.",
    )

    model_config = ConfigDict(populate_by_name=True)


class CommandResult(BaseModel):
    events: list[EventRecord]
    encounter: EncounterPublic


class Choice(BaseModel):
    """A command of play the token may send now: the rules accept it as it is (the table
    adds the dice it asks for)."""

    type: str = Field(description="The command type.")
    combatant: str | None = Field(description="Who acts (null: the encounter's own).")
    label: str = Field(description="The choice in the table's words.")
    command: dict[str, Any] = Field(description="The command's body, ready to send.")
    rolls: list[str] = Field(description="The roll names it may ask for, in order.")
    first_roll: DiceAsked | None = Field(
        description="The first roll it asks for (null: it rolls nothing; `source: server` "
        "where the server rolls it)."
    )
    fields: dict[str, Any] | None = Field(
        default=None, description="What else the sender may set, as JSON-schema fragments."
    )


class Form(BaseModel):
    """A GM override or correction: a command type, for whom, and the fields to fill."""

    type: str
    combatant: str | None = None
    command: dict[str, Any] | None = Field(
        default=None, description="The command, ready to send, where it needs nothing more."
    )
    fields: dict[str, Any] | None = Field(
        default=None, description="The fields to fill, as JSON-schema fragments."
    )


class Choices(BaseModel):
    """What a token may send now."""

    version: int = Field(description="The version these choices were computed at.")
    ended: bool
    step: str | None = Field(description="The rule book's step (see the view).")
    acting: str | None = Field(description="Whose move it is, where one combatant's is.")
    role: Literal["gm", "player"]
    combatants: list[str] | None = Field(description="A player's: whom he acts for.")
    choices: list[Choice]
    by_combatant: dict[str, list[str]] = Field(
        description="Combatant id ('' for the encounter's own) → the command types open."
    )
    overrides: list[Form] = Field(description="The GM's: overrides, as forms.")
    corrections: list[Form] = Field(description="The GM's: undo, redo, void.")


class CommandPreview(BaseModel):
    """What a command would record (nothing is): its events, the view after them, and the
    roll it stopped at, if it needs a face not given (or a server die)."""

    preview: Literal[True] = True
    events: list[EventRecord] = Field(description="Each with its log line (`text`).")
    encounter: EncounterPublic
    needed: DiceAsked | None = None


class CombatantAdded(BaseModel):
    id: str
    combatant: CombatantPublic
    encounter: EncounterPublic


class LogLine(BaseModel):
    position: int
    round: int
    type: str
    actor: str
    text: str
    voided_by: int | None = Field(default=None, description="The correction that voids it.")


class NarrativeLog(BaseModel):
    lines: list[LogLine]
    next_after: int | None = Field(
        default=None,
        description="A page (`after`, `limit`) with more lines after it: ask again with "
        "after=next_after. Null on the last page and on the whole log.",
    )


class ForkCreate(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # JSON types (domain.strict)

    at: int = Field(ge=1, le=MAX_POSITION, description="Copy the first `at` events.")
    name: str = Field(min_length=1, max_length=120)
    actor: str | None = Field(default=None, max_length=100)


class VersionDiff(BaseModel):
    from_: int = Field(alias="from", serialization_alias="from")
    to: int
    encounter: dict[str, list[Any]] = Field(description="round or step: [before, after].")
    combatants: dict[str, dict[str, Any]] = Field(
        description="Per combatant id: name and changes {field: [before, after]}."
    )

    model_config = ConfigDict(populate_by_name=True)


class ChainVerdict(BaseModel):
    ok: bool
    events: int = Field(description="Records read (up to the breaking one).")
    broken_at: int | None = Field(description="The position where the chain first breaks.")
    reason: str
    redacted: int = Field(
        description="Records withheld from a player (his export: position and hash only)."
    )
    concealed: int = Field(
        description="Records partly concealed from this reader: some data members changed "
        "(named in each record's `withheld`), so only their place in the chain is checked."
    )


class DiceMismatch(BaseModel):
    position: int
    roll: str
    die: int = Field(description="The face's ordinal (from 1) in that record's roll.")
    face: int = Field(description="The face recorded.")
    expected: int = Field(description="The face re-derived from the secret or seed.")


class DiceVerdict(BaseModel):
    checked: int = Field(description="Faces re-derived and equal.")
    manual: int = Field(description="Faces typed in by the table: nothing to prove.")
    unrevealed: int = Field(description="Server faces whose secret is not revealed yet.")
    inherited: int = Field(description="A fork's copied faces: proven by the original.")
    withheld: int = Field(
        description="A player's export: faces not keyed, his command's earlier records withheld."
    )
    mismatches: list[DiceMismatch]
    bad_reveals: list[int] = Field(description="Reveals whose secret misses its commitment.")
    ok: bool = Field(description="No mismatch and no bad reveal.")


class CheckpointVerdict(BaseModel):
    status: Literal[
        "none",
        "malformed",
        "unknown_key",
        "bad_signature",
        "truncated",
        "mismatch",
        "complete",
        "after_checkpoint",
    ] = Field(description="docs/audit-spec.md §6.1.")
    ok: bool
    position: int | None
    time: str | None
    key: str | None
    encounter: str | None = Field(description="The encounter the checkpoint names.")
    missing: list[int] | None = Field(description="[first, last] positions cut off.")
    unsigned: list[int] | None = Field(description="[first, last] positions no signature covers.")
    reason: str


class Verification(BaseModel):
    ok: bool = Field(description="The chain, the dice and the checkpoint are all ok.")
    chain: ChainVerdict
    dice: DiceVerdict | None = Field(description="Null when the chain breaks.")
    checkpoint: CheckpointVerdict | None = Field(description="Null when the chain breaks.")


class Checkpoint(BaseModel):
    """The server's Ed25519-signed word that an encounter's record reached `position`."""

    encounter: str
    position: int
    hash: str = Field(description="The hash of the event at `position`.")
    time: str
    key: str = Field(description="The signing key's id (GET /audit/keys).")
    signature: str = Field(description="Hex; over docs/audit-spec.md §6's signed bytes.")


class Checkpoints(BaseModel):
    checkpoints: list[Checkpoint]


class SigningKey(BaseModel):
    id: str = Field(description="SHA-256 (hex) of the raw public key.")
    algorithm: Literal["Ed25519"]
    public_key: str = Field(description="The 32-byte raw public key, hex.")
    created: str
    retired: str | None = Field(
        description="When it stopped signing (its private key deleted); it revokes nothing."
    )
    current: bool


class SigningKeys(BaseModel):
    keys: list[SigningKey]


class Problem(BaseModel):
    type: str = "about:blank"
    title: str
    status: int
    detail: str
    rule: str | None = Field(default=None, description="The rule id (or area) that refused.")
    field: str | None = Field(default=None, description="The request field at fault.")
    roll: str | None = Field(default=None, description="Bad dice: the roll name.")
    die: int | None = Field(default=None, description="Bad dice: which die (1-based).")
    needed: DiceAsked | None = Field(
        default=None, description="DICE_NEEDED: the next roll to make, one face at a time."
    )
    so_far: list[EventRecord] | None = Field(
        default=None,
        description="DICE_NEEDED: what the faces already given decided: the events the "
        "command would record up to the missing face (not recorded), each with its `text`.",
    )
    errors: list[dict[str, Any]] | None = None


class NovusAction(BaseModel):
    """A Novus action of the declaration (NOV-AP)."""

    model_config = ConfigDict(extra="forbid")

    kind: str
    label: str
    rule: str
    needs_target: bool
    weapon_kinds: list[str]
    ap_by_weapon_size: dict[str, int] | None
    ap: int | None = Field(description="Its AP cost, where fixed.")
    ap_range: list[int] | None = Field(description="The AP it may take, where a range.")
    attack: bool
    spell: bool
    rolls: list[str]


class WitsAction(BaseModel):
    """A Wits command and the actions of the round it uses (WIT-ACT)."""

    model_config = ConfigDict(extra="forbid")

    command: str
    actions: int
    rule: str
    label: str


class PhantasiaAction(BaseModel):
    """A PHANTÄSIA action: its command, kind and Spanish name (PHA-ACT)."""

    model_config = ConfigDict(extra="forbid")

    command: str
    kind: str | None
    offensive: bool | None
    rule: str
    es: str
    action_points: int


class CombatMove(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ab: int
    def_: int = Field(alias="def", serialization_alias="def")
    ap: int
    bd: int
    scaled: bool
    armour: bool


class Boon(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    label: str
    cost: int
    plus: bool
    effect: str
    recorded: bool


class Snag(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    label: str
    cost: int
    recorded: bool


class StatusEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    es: str
    kind: str
    rule: str
    mods: dict[str, int] | None = None


class RulesetDescription(BaseModel):
    """What a rule system needs and offers: a stats form, its options, its actions."""

    model_config = ConfigDict(extra="forbid")

    name: RulesetName
    title: str = Field(description="The book's name as its readers spell it: `PHANTÄSIA`.")
    stats_schema: dict[str, Any] = Field(
        description="The JSON Schema of a combatant's stats (the form to add one; typed as "
        "NovusStats, WitsStats, PhantasiaStats in this document)."
    )
    options_schema: dict[str, Any] | None = Field(
        description="The JSON Schema of the encounter's options (null: it takes none)."
    )
    actions: list[NovusAction | WitsAction | PhantasiaAction] = Field(
        description="The action catalogue, each with its cost, rule ids and label."
    )
    conditions: list[str] = Field(description="The conditions set_condition takes.")
    health_states: dict[str, str] = Field(
        description="A combatant's `health_state`, in words (docs/visibility.md)."
    )
    health_states_es: dict[str, str] | None = Field(
        default=None, description="PHANTÄSIA: the same in Spanish."
    )
    combat_moves: dict[str, CombatMove] | None = Field(default=None, description="Novus.")
    boons: list[Boon] | None = Field(default=None, description="Novus: Boons.")
    snags: list[Snag] | None = Field(default=None, description="Novus: Snags.")
    called_shots: dict[str, int] | None = Field(
        default=None, description="Wits: each body part's modifier (WIT-CALL-1)."
    )
    statuses: dict[str, StatusEntry] | None = Field(default=None, description="PHANTÄSIA.")
    fumble_table: dict[int, str] | None = Field(
        default=None, description="PHANTÄSIA: the d6 fumble table, by face."
    )
    table: Table = Field(
        description="How the web table presents the book: its title and languages, the "
        "health measure, the order's figure, a card's figures, tags and state, the replay's "
        "facts and flags, an example stat block (its table.py, docs/web.md)."
    )
