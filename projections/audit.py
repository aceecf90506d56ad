"""What an audit of a log finds: the hash chain, the dice proof and the signed checkpoint, as
one report (docs/audit-spec.md says it for any verifier)."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from domain.audit import (
    check_derived_columns,
    checkpoint_problem,
    checkpoint_statement,
    key_id,
    verify_chain,
    verify_dice,
)
from projections.export import CHECKPOINT_TYPE, record_from_csv


class NotAnExport(ValueError):
    """Raised when a text is no fraylog export (empty, an HTTP error answer, other data)."""


@dataclass(frozen=True)
class Export:
    """An export file as read: its records, as written (edited or not), and its checkpoint
    (the object its last line holds, if any; `misplaced` says why the file's checkpoint
    lines are not one last line)."""

    records: list[dict[str, Any]]
    checkpoint: Any = None
    misplaced: str | None = None


def read_export(text: str) -> Export:
    """An NDJSON or CSV export (CSV if it starts with its header); NotAnExport says why a
    text is none."""
    try:
        if text.startswith("position,"):
            rows = list(csv.DictReader(text.splitlines()))
            lines: list[Any] = [
                {"checkpoint": json.loads(r.get("data") or "null")}
                if r.get("type") == CHECKPOINT_TYPE and not r.get("position")
                else record_from_csv(r)
                for r in rows
            ]
        else:
            lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    except (ValueError, KeyError, TypeError) as e:
        raise NotAnExport(str(e)) from None
    if not lines:
        raise NotAnExport("it holds no events")
    first = lines[0]
    if isinstance(first, dict) and {"status", "title"} <= first.keys():
        raise NotAnExport(
            f"it is an HTTP error answer ({first['status']} {first['title']}: "
            f"{first.get('detail', '')}); did the request send the encounter's token "
            '(-H "Authorization: Bearer $GM")?'
        )
    trailers = [n for n, line in enumerate(lines) if _is_checkpoint_line(line)]
    records = [line for n, line in enumerate(lines) if n not in trailers]
    if not records:
        raise NotAnExport("it holds no events")
    if not all(isinstance(r, dict) and "position" in r and "hash" in r for r in records):
        raise NotAnExport("its lines are not event records (position, hash, ...)")
    if not trailers:
        return Export(records)
    misplaced = None
    if len(trailers) > 1:
        misplaced = f"the file holds {len(trailers)} checkpoints; an export carries one"
    elif trailers[0] != len(lines) - 1:
        misplaced = "the checkpoint is not the file's last line"
    return Export(records, lines[trailers[-1]]["checkpoint"], misplaced)


def _is_checkpoint_line(line: Any) -> bool:
    return isinstance(line, dict) and set(line) == {"checkpoint"}


def records_from_export(text: str) -> list[dict[str, Any]]:
    """The records of an NDJSON or CSV export, without its checkpoint."""
    return read_export(text).records


def checkpoint_verdict(
    records: list[dict[str, Any]],
    checkpoint: Any,
    keys: Iterable[dict[str, Any]],
    misplaced: str | None = None,
) -> dict[str, Any]:
    """How far a checkpoint vouches for intact records (docs/audit-spec.md §6.1)."""
    events = len(records)

    def verdict(status: str, ok: bool, reason: str, **more: Any) -> dict[str, Any]:
        signed = checkpoint if isinstance(checkpoint, dict) and status != "malformed" else {}
        return {
            "status": status,
            "ok": ok,
            "position": signed.get("position"),
            "time": signed.get("time"),
            "key": signed.get("key"),
            "missing": more.get("missing"),
            "unsigned": more.get("unsigned"),
            "reason": reason,
        }

    if checkpoint is None and misplaced is None:
        return verdict("none", True, "the file carries no checkpoint: nothing says it is whole")
    problem = misplaced or checkpoint_problem(checkpoint)
    if problem:
        return verdict("malformed", False, problem)
    public = {
        k["id"]: k["public_key"]
        for k in keys
        if isinstance(k.get("public_key"), str) and _key_id_of(k["public_key"]) == k.get("id")
    }
    if checkpoint["key"] not in public:
        return verdict(
            "unknown_key",
            False,
            f"no published key has the id {checkpoint['key']} (GET /audit/keys lists them)",
        )
    try:
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(public[checkpoint["key"]])).verify(
            bytes.fromhex(checkpoint["signature"]), checkpoint_statement(checkpoint)
        )
    except InvalidSignature:
        return verdict("bad_signature", False, "the signature does not verify with its key")
    position = checkpoint["position"]
    if position > events:
        return verdict(
            "truncated",
            False,
            f"the checkpoint vouches for {position} events; the file holds {events}",
            missing=[events + 1, position],
        )
    if records[position - 1].get("hash") != checkpoint["hash"]:
        return verdict(
            "mismatch",
            False,
            f"the event at position {position} is not the one the checkpoint signed",
        )
    if position == events:
        return verdict("complete", True, f"whole up to the checkpoint at position {position}")
    return verdict(
        "after_checkpoint",
        True,
        f"whole up to the checkpoint at position {position}; no signature covers "
        f"positions {position + 1} to {events}",
        unsigned=[position + 1, events],
    )


def _key_id_of(public_key: str) -> str | None:
    try:
        raw = bytes.fromhex(public_key)
    except ValueError:
        return None
    return key_id(raw) if len(raw) == 32 else None


def verification(
    records: list[dict[str, Any]],
    checkpoint: Any = None,
    keys: Iterable[dict[str, Any]] = (),
    misplaced: str | None = None,
) -> dict[str, Any]:
    """Verify records (from the store or an export file) and the checkpoint that came with
    them, against the published `keys`: {ok, chain, dice, checkpoint}."""
    chain = verify_chain(records)
    if chain.ok:
        chain = check_derived_columns(records)
    dice = verify_dice(records) if chain.ok else None
    signed = checkpoint_verdict(records, checkpoint, keys, misplaced) if chain.ok else None
    return {
        "ok": chain.ok and dice is not None and dice.ok and signed is not None and signed["ok"],
        "chain": asdict(chain),
        "dice": None if dice is None else {**asdict(dice), "ok": dice.ok},
        "checkpoint": signed,
    }


def verify_export(export: Export, keys: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The report on an export file, its checkpoint checked against `keys`."""
    return verification(export.records, export.checkpoint, keys, export.misplaced)
