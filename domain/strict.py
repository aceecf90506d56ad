"""JSON types taken strictly (issue 18): where a table's input enters, an integer is a JSON
integer (not `"5"`, `true` or `5.0`), a boolean is `true` or `false` (not `1` or `"true"`),
text is a string (not a number).

The commands' and the stats' models are validated with pydantic's `strict=True` at the
doors: `RuleSystem.command_adapter()` for a command's body, `RuleSystem.new_combatant` and
`options_of` for stats and options. Stored events are read back as they are (a model
re-validated from a record is lax), so an older record always loads.
"""

from __future__ import annotations

from typing import Any

from pydantic import BeforeValidator
from pydantic_core import PydanticCustomError


def _whole(value: Any) -> Any:
    # strict mode lets `true` and `1.0` pass as a Literal of integers (True == 1 == 1.0)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise PydanticCustomError("int_type", "Input should be a valid integer")


# a Literal of integers, as `Annotated[Literal[1, 2], Whole]`: only an integer passes
Whole = BeforeValidator(_whole)


def json_kind(value: Any) -> str:
    """What a JSON value is, in words: `a string`, `a boolean`, `a decimal number`, ..."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a decimal number"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list | tuple):
        return "an array"
    return "something else"


def said(error: Any) -> str:
    """A pydantic error's message, saying what was given where a type refused it: `Input
    should be a valid integer, not a string`."""
    message = str(error.get("msg", ""))
    if str(error.get("type", "")).endswith("_type") and "input" in error:
        return f"{message}, not {json_kind(error['input'])}"
    return message
