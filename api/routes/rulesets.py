"""Rule systems: which may be played, and what each needs and offers (stats, actions,
conditions, tables, and how the web table presents it)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from api.problems import PROBLEM
from api.registered import RulesetName
from api.schemas import Problem, RulesetDescription
from domain.rulesystems import all_rule_systems, get_rule_system

router = APIRouter(prefix="/rulesets", tags=["rulesets"])


class RulesetEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="What `ruleset` takes to play it.")
    title: str = Field(description="Its name as its readers spell it.")


class RulesetList(BaseModel):
    """The rule systems this server plays: fraylog's own first, then those registered."""

    model_config = ConfigDict(extra="forbid")

    rulesets: list[RulesetEntry]


@router.get("", response_model=RulesetList, operation_id="list_rulesets")
async def list_rulesets() -> dict[str, Any]:
    """The rule systems that may be played here (the home page's choice of rule book)."""
    return {"rulesets": [{"name": s.name, "title": s.title} for s in all_rule_systems()]}


@router.get(
    "/{name}",
    response_model=RulesetDescription,
    response_model_exclude_unset=True,
    response_model_by_alias=True,
    responses={422: {"model": Problem, "content": {PROBLEM: {}}}},
    operation_id="describe_ruleset",
)
async def describe_ruleset(name: RulesetName) -> dict[str, Any]:
    """A rule system's stats schema, action catalogue with AP costs, conditions and tables,
    and how the web table presents it (`table`)."""
    return get_rule_system(name).describe()
