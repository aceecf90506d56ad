"""The API's schemas that are the rule books' own, taken from the registry
(domain.rulesystems) when they are used: an encounter's view is the discriminated union (by
`ruleset`) of the registered books' view models (`RuleSystem.view_model`), a combatant's the
union of their combatant models, a command body the union of every book's commands, and a
rule book's name one of `rulesets()`. The OpenAPI document lists what is registered when the
app first makes it; an answer is checked against its own book's model. No book is named here.
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from functools import cache
from typing import Annotated, Any, Union

from pydantic import BaseModel, Field, GetCoreSchemaHandler, GetJsonSchemaHandler, TypeAdapter
from pydantic import create_model as _create_model
from pydantic_core import CoreSchema, PydanticCustomError, core_schema

from domain.commands import every_command
from domain.rulesystems import all_rule_systems, rulesets

GM_TOKEN = Field(
    description="The GM's bearer token for this encounter, shown only here, once; null when "
    "the server runs with --no-auth."
)


def view_models() -> tuple[type[BaseModel], ...]:
    """Each registered rule book's view model, in `rulesets()` order."""
    return tuple(rules.view_model for rules in all_rule_systems())


def combatant_model(view_model: type[BaseModel]) -> type[BaseModel]:
    """The model of one combatant in a book's view (its `combatants` list's items)."""
    return typing.get_args(view_model.model_fields["combatants"].annotation)[0]


@cache
def created_model(view_model: type[BaseModel]) -> type[BaseModel]:
    """A book's view with the GM's token: the answer to creating (or forking) an encounter."""
    return _create_model(  # type: ignore[call-overload,no-any-return]
        f"{view_model.__name__}Created",
        __base__=view_model,
        __module__=view_model.__module__,
        gm_token=(str | None, GM_TOKEN),
    )


@cache
def _adapter(members: tuple[type[Any], ...], discriminator: str | None) -> TypeAdapter[Any]:
    union = Union[members]  # noqa: UP007 (a tuple of classes known only when called)
    if discriminator is None:
        return TypeAdapter(union)
    return TypeAdapter(Annotated[union, Field(discriminator=discriminator)])


class OneOfRegistered:
    """A schema that is a union of what the registered rule books declare (`members()`),
    discriminated by `discriminator` where given: validated and serialized as that union,
    documented as it stands when the OpenAPI document is made (`checked=False`: documented
    only, any value passes, for the caller to parse)."""

    def __init__(
        self,
        members: Callable[[], tuple[type[Any], ...]],
        discriminator: str | None = None,
        checked: bool = True,
    ) -> None:
        self.members = members
        self.discriminator = discriminator
        self.checked = checked

    def adapter(self) -> TypeAdapter[Any]:
        return _adapter(self.members(), self.discriminator)

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> Any:
        if not self.checked:
            return core_schema.any_schema()

        def validate(value: Any) -> Any:
            return self.adapter().validate_python(value)

        def serialize(value: Any, info: core_schema.SerializationInfo) -> Any:
            return self.adapter().dump_python(
                value,
                mode=info.mode,
                by_alias=bool(info.by_alias),
                exclude_unset=info.exclude_unset,
                exclude_defaults=info.exclude_defaults,
                exclude_none=info.exclude_none,
            )

        return core_schema.no_info_plain_validator_function(
            validate,
            serialization=core_schema.plain_serializer_function_ser_schema(
                serialize, info_arg=True
            ),
        )

    def __get_pydantic_json_schema__(
        self, schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> dict[str, Any]:
        return handler(self.adapter().core_schema)


class RegisteredName:
    """A rule book's name: one of `rulesets()` (refused as a literal would be)."""

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> Any:
        def validate(value: Any) -> str:
            names = rulesets()
            if not isinstance(value, str) or value not in names:
                quoted = [repr(name) for name in names]
                expected = f"{', '.join(quoted[:-1])} or {quoted[-1]}" if len(quoted) > 1 else ""
                raise PydanticCustomError(
                    "literal_error",
                    "Input should be {expected}",
                    {"expected": expected or quoted[0]},
                )
            return value

        return core_schema.no_info_plain_validator_function(
            validate, serialization=core_schema.to_string_ser_schema()
        )

    def __get_pydantic_json_schema__(
        self, schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> dict[str, Any]:
        return {"enum": list(rulesets()), "type": "string"}


def _combatant_models() -> tuple[type[BaseModel], ...]:
    return tuple(combatant_model(model) for model in view_models())


def _created_models() -> tuple[type[BaseModel], ...]:
    return tuple(created_model(model) for model in view_models())


RulesetName = Annotated[str, RegisteredName()]
EncounterPublic = Annotated[Any, OneOfRegistered(view_models, "ruleset")]
EncounterCreated = Annotated[Any, OneOfRegistered(_created_models, "ruleset")]
CombatantPublic = Annotated[Any, OneOfRegistered(_combatant_models)]
# a command's body: documented as every registered book's commands; parsed by its encounter's
# book (RuleSystem.command_adapter), so here any JSON passes
CommandBody = Annotated[Any, OneOfRegistered(every_command, "type", checked=False)]
