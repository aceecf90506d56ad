"""Run a command on an encounter: recorded, previewed, or replayed from its idempotency
key."""

from __future__ import annotations

from contextvars import ContextVar
from typing import Annotated, Any
from uuid import UUID

from fastapi import APIRouter, Body, Depends, Header, Query
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError
from pydantic_core import to_json
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response

from api import schemas as s
from api.deps import FraylogDep, ReaderDep, actor_of, error_lang
from api.problems import needed_in
from api.registered import CommandBody
from api.routes.command_route import CommandRoute
from api.routes.common import ERRORS, reads_all, sight_at
from api.routes.links import COMMAND_LINKS
from domain.errors import DomainError
from infra.access import Grant
from infra.app import Fraylog
from infra.idempotency import Mark, request_hash
from projections.export import record_of
from projections.narrative import Lang, told
from projections.view import encounter_view
from projections.visibility import for_player, scrubbed, view_for_player

router = APIRouter(route_class=CommandRoute)  # its parameters read by hand (command_route.py)
IdempotencyKey = Annotated[
    str | None,
    Header(
        min_length=1,
        max_length=200,
        description="Retry-safe: the same key with the same body returns the first "
        "answer and records nothing new; with another body it is a 422.",
    ),
]
Preview = Annotated[
    bool,
    Query(
        description="Run the command without recording it: the events it would record, "
        "the view after them, and `needed` if it stops at a face not given or at a "
        "server die (none is drawn). Nothing changes: version, idempotency keys, feed."
    ),
]


@router.post(
    "/{encounter_id}/commands",
    response_model=s.CommandResult | s.CommandPreview,
    responses={**ERRORS, **COMMAND_LINKS},
    response_model_by_alias=True,
    operation_id="run_command",
)
async def run_command(
    encounter_id: UUID,
    fraylog: FraylogDep,
    grant: ReaderDep,
    command: Annotated[CommandBody, Body()],
    idempotency_key: IdempotencyKey = None,
    lang: Annotated[Lang | None, Depends(error_lang)] = None,
    preview: Preview = False,
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
    ruleset = fraylog.known_ruleset(encounter_id)
    if ruleset is None:  # read from the store once
        ruleset = await run_in_threadpool(fraylog.ruleset, encounter_id)
    command = parsed(fraylog, encounter_id, command, ruleset)  # no I/O: no thread needed
    actor_of(fraylog, grant, command.actor)  # refuses a body actor when tokens are on
    acting = grant if fraylog.settings.auth else None
    if preview:  # records nothing, so it keeps no idempotency key either
        return json_answer(
            await run_in_threadpool(_preview, fraylog, encounter_id, command, acting, lang)
        )
    if idempotency_key is None:  # the answer is JSON already: no second validation pass
        answer = await answered_on_loop(fraylog, encounter_id, command, acting)
        if answer is None:  # not on the loop: decided and answered in a worker thread
            answer = await run_in_threadpool(_run, fraylog, encounter_id, command, acting)
        return json_answer(answer)
    key = f"{grant.token_hash}:{idempotency_key}"  # each token's keys are its own
    return await _run_once(fraylog, encounter_id, command, acting, key)


async def _run_once(
    fraylog: Fraylog, encounter_id: UUID, command: Any, acting: Grant | None, key: str
) -> Response:
    """Run a command under an idempotency key: the first answer again if the key holds one
    (`Idempotent-Replayed`), else run it and keep its answer under the key. A command
    recorded before its process stopped (the key marked with its events, no answer kept)
    is answered from the record, replayed."""
    digest = request_hash(command.model_dump(mode="json"))
    state = await run_in_threadpool(fraylog.state, encounter_id)
    reserved = await run_in_threadpool(
        fraylog.keys.reserve, encounter_id, key, digest, state.version
    )
    if reserved.answer is not None:
        return json_answer(reserved.answer, headers={"Idempotent-Replayed": "true"})
    lease = reserved.lease
    assert lease is not None
    if reserved.recorded is not None:
        answer = await run_in_threadpool(
            _recorded, fraylog, encounter_id, reserved.recorded, acting
        )
        await run_in_threadpool(fraylog.keys.complete, encounter_id, key, lease, answer)
        return json_answer(answer, headers={"Idempotent-Replayed": "true"})
    mark = fraylog.keys.mark(encounter_id, key, lease)
    try:
        answer = await run_in_threadpool(_run, fraylog, encounter_id, command, acting, mark)
    except DomainError:  # refused (or lost a race) before anything was saved
        await run_in_threadpool(fraylog.keys.release, encounter_id, key, lease)
        raise
    # any other failure keeps the lease: the command may have been recorded (the key says)
    await run_in_threadpool(fraylog.keys.complete, encounter_id, key, lease, answer)
    return json_answer(answer)


def json_answer(answer: dict[str, Any], headers: dict[str, str] | None = None) -> Response:
    """A command's answer as JSON, encoded once, by pydantic-core's encoder (the document
    the standard library's encoder makes, in about a fourth of the time)."""
    return Response(to_json(answer), media_type="application/json", headers=headers)


def parsed(fraylog: Fraylog, encounter_id: UUID, body: Any, ruleset: str) -> Any:
    """A command's body parsed by its encounter's rule book (the core's commands and its
    own); a body that is no command of it is refused as an invalid request (422)."""
    try:
        return fraylog.command(encounter_id, body, ruleset)
    except ValidationError as e:
        errors = [{**error, "loc": ("body", *error["loc"])} for error in e.errors()]
        raise RequestValidationError(errors, body=body) from None


def _run(
    fraylog: Fraylog,
    encounter_id: UUID,
    command: Any,
    grant: Grant | None,
    idempotency: Mark | None = None,
) -> dict:
    recorded = fraylog.execute(encounter_id, command, grant, idempotency=idempotency)
    return _answer(fraylog, grant, recorded.events, recorded.state)


# set by the command lane for the route when the loop has declined the request's command
# (nothing recorded): the route decides it in a worker thread without trying the loop again
DECLINED_ON_LOOP: ContextVar[bool] = ContextVar("declined_on_loop", default=False)


async def answered_on_loop(
    fraylog: Fraylog, encounter_id: UUID, command: Any, grant: Grant | None
) -> dict | None:
    """A command decided on the event loop and its answer (`Fraylog.execute_on_loop`), where
    the setting allows it and the store is not needed to decide it; None, having recorded
    nothing, where it must run in a worker thread. The answer is made on the loop for a
    reader of everything (the GM); a player's in a worker thread, since what he may see is
    read from the store (the party, the corrections)."""
    if not fraylog.settings.decide_on_loop or DECLINED_ON_LOOP.get():
        return None
    recorded = await fraylog.execute_on_loop(encounter_id, command, grant)
    if recorded is None:
        return None
    if reads_all(fraylog, grant):
        return _answer(fraylog, grant, recorded.events, recorded.state)
    return await run_in_threadpool(_answer, fraylog, grant, recorded.events, recorded.state)


def _recorded(
    fraylog: Fraylog, encounter_id: UUID, positions: tuple[int, int], grant: Grant | None
) -> dict:
    """The answer of a command recorded at `positions` (first, last), rebuilt from the
    store: its events, and the view after them."""
    first, last = positions
    events = fraylog.event_page(encounter_id, after=first - 1, until=last, size=last - first + 1)
    return _answer(fraylog, grant, events, fraylog.state(encounter_id, last))


def _answer(fraylog: Fraylog, grant: Grant | None, events: list[Any], state: Any) -> dict:
    """A command's answer as `grant` may read it: its events and the view after them."""
    sight = sight_at(fraylog, grant, state)
    return {
        "events": for_player([record_of(e) for e in events], sight),
        "encounter": view_for_player(encounter_view(state), sight),
    }


def _preview(
    fraylog: Fraylog, encounter_id: UUID, command: Any, grant: Grant | None, lang: Lang | None
) -> dict:
    previewed = fraylog.execute(encounter_id, command, grant, preview=True)
    needed = previewed.needed and needed_in(previewed.needed, lang == "es")
    sight = sight_at(fraylog, grant, previewed.state)
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
