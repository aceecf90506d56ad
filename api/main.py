"""The FastAPI application."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from api import problems
from api.routes import encounters, rulesets
from infra.app import Fraylog
from infra.settings import Settings


def create_app(settings: Settings | None = None, fraylog: Fraylog | None = None) -> FastAPI:
    """The API over one Fraylog application (made from `settings` if not given)."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        app.state.fraylog.close()

    app = FastAPI(
        title="fraylog",
        version="0.1.0",
        summary="Event-sourced combat log for tabletop role-playing games.",
        description="Every roll, declaration, attack and upkeep tick is an immutable event. "
        "Errors are application/problem+json (RFC 9457). See docs/api.md.",
        lifespan=lifespan,
    )
    app.state.fraylog = fraylog or Fraylog(settings)
    problems.install(app)
    app.include_router(encounters.router)
    app.include_router(rulesets.router)
    return app
