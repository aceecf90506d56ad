"""What an audit of a log finds: the hash chain and the dice proof, as one report."""

from __future__ import annotations

import csv
import json
from dataclasses import asdict
from typing import Any

from domain.audit import check_derived_columns, verify_chain, verify_dice
from projections.export import record_from_csv


class NotAnExport(ValueError):
    """Raised when a text is no fraylog export (empty, an HTTP error answer, other data)."""


def records_from_export(text: str) -> list[dict[str, Any]]:
    """The records of an NDJSON or CSV export (CSV if it starts with its header), as written,
    edited or not; NotAnExport says why a text is none."""
    try:
        if text.startswith("position,"):
            records: list[Any] = [record_from_csv(r) for r in csv.DictReader(text.splitlines())]
        else:
            records = [json.loads(line) for line in text.splitlines() if line.strip()]
    except (ValueError, KeyError, TypeError) as e:
        raise NotAnExport(str(e)) from None
    if not records:
        raise NotAnExport("it holds no events")
    first = records[0]
    if isinstance(first, dict) and {"status", "title"} <= first.keys():
        raise NotAnExport(
            f"it is an HTTP error answer ({first['status']} {first['title']}: "
            f"{first.get('detail', '')}); did the request send the encounter's token "
            '(-H "Authorization: Bearer $GM")?'
        )
    if not all(isinstance(r, dict) and "position" in r and "hash" in r for r in records):
        raise NotAnExport("its lines are not event records (position, hash, ...)")
    return records


def verification(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Verify records (from the store or an export file): {ok, chain, dice}."""
    chain = verify_chain(records)
    if chain.ok:
        chain = check_derived_columns(records)
    dice = verify_dice(records) if chain.ok else None
    return {
        "ok": chain.ok and dice is not None and dice.ok,
        "chain": asdict(chain),
        "dice": None if dice is None else {**asdict(dice), "ok": dice.ok},
    }
