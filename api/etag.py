"""A read answered once as bytes, with a strong ETag made from those bytes: `If-None-Match`
holding it (or `*`) is answered `304 Not Modified` with no body.

The ETag is the answer's hash, never the encounter's version: what a token sees can change
without a new event (a new player token changes the party), and the GM's and a player's
answers differ. `Cache-Control: no-cache` and `Vary: Authorization` keep a cache from
serving one token's answer to another without asking again."""

from __future__ import annotations

import hashlib
from typing import Any

from fastapi import Request, Response
from pydantic import TypeAdapter

NOT_MODIFIED: dict[int | str, dict[str, Any]] = {
    304: {"description": "Not Modified: `If-None-Match` holds this answer's `ETag`; no body."}
}
_CACHING = {"Cache-Control": "no-cache", "Vary": "Authorization"}


def json_bytes(adapter: TypeAdapter[Any], content: Any) -> bytes:
    """`content` validated and serialized by its response model, as FastAPI would send it."""
    value = adapter.validate_python(content, from_attributes=True)
    return adapter.dump_json(value, by_alias=True)


def etag_of(body: bytes) -> str:
    """A strong validator: the quoted first 32 hex digits of the body's SHA-256."""
    return '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


def _matches(if_none_match: str, etag: str) -> bool:
    """RFC 9110 §13.1.2: `*`, or any listed tag equal by the weak comparison."""
    tags = [tag.strip() for tag in if_none_match.split(",")]
    return "*" in tags or etag in (tag.removeprefix("W/") for tag in tags)


def answer(
    request: Request, body: bytes, headers: dict[str, str] | None = None, etag: str | None = None
) -> Response:
    """200 with the body and its ETag (`etag`: the body's, made before), or 304 when the
    caller already holds that body."""
    etag = etag or etag_of(body)
    sent = {**(headers or {}), **_CACHING, "ETag": etag}
    if_none_match = request.headers.get("if-none-match")
    if if_none_match is not None and _matches(if_none_match, etag):
        return Response(status_code=304, headers=sent)
    return Response(content=body, media_type="application/json", headers=sent)
