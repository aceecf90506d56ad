"""An encounter's statistics, for its GM, from the read models (docs/read-models.md)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from fastapi import APIRouter
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from api.deps import FraylogDep, GmDep
from api.routes.common import ERRORS
from infra.app import Fraylog
from infra.statistics import read

router = APIRouter()


class RollsBySource(BaseModel):
    """Rolls counted by where their faces came from."""

    server: int
    seeded: int
    manual: int
    total: int


class RollsOfAKind(BaseModel):
    """Rolls of one kind: how many, the sum of their dice (modifiers left out) and its mean."""

    count: int
    dice_sum: int
    average: float | None = Field(description="dice_sum / count to 2 decimals; null: no roll.")


class StatisticsCounts(BaseModel):
    damage_dealt: int = Field(
        description="Damage (the book's hits, PV in PHANTÄSIA) dealt to others by attacks."
    )
    damage_taken: int = Field(description="Damage taken, from anyone (himself included).")
    hits: int = Field(description="Attacks that hit (a PHANTÄSIA area power: one per target).")
    misses: int
    criticals: int = Field(description="As the rule book defines them (docs/read-models.md).")
    fumbles: int = Field(description="As the rule book defines them (docs/read-models.md).")
    voided: int = Field(description="Events voided by a correction (void, undo).")
    rolls: RollsBySource
    attack_rolls: RollsOfAKind = Field(description="Rolls to hit.")
    damage_rolls: RollsOfAKind = Field(description="Damage dice.")


class CombatantStatistics(StatisticsCounts):
    combatant_id: str
    name: str
    side: str


class EncounterTotals(StatisticsCounts):
    """The combatants' counts added up; `voided` counts every voided event of the encounter."""

    events: int = Field(description="The encounter's events the read models hold.")
    corrections: int = Field(description="Corrections recorded (void, undo, redo).")


class StatisticsLag(BaseModel):
    """How far the read models are behind this encounter."""

    projected: int = Field(description="The encounter's events the statistics count.")
    recorded: int = Field(description="The encounter's events in the store.")
    behind: int
    caught_up: bool


class EncounterStatistics(BaseModel):
    encounter_id: str
    encounter: EncounterTotals
    combatants: list[CombatantStatistics]
    position: int | None = Field(
        description="The last event (notification) of the store the read models hold; "
        "null: never run."
    )
    lag: StatisticsLag


def _statistics(fraylog: Fraylog, encounter_id: UUID) -> dict[str, Any]:
    recorded = fraylog.state(encounter_id).version  # a missing encounter: 404
    return read(fraylog.read_tables, str(encounter_id), recorded)


@router.get(
    "/{encounter_id}/statistics",
    response_model=EncounterStatistics,
    responses=ERRORS,
    operation_id="get_statistics",
)
async def get_statistics(encounter_id: UUID, fraylog: FraylogDep, grant: GmDep) -> Any:
    """Each combatant's statistics and the encounter's totals, from the read models: damage
    dealt and taken, hits and misses, rolls by source, rolls to hit and damage dice with
    their averages, criticals and fumbles as the rule book defines them, voided events and
    corrections; with `lag`, how far the read models are behind this encounter."""
    return await run_in_threadpool(_statistics, fraylog, encounter_id)
