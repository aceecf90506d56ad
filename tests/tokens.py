"""A test client's key ring: it keeps the GM token of every encounter it creates or forks
and sends it with each request about that encounter, so tests written for the features
run with tokens switched on."""

from __future__ import annotations

import re
from collections.abc import Generator
from typing import Any

import httpx2

ENCOUNTER = re.compile(r"^/encounters/([0-9a-fA-F-]{36})")
CREATES = re.compile(r"^/encounters(/[0-9a-fA-F-]{36}/fork)?$")


class TokenJar(httpx2.Auth):
    requires_response_body = True

    def __init__(self) -> None:
        self.tokens: dict[str, str] = {}
        self.last: str | None = None

    def auth_flow(self, request: Any) -> Generator[Any, Any, None]:
        if "authorization" not in request.headers:
            m = ENCOUNTER.match(request.url.path)
            token = self.tokens.get(m[1].lower()) if m else None
            if token is None and request.url.path == "/encounters":
                token = self.last  # the list: what the newest token may read
            if token is not None:
                request.headers["Authorization"] = f"Bearer {token}"
        response = yield request
        if (
            request.method == "POST"
            and response.status_code == 201
            and CREATES.match(request.url.path)
        ):
            body = response.json()
            if body.get("gm_token"):
                self.tokens[body["id"]] = self.last = body["gm_token"]
