"""An export read as it arrives (projections.audit `read_export_stream`, `decoded`), in any
pieces, is the export `read_export` reads from the whole text: the same report, or the same
reason it is none. Every audit vector, and texts made of their lines with what a copy may add
(a BOM, CR LF, blank lines, no last line feed)."""

from __future__ import annotations

import json
from itertools import pairwise
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from projections.audit import (
    NotAnExport,
    decoded,
    read_export,
    read_export_stream,
    verify_export,
)
from tests.audit_vectors import FOLDER

KEYS = json.loads((FOLDER / "keys.json").read_text())["keys"]
VECTORS = sorted(p for p in FOLDER.iterdir() if p.suffix in (".ndjson", ".csv"))
LINES = [
    line
    for p in VECTORS
    if p.suffix == ".ndjson"
    for line in p.read_text(encoding="utf-8").splitlines()
]


def verdict(read: Any) -> Any:
    """The report of what `read()` reads, or why it is no export."""
    try:
        return verify_export(read(), KEYS)
    except NotAnExport as e:
        return ("not an export", str(e))


def in_pieces(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c % (len(text) + 1) for c in cuts} | {0, len(text)})
    return [text[a:b] for a, b in pairwise(points)]


@pytest.mark.parametrize("vector", VECTORS, ids=lambda p: p.name)
@pytest.mark.parametrize("size", [1, 3, 64, 10**9])
def test_given_an_audit_vector_when_it_arrives_in_pieces_then_it_reads_as_the_whole(
    vector: Any, size: int
) -> None:
    text = vector.read_text(encoding="utf-8")
    pieces = [text[i : i + size] for i in range(0, len(text), size)]
    # when / then
    assert verdict(lambda: read_export_stream(pieces)) == verdict(lambda: read_export(text))


@settings(max_examples=200, deadline=None)
@given(
    lines=st.lists(st.sampled_from(LINES), min_size=0, max_size=12),
    bom=st.booleans(),
    crlf=st.booleans(),
    blank=st.sampled_from(["", "\n", " \n", "\r\n"]),
    last_feed=st.booleans(),
    cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=8),
)
def test_given_export_lines_as_a_copy_may_hold_them_when_they_arrive_in_any_pieces_then_they_read_as_the_whole(  # noqa: E501
    lines: list[str], bom: bool, crlf: bool, blank: str, last_feed: bool, cuts: list[int]
) -> None:
    feed = "\r\n" if crlf else "\n"
    text = ("\ufeff" if bom else "") + blank + feed.join(lines) + (feed if last_feed else "")
    # when / then
    whole = verdict(lambda: read_export(text.removeprefix("\ufeff")))
    assert verdict(lambda: read_export_stream(in_pieces(text, cuts))) == whole


@settings(max_examples=300, deadline=None)
@example(
    text="\ufeff\ufeff1", cuts=[]
)  # two BOMs: read_export takes one off, the second is a fault
@given(
    text=st.text(alphabet=st.sampled_from(["\ufeff", "p", "1", "\n", "{", "}", " "]), max_size=14),
    cuts=st.lists(st.integers(min_value=0, max_value=40), max_size=5),
)
def test_given_short_texts_of_boms_and_scraps_when_they_arrive_in_pieces_then_they_read_as_whole(
    text: str, cuts: list[int]
) -> None:
    assert verdict(lambda: read_export_stream(in_pieces(text, cuts))) == verdict(
        lambda: read_export(text)
    )


@given(text=st.text(max_size=40), cuts=st.lists(st.integers(0, 200), max_size=6))
def test_given_utf8_bytes_cut_anywhere_when_decoded_piece_by_piece_then_the_text_is_whole(
    text: str, cuts: list[int]
) -> None:
    data = text.encode("utf-8", "surrogatepass")
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    pieces = [data[a:b] for a, b in pairwise(points)]
    try:
        expected: Any = data.decode("utf-8")
    except UnicodeDecodeError:
        expected = UnicodeDecodeError
    try:
        got: Any = "".join(decoded(pieces))
    except UnicodeDecodeError:
        got = UnicodeDecodeError
    assert got == expected
