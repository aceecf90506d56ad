"""An encounter's history: fork a new encounter from its first events, verify its chain and
dice, sign checkpoints of it and list them (docs/record.md)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from fastapi import APIRouter
from starlette.concurrency import run_in_threadpool

from api import schemas as s
from api.deps import FraylogDep, GmDep, ReaderDep, actor_of
from api.routes.common import ERRORS, created, player_sight
from api.routes.links import ENCOUNTER_LINKS

router = APIRouter()


@router.post(
    "/{encounter_id}/fork",
    status_code=201,
    response_model=s.EncounterCreated,
    responses={**ERRORS, **ENCOUNTER_LINKS},
    response_model_by_alias=True,
    operation_id="fork_encounter",
)
async def fork_encounter(
    encounter_id: UUID, body: s.ForkCreate, fraylog: FraylogDep, grant: GmDep
) -> dict[str, Any]:
    """A new encounter whose history is this one's first `at` events (the GM); the answer
    holds the fork's own GM token."""
    recorded = await run_in_threadpool(
        fraylog.fork, encounter_id, body.at, body.name, actor_of(fraylog, grant, body.actor)
    )
    return await run_in_threadpool(created, fraylog, recorded.state)


@router.get(
    "/{encounter_id}/verify",
    response_model=s.Verification,
    responses=ERRORS,
    operation_id="verify_encounter",
)
async def verify(encounter_id: UUID, fraylog: FraylogDep, grant: ReaderDep) -> dict[str, Any]:
    """Recompute the hash chain, re-derive every seeded and revealed server face, and check
    the latest checkpoint against this server's keys (a player's token: over the records
    he may read, as his export would give)."""
    sight = await run_in_threadpool(player_sight, fraylog, encounter_id, grant)
    return await run_in_threadpool(fraylog.verify, encounter_id, sight)


@router.post(
    "/{encounter_id}/checkpoints",
    status_code=201,
    response_model=s.Checkpoint,
    responses=ERRORS,
    operation_id="sign_checkpoint",
)
async def sign_checkpoint(encounter_id: UUID, fraylog: FraylogDep, grant: GmDep) -> dict[str, Any]:
    """Sign a checkpoint of the encounter as it stands now (the GM): its id, the position
    and hash of its last event, the time. The server signs one by itself at each round's
    end and at end_encounter; an export carries the latest (docs/record.md)."""
    return await run_in_threadpool(fraylog.checkpoint, encounter_id)


@router.get(
    "/{encounter_id}/checkpoints",
    response_model=s.Checkpoints,
    responses=ERRORS,
    operation_id="get_checkpoints",
)
async def get_checkpoints(
    encounter_id: UUID, fraylog: FraylogDep, grant: ReaderDep
) -> dict[str, Any]:
    """Every checkpoint signed of this encounter, in order of position: keep the latest to
    tell later whether an export you are given is cut short."""
    await run_in_threadpool(fraylog.event_log, encounter_id, 1)  # 404 for a missing one
    return {"checkpoints": await run_in_threadpool(fraylog.checkpoints.of, encounter_id)}
