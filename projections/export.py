"""The event log as records, for JSON, NDJSON and CSV export."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from domain.audit import WITHHELD, record_of
from domain.corrections import voided_by

CSV_COLUMNS = [
    "position",
    "type",
    "timestamp",
    "actor",
    "cause",
    "command",
    "voided_by",
    "dice",
    "data",
    "hash",
]


def records(
    events: Sequence[Any], voided: dict[int, int] | None = None
) -> Iterator[dict[str, Any]]:
    """Each event as a record, with `voided_by`: the correction that voids it, if any
    (from `voided` when the events are a page of a longer log, else from the events)."""
    voided = voided_by(events) if voided is None else voided
    for event in events:
        rec = record_of(event)
        rec["voided_by"] = voided.get(event.originator_version)
        yield rec


def dice_faces(record: dict[str, Any]) -> dict[str, list[int]]:
    """Roll name -> every face rolled, in order (the `dice` object that replays it)."""
    rolls = record["data"].get("rolls") or {}
    return {name: list(roll["faces"]) for name, roll in rolls.items()}


def ndjson_lines(events: Sequence[Any], voided: dict[int, int] | None = None) -> Iterator[str]:
    return ndjson_records(records(events, voided))


# json.dumps(rec, ensure_ascii=False, separators=(",", ":")), its encoder made once
_NDJSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def ndjson_records(rows: Iterable[dict[str, Any]]) -> Iterator[str]:
    """Records (or a player's placeholders) as NDJSON lines."""
    for rec in rows:
        yield _NDJSON.encode(rec) + "\n"


# a record's line, its members in record()'s order, then `hash` and `voided_by`
_LINE = (
    '{"position":%d,"type":%s,"timestamp":%s,"actor":%s,"cause":%s,"command":%s,'
    '"data":{%s},"hash":%s,"voided_by":%s}\n'
)


def ndjson_line(
    position: int, kind: str, head: tuple[str, ...], data: str, voided_by: int | None
) -> str:
    """The line ndjson_records writes for a record given as JSON text: `kind`, its type,
    `head`, its timestamp, actor, cause, command and hash, and `data`, its data members
    between the braces, each as json.dumps(value, ensure_ascii=False, separators=(",",
    ":")) writes it (the event store's JSON writes them so; docs/audit-spec.md §1)."""
    at, actor, cause, command, hashed = head
    voided = "null" if voided_by is None else voided_by
    return _LINE % (position, kind, at, actor, cause, command, data, hashed, voided)


def csv_lines(
    events: Sequence[Any], voided: dict[int, int] | None = None, header: bool = True
) -> Iterator[str]:
    return csv_records(records(events, voided), header)


def csv_records(rows: Iterable[dict[str, Any]], header: bool = True) -> Iterator[str]:
    """Records (or a player's placeholders) as CSV rows, after the header if `header`."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    if header:
        writer.writerow(CSV_COLUMNS)
        yield buffer.getvalue()
    for rec in rows:
        buffer.seek(0)
        buffer.truncate()
        writer.writerow(csv_row(rec))
        yield buffer.getvalue()


REDACTED = "Redacted"  # a player's placeholder row: its position and hash only


def csv_row(rec: dict[str, Any]) -> list[Any]:
    def blank(v: Any) -> Any:
        return "" if v is None else v

    if rec.get("redacted") is True:
        row = dict.fromkeys(CSV_COLUMNS, "")
        row.update(position=rec["position"], type=REDACTED, hash=rec["hash"])
        return [row[name] for name in CSV_COLUMNS]
    withheld = rec.get(WITHHELD)
    # a concealed record (docs/audit-spec.md §1) whose rolls were changed shows no faces
    faces = {} if withheld and "rolls" in withheld else dice_faces(rec)
    row = [
        rec["position"],
        rec["type"],
        rec["timestamp"],
        rec["actor"],
        blank(rec["cause"]),
        rec["command"],
        blank(rec["voided_by"]),
        json.dumps(faces, separators=(",", ":")),
        json.dumps(rec["data"], ensure_ascii=False, separators=(",", ":")),
        rec["hash"],
    ]
    if withheld is not None:  # a concealed record: an 11th column, beyond the header's ten
        row.append(json.dumps(withheld, ensure_ascii=False, separators=(",", ":")))
    return row


CHECKPOINT_TYPE = "Checkpoint"  # a CSV's last row, holding the checkpoint in its data column


def checkpoint_line(checkpoint: dict[str, Any]) -> str:
    """An NDJSON export's last line: the latest checkpoint at or before its last event."""
    return json.dumps({"checkpoint": checkpoint}, separators=(",", ":")) + "\n"


def checkpoint_row(checkpoint: dict[str, Any]) -> str:
    """A CSV export's last row: type Checkpoint, the checkpoint as JSON in `data`."""
    buffer = io.StringIO()
    row = {name: "" for name in CSV_COLUMNS}
    row["type"] = CHECKPOINT_TYPE
    row["data"] = json.dumps(checkpoint, separators=(",", ":"))
    csv.writer(buffer).writerow([row[name] for name in CSV_COLUMNS])
    return buffer.getvalue()


def trailer(checkpoint: dict[str, Any] | None, fmt: str) -> str:
    """What ends an export of `fmt` (ndjson or csv): its checkpoint, if it has one."""
    if checkpoint is None:
        return ""
    return checkpoint_row(checkpoint) if fmt == "csv" else checkpoint_line(checkpoint)
