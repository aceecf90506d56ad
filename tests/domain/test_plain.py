"""An event's data made JSON-normal before it is hashed (domain.audit `plain`): exactly what
the event store gives back, a JSON round trip, whatever the rules hand it."""

from __future__ import annotations

import enum
import json
import math
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from domain import audit

SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8)
KEYS = st.text(max_size=6) | st.integers(-5, 5) | st.booleans() | st.floats(-2, 2) | st.none()
DATA = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.lists(inner, max_size=4).map(tuple)
        | st.dictionaries(KEYS, inner, max_size=4)
    ),
    max_leaves=20,
)


class Side(enum.StrEnum):
    FOE = "foe"


class Count(enum.IntEnum):
    TWO = 2


def round_trip(data: dict[str, Any]) -> Any:
    return json.loads(json.dumps(data))


def same(a: Any, b: Any) -> bool:
    """Equal, with NaN equal to NaN and the types the same all the way down."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


@given(st.dictionaries(KEYS, DATA, max_size=6))
def test_given_any_json_like_data_when_made_plain_then_it_is_the_json_round_trip(
    data: dict[Any, Any],
) -> None:
    # when
    made = audit.plain(data)
    # then
    assert same(made, round_trip(data))


def test_given_enums_tuples_and_keys_not_strings_when_made_plain_then_as_json_reads_them() -> None:
    data = {"side": Side.FOE, "count": Count.TWO, "faces": (3, 5), "by": {1: [True, None]}}
    # when
    made = audit.plain(data)
    # then: plain types only, as the store reads them back
    assert made == {"side": "foe", "count": 2, "faces": [3, 5], "by": {"1": [True, None]}}
    assert type(made["side"]) is str and type(made["count"]) is int
    assert same(made, round_trip(data))


def test_given_data_when_made_plain_then_its_containers_are_new() -> None:
    data = {"faces": [3, 5], "marks": {"a": [1]}}
    # when
    made = audit.plain(data)
    made["faces"].append(6)
    made["marks"]["a"].append(2)
    # then
    assert data == {"faces": [3, 5], "marks": {"a": [1]}}
