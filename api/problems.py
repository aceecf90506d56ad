"""Errors as application/problem+json (RFC 9457)."""

from __future__ import annotations

import logging
import re
from typing import Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException
from starlette.routing import Match, Mount
from starlette.staticfiles import StaticFiles

from domain.errors import DiceError, DiceNeeded, DomainError, NotFound
from domain.strict import said
from projections.narrative import told
from projections.visibility import scrubbed, unnamed

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


def _first_language(header: str) -> str | None:
    """The most preferred language of an Accept-Language header (its q-values weighed, the
    first of equals; `*` skipped), lower-cased: 'es-es' for 'es-ES,es;q=0.9,en;q=0.5'."""
    best, best_q = None, 0.0
    for part in header.split(","):
        tag, *params = (p.strip() for p in part.split(";"))
        q = 1.0
        for param in params:
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if tag and tag != "*" and q > best_q:
            best, best_q = tag.lower(), q
    return best


def asks_spanish(request: Request) -> bool:
    """Whether a refusal should read in Spanish: `?lang=es`; without a `lang` in the query,
    an Accept-Language whose first language is `es` (`es`, `es-ES`, …)."""
    lang = request.query_params.get("lang")
    if lang is not None:
        return lang == "es"
    first = _first_language(request.headers.get("accept-language", ""))
    return first is not None and first.split("-")[0] == "es"


_NOT_FOUND_EN = re.compile(r"no (combatant|action) (.+) in this encounter")
_NOT_FOUND_ES = {"combatant": "combatiente", "action": "acción"}


def _dice_es(exc: DiceError) -> str | None:
    """ManualDice's refusals in Spanish, from the error's fields."""
    roll = f"'{exc.roll}'"
    if exc.problem == "missing" and exc.die is not None and exc.sides is not None:
        if exc.given is None:
            given = "no se dio ninguna"
        else:
            given = f"solo se {'dio' if exc.given == 1 else 'dieron'} {exc.given}"
        text = (
            f"la tirada {roll} necesita una cara para el dado {exc.die} (un d{exc.sides}), "
            f"pero {given}"
        )
        if isinstance(exc, DiceNeeded) and exc.needed.get("label_es"):
            text += f": {exc.needed['label_es']}"
        return text
    if exc.problem == "range" and exc.die is not None and exc.sides is not None:
        return (
            f"el dado {exc.die} de la tirada {roll} es un d{exc.sides}: {exc.value!r} no está "
            f"en 1..{exc.sides}"
        )
    if exc.problem == "unrolled":
        return f"la tirada {roll} no se tira en esta orden"
    if exc.problem == "left_over" and exc.die is not None and exc.left is not None:
        faces = "le sobra 1 cara" if exc.left == 1 else f"le sobran {exc.left} caras"
        return f"a la tirada {roll} {faces} después del dado {exc.die - 1}"
    return None


def spanish_detail(exc: DomainError) -> str | None:
    """A refusal's detail in Spanish: its own `detail_es`, else a translation of the
    generic errors (bad manual dice, an unknown combatant or action); None for the rest."""
    if exc.detail_es:
        return exc.detail_es
    if isinstance(exc, DiceError):
        return _dice_es(exc)
    if isinstance(exc, NotFound) and (m := _NOT_FOUND_EN.fullmatch(exc.detail)):
        return f"no hay {_NOT_FOUND_ES[m[1]]} {m[2]} en este encuentro"
    return None


def needed_in(needed: dict[str, Any], spanish: bool) -> dict[str, Any]:
    """The roll asked for, its label in Spanish where asked for and the book has one."""
    out = {k: v for k, v in needed.items() if k != "label_es"}
    if spanish and needed.get("label_es"):
        out["label"] = needed["label_es"]
    return out


def so_far(exc: DiceNeeded, spanish: bool) -> list[dict[str, Any]]:
    """What the faces given so far decided: the events the command would have recorded up
    to the missing face, each as its record with its log line (Spanish on request, where
    the encounter's book reads in Spanish), as the asking player may read them."""
    if not exc.so_far or exc.before is None:
        return []
    return told(exc.before(), exc.so_far, spanish, exc.sight)


METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
STATIC = frozenset({"GET", "HEAD"})  # what a mount of files (the web pages) takes


def allowed(request: Request) -> list[str]:
    """The methods a request's path takes: each one a route matches in full. Starlette's own
    `Allow` names only the first route's (GET and POST /encounters are two routes), so the
    routes are asked again, once per method."""
    scope = request.scope
    # a mount moved the path into root_path: ask from the application's root
    root = scope.get("app_root_path", scope.get("root_path", ""))

    def takes(method: str, route: Any) -> bool:
        if isinstance(route, Mount) and not (
            isinstance(route.app, StaticFiles) and method in STATIC
        ):
            return False  # a mount matches every method: only its files' are known
        probe = {**scope, "method": method, "root_path": root}
        return bool(route.matches(probe)[0] == Match.FULL)

    return [m for m in METHODS if any(takes(m, r) for r in request.app.router.routes)]


def install(app: FastAPI) -> None:
    @app.exception_handler(DomainError)
    async def domain_error(request: Request, exc: DomainError) -> JSONResponse:
        if exc.status >= 500:  # the store's fault (a damaged record): the operator's to see
            log.error("%s %s: %s", request.method, request.url.path, exc)
        extra: dict[str, Any] = {"rule": exc.rule, "field": exc.field}
        spanish = asks_spanish(request)
        if isinstance(exc, DiceError):
            extra.update(roll=exc.roll, die=exc.die)
        if isinstance(exc, DiceNeeded):
            needed = scrubbed(needed_in(exc.needed, spanish), exc.sight)
            extra.update(needed=needed, so_far=so_far(exc, spanish))
        detail, headers = exc.detail, dict(getattr(exc, "headers", None) or {})
        headers["Vary"] = "Accept-Language"  # the detail may be Spanish (caches, take note)
        if spanish and (es := spanish_detail(exc)) is not None:
            detail, headers["Content-Language"] = es, "es"
        if exc.sight is not None:  # a player's: no combatant hidden from him named
            word = "alguien" if headers.get("Content-Language") == "es" else "someone"
            detail = unnamed(detail, exc.sight, word)
        return problem(exc.status, exc.title, detail, headers, **extra)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [
            {"field": ".".join(str(p) for p in e["loc"]), "message": said(e), "type": e["type"]}
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
        headers = dict(exc.headers or {})
        if exc.status_code == 405:  # RFC 9110 15.5.6: the methods the path takes
            methods = allowed(request)
            headers["Allow"] = ", ".join(methods)
            # the path is not echoed: a client's text stays out of what a screen shows
            detail = f"{request.method} is not allowed here; this path takes " + (
                ", ".join(methods) or "no method"
            )
            return problem(405, str(exc.detail), detail, headers)
        return problem(exc.status_code, str(exc.detail), str(exc.detail), headers or None)

    @app.exception_handler(Exception)
    async def server_error(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return problem(
            500, "Internal server error", "the server failed unexpectedly; see the server log"
        )
