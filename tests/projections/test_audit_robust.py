"""Whatever a file holds, verifying it answers a report or says it is no export: a forger who
recomputes the chain around nonsense (a die of 2^33 sides, a secret that is no hex, data that
is a list) gets a broken chain, never a hang or a crash (POST /audit/verify takes files from
anyone)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.audit import chain
from projections.audit import NotAnExport, read_export, verify_export
from tests.audit_vectors import FOLDER

EXAMPLE = (FOLDER / "example.ndjson").read_text(encoding="utf-8")
KEYS = json.loads((FOLDER / "keys.json").read_text())["keys"]
RECORDS = read_export(EXAMPLE).records

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


def paths(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place inside a JSON value."""
    out = [at]
    if isinstance(value, dict):
        for k, v in value.items():
            out += paths(v, (*at, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += paths(v, (*at, i))
    return out


def rechained(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    previous = ""
    for r in records:
        try:
            r["hash"] = chain(previous, r)
        except (TypeError, ValueError):  # a value json cannot write: left as it is
            return records
        previous = r["hash"]
    return records


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_given_any_value_anywhere_in_a_rechained_record_then_a_report(data: st.DataObject) -> None:
    records = json.loads(json.dumps(RECORDS))
    n = data.draw(st.integers(0, len(records) - 1), label="record")
    where = data.draw(st.sampled_from(paths(records[n])[1:]), label="path")
    value = data.draw(JSON, label="value")
    target = records[n]
    for step in where[:-1]:
        target = target[step]
    target[where[-1]] = value
    report = verify_export(
        read_export("".join(json.dumps(r) + "\n" for r in rechained(records))), KEYS
    )
    assert set(report) == {"ok", "chain", "dice", "checkpoint"}


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(cut=st.integers(0, len(EXAMPLE)), junk=st.text(max_size=12), csv=st.booleans())
def test_given_any_text_spliced_into_an_export_then_a_report_or_not_an_export(
    cut: int, junk: str, csv: bool
) -> None:
    source = (FOLDER / "example.csv").read_text(encoding="utf-8") if csv else EXAMPLE
    text = source[: min(cut, len(source))] + junk + source[min(cut, len(source)) :]
    try:
        export = read_export(text)
    except NotAnExport:
        return
    assert verify_export(export, KEYS)["chain"] is not None


def test_given_a_die_of_two_to_the_33_sides_rechained_then_the_chain_breaks_at_it() -> None:
    records = json.loads(json.dumps(RECORDS))
    rolled = next(r for r in records if r["data"].get("rolls"))
    next(iter(rolled["data"]["rolls"].values()))["sides"] = [2**33]
    report = verify_export(
        read_export("".join(json.dumps(r) + "\n" for r in rechained(records))), KEYS
    )
    assert report["chain"]["broken_at"] == rolled["position"]
    assert "well-formed" in report["chain"]["reason"]


def test_given_nesting_deeper_than_a_parser_goes_then_not_an_export() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    for text in (deep + "\n", EXAMPLE.replace('"data":{', f'"data":{{"x":{deep},', 1)):
        try:
            read_export(text)
        except NotAnExport:
            continue
        raise AssertionError("read")
