"""What an audit of a log finds: the hash chain, the dice proof and the signed checkpoint, as
one report (docs/audit-spec.md says it for any verifier)."""

from __future__ import annotations

import codecs
import csv
import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict
from functools import cached_property
from itertools import chain
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from domain.audit import (
    WITHHELD,
    ChainCheck,
    DerivedCheck,
    DiceCheck,
    checkpoint_problem,
    checkpoint_statement,
    key_id,
    withheld_of,
)
from projections.export import CHECKPOINT_TYPE, CSV_COLUMNS, REDACTED


class NotAnExport(ValueError):
    """Raised when a text is no fraylog export (empty, an HTTP error answer, other data)."""


NO_CHECKPOINT: Any = object()  # an export without a checkpoint line (`null` is a malformed one)
NOTHING_WITHHELD: frozenset[str] = frozenset()  # what an ordinary record withholds


class Audit:
    """What one pass over a log's records finds (docs/audit-spec.md §3-5): the chain and,
    record by record as each fits it, the derived columns and the dice. A record is read
    once and dropped: only the corrections, the rolls a secret proves and the hashes (for
    the checkpoint) are kept, so a log is never held whole."""

    def __init__(self) -> None:
        self.chain = ChainCheck()
        self.derived = DerivedCheck()
        self.dice = DiceCheck()
        self.hashes: list[str] = []  # each record's, in order

    def add(self, rec: dict[str, Any]) -> bool:
        """Take the next record; False once the chain is broken (later ones change nothing)."""
        if self.chain.broken is not None or not self.chain.add(rec):
            return False
        hidden = withheld_of(rec) if WITHHELD in rec else NOTHING_WITHHELD
        self.derived.add(rec, hidden)
        self.dice.add(rec, hidden)
        self.hashes.append(rec["hash"])
        return True


def audited(records: Iterable[dict[str, Any]]) -> Audit:
    """One pass over records (from the store, a page at a time, or an export file)."""
    audit = Audit()
    for rec in records:
        if not audit.add(rec):
            break
    return audit


class Export:
    """An export file as read, in one pass (each line decoded once): its checkpoint (the
    object its last line holds, if any; `misplaced` says why the file's checkpoint lines
    are not one last line) and what the pass found of its records (`audit`). `records`,
    the records as written (edited or not), decodes their lines again: for tools and
    tests, never for verify_export."""

    def __init__(
        self,
        audit: Audit,
        kept: Sequence[Any],
        checkpoint: Any = NO_CHECKPOINT,
        misplaced: str | None = None,
    ) -> None:
        self.audit = audit
        self._kept = kept  # each record's NDJSON line (text), or a CSV's records
        self.checkpoint = checkpoint
        self.misplaced = misplaced

    @cached_property
    def records(self) -> list[dict[str, Any]]:
        return [json.loads(r) if isinstance(r, str) else r for r in self._kept]


INTEGER = re.compile(r"-?[0-9]+")  # a CSV integer column: ASCII digits only
BLANK_START = ("", " ", "\t", "\r")  # how a line that may be blank starts
_SCAN = json.JSONDecoder().scan_once  # (text, index) -> (value, end): C, holding the GIL
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


def _loaded(part: str, ended: bool) -> Any:
    """A line as json.loads reads it (with its line feed, if it had one: where an error is
    said); NotAnExport for one that is no JSON."""
    try:
        return json.loads(part + "\n" if ended else part)
    except (ValueError, TypeError, RecursionError) as e:
        raise NotAnExport(str(e)) from None


class _Reading:
    """An export's lines as they are decoded, one at a time: its records audited, its
    checkpoint lines noted, what makes it no export told at the end (`export`)."""

    def __init__(self) -> None:
        self.audit, self.kept, self.trailers = Audit(), [], []
        self.count, self.first = 0, None
        self.records_only = True  # every line so far is an event record (position, hash, ...)

    def take(self, line: Any, as_written: Any) -> None:
        self.count += 1
        if self.count == 1:
            self.first = line
        if isinstance(line, dict):
            if len(line) == 1 and "checkpoint" in line:  # a checkpoint line
                self.trailers.append((self.count, line["checkpoint"]))
                return
            self.records_only = self.records_only and "position" in line and "hash" in line
        else:
            self.records_only = False
        self.kept.append(as_written)
        if self.records_only:
            self.audit.add(line)

    def export(self) -> Export:
        first, trailers = self.first, self.trailers
        if not self.count:
            raise NotAnExport("it holds no events")
        if isinstance(first, dict) and {"status", "title"} <= first.keys():
            raise NotAnExport(
                f"it is an HTTP error answer ({first['status']} {first['title']}: "
                f"{first.get('detail', '')}); did the request send the encounter's token "
                '(-H "Authorization: Bearer $GM")?'
            )
        if not self.kept:
            raise NotAnExport("it holds no events")
        if not self.records_only:
            raise NotAnExport("its lines are not event records (position, hash, ...)")
        if not trailers:
            return Export(self.audit, self.kept)
        misplaced = None
        if len(trailers) > 1:
            misplaced = f"the file holds {len(trailers)} checkpoints; an export carries one"
        elif trailers[0][0] != self.count:
            misplaced = "the checkpoint is not the file's last line"
        return Export(self.audit, self.kept, trailers[-1][1], misplaced)


def read_export(text: str) -> Export:
    """An NDJSON or CSV export (CSV if it starts with its header), as docs/audit-spec.md §1
    reads it, its records audited as they are decoded (each line once); NotAnExport says
    why a text is none."""
    text, reading = text.removeprefix("\ufeff"), _Reading()
    if text.startswith("position,"):
        try:
            rows = _csv_lines(text)
        except (ValueError, TypeError, RecursionError, csv.Error) as e:
            raise NotAnExport(str(e)) from None
        for row in rows:
            reading.take(row, row)
        return reading.export()
    parts = text.split("\n")
    last = len(parts) - 1
    for n, part in enumerate(parts):
        _take_line(reading, part, n < last)
    return reading.export()


def _take_line(reading: _Reading, part: str, ended: bool) -> None:
    """One NDJSON line (without its line feed; `ended`: it had one), decoded and taken."""
    if part[:1] in BLANK_START and not part.strip(" \t\r\n"):  # a line not copied
        return
    try:  # json.loads(part), without its Python steps
        line, end = _SCAN(part, 0)
        if end != len(part) and part[end:].strip(" \t\r\n"):
            line = _loaded(part, ended)  # what follows the value: as json.loads says
    except (StopIteration, ValueError, RecursionError):
        line = _loaded(part, ended)
    reading.take(line, part)


def read_export_stream(chunks: Iterable[str]) -> Export:
    """`read_export` of a text that arrives in pieces (a download, a pipe): each NDJSON line
    decoded and audited as soon as it is whole, while the rest is still coming, so reading
    and verifying overlap the export's making and sending. The same Export as
    `read_export` of the whole text (a CSV export is read once it is whole)."""
    pieces = iter(chunks)
    head = ""
    for chunk in pieces:  # enough to tell a BOM and a CSV header
        head += chunk
        if len(head) > len("\ufeffposition,"):
            break
    text = head.removeprefix("\ufeff")  # read_export takes one BOM off: the same here
    if text.startswith("position,") or len(text) <= len("position,"):
        return read_export(head + "".join(pieces))
    reading, pending = _Reading(), text
    for chunk in chain(("",), pieces):  # the head's lines first
        pending += chunk
        if "\n" not in chunk and chunk:
            continue
        *whole, pending = pending.split("\n")
        for part in whole:
            _take_line(reading, part, True)
    _take_line(reading, pending, False)
    return reading.export()


def decoded(chunks: Iterable[bytes]) -> Iterator[str]:
    """UTF-8 bytes as text, piece by piece (a character split between pieces is whole in
    the next); UnicodeDecodeError for bytes that are no UTF-8, as bytes.decode says."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    for chunk in chunks:
        yield decoder.decode(chunk)
    yield decoder.decode(b"", final=True)


def checkpoint_verdict(
    records: list[dict[str, Any]],
    checkpoint: Any,
    keys: Iterable[dict[str, Any]],
    misplaced: str | None = None,
) -> dict[str, Any]:
    """How far a checkpoint vouches for intact records (docs/audit-spec.md §6.1)."""
    return _signed(checkpoint, keys, misplaced, [r.get("hash") for r in records])


def _signed(
    checkpoint: Any, keys: Iterable[dict[str, Any]], misplaced: str | None, hashes: list[Any]
) -> dict[str, Any]:
    """checkpoint_verdict, of records known by their hashes (in order)."""
    if checkpoint is NO_CHECKPOINT and misplaced is None:
        return _verdict(
            checkpoint, "none", True, "the file carries no checkpoint: nothing says it is whole"
        )
    problem = misplaced or checkpoint_problem(checkpoint)
    if problem:
        return _verdict(checkpoint, "malformed", False, problem)
    return _unsigned(checkpoint, keys) or _coverage(hashes, checkpoint)


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


def _coverage(hashes: list[Any], checkpoint: dict[str, Any]) -> dict[str, Any]:
    """The verdict on a signed checkpoint: whether the records (their hashes) reach its
    position, hold the event it signed there, and go on past it."""
    events = len(hashes)
    position = checkpoint["position"]
    if position > events:
        return _verdict(
            checkpoint,
            "truncated",
            False,
            f"the checkpoint vouches for {position} events; the file holds {events}",
            missing=[events + 1, position],
        )
    if hashes[position - 1] != checkpoint["hash"]:
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
    return judged(audited(records), checkpoint, keys, misplaced)


def judged(
    audit: Audit,
    checkpoint: Any = NO_CHECKPOINT,
    keys: Iterable[dict[str, Any]] = (),
    misplaced: str | None = None,
) -> dict[str, Any]:
    """The report on audited records: the chain, then (if it holds) the derived columns,
    then (if they hold) the dice and the checkpoint."""
    chain = audit.chain.report()
    if chain.ok:
        chain = audit.derived.report()
    dice = audit.dice.report() if chain.ok else None
    signed = _signed(checkpoint, keys, misplaced, audit.hashes) if chain.ok else None
    return {
        "ok": chain.ok and dice is not None and dice.ok and signed is not None and signed["ok"],
        "chain": asdict(chain),
        "dice": None if dice is None else {**asdict(dice), "ok": dice.ok},
        "checkpoint": signed,
    }


def verify_export(export: Export, keys: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The report on an export file, its checkpoint checked against `keys`."""
    return judged(export.audit, export.checkpoint, keys, export.misplaced)
