"""Input that cannot trick a screen: every JSON request body is read here before any route.

A key given twice anywhere in it, or a string (a value or a key) holding a control
character, a bidirectional override, isolate, embedding or mark, a zero-width character or
a lone surrogate, is refused with a problem+json 422 naming the field (`rule: INPUT`);
nothing is recorded. Every string that passes is NFC-normalised and its surrounding
whitespace trimmed (keys are NFC-normalised only), so the models see one spelling of each
name. Free text (a note's `text`, a `reason`) may hold newlines and tabs; names and every
other string may not.
"""

from __future__ import annotations

import email.message
import json
import unicodedata
from functools import lru_cache
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from api.limits import replayed
from api.problems import problem

FREE_TEXT = frozenset({"text", "reason"})  # keys whose strings may span lines
LINES = frozenset("\n\t\r")
BIDI = frozenset(
    [chr(c) for c in range(0x202A, 0x202F)]
    + [chr(c) for c in range(0x2066, 0x206A)]
    + ["\u200e", "\u200f", "\u061c"]
)
ZERO_WIDTH = frozenset(["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"])


class Refused(Exception):
    """A body the server will not read: `detail` says why, `field` where."""

    def __init__(self, field: str, detail: str) -> None:
        super().__init__(detail)
        self.field, self.detail = field, detail


def _field(path: tuple[Any, ...]) -> str:
    """The path as the API's validation errors name fields: `body.combatants.0.name`."""
    return ".".join(["body", *(str(p) for p in path)])


def _trouble(text: str, free: bool) -> str | None:
    """What in `text` could trick a screen, in words; None when nothing."""
    if text.isascii() and text.isprintable():  # most text: nothing below can be in it
        return None
    for char in text:
        code = ord(char)
        if free and char in LINES:
            continue
        if code < 0x20 or 0x7F <= code <= 0x9F:
            return f"a control character (U+{code:04X})"
        if char in BIDI:
            return f"a bidirectional formatting character (U+{code:04X})"
        if char in ZERO_WIDTH:
            return f"a zero-width character (U+{code:04X})"
        if 0xD800 <= code <= 0xDFFF:  # \ud800 in JSON: no character at all
            return f"a lone surrogate (U+{code:04X})"
    return None


def _clean_text(text: str, path: tuple[Any, ...], free: bool, trim: bool = True) -> str:
    if (what := _trouble(text, free)) is not None:
        raise Refused(_field(path), f"{_field(path)}: text may not hold {what}")
    text = unicodedata.normalize("NFC", text)
    return text.strip() if trim else text


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object whose keys are each given once (json.loads' object_pairs_hook)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Duplicate(key)
        out[key] = value
    return out


class _Duplicate(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _duplicated_path(raw: str, key: str) -> str:
    """Where the duplicated key is: found again by a parse that records the path."""
    found: list[tuple[Any, ...]] = []

    def walk(value: Any, path: tuple[Any, ...]) -> None:
        if isinstance(value, _Pairs):  # before list: a _Pairs is one
            seen: set[str] = set()
            for k, v in value:
                if k in seen and not found:
                    found.append((*path, k))
                seen.add(k)
                walk(v, (*path, k))
        elif isinstance(value, list):
            for i, item in enumerate(value):
                walk(item, (*path, i))

    walk(json.loads(raw, object_pairs_hook=_Pairs), ())
    return _field(found[0]) if found else _field((key,))


class _Pairs(list):
    """An object kept as its list of pairs (to find a duplicated key's path)."""


def cleaned(value: Any, path: tuple[Any, ...] = (), free: bool = False) -> Any:
    """`value` with every string checked, NFC-normalised and trimmed; Refused otherwise."""
    if isinstance(value, str):
        return _clean_text(value, path, free)
    if isinstance(value, list):
        return [cleaned(item, (*path, i), free) for i, item in enumerate(value)]
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            name = _clean_text(key, (*path, key), free=False, trim=False)
            if name in out:  # two spellings of one key (NFD and NFC)
                raise Refused(_field((*path, name)), f"{_field((*path, name))}: key given twice")
            out[name] = cleaned(item, (*path, name), free=name in FREE_TEXT)
        return out
    return value


JSON_BODY = "fraylog.json_body"  # the scope's key of a cleaned JSON body's value
NOT_JSON = object()


_READ = json.JSONDecoder(object_pairs_hook=_pairs)  # one for every body (json.loads makes one)


def clean_body(raw: bytes) -> tuple[bytes, Any]:
    """The JSON body `raw` checked and cleaned: its value, and the body re-encoded, or
    `raw` itself when cleaning changed no string (most bodies: the same value either way);
    `raw` unchanged and NOT_JSON when it is not JSON (the route refuses it as it always
    did). Raises Refused."""
    try:
        # read as the routes read a body (json.loads of bytes): a UTF-8 BOM, UTF-16 or
        # UTF-32 is a JSON body too, and is cleaned like any other
        text = raw.decode(json.detect_encoding(raw), "surrogatepass")
        value = _READ.decode(text)
    except _Duplicate as dup:
        where = _duplicated_path(text, dup.key)
        raise Refused(where, f"{where}: key given twice") from None
    except (ValueError, RecursionError):  # not text, not JSON, nested too deep: left to
        return raw, NOT_JSON  # the route's own refusal
    clean = cleaned(value)
    if clean == value:  # every string as sent: the routes read the same value from `raw`
        return raw, clean
    return json.dumps(clean, ensure_ascii=False).encode("utf-8"), clean


@lru_cache(maxsize=64)
def sent_as_json(kind: str | None) -> bool:
    """Whether a body of this Content-Type is read as JSON, as FastAPI reads it
    (`application/json` or `application/…+json`, with any parameters)."""
    if not kind:
        return False
    message = email.message.Message()
    message["content-type"] = kind
    subtype = message.get_content_subtype()
    return message.get_content_maintype() == "application" and (
        subtype == "json" or subtype.endswith("+json")
    )


def _is_json(scope: Scope) -> bool:
    """A body a route reads as JSON (`sent_as_json`, by its first Content-Type, as the
    routes read it: a later one must not hide a JSON body), or one with no type at all,
    checked all the same."""
    kind = next((v for k, v in scope["headers"] if k == b"content-type"), b"")
    return not kind or sent_as_json(kind.decode("latin-1"))


class CleanInput:
    """ASGI middleware: every JSON request body cleaned (or refused) before a route reads it,
    its value left in the scope (`JSON_BODY`) for the command lane."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD") or not _is_json(scope):
            await self.app(scope, receive, send)
            return
        chunks, more = [], True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        raw = b"".join(chunks)
        try:
            body, value = clean_body(raw)
        except Refused as e:
            answer = problem(422, "Invalid request", e.detail, rule="INPUT", field=e.field)
            await answer(scope, receive, send)
            return
        inner = dict(scope)
        if body is not raw:  # re-encoded: its own length
            headers = [(k, v) for k, v in scope["headers"] if k != b"content-length"]
            headers.append((b"content-length", str(len(body)).encode()))
            inner["headers"] = headers
        if value is not NOT_JSON:  # read once: the command lane takes it as it is
            inner[JSON_BODY] = value
        await self.app(inner, replayed(body, receive), send)
