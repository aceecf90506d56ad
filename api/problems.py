"""Errors as application/problem+json (RFC 9457)."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from domain.errors import DiceError, DomainError

PROBLEM = "application/problem+json"
log = logging.getLogger("fraylog")


def _printable(text: str) -> str:
    """Text that encodes as UTF-8 (a request may echo a lone surrogate into a message)."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def problem(
    status: int, title: str, detail: str, headers: dict[str, str] | None = None, **extra: Any
) -> JSONResponse:
    body = {"type": "about:blank", "title": title, "status": status, "detail": _printable(detail)}
    extra = {k: _printable(v) if isinstance(v, str) else v for k, v in extra.items()}
    body.update({k: v for k, v in extra.items() if v is not None})
    return JSONResponse(
        jsonable_encoder(body), status_code=status, media_type=PROBLEM, headers=headers
    )


def install(app: FastAPI) -> None:
    @app.exception_handler(DomainError)
    async def domain_error(request: Request, exc: DomainError) -> JSONResponse:
        extra: dict[str, Any] = {"rule": exc.rule, "field": exc.field}
        if isinstance(exc, DiceError):
            extra.update(roll=exc.roll, die=exc.die)
        return problem(exc.status, exc.title, exc.detail, getattr(exc, "headers", None), **extra)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [
            {"field": ".".join(str(p) for p in e["loc"]), "message": e["msg"], "type": e["type"]}
            for e in exc.errors()
        ]
        first = errors[0] if errors else {"field": None, "message": "invalid request"}
        return problem(
            422,
            "Invalid request",
            f"{first['field']}: {first['message']}",
            field=first["field"],
            errors=errors,
        )

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> JSONResponse:
        return problem(exc.status_code, str(exc.detail), str(exc.detail))

    @app.exception_handler(Exception)
    async def server_error(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return problem(
            500, "Internal server error", "the server failed unexpectedly; see the server log"
        )
