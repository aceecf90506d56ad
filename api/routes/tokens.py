"""The tokens of an encounter (the GM's): mint a player's bound to his combatants, or another
GM token; list them a page at a time; revoke one; rotate the GM token."""

from __future__ import annotations

import base64
import binascii
import math
import re
from datetime import UTC, datetime
from typing import Annotated, Any
from uuid import UUID

from fastapi import APIRouter, Body, Path, Query, Response
from starlette.concurrency import run_in_threadpool

from api import schemas as s
from api.deps import FeedDep, FraylogDep, GmDep
from api.routes.common import ERRORS
from domain.errors import DomainError, NotFound
from infra.access import GM_ROLE, Grant, token_id
from infra.app import EncounterNotFound, Fraylog

router = APIRouter()
# apart, to come after every other encounter route: a rotation ends the GM token the
# others were called with (api/main.py includes it last)
rotation = APIRouter(prefix="/encounters", tags=["encounters"])
TokenId = Annotated[str, Path(min_length=16, max_length=16, pattern="^[0-9a-f]{16}$")]
Limit = Annotated[int, Query(ge=1, le=1000, description="At most this many.")]
After = Annotated[str | None, Query(max_length=200, description="The `next` of the page before.")]
CURSOR = re.compile(r"[0-9T:.+-]{19,40}\|[0-9a-f]{16}")


@router.post(
    "/{encounter_id}/tokens",
    status_code=201,
    response_model=s.TokenIssued,
    responses=ERRORS,
    operation_id="mint_player_token",
)
async def mint_token(
    encounter_id: UUID, body: s.TokenCreate, fraylog: FraylogDep, grant: GmDep, feed: FeedDep
) -> dict[str, Any]:
    """A player's token bound to his combatants, or (`role: gm`) another GM token (the
    GM). Shown only in this answer."""
    if body.role == GM_ROLE:
        if body.combatants:
            raise DomainError(
                "COMBATANT", "a GM token is bound to no combatant", field="combatants"
            )
        label = body.label or "GM"
    else:
        label = await _player_label(fraylog, encounter_id, body)
    expires_in = _within_own(fraylog, grant, body.expires_in)
    token = await run_in_threadpool(
        fraylog.access.mint, encounter_id, body.role, body.combatants, label, expires_in
    )
    feed.notify(str(encounter_id))  # the party changed: pages shared before it are not reused
    return await _issued(fraylog, token)


def _within_own(fraylog: Fraylog, grant: Grant, expires_in: int | None) -> int | None:
    """A token made with a token that expires expires no later than it: an expiring GM
    token cannot make itself, or anyone, a lasting one."""
    if grant.expires_at is None:
        return expires_in
    left = max(1, math.floor(grant.expires_at - fraylog.access.clock()))
    return left if expires_in is None else min(expires_in, left)


async def _player_label(fraylog: Fraylog, encounter_id: UUID, body: s.TokenCreate) -> str:
    """A player's token's label, once his combatants are found in the encounter."""
    if not body.combatants:
        raise DomainError(
            "COMBATANT", "a player's token acts for 1 to 20 combatants", field="combatants"
        )
    state = await run_in_threadpool(fraylog.state, encounter_id)
    for combatant in body.combatants:
        if combatant not in state.combatants:
            raise NotFound(
                "COMBATANT", f"no combatant {combatant!r} in this encounter", field="combatants"
            )
    if len(set(body.combatants)) != len(body.combatants):
        raise DomainError("COMBATANT", "a combatant is named twice", field="combatants")
    return body.label or ", ".join(state.combatants[c].name for c in body.combatants)


async def _issued(fraylog: Fraylog, token: str) -> dict[str, Any]:
    issued = await run_in_threadpool(fraylog.access.grant, token)
    assert issued is not None
    return {
        "token": token,
        "id": token_id(token),
        "role": issued.role,
        "combatants": sorted(issued.combatants),
        "label": issued.label,
        "expires_at": _iso(issued),
    }


def _iso(grant: Grant) -> str | None:
    if grant.expires_at is None:
        return None
    return datetime.fromtimestamp(grant.expires_at, UTC).isoformat(timespec="microseconds")


@router.get(
    "/{encounter_id}/tokens",
    response_model=s.TokenList,
    responses=ERRORS,
    operation_id="list_tokens",
)
async def list_tokens(
    encounter_id: UUID,
    fraylog: FraylogDep,
    grant: GmDep,
    limit: Limit = 100,
    after: After = None,
) -> dict[str, Any]:
    """The encounter's unexpired tokens, the GM's and the players', oldest first, without
    the tokens themselves (the GM); `next` is the `after` of the next page."""
    start = _after(after) if after else None
    rows = await run_in_threadpool(fraylog.access.tokens, encounter_id, limit + 1, start)
    more = len(rows) > limit
    return {"tokens": rows[:limit], "next": _cursor(rows[limit - 1]) if more else None}


def _cursor(row: dict[str, Any]) -> str:
    raw = f"{row['created_at']}|{row['id']}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _after(cursor: str) -> tuple[str, str]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (binascii.Error, ValueError):
        raw = ""
    if not CURSOR.fullmatch(raw):
        raise DomainError(
            "QUERY", "after is the `next` of a previous page, unchanged", field="after"
        )
    created_at, last = raw.split("|")
    return created_at, last


@router.delete(
    "/{encounter_id}/tokens/{token_id}",
    status_code=204,
    responses=ERRORS,
    operation_id="revoke_token",
)
async def revoke_token(
    encounter_id: UUID, token_id: TokenId, fraylog: FraylogDep, grant: GmDep, feed: FeedDep
) -> Response:
    """Revoke a token by its id, a player's or a GM's but not the last GM token (the GM);
    every worker of `fraylog serve --workers N` stops honouring it at once."""
    if not await run_in_threadpool(fraylog.access.revoke, encounter_id, token_id):
        raise NotFound("TOKEN", f"no token {token_id} in this encounter", field="token_id")
    feed.notify(str(encounter_id))  # the party may have changed, and its streams end now
    return Response(status_code=204)


@rotation.post(
    "/{encounter_id}/tokens/gm/rotate",
    status_code=201,
    response_model=s.TokenIssued,
    responses=ERRORS,
    operation_id="rotate_gm_token",
)
async def rotate_gm_token(
    encounter_id: UUID,
    fraylog: FraylogDep,
    grant: GmDep,
    body: Annotated[s.TokenRotate | None, Body()] = None,
) -> dict[str, Any]:
    """A new GM token in place of the one sent, which stops at once, in every worker of
    `serve --workers N` too (the GM). Shown only in this answer."""
    held = await run_in_threadpool(fraylog.access.grant_of, grant.token_hash)
    if not fraylog.settings.auth or held is None:
        raise DomainError(
            "TOKEN",
            "send the GM token to rotate in Authorization (open mode and account keys have none)",
            field="Authorization",
        )
    expires_in = _within_own(fraylog, grant, body.expires_in if body else None)
    token = await run_in_threadpool(
        fraylog.access.rotate, encounter_id, grant.token_hash, expires_in
    )
    if token is None:  # rotated or revoked meanwhile
        raise EncounterNotFound("ENCOUNTER", f"no encounter {encounter_id}")
    return await _issued(fraylog, token)
