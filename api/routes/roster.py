"""Campaigns: an account's roster (characters) and bestiary (creatures), each entry an event
stream of its own (infra.campaigns); a copy into an encounter (`from_roster` on POST
/encounters/{id}/combatants, through `copied`) and the lasting state carried back."""

from __future__ import annotations

from typing import Annotated, Any, Literal
from uuid import UUID

from fastapi import APIRouter, Depends, Query, Request
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from api.deps import AccountDep, FraylogDep
from api.registered import RulesetName
from api.routes.common import ERRORS
from domain import commands as c
from domain.errors import DomainError
from domain.roster import RosterEntryState, RosterKind
from domain.rulesystems import get_rule_system, rulesets
from domain.state import CombatantState
from infra.accounts import Account
from infra.app import EncounterNotFound, Fraylog
from infra.campaigns import Campaigns, CampaignsOnDemand, RosterEntryNotFound

router = APIRouter(prefix="/roster", tags=["roster"])


async def campaigns_on_demand(request: Request) -> CampaignsOnDemand:
    return request.app.state.campaigns


async def get_campaigns(
    held: Annotated[CampaignsOnDemand, Depends(campaigns_on_demand)],
) -> Campaigns:
    """The Campaigns application (opened by the first request that needs it)."""
    return held.opened or await run_in_threadpool(held.get)


OnDemandDep = Annotated[CampaignsOnDemand, Depends(campaigns_on_demand)]
CampaignsDep = Annotated[Campaigns, Depends(get_campaigns)]
Stats = Field(
    description="The rule book's stats, validated as a combatant's are (GET /rulesets/{name}: "
    "stats_schema).",
    examples=[{"hits": 30, "bonuses": {"dex": 2}, "weapons": [{"name": "sword", "dr": 6}]}],
)


# -- bodies and answers ------------------------------------------------------------------
class RosterEntryCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: RosterKind = Field(description="`character` (the roster) or `creature` (the bestiary).")
    ruleset: RulesetName = Field(description="The rule book the stats are for.")
    name: str = Field(min_length=1, max_length=60, examples=["Brakka"])
    side: str = Field(default="", max_length=60, examples=["players"])
    stats: dict[str, Any] = Stats


class StatsRevision(BaseModel):
    model_config = ConfigDict(extra="forbid")

    stats: dict[str, Any] = Stats
    name: str | None = Field(default=None, min_length=1, max_length=60, description="A new name.")
    side: str | None = Field(default=None, max_length=60, description="A new side.")
    expected_version: int | None = Field(default=None, ge=1, description="The entry's version.")


class LastingCarry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    encounter: UUID = Field(description="An encounter of the account, of the entry's rule book.")
    combatant: str = Field(
        min_length=1, max_length=60, description="The combatant whose state lasts (his id)."
    )
    expected_version: int | None = Field(default=None, ge=1, description="The entry's version.")


class Reason(BaseModel):
    model_config = ConfigDict(extra="forbid")

    reason: str = Field(default="", max_length=200, description="Why, for the history.")
    expected_version: int | None = Field(default=None, ge=1, description="The entry's version.")


class CarriedFromPublic(BaseModel):
    encounter: str = Field(description="The encounter it was carried from.")
    position: int = Field(description="The encounter's position it was read at.")
    combatant: str = Field(description="The combatant's id in that encounter.")
    combatant_name: str
    ended: bool = Field(description="Whether the encounter had ended by then.")


class RosterEntryPublic(BaseModel):
    id: str
    kind: RosterKind
    ruleset: str
    name: str
    side: str
    stats: dict[str, Any] = Field(description="The stat block as saved or last revised.")
    lasting: dict[str, Any] | None = Field(
        description="What lasts from the last fight carried (`hits` and what the rule book "
        "keeps); null: he starts the next fight from his stats."
    )
    carried_from: CarriedFromPublic | None
    retired: bool
    version: int = Field(description="The entry's version: its events so far.")
    saved_at: str
    revised_at: str


class RosterEntrySummary(BaseModel):
    id: str
    kind: RosterKind
    ruleset: str
    name: str
    retired: bool
    saved_at: str


class RosterList(BaseModel):
    entries: list[RosterEntrySummary]
    next: str | None = Field(description="The `after` of the next page; null on the last.")


class RosterEventRecord(BaseModel):
    position: int = Field(description="The entry's version after the event.")
    type: Literal[
        "RosterEntrySaved", "StatsRevised", "LastingStateCarried", "RestTaken", "RosterEntryRetired"
    ]
    timestamp: str
    data: dict[str, Any] = Field(description="The event's own fields.")


class RosterHistory(BaseModel):
    id: str
    events: list[RosterEventRecord]


def _public(entry: RosterEntryState) -> dict[str, Any]:
    return entry.model_dump(exclude={"account"})


# -- routes --------------------------------------------------------------------------------
@router.post(
    "",
    status_code=201,
    response_model=RosterEntryPublic,
    responses=ERRORS,
    operation_id="save_roster_entry",
)
async def save_roster_entry(
    body: RosterEntryCreate, account: AccountDep, campaigns: CampaignsDep
) -> dict[str, Any]:
    """Save a character (`kind: character`) or a creature of the bestiary (`creature`) on the
    account's roster; its stats are checked by its rule book as a combatant's are."""
    entry = await run_in_threadpool(
        campaigns.save_entry, account, body.kind, body.ruleset, body.name, body.side, body.stats
    )
    return _public(entry)


@router.get("", response_model=RosterList, responses=ERRORS, operation_id="list_roster")
async def list_roster(
    account: AccountDep,
    campaigns: CampaignsDep,
    kind: Annotated[RosterKind | None, Query(description="Only characters, or creatures.")] = None,
    ruleset: Annotated[str | None, Query(max_length=40, description="Only this rule book.")] = None,
    retired: Annotated[bool, Query(description="Retired entries too.")] = False,
    limit: Annotated[int, Query(ge=1, le=1000, description="At most this many.")] = 100,
    after: Annotated[
        str | None, Query(max_length=200, description="The `next` of the page before.")
    ] = None,
) -> dict[str, Any]:
    """The account's roster and bestiary, oldest saved first, a page at a time."""
    if ruleset is not None and ruleset not in rulesets():
        raise DomainError(
            "RULESET", f"no rule book {ruleset!r}; GET /rulesets lists them", field="ruleset"
        )
    page = await run_in_threadpool(
        campaigns.index.listed,
        account,
        limit=limit,
        after=after,
        kind=kind,
        ruleset=ruleset,
        retired=retired,
    )
    return {"entries": page.entries, "next": page.next}


@router.get(
    "/{entry_id}",
    response_model=RosterEntryPublic,
    responses=ERRORS,
    operation_id="get_roster_entry",
)
async def get_roster_entry(
    entry_id: UUID, account: AccountDep, campaigns: CampaignsDep
) -> dict[str, Any]:
    """The entry now, with the lasting state carried from its last fight."""
    entry = await run_in_threadpool(campaigns.entry, account, entry_id)
    return _public(entry.state)


@router.get(
    "/{entry_id}/history",
    response_model=RosterHistory,
    responses=ERRORS,
    operation_id="get_roster_entry_history",
)
async def get_roster_entry_history(
    entry_id: UUID, account: AccountDep, campaigns: CampaignsDep
) -> dict[str, Any]:
    """The entry's events, oldest first: saved, stats revised, lasting state carried (from
    which encounter and position), rests, retired."""
    events = await run_in_threadpool(campaigns.history, account, entry_id)
    return {"id": str(entry_id), "events": events}


@router.post(
    "/{entry_id}/stats",
    response_model=RosterEntryPublic,
    responses=ERRORS,
    operation_id="revise_roster_entry",
)
async def revise_roster_entry(
    entry_id: UUID, body: StatsRevision, account: AccountDep, campaigns: CampaignsDep
) -> dict[str, Any]:
    """New stats (checked by the entry's rule book), with a new name or side if given. The
    lasting state stays."""
    entry = await run_in_threadpool(
        campaigns.revise,
        account,
        entry_id,
        body.stats,
        body.name,
        body.side,
        body.expected_version,
    )
    return _public(entry)


def _owned_state(fraylog: Fraylog, account: Account, encounter_id: UUID) -> Any:
    if not fraylog.accounts.owns(account, str(encounter_id)):
        raise EncounterNotFound("ENCOUNTER", f"no encounter {encounter_id}", field="encounter")
    return fraylog.state(encounter_id)


def _carried(
    fraylog: Fraylog, campaigns: Campaigns, account: Account, entry_id: UUID, body: LastingCarry
) -> RosterEntryState:
    campaigns.entry(account, entry_id)  # another account's entry: 404 before the encounter
    state = _owned_state(fraylog, account, body.encounter)
    return campaigns.carry(account, entry_id, state, body.combatant, body.expected_version)


@router.post(
    "/{entry_id}/carry",
    response_model=RosterEntryPublic,
    responses=ERRORS,
    operation_id="carry_lasting_state",
)
async def carry_lasting_state(
    entry_id: UUID,
    body: LastingCarry,
    account: AccountDep,
    campaigns: CampaignsDep,
    fraylog: FraylogDep,
) -> dict[str, Any]:
    """Carry what lasts of a combatant (his rule book says what: hits and wounds, Current
    Health, PV, PM and PHANTÄSIA points) from an encounter of the account, as it stands now,
    to the entry: the next copy starts from it. At any point the GM chooses; the history
    says whether the encounter had ended."""
    entry = await run_in_threadpool(_carried, fraylog, campaigns, account, entry_id, body)
    return _public(entry)


@router.post(
    "/{entry_id}/rest",
    response_model=RosterEntryPublic,
    responses=ERRORS,
    operation_id="rest_roster_entry",
)
async def rest_roster_entry(
    entry_id: UUID, body: Reason, account: AccountDep, campaigns: CampaignsDep
) -> dict[str, Any]:
    """A rest: the lasting state is cleared, the next copy starts from the stats again
    (healing between fights is out of the log: NOV-HITS-7, PHA-OUT-1)."""
    entry = await run_in_threadpool(
        campaigns.rest, account, entry_id, body.reason or "rest", body.expected_version
    )
    return _public(entry)


@router.delete(
    "/{entry_id}",
    response_model=RosterEntryPublic,
    responses=ERRORS,
    operation_id="retire_roster_entry",
)
async def retire_roster_entry(
    entry_id: UUID, account: AccountDep, campaigns: CampaignsDep
) -> dict[str, Any]:
    """Retire the entry: it is no longer listed nor copied; it and its history stay readable."""
    entry = await run_in_threadpool(campaigns.retire, account, entry_id, "retired")
    return _public(entry)


# -- a copy into an encounter ----------------------------------------------------------------
def _free_name(fraylog: Fraylog, encounter_id: UUID, name: str) -> str:
    """A creature copied again gets the next free number: Goblin, Goblin 2, Goblin 3, ..."""
    taken = {who.name for who in fraylog.state(encounter_id).combatants.values()}
    number = 2
    free = name
    while free in taken:
        free = f"{name[:55]} {number}"
        number += 1
    return free


def copied(
    fraylog: Fraylog,
    campaigns: CampaignsOnDemand,
    account: Account | None,
    encounter_id: UUID,
    entry_id: UUID,
    name: str | None,
    side: str | None,
) -> tuple[str, str, dict[str, Any], Any]:
    """A roster entry as a new combatant of the encounter: his name, side, stats as the fight
    starts him, and the GM's commands run on him in the same save (the GM's note of which
    entry and version he came from, then what the stat block cannot say of his lasting
    state). The GM must send the account key owning the encounter and the entry."""
    if account is None:
        raise RosterEntryNotFound(
            "ROSTER",
            f"no roster entry {entry_id}: from_roster needs the key of the account whose "
            "roster holds it",
            field="from_roster",
        )
    ruleset = fraylog.ruleset(encounter_id)
    copy = campaigns.get().copy(account, entry_id, ruleset, name, side)
    if name is None and copy.kind == "creature":
        copy.name = _free_name(fraylog, encounter_id, copy.name)
    lasting = get_rule_system(ruleset).lasting

    def then(him: CombatantState) -> list[Any]:
        noted = c.TakeNote(text=copy.note, combatant=him.id)
        return [noted, *(lasting.commands(him, copy.lasting) if copy.lasting else [])]

    return copy.name, copy.side, copy.stats, then
