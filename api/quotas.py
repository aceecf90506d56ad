"""Rate limits: encounter creations and mintings per client address and per credential,
commands per credential, each refused beyond its rate with a problem+json 429 and
`Retry-After`, before the body is read or any route runs.

Each limit is GCRA (the generic cell rate algorithm: a token bucket kept as one time per
key, the "theoretical arrival time"): `N/minute` lets N requests through at once, then one
every minute/N. The times live in this process's memory, in a bounded LRU map per limit:
as new keys come, those seen longest ago are dropped once their bucket is full again, and
past `MAX_KEYS` whatever their bucket, so a flood of distinct addresses cannot grow it
without bound.
With `fraylog serve --workers N` each worker counts on its own.

A credential is keyed by the SHA-256 of its `Authorization: Bearer …` value; the token
itself is not kept.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import math
import re
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI
from starlette.types import ASGIApp, Receive, Scope, Send

from api.problems import PROBLEM
from infra.settings import Settings

MAX_KEYS = 20_000  # per limit and kind of key: a few MB at most
PERIODS = {"second": 1.0, "minute": 60.0, "hour": 3600.0}
ANY = r"[^/]+"
Networks = tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]


@dataclass(frozen=True)
class Rate:
    """`count` requests per `seconds`, as written in its setting (`30/minute`)."""

    count: int
    seconds: float
    text: str

    @classmethod
    def parse(cls, text: str) -> Rate | None:
        """The rate a setting names; None when it is switched off (`0` or `off`)."""
        spec = text.strip().lower()
        if spec in ("0", "off"):
            return None
        count, _, period = spec.partition("/")
        if not count.isdigit() or period not in PERIODS:
            raise ValueError(f"{text!r} is not N/second, N/minute, N/hour, 0 or off")
        return None if int(count) == 0 else cls(int(count), PERIODS[period], spec)

    @property
    def per(self) -> str:
        """`a minute`, `an hour`."""
        period = next(name for name, s in PERIODS.items() if s == self.seconds)
        return f"{'an' if period == 'hour' else 'a'} {period}"


class Limiter:
    """GCRA over a bounded LRU map: `key → the time its bucket is full again`."""

    def __init__(self, max_keys: int = MAX_KEYS) -> None:
        self.max_keys = max_keys
        self.full_at: OrderedDict[Hashable, float] = OrderedDict()

    def wait(self, rate: Rate, key: Hashable, now: float) -> float:
        """Seconds before `key` may be let through once more at `rate` (0: now)."""
        interval = rate.seconds / rate.count
        full_at = max(self.full_at.get(key, now), now)
        # N at once: a request passes while the bucket is not over N intervals ahead
        wait = full_at + interval - rate.seconds - now
        return wait if wait > 1e-9 else 0.0  # not a float's rounding

    def take(self, rate: Rate, key: Hashable, now: float) -> None:
        """Count one request of `key` (after `wait` said 0)."""
        full_at = max(self.full_at.get(key, now), now) + rate.seconds / rate.count
        self.full_at[key] = full_at
        self.full_at.move_to_end(key)
        self._evict(now)

    def _evict(self, now: float) -> None:
        # the oldest-seen first: idle keys (bucket full again) go, and any past the cap
        while self.full_at:
            key, full_at = next(iter(self.full_at.items()))
            if full_at > now and len(self.full_at) <= self.max_keys:
                return
            del self.full_at[key]


@dataclass(frozen=True)
class Limit:
    """One limited kind of request: which paths, its setting, and how it is told."""

    name: str  # the Settings field
    setting: str  # the environment variable
    what: str  # "encounter creations"
    paths: re.Pattern[str]
    by_address: bool


def _paths(*templates: str) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{t.replace('{id}', ANY)})" for t in templates) + "/?")


LIMITS = (
    Limit(
        "rate_create",
        "FRAYLOG_RATE_CREATE",
        "encounter creations",
        _paths("/encounters", "/encounters/{id}/fork"),
        by_address=True,
    ),
    Limit(
        "rate_mint",
        "FRAYLOG_RATE_MINT",
        "tokens and stream tickets minted",
        _paths(
            "/encounters/{id}/tokens",
            "/encounters/{id}/tokens/gm/rotate",
            "/encounters/{id}/stream-tickets",
        ),
        by_address=True,
    ),
    Limit(
        "rate_accounts",
        "FRAYLOG_RATE_ACCOUNTS",
        "accounts opened",
        _paths("/accounts"),
        by_address=True,
    ),
    Limit(
        "rate_commands",
        "FRAYLOG_RATE_COMMANDS",
        "commands",
        _paths(
            "/encounters/{id}/commands",
            "/encounters/{id}/combatants",
            "/roster",  # the roster's writes are an account's commands
            "/roster/{id}/stats",
            "/roster/{id}/carry",
            "/roster/{id}/rest",
        ),
        by_address=False,
    ),
)


def credential(scope: Scope) -> bytes | None:
    """The SHA-256 of the request's bearer token, or None without one."""
    for name, value in scope["headers"]:
        if name == b"authorization":
            scheme, _, token = value.partition(b" ")
            if scheme.lower() == b"bearer" and token.strip():
                return hashlib.sha256(token.strip()).digest()
    return None


def networks(addresses: Iterable[str]) -> Networks:
    """`FRAYLOG_TRUSTED_PROXIES`' addresses and networks."""
    return tuple(ipaddress.ip_network(a, strict=False) for a in addresses)


def _within(address: str, trusted: Networks) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in net for net in trusted)


def client_address(scope: Scope, trusted: Networks) -> str:
    """The client's address: the peer's; when the peer is a trusted proxy, the last address
    of `X-Forwarded-For` that is not a trusted proxy (the one the proxies saw)."""
    peer = scope["client"][0] if scope.get("client") else ""
    if not trusted or not _within(peer, trusted):
        return peer
    hops = [
        hop.strip()
        for name, value in scope["headers"]
        if name == b"x-forwarded-for"
        for hop in value.decode("latin-1").split(",")
        if hop.strip()
    ]
    for hop in reversed(hops):
        if not _within(hop, trusted):
            return hop
    return hops[0] if hops else peer


class Quotas:
    """Refuse a request over its limit with a 429 before the body is read."""

    def __init__(
        self,
        app: ASGIApp,
        settings: Callable[[], Settings],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.app = app
        self.settings = settings  # read on each request: a test may change them on the fly
        self.clock = clock
        self.limiters = {
            (limit.name, by): Limiter() for limit in LIMITS for by in ("address", "credential")
        }
        self._rates: dict[str, Rate | None] = {}
        self._trusted: dict[tuple[str, ...], Networks] = {}

    def _rate(self, text: str) -> Rate | None:
        if text not in self._rates:
            self._rates[text] = Rate.parse(text)
        return self._rates[text]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        limit = next((lim for lim in LIMITS if lim.paths.fullmatch(path)), None)
        settings = self.settings()
        rate = self._rate(getattr(settings, limit.name)) if limit else None
        if limit is None or rate is None:
            await self.app(scope, receive, send)
            return
        keys: list[tuple[str, Hashable]] = []
        token = credential(scope)
        if token is not None:
            keys.append(("credential", token))
        if limit.by_address or token is None:
            proxies = settings.trusted_proxies
            if proxies not in self._trusted:
                self._trusted[proxies] = networks(proxies)
            keys.append(("address", client_address(scope, self._trusted[proxies])))
        now = self.clock()
        waits = [(self.limiters[limit.name, by].wait(rate, key, now), by) for by, key in keys]
        longest, by = max(waits)
        if longest > 0:
            await self._refuse(send, limit, rate, by, math.ceil(longest))
            return
        for by, key in keys:
            self.limiters[limit.name, by].take(rate, key, now)
        await self.app(scope, receive, send)

    async def _refuse(self, send: Send, limit: Limit, rate: Rate, by: str, seconds: int) -> None:
        whose = "from this address" if by == "address" else "with this credential"
        detail = (
            f"more than {rate.count} {limit.what} {rate.per} {whose} "
            f"({limit.setting}={rate.text}); "
            f"try again in {seconds} s"
        )
        payload = json.dumps(
            {
                "type": "about:blank",
                "title": "Too many requests",
                "status": 429,
                "detail": detail,
                "rule": "RATE",
                "limit": rate.text,
            }
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 429,
                "headers": [
                    (b"content-type", PROBLEM.encode()),
                    (b"content-length", str(len(payload)).encode()),
                    (b"retry-after", str(seconds).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": payload})


def limited(path_template: str) -> Limit | None:
    """The limit of `POST path_template` (an OpenAPI path such as
    `/encounters/{encounter_id}/commands`), or None."""
    path = re.sub(r"\{[^/}]+\}", "x", path_template)
    return next((limit for limit in LIMITS if limit.paths.fullmatch(path)), None)


def document(app: FastAPI) -> None:
    """Name the 429 and its Retry-After in the OpenAPI of every limited operation, and the
    Problem's `limit`."""
    made = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        spec = made()
        schemas = spec["components"]["schemas"]
        schemas["Problem"]["properties"]["limit"] = {
            "anyOf": [{"type": "string"}, {"type": "null"}],
            "title": "Limit",
            "description": "RATE: the rate limit exceeded, as its setting names it (30/minute).",
        }
        for path, operations in spec["paths"].items():
            limit = limited(path)
            if limit is None or "post" not in operations:
                continue
            operations["post"]["responses"]["429"] = {
                "description": f"Too many requests: over {limit.setting} ({limit.what})",
                "headers": {
                    "Retry-After": {
                        "description": "Whole seconds before one more is let through.",
                        "schema": {"type": "integer", "minimum": 1},
                    }
                },
                "content": {PROBLEM: {"schema": {"$ref": "#/components/schemas/Problem"}}},
            }
        return spec

    app.openapi = openapi  # type: ignore[method-assign]
