"""POST /encounters/{id}/commands with its parameters read by hand.

FastAPI solves a route's parameters and dependencies anew for each request, generically:
for the command route (a path id, the bearer token, two query parameters, a header, the
body, the app's query check) that cost more than the command itself (issue 19). This route
class reads the same parameters the way FastAPI would, in the same order and with the same
errors (the body read first, then the app's dependency, the token, `lang`, then every
validation error at once), and calls the same endpoint. The OpenAPI is FastAPI's, from the
endpoint's signature, unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from typing import Annotated, Any
from uuid import UUID

from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from pydantic import StringConstraints, TypeAdapter, ValidationError
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from api.clean_input import sent_as_json
from api.deps import bearer, error_lang, grant_for, known_query

Checked = tuple[Any, list[dict[str, Any]]]
ENCOUNTER_ID = TypeAdapter(UUID)
PREVIEW = TypeAdapter(bool)
IDEMPOTENCY_KEY = TypeAdapter(Annotated[str, StringConstraints(min_length=1, max_length=200)])
MISSING = object()


def _checked(adapter: TypeAdapter[Any], value: Any, where: tuple[str, str]) -> Checked:
    """`value` validated as FastAPI validates a parameter: the errors located at `where`."""
    try:
        return adapter.validate_python(value), []
    except ValidationError as e:
        return None, [
            {**error, "loc": (*where, *error["loc"])} for error in e.errors(include_url=False)
        ]


async def _body(request: Request) -> Any:
    """The body as FastAPI reads it: JSON when sent as JSON, bytes otherwise, MISSING when
    empty; JSON that does not parse is FastAPI's `json_invalid`."""
    raw = await request.body()
    if not raw:
        return MISSING
    if sent_as_json(request.headers.get("content-type")):
        try:
            return json.loads(raw)
        except json.JSONDecodeError as e:
            raise RequestValidationError(
                [
                    {
                        "type": "json_invalid",
                        "loc": ("body", e.pos),
                        "msg": "JSON decode error",
                        "input": {},
                        "ctx": {"error": e.msg},
                    }
                ],
                body=e.doc,
            ) from e
        except Exception as e:  # not UTF-8, nested too deep: as FastAPI answers it
            raise HTTPException(400, "There was an error parsing the body") from e
    return raw


async def _arguments(request: Request) -> dict[str, Any]:
    """The endpoint's arguments, or the refusal FastAPI would have made."""
    body = await _body(request)
    await known_query(request)  # the app's dependency
    fraylog = request.app.state.fraylog
    errors: list[dict[str, Any]] = []
    encounter_id, invalid = _checked(
        ENCOUNTER_ID, request.path_params["encounter_id"], ("path", "encounter_id")
    )
    errors += invalid * 2  # FastAPI names it twice: the route's and its reader's parameter
    grant = None
    if not invalid:  # FastAPI calls a dependency only when its own parameters are valid
        credentials = await bearer(request)
        grant = await grant_for(fraylog, encounter_id, credentials and credentials.credentials)
    query = request.query_params
    lang = await error_lang(query.get("lang"))
    preview = False
    if "preview" in query:
        preview, invalid = _checked(PREVIEW, query["preview"], ("query", "preview"))
        errors += invalid
    key = request.headers.get("idempotency-key")
    if key is not None:
        key, invalid = _checked(IDEMPOTENCY_KEY, key, ("header", "idempotency-key"))
        errors += invalid
    if body is MISSING:
        errors.append({"type": "missing", "loc": ("body",), "msg": "Field required", "input": None})
    if errors:
        raise RequestValidationError(errors, body=None if body is MISSING else body)
    return {
        "encounter_id": encounter_id,
        "fraylog": fraylog,
        "grant": grant,
        "command": body,
        "idempotency_key": key,
        "lang": lang,
        "preview": preview,
    }


class CommandRoute(APIRoute):
    """The command route, its parameters read by `_arguments` rather than by FastAPI's
    dependency solving; the endpoint answers a Response of its own (JSON, once)."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        endpoint = self.endpoint

        async def handle(request: Request) -> Response:
            return await endpoint(**await _arguments(request))

        return handle
