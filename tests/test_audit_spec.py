"""docs/audit-spec.md's vectors are what fraylog's code computes from the committed files in
docs/audit-vectors/, and every file gets the spec's verdict over HTTP and from the CLI (the
browser's verifier is held to the same files in tests/web/test_audit.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from api.cli import app as cli
from api.main import create_app
from domain.audit import canonical_json, chain, is_concealed
from infra.settings import Settings
from projections.audit import NotAnExport, read_export, verify_export
from projections.export import csv_row
from tests.audit_vectors import (
    EXPECTED,
    FOLDER,
    SPEC,
    VALUES,
    current,
    named,
    section,
    signed,
)

FILES = sorted(p for p in FOLDER.iterdir() if p.name != "keys.json")
KIND = {".ndjson": "application/x-ndjson", ".csv": "text/csv"}


def test_given_the_committed_vector_files_then_the_specs_section_is_what_the_code_computes() -> (
    None
):
    assert current(SPEC.read_text()) == section(), "run: python -m tests.audit_vectors"


def test_given_the_vector_key_then_it_signs_the_examples_checkpoint_to_the_same_bytes() -> None:
    checkpoint = read_export((FOLDER / "example.ndjson").read_text(encoding="utf-8")).checkpoint
    assert signed({k: v for k, v in checkpoint.items() if k != "signature"}) == checkpoint


def test_given_the_specs_values_then_their_canonical_forms_are_quoted() -> None:
    quoted = SPEC.read_text()
    for value in VALUES:
        assert canonical_json(value).decode() in quoted


def test_given_every_tampering_then_each_has_a_file_in_each_format_it_applies_to() -> None:
    names = {named(p) for p in FILES}
    assert names == set(EXPECTED)
    assert {p.suffix for p in FILES} == {".ndjson", ".csv"}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_given_a_vector_file_then_http_and_the_cli_give_the_specs_verdict(
    path: Path, tmp_path: Path
) -> None:
    # given a server whose keys are not the vector key, and the vector keys file
    keys = FOLDER / "keys.json"
    with TestClient(create_app(Settings(sqlite_path=str(tmp_path / "f.db")))) as client:
        body = path.read_bytes()
        # when the file is sent to POST /audit/verify
        served = client.post(
            "/audit/verify", content=body, headers={"Content-Type": KIND[path.suffix]}
        )
    assert served.status_code == 200, served.text
    report = served.json()
    # then with the server's own keys, a valid checkpoint is of an unknown key
    status = report["checkpoint"] and report["checkpoint"]["status"]
    expected_status, expected_ok = EXPECTED[named(path)]
    if expected_status in (
        "complete",
        "after_checkpoint",
        "truncated",
        "mismatch",
        "bad_signature",
    ):
        assert status == "unknown_key"
    else:
        assert status == expected_status
    # and the CLI with the vector keys gives the spec's verdict, and its exit code
    result = CliRunner().invoke(
        cli,
        [
            "verify",
            str(path),
            "--keys",
            str(keys),
        ],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == (0 if expected_ok else 1), result.output
    if expected_status is None:
        assert "broken at position" in result.output
    else:
        assert "checkpoint:" in result.output
    assert json.loads(keys.read_text())["keys"][0]["algorithm"] == "Ed25519"


def test_given_a_keys_file_that_is_none_then_verify_says_so_and_exits_2(tmp_path: Path) -> None:
    for text in ("not json", '{"keys": 3}', '{"other": []}', '{"keys": [1]}'):
        keys = tmp_path / "keys.json"
        keys.write_text(text)
        result = CliRunner().invoke(
            cli, ["verify", str(FOLDER / "example.ndjson"), "--keys", str(keys)]
        )
        assert result.exit_code == 2 and "is not a keys file" in result.output, text


# -- concealed records (§1.1, §3.3, §4, §5.4, §8) --------------------------------------------
CONCEALED = (FOLDER / "concealed.ndjson").read_text(encoding="utf-8")
VECTOR_KEYS = json.loads((FOLDER / "keys.json").read_text())["keys"]


def concealed_lines() -> list[dict[str, Any]]:
    return [json.loads(line) for line in CONCEALED.splitlines()]


def verdict_of(lines: list[dict[str, Any]]) -> dict[str, Any]:
    return verify_export(read_export("".join(json.dumps(x) + "\n" for x in lines)), VECTOR_KEYS)


def test_given_the_concealed_vector_then_it_is_complete_and_counts_two_concealed_records() -> None:
    # given the example with records 8 and 9 concealed, in both formats
    for name in ("concealed.ndjson", "concealed.csv"):
        # when it is verified
        report = verify_export(
            read_export((FOLDER / name).read_text(encoding="utf-8")), VECTOR_KEYS
        )
        # then it is whole, its two concealed records counted, every die still checked
        assert report["ok"], (name, report)
        assert report["chain"]["concealed"] == 2 and report["chain"]["redacted"] == 0, name
        assert report["checkpoint"]["status"] == "complete"
        example = verify_export(
            read_export((FOLDER / "example.ndjson").read_text(encoding="utf-8")), VECTOR_KEYS
        )
        assert report["dice"] == example["dice"] and example["chain"]["concealed"] == 0
    # and the CSV holds `withheld` in an 11th column under the ten-column header
    csv_records = read_export((FOLDER / "concealed.csv").read_text(encoding="utf-8")).records
    assert [r["withheld"] for r in csv_records if is_concealed(r)] == [
        ["skill"],
        ["hits_before", "hits_after"],
    ]


def test_given_a_concealed_records_visible_member_altered_then_the_chain_still_holds() -> None:
    # given the concealed vector whose record 9's amount (not withheld) was changed
    lines = concealed_lines()
    lines[8]["data"]["amount"] = 99
    # when it is verified, then nothing catches it: only its place in the chain is proven (§8)
    report = verdict_of(lines)
    assert report["ok"] and report["chain"]["concealed"] == 2


def test_given_a_record_after_a_concealed_one_altered_then_the_chain_breaks_there() -> None:
    # given the concealed vector whose record 10 (after the concealed 9) was changed
    lines = concealed_lines()
    lines[9]["data"]["metres"] = 3.5
    # when it is verified, then the chain breaks at 10, the concealed record before it counted
    report = verdict_of(lines)
    assert not report["ok"]
    assert report["chain"]["broken_at"] == 10 and report["chain"]["concealed"] == 2
    assert "hash does not match" in report["chain"]["reason"]


@pytest.mark.parametrize(
    "change",
    [
        {"withheld": []},
        {"withheld": "hits_before"},
        {"withheld": ["hits_before", "hits_before"]},
        {"withheld": ["no_such_member"]},
        {"withheld": [1]},
        {"withheld": None},
        {"hash": "93559E8B13A1A0F0501FA13192162FF0BFA55FA59216C4E48CE7090EC91C6C88"},
        {"hash": "not hex"},
        {"position": 10},
        {"command": 0},
    ],
    ids=lambda c: json.dumps(c)[:40],
)
def test_given_a_bad_concealed_record_then_the_chain_breaks_at_it(change: dict[str, Any]) -> None:
    # given the concealed vector whose concealed record 9 has a bad member
    lines = concealed_lines()
    lines[8].update(change)
    # when it is verified, then the chain breaks at it: the 9th record read, at its position
    report = verdict_of(lines)
    assert not report["ok"] and report["chain"]["events"] == 9, report["chain"]
    assert report["chain"]["broken_at"] == lines[8]["position"]
    assert report["dice"] is None and report["checkpoint"] is None


def test_given_a_withheld_member_of_any_value_then_its_checks_are_skipped() -> None:
    # given record 9 with its rolls withheld and nulled, record 8 (a correction-free attack
    # test) with its rolls withheld and made a list, as no unconcealed record may hold
    lines = concealed_lines()
    lines[8]["data"]["rolls"] = None
    lines[8]["withheld"] = ["hits_before", "hits_after", "rolls"]
    lines[7]["data"]["rolls"] = ["anything"]
    lines[7]["withheld"] = ["skill", "rolls"]
    # when it is verified
    report = verdict_of(lines)
    # then the chain holds; the faces of record 8 are not countable, record 9's are withheld
    # too (record 8, of its command 6, is before it), none derived
    assert report["ok"], report
    example = verdict_of([json.loads(x) for x in (FOLDER / "example.ndjson").open()])
    assert report["dice"]["checked"] == example["dice"]["checked"] - 4
    assert report["dice"]["withheld"] == 0


def test_given_concealed_rolls_listing_faces_then_they_and_the_commands_later_are_withheld() -> (
    None
):
    # given record 8 (command 6) with its rolls withheld but its faces still listed
    lines = concealed_lines()
    lines[7]["withheld"] = ["skill", "rolls"]
    lines[7]["data"]["rolls"]["attack"]["total"] = None
    report = verdict_of(lines)
    # then its face and record 9's three (later in command 6) are withheld, not derived
    assert report["ok"], report
    assert report["dice"]["withheld"] == 4


def test_given_a_dice_proof_member_withheld_then_the_chain_breaks() -> None:
    # given the reveal (record 16) concealing its secret
    lines = concealed_lines()
    lines[15]["withheld"] = ["secret"]
    report = verdict_of(lines)
    assert report["chain"]["broken_at"] == 16 and "dice proof" in report["chain"]["reason"]


def test_given_a_csv_withheld_column_then_json_is_read_and_judged_and_other_text_is_no_export() -> (
    None
):
    text = (FOLDER / "concealed.csv").read_text(encoding="utf-8")
    # given the 11th column that is not JSON: not an export
    with pytest.raises(NotAnExport):
        read_export(text.replace('"[""skill""]"', "[skill"))
    # given JSON that is no array of strings: read, and the chain breaks at that record
    for value in ('"{""a"":1}"', "3", '"[1]"'):
        report = verify_export(read_export(text.replace('"[""skill""]"', value)), VECTOR_KEYS)
        assert report["chain"]["broken_at"] == 8 and "concealed" in report["chain"]["reason"]
    # given an empty 11th column: an ordinary record, whose changed data breaks the chain
    report = verify_export(read_export(text.replace('"[""skill""]"', "")), VECTOR_KEYS)
    assert report["chain"]["broken_at"] == 8 and "hash does not match" in report["chain"]["reason"]


def test_given_concealed_records_then_csv_row_writes_the_11th_column_only_for_them() -> None:
    records = read_export(CONCEALED).records
    rows = [csv_row(r) for r in records]
    assert [len(r) for r in rows] == [11 if is_concealed(r) else 10 for r in records]
    assert rows[8][10] == '["hits_before","hits_after"]'
    # and a record whose rolls are withheld shows no faces in the dice column
    assert csv_row({**records[8], "withheld": ["rolls"]})[7] == "{}"


def test_given_a_withheld_cascade_then_voided_by_is_not_checked_else_it_is() -> None:
    # given a correction voiding record 10, appended and rechained, and record 10's voided_by
    # left wrong (null)
    lines = concealed_lines()
    checkpoint, records = lines[-1], lines[:-1]
    undo = {
        "position": 17,
        "type": "RollVoided",
        "timestamp": records[-1]["timestamp"],
        "actor": "gm",
        "cause": None,
        "command": 17,
        "data": {"cascade": [10], "reason": "x"},
        "voided_by": None,
    }
    undo["hash"] = chain(records[-1]["hash"], undo)
    with_undo = [*records, undo, checkpoint]
    # when the cascade is readable, then voided_by is checked (and a concealed record does
    # not stop it)
    report = verdict_of(with_undo)
    assert report["chain"]["broken_at"] == 10 and "voided_by" in report["chain"]["reason"]
    # when the correction's cascade is withheld, then voided_by is not checked
    concealed_undo = {**undo, "data": {"cascade": None, "reason": "x"}, "withheld": ["cascade"]}
    report = verdict_of([*records, concealed_undo, checkpoint])
    assert report["chain"]["ok"] and report["chain"]["concealed"] == 3


def test_given_the_concealed_vector_when_verified_by_http_and_cli_then_they_count_it(
    tmp_path: Path,
) -> None:
    path = FOLDER / "concealed.ndjson"
    with TestClient(create_app(Settings(sqlite_path=str(tmp_path / "f.db")))) as client:
        served = client.post(
            "/audit/verify",
            content=path.read_bytes(),
            headers={"Content-Type": "application/x-ndjson"},
        )
    assert served.status_code == 200 and served.json()["chain"]["concealed"] == 2
    keys = str(FOLDER / "keys.json")
    said = CliRunner().invoke(cli, ["verify", str(path), "--keys", keys], env={"COLUMNS": "200"})
    assert said.exit_code == 0 and "2 partly concealed from this reader" in said.output
    as_json = CliRunner().invoke(cli, ["verify", str(path), "--keys", keys, "--json"])
    assert json.loads(as_json.output)["chain"]["concealed"] == 2
    plain = CliRunner().invoke(cli, ["verify", str(FOLDER / "example.ndjson"), "--keys", keys])
    assert "concealed" not in plain.output
