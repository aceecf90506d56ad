"""The players' tokens of an encounter: mint one bound to his combatants, list them,
revoke one (the GM's)."""

from __future__ import annotations

from typing import Annotated, Any
from uuid import UUID

from fastapi import APIRouter, Path, Response
from starlette.concurrency import run_in_threadpool

from api import schemas as s
from api.deps import FraylogDep, GmDep
from api.routes.common import ERRORS
from domain.errors import DomainError, NotFound
from infra.access import PLAYER_ROLE

router = APIRouter()


@router.post(
    "/{encounter_id}/tokens",
    status_code=201,
    response_model=s.TokenIssued,
    responses=ERRORS,
    operation_id="mint_player_token",
)
async def mint_player_token(
    encounter_id: UUID, body: s.TokenCreate, fraylog: FraylogDep, grant: GmDep
) -> dict[str, Any]:
    """A player's token, bound to his combatants (the GM). Shown only in this answer."""
    state = await run_in_threadpool(fraylog.state, encounter_id)
    for combatant in body.combatants:
        if combatant not in state.combatants:
            raise NotFound(
                "COMBATANT", f"no combatant {combatant!r} in this encounter", field="combatants"
            )
    if len(set(body.combatants)) != len(body.combatants):
        raise DomainError("COMBATANT", "a combatant is named twice", field="combatants")
    label = body.label or ", ".join(state.combatants[c].name for c in body.combatants)
    token = await run_in_threadpool(
        fraylog.access.mint, encounter_id, PLAYER_ROLE, body.combatants, label
    )
    issued = fraylog.access.grant(token)
    assert issued is not None
    return {
        "token": token,
        "id": issued.token_hash[:16],
        "role": PLAYER_ROLE,
        "combatants": sorted(body.combatants),
        "label": label,
    }


@router.get(
    "/{encounter_id}/tokens",
    response_model=s.PlayerTokens,
    responses=ERRORS,
    operation_id="list_player_tokens",
)
async def list_player_tokens(
    encounter_id: UUID, fraylog: FraylogDep, grant: GmDep
) -> dict[str, Any]:
    """The players' tokens of this encounter, without the tokens themselves (the GM)."""
    return {"tokens": await run_in_threadpool(fraylog.access.players, encounter_id)}


@router.delete(
    "/{encounter_id}/tokens/{token_id}",
    status_code=204,
    responses=ERRORS,
    operation_id="revoke_player_token",
)
async def revoke_player_token(
    encounter_id: UUID,
    token_id: Annotated[str, Path(min_length=16, max_length=16, pattern="^[0-9a-f]{16}$")],
    fraylog: FraylogDep,
    grant: GmDep,
) -> Response:
    """Revoke a player's token by its id (the GM); other workers stop honouring it within
    a few seconds."""
    if not await run_in_threadpool(fraylog.access.revoke, encounter_id, token_id):
        raise NotFound("TOKEN", f"no player token {token_id} in this encounter", field="token_id")
    return Response(status_code=204)
