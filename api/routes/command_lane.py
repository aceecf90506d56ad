"""The command route's common case, answered before FastAPI routes the request (issue 19).

Most requests to the server are plain commands: POST /encounters/{id}/commands, a JSON
body, a token this process read lately (or reads on the event loop: PostgreSQL), no query,
no `Idempotency-Key`. Under load, the framework's routing of such a request (its exception
and exit-stack layers, matching the path among every route, the request and parameter
objects) cost more than deciding the command. The lane is the innermost middleware, inside
the app's own (quotas, the body's cap, `CleanInput`, which leaves the cleaned body's value
in the scope): it reads such a request as the command route would, decides it on the event
loop (`answered_on_loop`) and answers it with the route's own answer (`json_answer`).
Anything else, and any command the loop does not record (a refusal, a correction, a server
die, a turn held: nothing is recorded then), goes to the route unchanged, which reads and
answers it as it always did (told the loop declined the command, `DECLINED_ON_LOOP`, so it
is decided in a worker thread without a second try). The route stays the one documented in
the OpenAPI; tests/api/test_command_lane.py checks each answer is the route's.
"""

from __future__ import annotations

import re
from typing import Any
from uuid import UUID

from fastapi.exceptions import RequestValidationError
from fastapi.security.utils import get_authorization_scheme_param
from starlette.types import ASGIApp, Receive, Scope, Send

from api.clean_input import JSON_BODY, sent_as_json
from api.deps import actor_of, grant_without_threads
from api.routes.commands import DECLINED_ON_LOOP, answered_on_loop, json_answer, parsed
from domain.errors import DomainError
from infra.access import Grant
from infra.app import Fraylog

# the canonical spelling of an id only: any other the route reads (and may refuse)
COMMANDS = re.compile(
    r"/encounters/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/commands"
)


def _bearer(authorization: str | None) -> str | None:
    """The token of an Authorization header as the route's `bearer` reads it."""
    scheme, token = get_authorization_scheme_param(authorization)
    if not (authorization and scheme and token) or scheme.lower() != "bearer":
        return None
    return token


def _plain(scope: Scope) -> tuple[UUID, str | None, Any] | None:
    """A plain command's encounter, token and body, as the route would read them; None
    for any request the lane leaves to the route."""
    if scope["type"] != "http" or scope["method"] != "POST" or scope["query_string"]:
        return None
    if scope.get("root_path") or JSON_BODY not in scope:
        return None
    path = COMMANDS.fullmatch(scope["path"])
    if path is None:
        return None
    authorization = kind = None
    for name, value in scope["headers"]:  # the first of each, as the route reads them
        if name == b"idempotency-key":
            return None
        if name == b"authorization" and authorization is None:
            authorization = value.decode("latin-1")
        elif name == b"content-type" and kind is None:
            kind = value.decode("latin-1")
    if not sent_as_json(kind):
        return None
    return UUID(path[1]), _bearer(authorization), scope[JSON_BODY]


class CommandLane:
    """ASGI middleware: a plain command decided on the event loop and answered here, as the
    command route answers it; every other request passed on, its body unread."""

    def __init__(self, app: ASGIApp, fraylog: Fraylog) -> None:
        self.app = app
        self.fraylog = fraylog

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        taken = await self._command(scope)
        if taken is None:
            await self.app(scope, receive, send)
            return
        encounter_id, command, acting = taken
        answer = await answered_on_loop(self.fraylog, encounter_id, command, acting)
        if answer is not None:
            await json_answer(answer)(scope, receive, send)
            return
        declined = DECLINED_ON_LOOP.set(True)  # nothing recorded: the route need not try
        try:
            await self.app(scope, receive, send)
        finally:
            DECLINED_ON_LOOP.reset(declined)

    async def _command(self, scope: Scope) -> tuple[UUID, Any, Grant | None] | None:
        """A plain command's encounter, command and acting grant, read as the route reads
        them; None for a request the route reads (and may refuse)."""
        fraylog = self.fraylog
        plain = _plain(scope)
        if plain is None:
            return None
        encounter_id, token, body = plain
        ruleset = fraylog.known_ruleset(encounter_id)
        if ruleset is None:
            return None  # the store must be read first: the route does it in a thread
        # a token not read lately is read on the loop where the store allows it (PostgreSQL;
        # every request, with several workers: FRAYLOG_GRANT_CACHE_SECONDS=0)
        grant = await grant_without_threads(fraylog, encounter_id, token)
        if grant is None:
            return None  # unknown here, or to be read in a thread: the route does it
        try:
            command = parsed(fraylog, encounter_id, body, ruleset)
            actor_of(fraylog, grant, command.actor)
        except (RequestValidationError, DomainError):  # the route refuses it, in its words
            return None
        return encounter_id, command, grant if fraylog.settings.auth else None
