"""Encounters: create, add combatants, run commands, read views, events and the log, mint
player tokens, follow the live feed."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Annotated, Any, Literal
from uuid import UUID

from fastapi import APIRouter, Body, Depends, Header, Path, Query, Request, Response
from fastapi.responses import JSONResponse, StreamingResponse
from sse_starlette import EventSourceResponse
from starlette.background import BackgroundTask
from starlette.concurrency import run_in_threadpool

from api import schemas as s
from api.deps import (
    Credentials,
    FeedDep,
    FraylogDep,
    GmDep,
    ReaderDep,
    actor_of,
    error_lang,
    grant_for,
    log_lang,
    token_grant,
)
from api.problems import PROBLEM, needed_in
from api.schemas import MAX_POSITION
from domain.commands import Command
from domain.corrections import voided_by
from domain.encounter import GM
from domain.errors import DomainError, NotFound
from domain.events import Correction
from domain.fold import evolve
from infra.access import PLAYER_ROLE, Grant, request_hash
from infra.app import Fraylog
from projections.diff import diff_views
from projections.export import csv_records, ndjson_records, record_of, records, trailer
from projections.narrative import Lang, check_lang, narrative, told
from projections.view import combatant_view_of, encounter_view
from projections.visibility import (
    Sight,
    choices_for_player,
    for_player,
    scrubbed,
    view_for_player,
)

router = APIRouter(prefix="/encounters", tags=["encounters"])
ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": s.Problem, "content": {PROBLEM: {}}}
    for code in (400, 401, 403, 404, 409, 413, 422)
}
After = Annotated[
    int,
    Query(ge=0, le=MAX_POSITION, description="Only events after position N (a page's start)."),
]
Until = Annotated[
    int | None, Query(ge=1, le=MAX_POSITION, description="Only events up to position N.")
]


def _links(encounter: str, **more: dict[str, Any]) -> dict[str, Any]:
    """OpenAPI links from an answer to what can follow it (clients and schemathesis's
    stateful runs use them)."""
    follow = (
        "get_encounter",
        "add_combatant",
        "run_command",
        "get_events",
        "get_log",
        "verify_encounter",
        "get_checkpoints",
        "sign_checkpoint",
        "mint_player_token",
        "fork_encounter",
    )
    links = {
        name: {"operationId": name, "parameters": {"encounter_id": encounter}} for name in follow
    }
    return links | more


FIGHTER = {  # a Novus combatant, for a link that adds one (a Wits encounter refuses it)
    "name": "Brakka",
    "stats": {
        "hits": 30,
        "bonuses": {"spd": 2, "wis": 1, "dex": 2},
        "melee_ranks": 7,
        "weapons": [{"name": "sword", "dr": 6, "stat": "dex", "ranks": 7}],
    },
}
ENCOUNTER_LINKS = {
    201: {
        "links": _links(
            "$response.body#/id",
            add_fighter={
                "operationId": "add_combatant",
                "parameters": {"encounter_id": "$response.body#/id"},
                "requestBody": FIGHTER,
            },
        )
    }
}
COMBATANT_LINKS = {
    201: {
        "links": _links(
            "$request.path.encounter_id",
            roll_initiative={
                "operationId": "run_command",
                "parameters": {"encounter_id": "$request.path.encounter_id"},
                "requestBody": {"type": "roll_initiative", "combatant": "$response.body#/id"},
            },
            adjust_hits={
                "operationId": "run_command",
                "parameters": {"encounter_id": "$request.path.encounter_id"},
                "requestBody": {
                    "type": "adjust_hits",
                    "combatant": "$response.body#/id",
                    "amount": -3,
                },
            },
            player_token={
                "operationId": "mint_player_token",
                "parameters": {"encounter_id": "$request.path.encounter_id"},
                "requestBody": {"combatants": ["$response.body#/id"]},
            },
        )
    }
}


def _created(fraylog: Fraylog, state: Any) -> dict[str, Any]:
    """The view of a new encounter with its GM token, shown once."""
    token = fraylog.access.mint(state.id, "gm") if fraylog.settings.auth else None
    return {**encounter_view(state), "gm_token": token}


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
    return await run_in_threadpool(_created, fraylog, recorded.state)


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
    sight = await run_in_threadpool(_player_sight, fraylog, encounter_id, grant)
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


@router.post(
    "/{encounter_id}/commands",
    response_model=s.CommandResult | s.CommandPreview,
    responses=ERRORS,
    response_model_by_alias=True,
    operation_id="run_command",
)
async def run_command(
    encounter_id: UUID,
    fraylog: FraylogDep,
    grant: ReaderDep,
    command: Annotated[Command, Body()],
    idempotency_key: Annotated[
        str | None,
        Header(
            min_length=1,
            max_length=200,
            description="Retry-safe: the same key with the same body returns the first "
            "answer and records nothing new; with another body it is a 422.",
        ),
    ] = None,
    lang: Annotated[Lang | None, Depends(error_lang)] = None,
    preview: Annotated[
        bool,
        Query(
            description="Run the command without recording it: the events it would record, "
            "the view after them, and `needed` if it stops at a face not given or at a "
            "server die (none is drawn). Nothing changes: version, idempotency keys, feed."
        ),
    ] = False,
) -> Any:
    """Run one command; returns the events it recorded and the new view. The GM may run any
    command; a player acts only for his own combatants (403 otherwise).

    Dice from the table (`dice_source: manual`) are asked for one roll at a time: a command
    that needs a face it was not given records nothing and answers 422 with rule
    `DICE_NEEDED`, `needed` (the next roll: name, die, sides, whose, in the table's words)
    and `so_far` (what the faces given decided); append the face to `dice[roll]` and send
    the same command again.

    A refusal's `detail` is in Spanish (with `Content-Language: es`) when asked for with
    `?lang=es` or an `Accept-Language` whose first language is `es`: the error's own Spanish
    text, or for bad dice and an unknown combatant or action a translation; any other
    refusal keeps its English detail."""
    actor_of(fraylog, grant, command.actor)  # refuses a body actor when tokens are on
    acting = grant if fraylog.settings.auth else None
    if preview:  # records nothing, so it keeps no idempotency key either
        return JSONResponse(
            await run_in_threadpool(_preview, fraylog, encounter_id, command, acting, lang)
        )
    if idempotency_key is None:  # the answer is JSON already: no second validation pass
        return JSONResponse(await run_in_threadpool(_run, fraylog, encounter_id, command, acting))
    key = f"{grant.token_hash}:{idempotency_key}"  # each token's keys are its own
    digest = request_hash(command.model_dump(mode="json"))
    state = await run_in_threadpool(fraylog.state, encounter_id)
    lease, first = await run_in_threadpool(
        fraylog.access.reserve, encounter_id, key, digest, state.version
    )
    if lease is None:
        return JSONResponse(first, headers={"Idempotent-Replayed": "true"})
    try:
        answer = await run_in_threadpool(_run, fraylog, encounter_id, command, acting)
    except DomainError:  # refused (or lost a race) before anything was saved
        await run_in_threadpool(fraylog.access.release, encounter_id, key, lease)
        raise
    # any other failure keeps the lease: the command may have been recorded
    await run_in_threadpool(fraylog.access.complete, encounter_id, key, lease, answer)
    return JSONResponse(answer)


def _run(fraylog: Fraylog, encounter_id: UUID, command: Any, grant: Grant | None) -> dict:
    recorded = fraylog.execute(encounter_id, command, grant)
    sight = _sight(fraylog, grant, recorded.state)
    return {
        "events": for_player([record_of(e) for e in recorded.events], sight),
        "encounter": view_for_player(encounter_view(recorded.state), sight),
    }


def _preview(
    fraylog: Fraylog, encounter_id: UUID, command: Any, grant: Grant | None, lang: Lang | None
) -> dict:
    previewed = fraylog.execute(encounter_id, command, grant, preview=True)
    needed = previewed.needed and needed_in(previewed.needed, lang == "es")
    sight = _sight(fraylog, grant, previewed.state)
    events = []
    if previewed.events:  # each with its log line, told from the state before them
        before = fraylog.state(encounter_id, previewed.events[0].originator_version - 1)
        events = told(before, previewed.events, lang == "es", sight)
    return {
        "preview": True,
        "events": events,  # told as the asking token may read them
        "encounter": view_for_player(encounter_view(previewed.state), sight),
        "needed": scrubbed(needed, sight) or None,
    }


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


def _a_player(fraylog: Fraylog, grant: Grant | None) -> Grant | None:
    """The grant if it is a player's; None for the GM (and in open mode, where everyone is)."""
    return None if grant is None or grant.is_gm or not fraylog.settings.auth else grant


def _sight(fraylog: Fraylog, grant: Grant | None, state: Any) -> Sight | None:
    """What a player's token may not see at `state` (docs/visibility.md); None for the GM."""
    player = _a_player(fraylog, grant)
    return None if player is None else fraylog.sight(UUID(state.id), player, state)


def _player_sight(fraylog: Fraylog, encounter_id: UUID, grant: Grant | None) -> Sight | None:
    """A player's sight as the encounter stands now; the GM's reads load nothing more."""
    player = _a_player(fraylog, grant)
    return None if player is None else fraylog.sight(encounter_id, player)


def _voided(fraylog: Fraylog, encounter_id: UUID, until: int | None) -> dict[int, int]:
    return voided_by(fraylog.corrections(encounter_id, until))


def _export(
    fraylog: Fraylog, encounter_id: UUID, until: int | None, fmt: str, sight: Sight | None
) -> Iterator[str]:
    """An export streamed page by page from the store, never held whole in memory (a
    player's: each record he may not read as a placeholder, docs/visibility.md)."""
    voided = _voided(fraylog, encounter_id, until)
    last = 0
    for n, page in enumerate(fraylog.event_pages(encounter_id, until=until)):
        rows = for_player(records(page, voided), sight)
        lines = csv_records(rows, header=n == 0) if fmt == "csv" else ndjson_records(rows)
        last = page[-1].originator_version
        yield "".join(lines)  # a page a chunk: a chunk a line costs more than the line
    yield trailer(fraylog.checkpoints.latest(encounter_id, last), fmt)


@router.get(
    "/{encounter_id}/events",
    response_model=s.EventLog,
    responses={**ERRORS, 200: {"content": {"application/x-ndjson": {}, "text/csv": {}}}},
    operation_id="get_events",
)
async def get_events(
    encounter_id: UUID,
    fraylog: FraylogDep,
    grant: ReaderDep,
    format: Annotated[Literal["json", "ndjson", "csv"], Query()] = "json",
    until: Until = None,
    after: After = 0,
    limit: Annotated[
        int | None,
        Query(ge=1, le=10_000, description="JSON: events in this page (default: page size)."),
    ] = None,
) -> Any:
    """The event log: JSON pages (`after`, `limit`, `next_after`), or the whole log streamed
    as NDJSON or CSV."""
    await run_in_threadpool(fraylog.event_log, encounter_id, 1)  # 404 for a missing one
    sight = await run_in_threadpool(_player_sight, fraylog, encounter_id, grant)
    if format in ("ndjson", "csv"):
        media = "application/x-ndjson" if format == "ndjson" else "text/csv"
        return StreamingResponse(
            _export(fraylog, encounter_id, until, format, sight), media_type=media
        )
    size = min(limit or fraylog.settings.page_size, fraylog.settings.page_size)
    page = await run_in_threadpool(fraylog.event_page, encounter_id, after, until, size + 1)
    more = len(page) > size
    page = page[:size]
    voided = await run_in_threadpool(_voided, fraylog, encounter_id, until)
    # the schema documents each event type's data; the records are sent as the store has them
    return JSONResponse(
        {
            "events": for_player(records(page, voided), sight),
            "next_after": page[-1].originator_version if more else None,
        }
    )


@router.get(
    "/{encounter_id}/log", response_model=s.NarrativeLog, responses=ERRORS, operation_id="get_log"
)
async def get_log(
    encounter_id: UUID,
    fraylog: FraylogDep,
    grant: ReaderDep,
    response: Response,
    lang: Annotated[Lang, Depends(log_lang)],
    until: Until = None,
) -> dict[str, Any]:
    """The narrative log: one readable line per event, voided ones marked.

    `lang=es` writes the lines in Spanish, in the PHANTÄSIA book's terms (PV, PM, narrador,
    ronda, turno), with `Content-Language: es`; it is offered for PHANTÄSIA encounters only
    (any other: 422, rule `LANG`, field `lang`). An event without a Spanish line yet keeps
    its English one."""
    events = await run_in_threadpool(fraylog.event_log, encounter_id, until)
    check_lang(lang, events[0].ruleset)
    if lang == "es":
        response.headers["Content-Language"] = "es"
    sight = await run_in_threadpool(_player_sight, fraylog, encounter_id, grant)
    kept = {r["position"] for r in for_player(map(record_of, events), sight) if "type" in r}
    lines = narrative(events, lang, sight)
    return {"lines": [line for line in lines if line["position"] in kept]}


@router.get(
    "/{encounter_id}/choices",
    response_model=s.Choices,
    responses=ERRORS,
    operation_id="get_choices",
)
async def get_choices(encounter_id: UUID, fraylog: FraylogDep, grant: ReaderDep) -> Any:
    """What the asking token may send now: the step and whose move it is, each command of
    play it may send for the combatants it acts for (complete, with the rolls it may ask
    for and the first one), and for the GM the overrides and corrections. A screen draws
    its buttons from this and needs no knowledge of the rules."""
    acting = grant if fraylog.settings.auth else None
    answer = await run_in_threadpool(fraylog.choices, encounter_id, acting)
    sight = await run_in_threadpool(_player_sight, fraylog, encounter_id, grant)
    return JSONResponse(choices_for_player(answer, sight))


@router.get(
    "/{encounter_id}/diff", response_model=s.VersionDiff, responses=ERRORS, operation_id="get_diff"
)
async def get_diff(
    encounter_id: UUID,
    fraylog: FraylogDep,
    grant: ReaderDep,
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
    sight = await run_in_threadpool(_player_sight, fraylog, encounter_id, grant)
    return diff_views(
        view_for_player(encounter_view(before), sight),
        view_for_player(encounter_view(after), sight),
    )


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
    return await run_in_threadpool(_created, fraylog, recorded.state)


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
    sight = await run_in_threadpool(_player_sight, fraylog, encounter_id, grant)
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


@router.get(
    "/{encounter_id}/stream",
    responses={
        **ERRORS,
        429: {"model": s.Problem, "content": {PROBLEM: {}}},
        200: {"content": {"text/event-stream": {}}},
    },
    response_class=EventSourceResponse,
    operation_id="stream_events",
)
async def stream(
    encounter_id: UUID,
    request: Request,
    fraylog: FraylogDep,
    feed: FeedDep,
    credentials: Credentials,
    after: Annotated[
        int | None, Query(ge=0, le=MAX_POSITION, description="Resume after position N.")
    ] = None,
    access_token: Annotated[
        str | None,
        Query(
            max_length=200,
            description="The bearer token, for clients that cannot send headers "
            "(a browser's EventSource).",
        ),
    ] = None,
    last_event_id: Annotated[
        str | None,
        Header(max_length=20, description="Sent by EventSource on reconnecting: resume after it."),
    ] = None,
    view: Annotated[
        bool,
        Query(
            description="After the events of each command, a message of type `view` whose "
            "data is the encounter view after them (as GET /encounters/{id} answers), so a "
            "screen never fetches again after an event."
        ),
    ] = False,
) -> EventSourceResponse:
    """The live feed (server-sent events): one message per stored event, its position as
    the SSE id and the event record as data, from position `after` (or `Last-Event-ID`) on;
    with `view=true`, a `view` message after each command's events; a comment every few
    seconds keeps idle connections open."""
    token = credentials.credentials if credentials else access_token
    grant = await grant_for(fraylog, encounter_id, token)
    await run_in_threadpool(fraylog.event_log, encounter_id, 1)  # 404 for a missing one
    # EventSource resends Last-Event-ID on reconnecting: it wins over an `after` in its URL
    start = _position(last_event_id) if last_event_id is not None else after or 0
    client = request.client.host if request.client else "?"
    holder = grant.token_hash if fraylog.settings.auth else f"open:{client}"
    feed.open_stream(holder)
    released = False

    def release() -> None:  # once, whether the stream ran (HEAD does not) or failed
        nonlocal released
        if not released:
            released = True
            feed.close_stream(holder)

    async def messages() -> AsyncIterator[dict[str, Any]]:
        try:
            # voided_by as of when each event is sent; later corrections come as events
            corrections = await run_in_threadpool(fraylog.corrections, encounter_id)
            views = (
                Views(
                    await run_in_threadpool(fraylog.state, encounter_id, start) if start else None
                )
                if view
                else None
            )
            async for page in feed.follow(encounter_id, start):
                if not await _still_allowed(fraylog, encounter_id, token):
                    return  # the token was revoked while the stream was open
                corrections += [e for e in page if isinstance(e, Correction)]
                complete = len(page) < fraylog.settings.page_size  # it ends where saves end
                # as things stand when the page is sent (the latest state: a page may end
                # in the middle of a command, and a reader chooses where it starts)
                sight = await run_in_threadpool(_player_sight, fraylog, encounter_id, grant)
                for event, rec in zip(page, records(page, voided_by(corrections)), strict=True):
                    if views is not None and (shown := views.before(event, sight)) is not None:
                        yield shown
                    rec = for_player([rec], sight)[0]
                    yield {"id": str(rec["position"]), "data": json.dumps(rec)}
                if views is not None and complete and (shown := views.now(sight)) is not None:
                    yield shown
        finally:
            release()

    return EventSourceResponse(
        messages(), ping=fraylog.settings.heartbeat_seconds, background=BackgroundTask(release)
    )


class Views:
    """The `view` messages of a stream: the state folded along the events sent (the one
    fold), its view sent once each command's events are all out (for a player, as he may
    see it, docs/visibility.md)."""

    def __init__(self, state: Any) -> None:
        self.state = state
        self.command: int | None = None  # the command of the last event folded
        self.shown = True

    def before(self, event: Any, sight: Sight | None = None) -> dict[str, Any] | None:
        """Fold `event`; the view of the command before it, if that one just ended."""
        shown = (
            self.now(sight) if self.command is not None and event.command != self.command else None
        )
        self.state = evolve(self.state, event)
        self.command, self.shown = event.command, False
        return shown

    def now(self, sight: Sight | None = None) -> dict[str, Any] | None:
        """The view after the last event folded, unless it was sent."""
        if self.shown or self.state is None:
            return None
        self.shown = True
        view = view_for_player(encounter_view(self.state), sight)
        return {"event": "view", "data": json.dumps(view)}


async def _still_allowed(fraylog: Fraylog, encounter_id: UUID, token: str | None) -> bool:
    try:
        await grant_for(fraylog, encounter_id, token)
    except DomainError:
        return False
    return True


def _position(last_event_id: str) -> int:
    if not (last_event_id.isascii() and last_event_id.isdigit()) or (
        int(last_event_id) > MAX_POSITION
    ):
        raise DomainError(
            "STREAM", "Last-Event-ID must be an event position", field="Last-Event-ID"
        )
    return int(last_event_id)
