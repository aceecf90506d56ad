"""What an audit of a log finds: the hash chain, the dice proof and the signed checkpoint, as
one report (docs/audit-spec.md says it for any verifier)."""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from domain.audit import (
    WITHHELD,
    check_derived_columns,
    checkpoint_problem,
    checkpoint_statement,
    key_id,
    verify_chain,
    verify_dice,
)
from projections.export import CHECKPOINT_TYPE, CSV_COLUMNS, REDACTED


class NotAnExport(ValueError):
    """Raised when a text is no fraylog export (empty, an HTTP error answer, other data)."""


NO_CHECKPOINT: Any = object()  # an export without a checkpoint line (`null` is a malformed one)


@dataclass(frozen=True)
class Export:
    """An export file as read: its records, as written (edited or not), and its checkpoint
    (the object its last line holds, if any; `misplaced` says why the file's checkpoint
    lines are not one last line)."""

    records: list[dict[str, Any]]
    checkpoint: Any = NO_CHECKPOINT
    misplaced: str | None = None


INTEGER = re.compile(r"-?[0-9]+")  # a CSV integer column: ASCII digits only
LONE_CR = re.compile(r"\r(?!\n)")


def _lines(text: str) -> list[str]:
    """The text's lines, ended by a line feed only (U+2028 and the like are characters of a
    line, as in the JSON that `ensure_ascii=False` writes), each with its line feed."""
    parts = text.split("\n")
    return [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def _integer(value: str) -> int | None:
    if value == "":
        return None
    if not INTEGER.fullmatch(value):
        raise ValueError(f"{value!r} is no integer")
    return int(value)


def _csv_lines(text: str) -> list[Any]:
    """The rows of a CSV export as records and a checkpoint line (docs/audit-spec.md §1)."""
    if LONE_CR.search(text):
        raise ValueError("a carriage return not followed by a line feed")
    rows = [row for row in csv.reader(_lines(text)) if row]
    if rows[0] != CSV_COLUMNS:
        raise ValueError(f"its header is not {','.join(CSV_COLUMNS)}")
    out: list[Any] = []
    for row in rows[1:]:
        cells = dict(zip(CSV_COLUMNS, row + [""] * (len(CSV_COLUMNS) - len(row)), strict=False))
        if cells["type"] == CHECKPOINT_TYPE and cells["position"] == "":
            out.append({"checkpoint": json.loads(cells["data"])})
            continue
        if cells["type"] == REDACTED:  # a record withheld from a player: position and hash
            out.append(
                {"position": _integer(cells["position"]), "redacted": True, "hash": cells["hash"]}
            )
            continue
        rec = {
            "position": _integer(cells["position"]),
            "type": cells["type"],
            "timestamp": cells["timestamp"],
            "actor": cells["actor"],
            "cause": _integer(cells["cause"]),
            "command": _integer(cells["command"]),
            "data": json.loads(cells["data"] or "{}"),
            "dice": json.loads(cells["dice"] or "{}"),
            "hash": cells["hash"],
            "voided_by": _integer(cells["voided_by"]),
        }
        # an 11th column, when not empty, is a concealed record's `withheld` (JSON; any
        # value: the chain judges it, docs/audit-spec.md §3)
        if len(row) > len(CSV_COLUMNS) and row[len(CSV_COLUMNS)] != "":
            rec[WITHHELD] = json.loads(row[len(CSV_COLUMNS)])
        out.append(rec)
    return out


def read_export(text: str) -> Export:
    """An NDJSON or CSV export (CSV if it starts with its header), as docs/audit-spec.md §1
    reads it; NotAnExport says why a text is none."""
    text = text.removeprefix("\ufeff")
    try:
        if text.startswith("position,"):
            lines = _csv_lines(text)
        else:
            lines = [json.loads(line) for line in _lines(text) if line.strip(" \t\r\n")]
    except (ValueError, TypeError, RecursionError, csv.Error) as e:
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


def checkpoint_verdict(
    records: list[dict[str, Any]],
    checkpoint: Any,
    keys: Iterable[dict[str, Any]],
    misplaced: str | None = None,
) -> dict[str, Any]:
    """How far a checkpoint vouches for intact records (docs/audit-spec.md §6.1)."""
    if checkpoint is NO_CHECKPOINT and misplaced is None:
        return _verdict(
            checkpoint, "none", True, "the file carries no checkpoint: nothing says it is whole"
        )
    problem = misplaced or checkpoint_problem(checkpoint)
    if problem:
        return _verdict(checkpoint, "malformed", False, problem)
    return _unsigned(checkpoint, keys) or _coverage(records, checkpoint)


def _verdict(checkpoint: Any, status: str, ok: bool, reason: str, **more: Any) -> dict[str, Any]:
    """A checkpoint's verdict: its status, whether the records hold, what it signed (none
    if it is malformed), the positions missing or unsigned, and the reason in words."""
    signed = checkpoint if isinstance(checkpoint, dict) and status != "malformed" else {}
    return {
        "status": status,
        "ok": ok,
        "position": signed.get("position"),
        "time": signed.get("time"),
        "key": signed.get("key"),
        "encounter": signed.get("encounter"),
        "missing": more.get("missing"),
        "unsigned": more.get("unsigned"),
        "reason": reason,
    }


def _unsigned(checkpoint: dict[str, Any], keys: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
    """The verdict on a checkpoint no published key signed (its key unknown, or the
    signature not its key's); None where the signature verifies."""
    public = {
        k["id"]: k["public_key"]
        for k in keys
        if isinstance(k.get("public_key"), str) and _key_id_of(k["public_key"]) == k.get("id")
    }
    if checkpoint["key"] not in public:
        return _verdict(
            checkpoint,
            "unknown_key",
            False,
            f"no published key has the id {checkpoint['key']} (GET /audit/keys lists them)",
        )
    try:
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(public[checkpoint["key"]])).verify(
            bytes.fromhex(checkpoint["signature"]), checkpoint_statement(checkpoint)
        )
    except InvalidSignature:
        return _verdict(
            checkpoint, "bad_signature", False, "the signature does not verify with its key"
        )
    return None


def _coverage(records: list[dict[str, Any]], checkpoint: dict[str, Any]) -> dict[str, Any]:
    """The verdict on a signed checkpoint: whether the records reach its position, hold the
    event it signed there, and go on past it."""
    events = len(records)
    position = checkpoint["position"]
    if position > events:
        return _verdict(
            checkpoint,
            "truncated",
            False,
            f"the checkpoint vouches for {position} events; the file holds {events}",
            missing=[events + 1, position],
        )
    if records[position - 1].get("hash") != checkpoint["hash"]:
        return _verdict(
            checkpoint,
            "mismatch",
            False,
            f"the event at position {position} is not the one the checkpoint signed",
        )
    if position == events:
        return _verdict(
            checkpoint, "complete", True, f"whole up to the checkpoint at position {position}"
        )
    return _verdict(
        checkpoint,
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
    checkpoint: Any = NO_CHECKPOINT,
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
