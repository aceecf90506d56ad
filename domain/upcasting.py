"""Events and snapshots stored before a word's spelling changed, read in today's words.

fraylog once wrote `defence` (commands, events, roll names) beside `defense` (stats,
options); it now writes `defense`, the Wits book's own spelling, everywhere. A stored event
is never rewritten: when one recorded before the change is read (its stored `class_version`
is 1), its fields, the keys of its data and the roll names in it are respelled for the fold
and every reader, and the record as it was written is kept beside it (`recorded_as`: its
type name and data), because that is what its hash covers: exports and verification read
the record as written, so an old fight's chain stays intact. Snapshots are respelled the
same way when read.
"""

from __future__ import annotations

from typing import Any

RESPELLED = {"defence": "defense", "Defence": "Defense", "DEFENCE": "DEFENSE"}
RENAMED_TYPES = {"DefenceDeclared": "DefenseDeclared"}  # old event class name → new


def _word(text: str) -> str:
    for old, new in RESPELLED.items():
        text = text.replace(old, new)
    return text


def _is_word(text: str) -> bool:
    """A value that is a name, not prose: a roll name (`defence`, `defence:Orc`) or a
    `defence_…` key-like word."""
    return text.split(":", 1)[0].replace("_", "").isalpha() and " " not in text


def respell(value: Any) -> Any:
    """`value` with every dict key, and every name-like string, in today's spelling."""
    if isinstance(value, dict):
        return {_word(k) if isinstance(k, str) else k: respell(v) for k, v in value.items()}
    if isinstance(value, list):
        return [respell(v) for v in value]
    if isinstance(value, str) and "efence" in value.lower() and _is_word(value):
        return _word(value)
    return value


def upcast_event(type_name: str, state: dict[str, Any], base_fields: frozenset[str]) -> None:
    """Respell a stored event's state in place, keeping the record as written when it
    changed (or its type was renamed)."""
    written_type = next((old for old, new in RENAMED_TYPES.items() if new == type_name), type_name)
    data = {k: v for k, v in state.items() if k not in base_fields}
    respelled = respell(data)
    if respelled == data and written_type == type_name:
        return
    for key in data:
        del state[key]
    state.update(respelled)
    state["recorded_as"] = {"type": written_type, "data": data}
