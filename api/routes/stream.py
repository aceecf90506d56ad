"""The live feed of an encounter (server-sent events): each stored event as it is saved,
as the token may read it, and with `view=true` the encounter view after each command."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Annotated, Any, NamedTuple
from uuid import UUID

from fastapi import APIRouter, Header, Query, Request
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.background import BackgroundTask
from starlette.concurrency import run_in_threadpool

from api import schemas as s
from api.deps import Credentials, FeedDep, FraylogDep, ReaderDep, grant_for
from api.problems import PROBLEM
from api.routes.common import ERRORS, player_sight
from api.schemas import MAX_POSITION
from domain.corrections import voided_by
from domain.errors import DomainError
from domain.events import Correction
from domain.fold import evolve
from infra.access import Grant
from infra.app import EncounterNotFound, Fraylog
from infra.feed import Feed, Page
from infra.stream_tickets import TICKET_SECONDS
from projections.export import records
from projections.view import encounter_view
from projections.visibility import Sight, for_player, view_for_player

router = APIRouter()
Resume = Annotated[int | None, Query(ge=0, le=MAX_POSITION, description="Resume after position N.")]
Ticket = Annotated[
    str | None,
    Query(
        max_length=200,
        description="A stream ticket (POST /encounters/{id}/stream-tickets), for clients "
        "that cannot send headers (a browser's EventSource): single-use, for 60 seconds.",
    ),
]
LastEventId = Annotated[
    str | None,
    Header(max_length=20, description="Sent by EventSource on reconnecting: resume after it."),
]
WithViews = Annotated[
    bool,
    Query(
        description="After the events of each command, a message of type `view` whose "
        "data is the encounter view after them (as GET /encounters/{id} answers), so a "
        "screen never fetches again after an event."
    ),
]


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
    after: Resume = None,
    ticket: Ticket = None,
    last_event_id: LastEventId = None,
    view: WithViews = False,
) -> EventSourceResponse:
    """The live feed (server-sent events): one message per stored event, its position as
    the SSE id and the event record as data, from position `after` (or `Last-Event-ID`) on;
    with `view=true`, a `view` message after each command's events; a comment every few
    seconds keeps idle connections open."""
    token = credentials.credentials if credentials else None
    grant, holder = await _reader(fraylog, encounter_id, token, ticket)
    await run_in_threadpool(fraylog.event_log, encounter_id, 1)  # 404 for a missing one
    # EventSource resends Last-Event-ID on reconnecting: it wins over an `after` in its URL
    start = _position(last_event_id) if last_event_id is not None else after or 0
    client = request.client.host if request.client else "?"
    slot = grant.token_hash if fraylog.settings.auth else f"open:{client}"
    feed.open_stream(slot)
    release = _once(lambda: feed.close_stream(slot))
    follower = Follower(fraylog, feed, encounter_id, grant, token, holder)
    return EventSourceResponse(
        follower.messages(start, view, release),
        ping=fraylog.settings.heartbeat_seconds,
        background=BackgroundTask(release),
    )


async def _reader(
    fraylog: Fraylog, encounter_id: UUID, token: str | None, ticket: str | None
) -> tuple[Grant, str | None]:
    """Who follows: the token's grant (Authorization wins), else the ticket's, taken; and
    the hash of the token a ticket came from, to check again while the stream runs."""
    if token is not None or ticket is None or not fraylog.settings.auth:
        return await grant_for(fraylog, encounter_id, token), None
    redeemed = await run_in_threadpool(fraylog.access.redeem, encounter_id, ticket)
    if redeemed is None:  # unknown, used, expired, or its token revoked: as a bad token
        raise EncounterNotFound("ENCOUNTER", f"no encounter {encounter_id}")
    grant, by_token = redeemed
    return grant, grant.token_hash if by_token else None


@router.post(
    "/{encounter_id}/stream-tickets",
    status_code=201,
    response_model=s.StreamTicket,
    responses=ERRORS,
    operation_id="mint_stream_ticket",
)
async def mint_stream_ticket(
    encounter_id: UUID, fraylog: FraylogDep, grant: ReaderDep
) -> dict[str, Any]:
    """A ticket that opens this encounter's live feed once, within 60 seconds, as the
    token sent (the GM or a player): `GET …/stream?ticket=…` for a browser's EventSource,
    which cannot send the Authorization header. Shown only in this answer."""
    ticket = await run_in_threadpool(fraylog.access.ticket, grant)
    return {"ticket": ticket, "expires_in": TICKET_SECONDS}


def _once(close: Callable[[], None]) -> Callable[[], None]:
    """`close`, run once whichever calls it first: the stream's end (a HEAD runs none) or
    its failure, or the answer's background task."""
    closed = False

    def release() -> None:
        nonlocal closed
        if not closed:
            closed = True
            close()

    return release


class Follower:
    """One token following one encounter's feed."""

    def __init__(
        self,
        fraylog: Fraylog,
        feed: Feed,
        encounter_id: UUID,
        grant: Grant,
        token: str | None,
        holder: str | None = None,
    ) -> None:
        self.fraylog, self.feed, self.encounter_id = fraylog, feed, encounter_id
        self.grant, self.token, self.holder = grant, token, holder

    async def messages(
        self, start: int, view: bool, release: Callable[[], None]
    ) -> AsyncIterator[dict[str, Any] | bytes]:
        """The stream's messages from position `start` on, until the token is revoked or
        the client leaves; `release` once it ends."""
        fraylog, encounter_id = self.fraylog, self.encounter_id
        try:
            # voided_by as of when each event is sent; later corrections come as events
            corrections = await run_in_threadpool(fraylog.corrections, encounter_id)
            views = None
            if view:  # folded on from the state at `start`
                at = await run_in_threadpool(fraylog.state, encounter_id, start) if start else None
                views = Views(at)
            async for page in self.feed.follow(encounter_id, start):
                if not await self._still_allowed():
                    return  # the token was revoked while the stream was open
                corrections += [e for e in page if isinstance(e, Correction)]
                complete = len(page) < fraylog.settings.page_size  # it ends where saves end
                for message in _page(page, await self._sent(page, corrections), views, complete):
                    yield message
        finally:
            release()

    async def _sent(self, page: Page, corrections: list[Any]) -> Sent:
        """The page's messages as this token may read them, and its sight: worked out once
        for every follower of the page who reads alike (the same combatants, the same
        corrections), since a player's sight reads the encounter and its corrections."""
        fraylog, encounter_id, grant = self.fraylog, self.encounter_id, self.grant
        # who reads alike: a player's sight is his combatants'; the GM (and everyone in open
        # mode) reads everything, as `player_sight` says
        reader = None if grant.is_gm or not fraylog.settings.auth else grant.combatants
        # as things stand when the page is sent (the latest state: a page may end in the
        # middle of a command, and a reader chooses where it starts); the GM's is None
        sight = (
            None
            if reader is None
            else await page.shared(reader, lambda: player_sight(fraylog, encounter_id, grant))
        )
        voided = voided_by(corrections)
        key = (reader, tuple(voided.get(e.originator_version) for e in page))
        return Sent(page.kept(key, lambda: _messages(page, voided, sight)), sight)

    async def _still_allowed(self) -> bool:
        """The token sent (or the one the ticket came from) is neither revoked nor expired."""
        if self.token is None:  # a ticket's
            if self.holder is None:  # from an account key (never revoked), or open mode
                return True
            access = self.fraylog.access
            read, grant = await access.grant_of_on_loop(self.holder)  # PostgreSQL: no thread
            if not read:
                grant = await run_in_threadpool(access.grant_of, self.holder)
            return grant is not None
        try:
            await grant_for(self.fraylog, self.encounter_id, self.token)
        except DomainError:
            return False
        return True


class Sent(NamedTuple):
    """A page's event messages as a token may read them, and the sight they were read by."""

    messages: list[bytes]
    sight: Sight | None


def _messages(page: list[Any], voided: dict[int, int], sight: Sight | None) -> list[bytes]:
    """Each event's record as the token may read it, as an SSE message: encoded here once
    for every follower who reads it alike (as the response would encode it, by its
    separator)."""
    sep = EventSourceResponse.DEFAULT_SEPARATOR
    return [
        ServerSentEvent(id=str(rec["position"]), data=json.dumps(rec), sep=sep).encode()
        for rec in (for_player([rec], sight)[0] for rec in records(page, voided))
    ]


def _page(
    page: list[Any], sent: Sent, views: Views | None, complete: bool
) -> Iterator[dict[str, Any] | bytes]:
    """A page's messages: each event's record, and with `views` the view after each command
    that ended (after the last one if the page is `complete`)."""
    sight = sent.sight
    for event, message in zip(page, sent.messages, strict=True):
        if views is not None and (shown := views.before(event, sight)) is not None:
            yield shown
        yield message
    if views is not None and complete and (shown := views.now(sight)) is not None:
        yield shown


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


def _position(last_event_id: str) -> int:
    if not (last_event_id.isascii() and last_event_id.isdigit()) or (
        int(last_event_id) > MAX_POSITION
    ):
        raise DomainError(
            "STREAM", "Last-Event-ID must be an event position", field="Last-Event-ID"
        )
    return int(last_event_id)
