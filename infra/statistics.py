"""One encounter's statistics as the read models hold them (docs/read-models.md): each
combatant's counts, the encounter's totals, averages of the rolls to hit and of the damage
dice, and how far the read models are behind the encounter (`lag`).

The read models are kept by the projection runner (`fraylog projections run`, or the one
`fraylog serve` runs); this only reads them. Tables not made yet, or of an older shape the
runner has not rebuilt yet, read as nothing projected.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from psycopg.errors import UndefinedColumn, UndefinedTable

from infra.read_model_views import ENCOUNTERS, STATS
from infra.read_model_views import projected as read_models_position
from infra.sidetables import SideTables
from projections.read_models import CORRECTION_COLUMNS, COUNTERS, ROLL_KINDS, STATS_COLUMNS

NOT_YET = (sqlite3.OperationalError, UndefinedTable, UndefinedColumn)
SOURCES = ("server", "seeded", "manual")
# what the answer shows of the counters, beyond the rolls (which it groups)
PLAIN = ("damage_dealt", "damage_taken", "hits", "misses", "criticals", "fumbles", "voided")


def average(total: int, count: int) -> float | None:
    """The mean to 2 decimals; None when nothing was rolled."""
    return round(total / count, 2) if count else None


def shown(counts: dict[str, Any]) -> dict[str, Any]:
    """Counters as the answer shows them: rolls by source, and for the rolls to hit and the
    damage dice their count, the sum of their dice and its average."""
    rolls = {source: counts[f"rolls_{source}"] for source in SOURCES}
    out = {c: counts[c] for c in PLAIN}
    out["rolls"] = {**rolls, "total": sum(rolls.values())}
    for kind in ROLL_KINDS:
        count, dice = counts[f"{kind}_rolls"], counts[f"{kind}_dice_sum"]
        out[f"{kind}_rolls"] = {"count": count, "dice_sum": dice, "average": average(dice, count)}
    return out


def read(tables: SideTables, encounter_id: str, recorded: int) -> dict[str, Any]:
    """The statistics of an encounter whose latest position is `recorded` (its events)."""
    position = read_models_position(tables)
    try:
        encounter = tables.execute(
            f"SELECT events, {', '.join(CORRECTION_COLUMNS)} FROM {tables.table(ENCOUNTERS)} "
            "WHERE encounter_id = ?",
            (encounter_id,),
        )
        rows = tables.execute(
            f"SELECT {', '.join(STATS_COLUMNS)} FROM {tables.table(STATS)} "
            "WHERE encounter_id = ? ORDER BY side, name, combatant_id",
            (encounter_id,),
        )
    except NOT_YET:  # never projected here, or tables of an older shape not rebuilt yet
        encounter, rows = [], []
    combatants = [dict(zip(STATS_COLUMNS, r, strict=True)) for r in rows]
    projected, voided, corrections = encounter[0] if encounter else (0, 0, 0)
    totals = {c: sum(r[c] for r in combatants) for c in COUNTERS}
    totals["voided"] = voided  # every voided event, a combatant's or not
    return {
        "encounter_id": encounter_id,
        "encounter": {"events": projected, "corrections": corrections, **shown(totals)},
        "combatants": [
            {"combatant_id": r["combatant_id"], "name": r["name"], "side": r["side"], **shown(r)}
            for r in combatants
        ],
        "position": position,
        "lag": {
            "projected": projected,
            "recorded": recorded,
            "behind": max(recorded - projected, 0),
            "caught_up": projected >= recorded,
        },
    }
