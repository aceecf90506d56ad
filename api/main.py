"""The FastAPI application."""

from __future__ import annotations

import asyncio
import gc
import logging
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI
from fastapi.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api import access_log, openapi, problems, quotas
from api.clean_input import CleanInput
from api.deps import known_query
from api.limits import BodyLimit
from api.routes import accounts, audit, encounters, roster, rulesets, tokens, web
from api.routes.command_lane import CommandLane
from infra.app import Fraylog
from infra.campaigns import CampaignsOnDemand
from infra.cpus import settle_on_one_cpu
from infra.feed import Feed
from infra.settings import Settings

log = logging.getLogger("fraylog")
WORKER = str(os.getpid()).encode()


class WorkerHeader:
    """`Fraylog-Worker: <pid>` on every answer: which process served it (only with
    FRAYLOG_WORKER_HEADER=1: a process id tells a stranger more than he needs)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def stamped(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), (b"fraylog-worker", WORKER)]
            await send(message)

        await self.app(scope, receive, stamped if scope["type"] == "http" else send)


def create_app(
    settings: Settings | None = None, fraylog: Fraylog | None = None, serving: bool = False
) -> FastAPI:
    """The API over one Fraylog application (made from `settings` if not given); `serving`:
    the process's one app (`fraylog serve`), whose start freezes what is made by then."""
    access_log.install()  # no token or ticket in uvicorn's access log
    fraylog = fraylog or Fraylog(settings)
    feed = Feed(fraylog)
    campaigns = CampaignsOnDemand(fraylog.settings)  # the roster's own application

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if not fraylog.settings.auth:
            log.warning(
                "fraylog runs OPEN (--no-auth): anyone who reaches it may read and change "
                "every encounter; use it only on your own machine"
            )
        feed.start(asyncio.get_running_loop())
        pinned = None
        if serving:
            settle_the_heap()
            pinned = settle_on_one_cpu(fraylog.settings.cpu)  # every thread started by now
            if pinned is not None:
                log.info("fraylog: this process runs on CPU %s (FRAYLOG_CPU)", pinned.cpu)
        try:
            yield
            feed.stop()
            try:
                await fraylog.close_on_loop()
            finally:  # what the loop could not commit is the writer's, closed last
                fraylog.close()
                campaigns.close()
        finally:
            access_log.drain()  # the last requests' lines, before uvicorn ends the process
            if pinned is not None:
                pinned.release()

    app = FastAPI(
        title="fraylog",
        version="0.1.0",
        summary="Event-sourced combat log for tabletop role-playing games.",
        description="Every roll, declaration, attack and upkeep tick is an immutable event. "
        "Errors are application/problem+json (RFC 9457). Encounter routes need the bearer "
        "token of that encounter (a 404 otherwise). See docs/api.md.",
        lifespan=lifespan,
        dependencies=[Depends(known_query)],
        docs_url=None,  # served from vendored copies (api/routes/web.py), not a CDN
        redoc_url=None,
    )
    app.state.fraylog = fraylog
    app.state.campaigns = campaigns

    app.state.feed = feed
    # added inside out: CORS wraps everything, so a 413 is readable by a browser too
    if fraylog.settings.decide_on_loop:  # innermost: a plain command answered before routing
        app.add_middleware(CommandLane, fraylog=fraylog)
    app.add_middleware(CleanInput)  # inside the cap: bodies it reads are bounded
    app.add_middleware(BodyLimit, max_bytes=fraylog.settings.max_body_bytes)
    # outside the cap: a request over its rate is refused before its body is read
    app.add_middleware(quotas.Quotas, settings=lambda: fraylog.settings)
    if fraylog.settings.worker_header:
        app.add_middleware(WorkerHeader)
    if fraylog.settings.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(fraylog.settings.cors_origins),
            allow_methods=["GET", "POST", "DELETE"],
            allow_headers=[
                "Authorization",
                "Content-Type",
                "Idempotency-Key",
                "If-None-Match",
                "Last-Event-ID",
            ],
            expose_headers=["ETag", "Idempotent-Replayed", "Retry-After"],
        )
    problems.install(app)
    app.include_router(encounters.router)
    app.include_router(tokens.rotation)  # after the encounter routes: it ends the token sent
    app.include_router(accounts.router)
    app.include_router(roster.router)
    app.include_router(rulesets.router)
    app.include_router(audit.router)
    openapi.install(app)
    quotas.document(app)  # the 429 of the limited routes
    web.install(app)
    return app


def app_from_env() -> FastAPI:
    """The API configured from the environment (what `fraylog serve` runs in each worker)."""
    return create_app(Settings.from_env(), serving=True)


YOUNG_OBJECTS = 7_000  # the collector's first threshold in a served process


def settle_the_heap() -> None:
    """What a started server holds for its life (modules, routes, schemas, validators) moved
    out of the garbage collector's sight, once its garbage is collected: a full collection
    then walks only what was made since. Under wrk at 16 connections on SQLite, the full
    collections had paused every request for up to ~85 ms (the commands' p99 was ~80 ms);
    after, ~10 ms (p99 ~30 ms). Not in tests' apps (`create_app` without `serving`): a
    frozen object is still freed when nothing refers to it, but never when it is caught in
    a reference cycle, and a test process makes thousands of apps.

    And the young objects collected after YOUNG_OBJECTS more are made than freed, not 700
    (Python's default): a command's objects are freed as it ends, but the state it leaves
    is kept (the next command on its encounter starts from it), so at 700 the collector ran
    every ~20 commands and, promoting those states, a full collection every ~2,500 (~10 ms
    each): ~8 µs of every command in all under wrk at 16 connections, against ~1 µs at
    7,000 (docs/scaling.md), on Python 3.11 (3.14's incremental collector counts
    otherwise). What a reference cycle holds waits a little longer for it."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_OBJECTS, *gc.get_threshold()[1:])

