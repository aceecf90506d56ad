"""The web table: static HTML, CSS and JavaScript modules served by this app (no build
step), and the API docs (Swagger UI, ReDoc) from vendored copies: no page loads anything
from another host, which each page's Content-Security-Policy also enforces."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.staticfiles import StaticFiles

STATIC = Path(__file__).resolve().parents[1] / "web" / "static"
# everything from this server; inline styles for the vendored docs' own markup
CSP = (
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
    "connect-src 'self'; worker-src 'self' blob:; frame-ancestors 'none'; base-uri 'none'"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "Referrer-Policy": "no-referrer",  # a token in a fragment never leaves, nor the path
    "X-Content-Type-Options": "nosniff",
}

router = APIRouter(include_in_schema=False)


def _page(name: str) -> FileResponse:
    return FileResponse(STATIC / name, media_type="text/html", headers=HEADERS)


@router.get("/")
async def home() -> FileResponse:
    """Create an encounter, or open one."""
    return _page("index.html")


@router.get("/e/{encounter_id}/replay")
async def replay(encounter_id: str) -> FileResponse:
    """The replay viewer: the fight version by version, its record, diff, fork and exports."""
    return _page("replay.html")


@router.get("/audit")
async def audit() -> FileResponse:
    """The browser's own verifier: an export file checked on the page, never sent."""
    return _page("audit.html")


@router.get("/e/{encounter_id}")
async def table(encounter_id: str) -> FileResponse:
    """The table screen of one encounter, the GM's or a player's (the token decides)."""
    return _page("table.html")


DOCS = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>fraylog API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="/web/favicon.svg">
{head}</head><body>{body}</body></html>"""


@router.get("/docs")
async def swagger_ui() -> HTMLResponse:
    return HTMLResponse(
        DOCS.format(
            head='<link rel="stylesheet" href="/web/vendor/swagger-ui/swagger-ui.css">',
            body='<div id="swagger-ui"></div>'
            '<script src="/web/vendor/swagger-ui/swagger-ui-bundle.js"></script>'
            '<script src="/web/swagger-init.js"></script>',
        ),
        headers=HEADERS,
    )


@router.get("/redoc")
async def redoc() -> HTMLResponse:
    return HTMLResponse(
        DOCS.format(
            head="",
            body='<redoc spec-url="/openapi.json"></redoc>'
            '<script src="/web/vendor/redoc/redoc.standalone.js"></script>',
        ),
        headers=HEADERS,
    )


@router.get("/favicon.ico")
async def favicon() -> FileResponse:
    return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml", headers=HEADERS)


def install(app: FastAPI) -> None:
    app.include_router(router)
    app.mount("/web", StaticFiles(directory=STATIC), name="web")
