"""The OpenAPI document, made by FastAPI and completed where it cannot say it alone: every
refusal's body is a Problem under application/problem+json (RFC 9457), and a combatant's
`stats` is one of the rule books' stats models."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel

from api.problems import PROBLEM
from api.schemas import Problem
from domain.rulesystems import get_rule_system, rulesets

REF = "#/components/schemas/{model}"


def _add(components: dict[str, Any], model: type[BaseModel], name: str | None = None) -> str:
    """Put `model` (and the models it uses) into the components; return its $ref."""
    schema = model.model_json_schema(ref_template=REF, by_alias=True)
    for key, sub in schema.pop("$defs", {}).items():
        components.setdefault(key, sub)
    components[name or model.__name__] = schema
    return REF.format(model=name or model.__name__)


def stats_schemas(components: dict[str, Any]) -> list[dict[str, str]]:
    """Each rule book's stats model, named after the book (NovusStats, WitsStats, …)."""
    refs = []
    for ruleset in rulesets():
        model = get_rule_system(ruleset).stats_model
        refs.append({"$ref": _add(components, model, f"{ruleset.capitalize()}Stats")})
    return refs


def install(app: FastAPI) -> None:
    def openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        spec = get_openapi(
            title=app.title,
            version=app.version,
            summary=app.summary,
            description=app.description,
            routes=app.routes,
        )
        components = spec.setdefault("components", {}).setdefault("schemas", {})
        problem = {"schema": {"$ref": _add(components, Problem)}}
        for operations in spec["paths"].values():
            for operation in operations.values():
                for status, response in operation.get("responses", {}).items():
                    content = response.get("content", {})
                    if status.startswith(("4", "5")) or PROBLEM in content:
                        content.pop("application/json", None)
                        content[PROBLEM] = problem
                        response["content"] = content
        stream = spec["paths"]["/encounters/{encounter_id}/stream"]["get"]["responses"]["200"]
        stream["description"] = (
            "Server-sent events: `id:` an event's position and `data:` its record (an "
            "EventRecord, as GET …/events gives it); with view=true, `event: view` messages "
            "whose data is the encounter view (as GET /encounters/{id}); `:` comments keep "
            "the stream open."
        )
        stream["content"] = {"text/event-stream": {"schema": {"type": "string"}}}
        components.pop("HTTPValidationError", None)
        components.pop("ValidationError", None)
        stats = stats_schemas(components)
        for name in ("CombatantCreate",):
            field = components[name]["properties"]["stats"]
            field.pop("additionalProperties", None)
            field.pop("type", None)
            field["anyOf"] = stats
        app.openapi_schema = spec
        return spec

    app.openapi = openapi  # type: ignore[method-assign]
