"""An encounter read back: its events (JSON pages, or the whole log as NDJSON or CSV), its
narrative log, what the asking token may send now, and what changed between two versions;
each as the asking token may read it (docs/visibility.md)."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from typing import Annotated, Any, Literal
from uuid import UUID

from fastapi import APIRouter, Depends, Query, Request, Response
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import TypeAdapter
from starlette.concurrency import run_in_threadpool

from api import schemas as s
from api.deps import FraylogDep, ReaderDep, log_lang
from api.etag import NOT_MODIFIED, json_bytes
from api.kept_answers import Built, Viewer, kept_answer, reader
from api.routes.common import ERRORS, After, Until, player_sight
from api.routes.read_route import read_route
from api.schemas import MAX_POSITION
from domain.corrections import voided_by
from infra.access import Grant
from infra.app import Fraylog
from projections.diff import diff_views
from projections.export import csv_records, ndjson_records, records, trailer
from projections.narrative import Lang, check_lang
from projections.view import encounter_view
from projections.visibility import Sight, choices_for_player, for_player, view_for_player

router = APIRouter()


def _voided(fraylog: Fraylog, encounter_id: UUID, until: int | None) -> dict[int, int]:
    return voided_by(fraylog.corrections(encounter_id, until))


def _export(
    fraylog: Fraylog, encounter_id: UUID, until: int | None, fmt: str, sight: Sight | None
) -> Iterator[str]:
    """An export streamed page by page from the store, never held whole in memory (a
    player's: each record he may not read as a placeholder, docs/visibility.md); records
    made from the stored rows' JSON, the corrections read first, alone (infra.export_rows)."""
    from infra.export_rows import StoredLog

    log = StoredLog.of(fraylog)
    # the end read first, so a correction recorded meanwhile is in neither the voided
    # marks nor the pages (the export verifies as it was when asked for)
    until = min(until or MAX_POSITION, fraylog.last_position(encounter_id))
    voided = log.voided(encounter_id, until)
    last = 0
    for n, page in enumerate(log.pages(encounter_id, until=until)):
        if fmt == "ndjson" and sight is None:  # the GM's lines: the stored JSON's own text
            lines: Iterator[str] = log.ndjson(encounter_id, page, voided)
        else:
            rows = for_player(log.records(encounter_id, page, voided), sight)
            lines = csv_records(rows, header=n == 0) if fmt == "csv" else ndjson_records(rows)
        last = page[-1][0]  # its position
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
    sight = await run_in_threadpool(player_sight, fraylog, encounter_id, grant)
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


_LOG: TypeAdapter[s.NarrativeLog] = TypeAdapter(s.NarrativeLog)
_VIEW: TypeAdapter[Any] = TypeAdapter(s.EncounterPublic)


def _log(
    fraylog: Fraylog,
    encounter_id: UUID,
    lang: Lang,
    viewer: Viewer,
    until: int | None,
    after: int,
    end: int | None,
) -> Built:
    """The log's lines of the events after `after` up to `end` (None: to the last), from
    the kept log told on to the last event (projections.kept_lines), as the reader may read
    them."""
    check_lang(lang, fraylog.ruleset(encounter_id))  # a kept answer passed it once made
    with fraylog.narratives.told(encounter_id, lang) as kept:
        sight = None if viewer is None else kept.sight(*viewer)
        lines = kept.told(sight, after, end, until)
        last, version = kept.last(until), kept.version
    log = {"lines": lines, "next_after": end if end is not None and end < last else None}
    return version, json_bytes(_LOG, log)


def _view(fraylog: Fraylog, encounter_id: UUID, viewer: Viewer, asked: int | None) -> Built:
    """The view at `asked` (None: now) as the reader sees it; made at the version now, or
    not to be kept when an event was recorded between the state and the sight read."""
    state = fraylog.state(encounter_id, asked)
    now: int | None = state.version if asked is None else None
    sight = None
    if viewer is not None:
        with fraylog.narratives.told(encounter_id, "en") as kept:
            sight = kept.sight(*viewer)
            now = kept.version if now in (None, kept.version) else None
    elif now is None:
        now = fraylog.last_position(encounter_id)
    return now, json_bytes(_VIEW, view_for_player(encounter_view(state), sight))


async def kept_view(
    encounter_id: UUID,
    fraylog: Fraylog,
    grant: Grant | None,
    request: Request,
    version: int | None,
) -> Response:
    """GET /encounters/{id} (api/routes/encounters.py): the view, kept."""
    now, viewer = await reader(fraylog, encounter_id, grant)
    asked = None if version is None or version >= now else version
    build = partial(_view, fraylog, encounter_id, viewer, asked)
    return await kept_answer(request, fraylog, encounter_id, now, ("view", viewer, asked), build)


async def get_log(
    encounter_id: UUID,
    fraylog: FraylogDep,
    grant: ReaderDep,
    request: Request,
    lang: Annotated[Lang, Depends(log_lang)],
    until: Until = None,
    after: Annotated[
        int | None,
        Query(
            ge=0,
            le=MAX_POSITION,
            description="A page: the lines of the events after position N (default 0 when "
            "`limit` is given).",
        ),
    ] = None,
    limit: Annotated[
        int | None,
        Query(
            ge=1,
            le=10_000,
            description="A page: lines of this many events at most (default and cap: the "
            "page size).",
        ),
    ] = None,
) -> Response:
    """The narrative log: one readable line per event, voided ones marked; the whole log, or
    a page of it with `after` and `limit` (`next_after`: ask again from there).

    `lang=es` writes the lines in Spanish, in the PHANTÄSIA book's terms (PV, PM, narrador,
    ronda, turno), with `Content-Language: es`; it is offered for PHANTÄSIA encounters only
    (any other: 422, rule `LANG`, field `lang`). An event without a Spanish line yet keeps
    its English one. Its `ETag` is the answer's hash: `If-None-Match` holding it is
    answered `304 Not Modified`."""
    now, viewer = await reader(fraylog, encounter_id, grant)
    headers = {"Content-Language": "es"} if lang == "es" else {}
    end: int | None = None
    if after is not None or limit is not None:
        size = min(limit or fraylog.settings.page_size, fraylog.settings.page_size)
        end = (after or 0) + size
    key = ("log", viewer, lang, until, after or 0, end)
    build = partial(_log, fraylog, encounter_id, lang, viewer, until, after or 0, end)
    return await kept_answer(request, fraylog, encounter_id, now, key, build, headers)


LOG_ROUTE = read_route(lang="en")  # its common case by hand (api/routes/read_route.py)
router.add_api_route(
    "/{encounter_id}/log",
    get_log,
    methods=["GET"],
    response_model=s.NarrativeLog,
    responses={**ERRORS, **NOT_MODIFIED},
    operation_id="get_log",
    route_class_override=LOG_ROUTE,
)


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
    sight = await run_in_threadpool(player_sight, fraylog, encounter_id, grant)
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
    sight = await run_in_threadpool(player_sight, fraylog, encounter_id, grant)
    return diff_views(
        view_for_player(encounter_view(before), sight),
        view_for_player(encounter_view(after), sight),
    )
