"""Rule systems: what each needs and offers (stats, actions, conditions, tables)."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter

from api.problems import PROBLEM
from api.schemas import Problem, RulesetDescription
from domain.rulesystems import get_rule_system

router = APIRouter(prefix="/rulesets", tags=["rulesets"])


@router.get(
    "/{name}",
    response_model=RulesetDescription,
    response_model_exclude_unset=True,
    response_model_by_alias=True,
    responses={422: {"model": Problem, "content": {PROBLEM: {}}}},
    operation_id="describe_ruleset",
)
async def describe_ruleset(name: Literal["novus", "phantasia", "wits"]) -> dict[str, Any]:
    """A rule system's stats schema, action catalogue with AP costs, conditions and tables."""
    return get_rule_system(name).describe()
