"""Encounters: create, list, read and add combatants here; the rest of `/encounters`, a
module a topic: run commands (`commands.py`), players' tokens (`tokens.py`), events, the
log, choices and diffs (`reads.py`), fork, verify and checkpoints (`record.py`), the live
feed (`stream.py`)."""

from __future__ import annotations

from typing import Annotated, Any
from uuid import UUID

from fastapi import APIRouter, Query
from starlette.concurrency import run_in_threadpool

from api import schemas as s
from api.deps import Credentials, FraylogDep, GmDep, ReaderDep, actor_of, token_grant
from api.routes import commands, reads, record, stream, tokens
from api.routes.common import ERRORS, created, player_sight
from api.routes.links import COMBATANT_LINKS, ENCOUNTER_LINKS
from api.schemas import MAX_POSITION
from domain.encounter import GM
from infra.access import Grant
from projections.view import combatant_view_of, encounter_view
from projections.visibility import view_for_player

router = APIRouter(prefix="/encounters", tags=["encounters"])


@router.post(
    "",
    status_code=201,
    response_model=s.EncounterCreated,
    responses={**ERRORS, **ENCOUNTER_LINKS},
    response_model_by_alias=True,
    operation_id="create_encounter",
)
async def create_encounter(body: s.EncounterCreate, fraylog: FraylogDep) -> dict[str, Any]:
    """Start an encounter; its first event records the rule system, the dice source and the
    options. The answer holds the GM's token: keep it, it is shown only once."""
    actor = actor_of(fraylog, Grant("", GM), body.actor)
    recorded = await run_in_threadpool(
        fraylog.create_encounter,
        body.name,
        body.ruleset,
        body.dice_source,
        body.seed,
        body.options,
        actor,
    )
    return await run_in_threadpool(created, fraylog, recorded.state)


@router.get("", response_model=s.EncounterList, responses=ERRORS, operation_id="list_encounters")
async def list_encounters(
    fraylog: FraylogDep,
    credentials: Credentials,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> dict[str, Any]:
    """The encounters the token may read (its own), or with --no-auth all, oldest first."""
    held = await token_grant(fraylog, credentials)
    if held is None:
        return {"encounters": await run_in_threadpool(fraylog.list_encounters, limit)}
    state = await run_in_threadpool(fraylog.state, UUID(held.encounter_id), 1)
    summary = {k: getattr(state, k) for k in ("id", "name", "ruleset", "created_at")}
    return {"encounters": [summary]}


@router.get(
    "/{encounter_id}",
    response_model=s.EncounterPublic,
    responses=ERRORS,
    response_model_by_alias=True,
    operation_id="get_encounter",
)
async def get_encounter(
    encounter_id: UUID,
    fraylog: FraylogDep,
    grant: ReaderDep,
    version: Annotated[
        int | None, Query(ge=1, le=MAX_POSITION, description="The view after event N.")
    ] = None,
) -> dict[str, Any]:
    """The encounter view, now or as it was after event `version` (a player's token: without
    what the GM keeps from the players, docs/visibility.md)."""
    state = await run_in_threadpool(fraylog.state, encounter_id, version)
    sight = await run_in_threadpool(player_sight, fraylog, encounter_id, grant)
    return view_for_player(encounter_view(state), sight)


@router.post(
    "/{encounter_id}/combatants",
    status_code=201,
    response_model=s.CombatantAdded,
    responses={**ERRORS, **COMBATANT_LINKS},
    response_model_by_alias=True,
    operation_id="add_combatant",
)
async def add_combatant(
    encounter_id: UUID, body: s.CombatantCreate, fraylog: FraylogDep, grant: GmDep
) -> dict[str, Any]:
    """Add a combatant with the stats its rule system needs (the GM)."""
    combatant, recorded = await run_in_threadpool(
        fraylog.add_combatant,
        encounter_id,
        body.name,
        body.side,
        body.stats,
        body.expected_version,
        actor_of(fraylog, grant, body.actor),
        hidden=body.hidden,
        until_acting=body.until_acting,
        health=body.health,
    )
    return {
        "id": combatant,
        "combatant": combatant_view_of(recorded.state, combatant),
        "encounter": encounter_view(recorded.state),
    }


# after this module's own, in the order the OpenAPI document lists them
for part in (commands, tokens, reads, record, stream):
    router.include_router(part.router)
