"""Events as plain records, their canonical form, and the hash chain that makes an export
tamper-evident: each event's hash is SHA-256 over the previous hash and its canonical form."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

BASE_FIELDS = frozenset(
    {
        "originator_id",
        "originator_version",
        "timestamp",
        "actor",
        "cause",
        "command",
        "hash",
        "originator_topic",
    }
)
NOT_HASHED = ("hash", "voided_by")  # the hash itself, and what later events say of it


def plain(data: dict[str, Any]) -> dict[str, Any]:
    """JSON-normal data (tuples become lists), exactly as the event store gives it back."""
    return json.loads(json.dumps(data))


def record(
    kind: str,
    position: int,
    timestamp: str,
    actor: str,
    cause: int | None,
    command: int,
    data: dict[str, Any],
) -> dict[str, Any]:
    return {
        "position": position,
        "type": kind,
        "timestamp": timestamp,
        "actor": actor,
        "cause": cause,
        "command": command,
        "data": data,
    }


def record_of(event: Any) -> dict[str, Any]:
    """One stored event as a plain record, with its hash."""
    data = {k: v for k, v in vars(event).items() if k not in BASE_FIELDS}
    rec = record(
        type(event).__name__,
        event.originator_version,
        event.timestamp.isoformat(),
        event.actor,
        event.cause,
        event.command,
        data,
    )
    rec["hash"] = event.hash
    return rec


def canonical(rec: dict[str, Any]) -> bytes:
    """Sorted keys, no spaces, UTF-8: the bytes that are hashed."""
    body = {k: v for k, v in rec.items() if k not in NOT_HASHED}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def chain(previous: str, rec: dict[str, Any]) -> str:
    """The hash of a record, chained to the previous record's hash ("" for the first)."""
    return hashlib.sha256(previous.encode() + canonical(rec)).hexdigest()


@dataclass(frozen=True)
class ChainReport:
    ok: bool
    events: int
    broken_at: int | None = None  # the position (or line) where the chain first breaks
    reason: str = ""


def verify_chain(records: Iterable[dict[str, Any]]) -> ChainReport:
    """Recompute the chain; report the first record whose hash or position does not fit."""
    previous, count = "", 0
    for count, rec in enumerate(records, start=1):
        where = rec.get("position", count)
        if rec.get("position") != count:
            return ChainReport(False, count, where, f"expected position {count}")
        expected = chain(previous, rec)
        if rec.get("hash") != expected:
            return ChainReport(
                False, count, where, "hash does not match the event's content and the previous hash"
            )
        previous = expected
    return ChainReport(True, count)
