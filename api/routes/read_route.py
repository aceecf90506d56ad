"""The reads asked most (GET /encounters/{id} and …/log), their common case read by hand.

FastAPI solves a route's parameters and dependencies anew for each request, generically; for
a view kept in memory that is half the work of the answer (issue 19). A request with no
query string and an id that is a UUID needs only the token's grant: this route class reads
it as the route's `reader` dependency does (the same functions, so the same refusals) and
calls the endpoint with its other parameters at their defaults (the app's query check has
nothing to check then; a route given any other dependency is always solved by FastAPI).
Any other request (a query string, an id that is not a UUID) goes through FastAPI's own
solving, so every validation error is FastAPI's. The OpenAPI is FastAPI's, from the
endpoint's signature, unchanged.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Coroutine
from typing import Any
from uuid import UUID

from fastapi.routing import APIRoute
from pydantic import TypeAdapter, ValidationError
from starlette.requests import Request
from starlette.responses import Response

from api.deps import bearer, grant_for, known_query

ENCOUNTER_ID = TypeAdapter(UUID)


OWN = ("encounter_id", "fraylog", "grant", "request")  # what the route reads itself


def read_route(**given: Any) -> type[APIRoute]:
    """A route class for an endpoint taking (encounter_id, fraylog, grant, request), its
    other parameters at their defaults when the query string is empty; `given`: the value of
    one without a default (a dependency's, with its own defaults). The endpoint answers a
    Response of its own."""

    class ReadRoute(APIRoute):
        def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
            generic = super().get_route_handler()
            endpoint = self.endpoint
            defaults = plain_defaults(endpoint, given)
            if any(d.dependency is not known_query for d in self.dependencies):
                return generic  # a dependency the plain read would skip: none by hand

            async def handle(request: Request) -> Response:
                if request.scope.get("query_string"):
                    return await generic(request)
                try:
                    encounter_id = ENCOUNTER_ID.validate_python(request.path_params["encounter_id"])
                except ValidationError:
                    return await generic(request)
                fraylog = request.app.state.fraylog
                credentials = await bearer(request)
                token = credentials and credentials.credentials
                grant = await grant_for(fraylog, encounter_id, token)
                answer: Response = await endpoint(
                    encounter_id=encounter_id,
                    fraylog=fraylog,
                    grant=grant,
                    request=request,
                    **defaults,
                )
                return answer

            return handle

    return ReadRoute


def plain_defaults(endpoint: Callable[..., Any], given: dict[str, Any]) -> dict[str, Any]:
    """The endpoint's parameters besides OWN, as FastAPI fills them with no query string:
    their defaults, or `given`; refused at start for one that has neither."""
    out = {}
    for name, parameter in inspect.signature(endpoint).parameters.items():
        if name in OWN:
            continue
        if name in given:
            out[name] = given[name]
        elif parameter.default is not inspect.Parameter.empty:
            out[name] = parameter.default
        else:
            raise TypeError(f"{endpoint.__name__}: {name} has no default for a plain read")
    return out
