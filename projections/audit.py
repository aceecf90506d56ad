"""What an audit of a log finds: the hash chain and the dice proof, as one report."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from domain.audit import check_derived_columns, verify_chain, verify_dice


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
