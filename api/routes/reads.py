"""An encounter read back: its events (JSON pages, or the whole log as NDJSON or CSV), its
narrative log, what the asking token may send now, and what changed between two versions;
each as the asking token may read it (docs/visibility.md)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any, Literal
from uuid import UUID

from fastapi import APIRouter, Depends, Query, Request, Response
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import TypeAdapter
from starlette.concurrency import run_in_threadpool

from api import schemas as s
from api.deps import FraylogDep, ReaderDep, log_lang
from api.etag import NOT_MODIFIED, answer, json_bytes
from api.routes.common import ERRORS, After, Until, player_sight
from api.schemas import MAX_POSITION
from domain.corrections import voided_by
from infra.app import Fraylog
from projections.diff import diff_views
from projections.export import csv_records, ndjson_records, record_of, records, trailer
from projections.narrative import Lang, check_lang, narrative
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


def _log_lines(
    events: list[Any], lang: Lang, sight: Sight | None, after: int, end: int | None
) -> list[dict[str, Any]]:
    """The lines of the events after `after` up to `end` (None: to the last), each told from
    the state before it (so from the first event on), marked voided by any correction of
    `events`, without the events a player may not read."""
    told = events if end is None else [e for e in events if e.originator_version <= end]
    page = [e for e in told if e.originator_version > after]
    kept = {r["position"] for r in for_player(map(record_of, page), sight) if "type" in r}
    voided = voided_by(events)
    return [
        {**line, "voided_by": voided.get(line["position"])}
        for line in narrative(told, lang, sight)
        if line["position"] in kept
    ]


@router.get(
    "/{encounter_id}/log",
    response_model=s.NarrativeLog,
    responses={**ERRORS, **NOT_MODIFIED},
    operation_id="get_log",
)
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
    events = await run_in_threadpool(fraylog.event_log, encounter_id, until)
    check_lang(lang, events[0].ruleset)
    headers = {"Content-Language": "es"} if lang == "es" else {}
    sight = await run_in_threadpool(player_sight, fraylog, encounter_id, grant)
    end: int | None = None
    if after is not None or limit is not None:
        size = min(limit or fraylog.settings.page_size, fraylog.settings.page_size)
        end = (after or 0) + size
    lines = await run_in_threadpool(_log_lines, events, lang, sight, after or 0, end)
    last = events[-1].originator_version
    log = {"lines": lines, "next_after": end if end is not None and end < last else None}
    return answer(request, json_bytes(_LOG, log), headers)


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
