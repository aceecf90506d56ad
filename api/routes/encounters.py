"""Encounters: create, list, read and add combatants here; the rest of `/encounters`, a
module a topic: run commands (`commands.py`), players' tokens (`tokens.py`), events, the
log, choices and diffs (`reads.py`), fork, verify and checkpoints (`record.py`), the live
feed (`stream.py`)."""

from __future__ import annotations

from typing import Annotated, Any, Literal
from uuid import UUID

from fastapi import APIRouter, Query, Request, Response
from starlette.concurrency import run_in_threadpool

from api import schemas as s
from api.deps import (
    Credentials,
    FraylogDep,
    GmDep,
    MaybeAccountDep,
    ReaderDep,
    actor_of,
    token_grant,
)
from api.deps import account as account_dep
from api.etag import NOT_MODIFIED
from api.routes import commands, reads, record, roster, statistics, stream, tokens
from api.routes.common import ERRORS, created
from api.routes.links import COMBATANT_LINKS, ENCOUNTER_LINKS
from api.routes.read_route import read_route
from api.schemas import MAX_POSITION
from domain.encounter import GM
from domain.errors import DomainError
from domain.rulesystems import rulesets
from infra.access import Grant
from infra.accounts import Account, is_account_key
from infra.app import Fraylog
from infra.cursors import after as page_after
from infra.cursors import cursor
from infra.read_model_views import projected as read_models_position
from projections.view import combatant_view_of, encounter_view

router = APIRouter(prefix="/encounters", tags=["encounters"])


@router.post(
    "",
    status_code=201,
    response_model=s.EncounterCreated,
    responses={**ERRORS, **ENCOUNTER_LINKS},
    response_model_by_alias=True,
    operation_id="create_encounter",
)
async def create_encounter(
    body: s.EncounterCreate, fraylog: FraylogDep, account: MaybeAccountDep
) -> dict[str, Any]:
    """Start an encounter; its first event records the rule system, the dice source and the
    options. The answer holds the GM's token: keep it, it is shown only once. Sent with an
    account key, the encounter is the account's (its key is the GM's token on it too)."""
    actor = actor_of(fraylog, Grant("", GM), body.actor)
    recorded = await run_in_threadpool(
        fraylog.create_encounter,
        body.name,
        body.ruleset,
        body.dice_source,
        body.seed,
        body.options,
        actor,
        account,
    )
    return await run_in_threadpool(created, fraylog, recorded.state)


def _listed(
    fraylog: Fraylog, account: Account, limit: int, after: str | None, **filters: Any
) -> dict[str, Any]:
    rows = fraylog.accounts.owned(
        account, limit=limit + 1, after=page_after(after) if after else None, **filters
    )
    projected = read_models_position(fraylog.read_tables)
    latest = fraylog.recorder.max_notification_id() or 0
    return {
        "encounters": rows[:limit],
        "next": cursor(rows[limit - 1]["last_activity"], rows[limit - 1]["id"])
        if len(rows) > limit
        else None,
        "read_models": {
            "projected": projected,
            "latest": latest,
            "behind": latest - (projected or 0),
        },
    }


@router.get("", response_model=s.EncounterList, responses=ERRORS, operation_id="list_encounters")
async def list_encounters(
    fraylog: FraylogDep,
    credentials: Credentials,
    limit: Annotated[int, Query(ge=1, le=1000, description="At most this many.")] = 100,
    after: Annotated[
        str | None,
        Query(max_length=200, description="An account's list: the `next` of the page before."),
    ] = None,
    ruleset: Annotated[
        str | None, Query(max_length=40, description="An account's list: only this rule book.")
    ] = None,
    status: Annotated[
        Literal["active", "ended"] | None,
        Query(description="An account's list: only encounters active, or ended."),
    ] = None,
    name: Annotated[
        str | None,
        Query(max_length=80, description="An account's list: names holding this (any case)."),
    ] = None,
) -> dict[str, Any]:
    """With an account key: the account's encounters from the read model, the most recently
    active first, paged and filtered, with the read models' lag. With an encounter's token:
    that encounter. With --no-auth and no key: every encounter, oldest first."""
    key = credentials.credentials if credentials else ""
    if ruleset is not None and ruleset not in rulesets():
        raise DomainError(
            "RULESET", f"no rule book {ruleset!r}; GET /rulesets lists them", field="ruleset"
        )
    if is_account_key(key):
        account = await account_dep(fraylog, credentials)
        return await run_in_threadpool(
            _listed, fraylog, account, limit, after, ruleset=ruleset, status=status, name=name
        )
    held = await token_grant(fraylog, credentials)
    if held is None:
        return {"encounters": await run_in_threadpool(fraylog.list_encounters, limit)}
    state = await run_in_threadpool(fraylog.state, UUID(held.encounter_id), 1)
    summary = {k: getattr(state, k) for k in ("id", "name", "ruleset", "created_at")}
    return {"encounters": [summary]}


async def get_encounter(
    encounter_id: UUID,
    fraylog: FraylogDep,
    grant: ReaderDep,
    request: Request,
    version: Annotated[
        int | None, Query(ge=1, le=MAX_POSITION, description="The view after event N.")
    ] = None,
) -> Response:
    """The encounter view, now or as it was after event `version` (a player's token: without
    what the GM keeps from the players, docs/visibility.md). Its `ETag` is the answer's
    hash: `If-None-Match` holding it is answered `304 Not Modified`."""
    return await reads.kept_view(encounter_id, fraylog, grant, request, version)


VIEW_ROUTE = read_route()  # its common case read by hand (api/routes/read_route.py)
router.add_api_route(
    "/{encounter_id}",
    get_encounter,
    methods=["GET"],
    response_model=s.EncounterPublic,
    responses={**ERRORS, **NOT_MODIFIED},
    response_model_by_alias=True,
    operation_id="get_encounter",
    route_class_override=VIEW_ROUTE,
)


@router.post(
    "/{encounter_id}/combatants",
    status_code=201,
    response_model=s.CombatantAdded,
    responses={**ERRORS, **COMBATANT_LINKS},
    response_model_by_alias=True,
    operation_id="add_combatant",
)
async def add_combatant(
    encounter_id: UUID,
    body: s.CombatantCreate,
    fraylog: FraylogDep,
    grant: GmDep,
    account: MaybeAccountDep,
    campaigns: roster.OnDemandDep,
) -> dict[str, Any]:
    """Add a combatant with the stats its rule system needs (the GM); or, with the account
    key, a copy of a roster entry (`from_roster`: docs/api.md, Campaigns)."""
    name, side, stats, then = body.name, body.side, body.stats, None
    if body.from_roster is not None:
        given_side = body.side if "side" in body.model_fields_set else None
        name, side, stats, then = await run_in_threadpool(
            roster.copied,
            fraylog,
            campaigns,
            account,
            encounter_id,
            body.from_roster,
            body.name,
            given_side,
        )
    combatant, recorded = await run_in_threadpool(
        fraylog.add_combatant,
        encounter_id,
        name,
        side,
        stats,
        body.expected_version,
        actor_of(fraylog, grant, body.actor),
        hidden=body.hidden,
        until_acting=body.until_acting,
        health=body.health,
        then=then,
    )
    return {
        "id": combatant,
        "combatant": combatant_view_of(recorded.state, combatant),
        "encounter": encounter_view(recorded.state),
    }


# after this module's own, in the order the OpenAPI document lists them
for part in (commands, tokens, reads, record, stream, statistics):
    router.include_router(part.router)
