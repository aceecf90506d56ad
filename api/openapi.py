"""The OpenAPI document, made by FastAPI and completed where it cannot say it alone: every
refusal's body is a Problem under application/problem+json (RFC 9457), and a combatant's
`stats` is one of the rule books' stats models."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel

from api.clean_input import FREE_TEXT as CLEAN_FREE_TEXT
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


def options_schemas(components: dict[str, Any]) -> list[dict[str, str]]:
    """Each rule book's options model (a book without options takes `{}`)."""
    refs: list[dict[str, Any]] = []
    for ruleset in rulesets():
        model = get_rule_system(ruleset).options_model
        if model is None:
            refs.append({"type": "object", "maxProperties": 0})
        else:
            refs.append({"$ref": _add(components, model, f"{ruleset.capitalize()}Options")})
    return refs


def stats_schemas(components: dict[str, Any]) -> list[dict[str, str]]:
    """Each rule book's stats model, named after the book (NovusStats, WitsStats, …)."""
    refs = []
    for ruleset in rulesets():
        model = get_rule_system(ruleset).stats_model
        refs.append({"$ref": _add(components, model, f"{ruleset.capitalize()}Stats")})
    return refs


# what api/clean_input.py refuses in a request's text, as JSON Schema patterns: a control
# character, a bidirectional formatting or a zero-width character (free text may hold lines)
_REFUSED = r"\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff"
PLAIN_TEXT = rf"^[^\u0000-\u001f{_REFUSED}]*$"
FREE_TEXT = rf"^[^\u0000-\u0008\u000b\u000c\u000e-\u001f{_REFUSED}]*$"


def _clean_text_patterns(spec: dict[str, Any]) -> None:
    """Say in the schemas of request bodies what text they refuse (clean_input), so a
    client, or a generator of examples, knows it: each string without an enum gets a
    `pattern`, each open object's keys a `propertyNames` one."""
    components = spec["components"]["schemas"]
    seen: set[int] = set()

    def walk(node: Any, key: str = "") -> None:
        if isinstance(node, list):
            for item in node:
                walk(item, key)
            return
        if not isinstance(node, dict) or id(node) in seen:
            return
        seen.add(id(node))
        if "$ref" in node:
            walk(components.get(node["$ref"].rsplit("/", 1)[-1]), key)
        if node.get("type") == "string" and not {"enum", "const", "pattern"} & set(node):
            node["pattern"] = FREE_TEXT if key in CLEAN_FREE_TEXT else PLAIN_TEXT
        if isinstance(node.get("additionalProperties"), dict | bool) and node.get(
            "additionalProperties"
        ) is not False:
            node.setdefault("propertyNames", {"pattern": PLAIN_TEXT})
        for name, sub in (node.get("properties") or {}).items():
            walk(sub, name)
        for part in ("items", "additionalProperties", "anyOf", "oneOf", "allOf"):
            if part in node:
                walk(node[part], key)

    for operations in spec["paths"].values():
        for operation in operations.values():
            for media in operation.get("requestBody", {}).get("content", {}).values():
                walk(media.get("schema"))


def _without_actor(spec: dict[str, Any]) -> None:
    """With tokens on, a body's `actor` is refused (the token says who acts): the schema of
    such a server does not offer it."""
    for schema in spec["components"]["schemas"].values():
        properties = schema.get("properties") or {}
        if "actor" in properties and "actor" not in schema.get("required", []):
            del properties["actor"]


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
        # an account key is optional where a route takes one but needs none (anyone may
        # start an encounter): `{}`, no requirement, is one of its alternatives
        for path, method in (("/encounters", "post"),):
            operation = spec["paths"][path][method]
            operation["security"] = [{}, *operation.get("security", [])]
        components.pop("HTTPValidationError", None)
        components.pop("ValidationError", None)
        stats = stats_schemas(components)
        for name in ("CombatantCreate",):
            field = components[name]["properties"]["stats"]
            field.pop("additionalProperties", None)
            field.pop("type", None)
            field["anyOf"] = [*stats, {"type": "null"}]  # null: with `from_roster`
        field = components["EncounterCreate"]["properties"]["options"]
        field.pop("additionalProperties", None)
        field.pop("type", None)
        field["anyOf"] = options_schemas(components)
        for parameter in spec["paths"]["/encounters"]["get"].get("parameters", []):
            if parameter["name"] == "ruleset":  # the books this server plays, as registered
                parameter["schema"] = {"anyOf": [{"enum": rulesets()}, {"type": "null"}]}
        _clean_text_patterns(spec)
        if app.state.fraylog.settings.auth:
            _without_actor(spec)
        app.openapi_schema = spec
        return spec

    app.openapi = openapi  # type: ignore[method-assign]
