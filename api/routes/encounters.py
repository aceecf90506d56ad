"""Encounters: create, add combatants, run commands, read views, events and the log."""

from __future__ import annotations

from typing import Annotated, Any, Literal
from uuid import UUID

from fastapi import APIRouter, Body, Query
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from api import schemas as s
from api.deps import FraylogDep
from api.problems import PROBLEM
from api.schemas import MAX_POSITION
from domain.commands import Command
from domain.encounter import GM
from projections.diff import diff_views
from projections.export import csv_lines, ndjson_lines, record_of, records
from projections.narrative import narrative
from projections.view import combatant_view_of, encounter_view

router = APIRouter(prefix="/encounters", tags=["encounters"])
ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": s.Problem, "content": {PROBLEM: {}}} for code in (400, 404, 409, 422)
}


@router.post(
    "",
    status_code=201,
    response_model=s.EncounterPublic,
    responses=ERRORS,
    response_model_by_alias=True,
)
async def create_encounter(body: s.EncounterCreate, fraylog: FraylogDep) -> dict[str, Any]:
    """Start an encounter; its first event records the rule system and dice source."""
    recorded = await run_in_threadpool(
        fraylog.create_encounter,
        body.name,
        body.ruleset,
        body.dice_source,
        body.seed,
        body.options,
        body.actor or GM,
    )
    return encounter_view(recorded.state)


@router.get("", response_model=s.EncounterList, responses=ERRORS)
async def list_encounters(
    fraylog: FraylogDep, limit: Annotated[int, Query(ge=1, le=1000)] = 100
) -> dict[str, Any]:
    """List encounters, oldest first."""
    return {"encounters": await run_in_threadpool(fraylog.list_encounters, limit)}


@router.get(
    "/{encounter_id}",
    response_model=s.EncounterPublic,
    responses=ERRORS,
    response_model_by_alias=True,
)
async def get_encounter(
    encounter_id: UUID,
    fraylog: FraylogDep,
    version: Annotated[
        int | None, Query(ge=1, le=MAX_POSITION, description="The view after event N.")
    ] = None,
) -> dict[str, Any]:
    """The encounter view, now or as it was after event `version`."""
    state = await run_in_threadpool(fraylog.state, encounter_id, version)
    return encounter_view(state)


@router.post(
    "/{encounter_id}/combatants",
    status_code=201,
    response_model=s.CombatantAdded,
    responses=ERRORS,
    response_model_by_alias=True,
)
async def add_combatant(
    encounter_id: UUID, body: s.CombatantCreate, fraylog: FraylogDep
) -> dict[str, Any]:
    """Add a combatant with the stats its rule system needs."""
    combatant, recorded = await run_in_threadpool(
        fraylog.add_combatant,
        encounter_id,
        body.name,
        body.side,
        body.stats,
        body.expected_version,
        body.actor or GM,
    )
    return {
        "id": combatant,
        "combatant": combatant_view_of(recorded.state, combatant),
        "encounter": encounter_view(recorded.state),
    }


@router.post(
    "/{encounter_id}/commands",
    response_model=s.CommandResult,
    responses=ERRORS,
    response_model_by_alias=True,
)
async def run_command(
    encounter_id: UUID, fraylog: FraylogDep, command: Annotated[Command, Body()]
) -> dict[str, Any]:
    """Run one command; returns the events it recorded and the new view."""
    recorded = await run_in_threadpool(fraylog.execute, encounter_id, command)
    return {
        "events": [record_of(e) for e in recorded.events],
        "encounter": encounter_view(recorded.state),
    }


@router.get(
    "/{encounter_id}/events",
    response_model=s.EventLog,
    responses={**ERRORS, 200: {"content": {"application/x-ndjson": {}, "text/csv": {}}}},
)
async def get_events(
    encounter_id: UUID,
    fraylog: FraylogDep,
    format: Annotated[Literal["json", "ndjson", "csv"], Query()] = "json",
    until: Annotated[
        int | None, Query(ge=1, le=MAX_POSITION, description="Only events up to N.")
    ] = None,
) -> Any:
    """The event log: JSON (default), NDJSON or CSV."""
    events = await run_in_threadpool(fraylog.event_log, encounter_id, until)
    if format == "ndjson":
        return StreamingResponse(ndjson_lines(events), media_type="application/x-ndjson")
    if format == "csv":
        return StreamingResponse(csv_lines(events), media_type="text/csv")
    return {"events": list(records(events))}


@router.get("/{encounter_id}/log", response_model=s.NarrativeLog, responses=ERRORS)
async def get_log(
    encounter_id: UUID,
    fraylog: FraylogDep,
    until: Annotated[
        int | None, Query(ge=1, le=MAX_POSITION, description="Only events up to N.")
    ] = None,
) -> dict[str, Any]:
    """The narrative log: one readable line per event, voided ones marked."""
    events = await run_in_threadpool(fraylog.event_log, encounter_id, until)
    return {"lines": list(narrative(events))}


@router.get("/{encounter_id}/diff", response_model=s.VersionDiff, responses=ERRORS)
async def get_diff(
    encounter_id: UUID,
    fraylog: FraylogDep,
    from_: Annotated[
        int, Query(alias="from", ge=1, le=MAX_POSITION, description="The earlier version.")
    ],
    to: Annotated[
        int | None, Query(ge=1, le=MAX_POSITION, description="The later version (default: now).")
    ] = None,
) -> dict[str, Any]:
    """What changed for each combatant between two versions."""
    before = await run_in_threadpool(fraylog.state, encounter_id, from_)
    after = await run_in_threadpool(fraylog.state, encounter_id, to)
    return diff_views(encounter_view(before), encounter_view(after))


@router.post(
    "/{encounter_id}/fork",
    status_code=201,
    response_model=s.EncounterPublic,
    responses=ERRORS,
    response_model_by_alias=True,
)
async def fork_encounter(
    encounter_id: UUID, body: s.ForkCreate, fraylog: FraylogDep
) -> dict[str, Any]:
    """A new encounter whose history is this one's first `at` events."""
    recorded = await run_in_threadpool(
        fraylog.fork, encounter_id, body.at, body.name, body.actor or GM
    )
    return encounter_view(recorded.state)


@router.get("/{encounter_id}/verify", response_model=s.Verification, responses=ERRORS)
async def verify(encounter_id: UUID, fraylog: FraylogDep) -> dict[str, Any]:
    """Recompute the hash chain and re-derive every seeded and revealed server face."""
    return await run_in_threadpool(fraylog.verify, encounter_id)
