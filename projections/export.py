"""The event log as records, for JSON, NDJSON and CSV export."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator
from typing import Any

BASE_FIELDS = {
    "originator_id",
    "originator_version",
    "timestamp",
    "actor",
    "cause",
    "originator_topic",
}
CSV_COLUMNS = ["position", "type", "timestamp", "actor", "cause", "dice", "data"]


def record_of(event: Any) -> dict[str, Any]:
    """One event as a plain record: position, type, time, actor, cause, data."""
    data = {k: v for k, v in vars(event).items() if k not in BASE_FIELDS}
    return {
        "position": event.originator_version,
        "type": type(event).__name__,
        "timestamp": event.timestamp.isoformat(),
        "actor": event.actor,
        "cause": event.cause,
        "data": data,
    }


def dice_faces(record: dict[str, Any]) -> dict[str, list[int]]:
    """Roll name -> every face rolled, in order (the `dice` object that replays it)."""
    rolls = record["data"].get("rolls") or {}
    return {name: list(roll["faces"]) for name, roll in rolls.items()}


def ndjson_lines(events: Iterable[Any]) -> Iterator[str]:
    for event in events:
        yield json.dumps(record_of(event), ensure_ascii=False, separators=(",", ":")) + "\n"


def csv_lines(events: Iterable[Any]) -> Iterator[str]:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(CSV_COLUMNS)
    yield buffer.getvalue()
    for event in events:
        buffer.seek(0)
        buffer.truncate()
        r = record_of(event)
        writer.writerow(
            [
                r["position"],
                r["type"],
                r["timestamp"],
                r["actor"],
                "" if r["cause"] is None else r["cause"],
                json.dumps(dice_faces(r), separators=(",", ":")),
                json.dumps(r["data"], ensure_ascii=False, separators=(",", ":")),
            ]
        )
        yield buffer.getvalue()
