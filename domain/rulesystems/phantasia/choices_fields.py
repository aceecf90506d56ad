"""The fields PHANTÄSIA's candidate commands share: the characteristics a check may use,
the narrator's situational modifiers, a pick of combatants."""

from __future__ import annotations

from typing import Any

CHARACTERISTICS = ("fue", "agi", "int", "vit", "sue", "ca")
MODIFIERS = {"type": "object", "additionalProperties": {"type": "integer"}}  # the GM's


def some_of(ids: list[str], least: int) -> dict[str, Any]:
    """A field naming `least` or more of `ids`, each once."""
    return {"type": "array", "items": {"enum": ids}, "minItems": least, "uniqueItems": True}
