"""A cap on request bodies: a larger one is refused with a problem+json 413 before any route
reads it."""

from __future__ import annotations

import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.problems import PROBLEM


def replayed(body: bytes, receive: Receive) -> Receive:
    """A `receive` that gives the body already read, whole, once; then what the client sends
    next (a disconnect)."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay


class BodyLimit:
    """Read at most `max_bytes` of a request body; refuse the request beyond it."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await self._refuse(send)
            return
        chunks, size, more = [], 0, True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await self._refuse(send)
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        await self.app(scope, replayed(b"".join(chunks), receive), send)

    async def _refuse(self, send: Send) -> None:
        detail = f"the request body is larger than {self.max_bytes} bytes (FRAYLOG_MAX_BODY_BYTES)"
        payload = json.dumps(
            {
                "type": "about:blank",
                "title": "Request too large",
                "status": 413,
                "detail": detail,
                "rule": "LIMIT",
            }
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", PROBLEM.encode()),
                    (b"content-length", str(len(payload)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": payload})
