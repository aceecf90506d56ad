"""docs/audit-spec.md's vectors are what fraylog's code computes from the committed files in
docs/audit-vectors/, and every file gets the spec's verdict over HTTP and from the CLI (the
browser's verifier is held to the same files in tests/web/test_audit.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from api.cli import app as cli
from api.main import create_app
from domain.audit import canonical_json
from infra.settings import Settings
from projections.audit import read_export
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
