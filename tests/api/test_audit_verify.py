"""POST /audit/verify: anyone checks an export file over HTTP, with no token and nothing
stored, and gets the verdict `fraylog verify FILE` gives on the same file: the chain, the
dice and the signed checkpoint (docs/audit-spec.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from api.cli import app as cli
from tests.api.test_record import bleeding_fight
from tests.audit_vectors import EXPECTED, tamperings
from tests.builders import command

KIND = {"ndjson": "application/x-ndjson", "csv": "text/csv"}


@pytest.mark.parametrize("fmt", ["ndjson", "csv"])
def test_given_an_export_and_its_tamperings_then_http_and_the_cli_give_the_same_verdicts(
    client: TestClient, tmp_path: Path, fmt: str
) -> None:
    # given a fight whose round ended (signed), exported, and the server's keys saved
    f = bleeding_fight(client)
    ended_round = client.get(f"/encounters/{f['eid']}/checkpoints").json()["checkpoints"][-1]
    command(client, f["eid"], {"type": "declare", "combatant": f["t"], "actions": []})
    assert client.post(f"/encounters/{f['eid']}/checkpoints").status_code == 201
    text = client.get(f"/encounters/{f['eid']}/events", params={"format": fmt}).text
    keys = tmp_path / "keys.json"
    keys.write_text(client.get("/audit/keys").text)
    stored = client.app.state.fraylog.recorder.max_notification_id()
    for name, body in tamperings(text, fmt, ended_round).items():
        # when it is sent to POST /audit/verify (no token) and given to fraylog verify
        r = client.post(
            "/audit/verify",
            content=body.encode(),
            headers={"Content-Type": KIND[fmt]},  # and no token: /audit needs none
        )
        assert r.status_code == 200, r.text
        report = r.json()
        path = tmp_path / f"{name.replace(' ', '-').replace(',', '')}.{fmt}"
        path.write_text(body)
        result = CliRunner().invoke(
            cli, ["verify", str(path), "--keys", str(keys)], env={"COLUMNS": "200"}
        )
        # then both say the same, and the verdict is the spec's
        status = report["checkpoint"] and report["checkpoint"]["status"]
        assert (status, report["ok"]) == EXPECTED[name], (name, report)
        assert result.exit_code == (0 if report["ok"] else 1), (name, result.output)
        if report["chain"]["ok"]:
            assert f"intact over {report['chain']['events']} events" in result.output
            assert f"checkpoint: {status.replace('_', ' ')}" in result.output.lower() or (
                status == "after_checkpoint" and "events after it" in result.output
            ), (name, result.output)
        else:
            assert f"broken at position {report['chain']['broken_at']}" in result.output
    assert client.app.state.fraylog.recorder.max_notification_id() == stored  # nothing stored


def test_given_a_truncated_export_then_the_missing_positions_are_named(
    client: TestClient,
) -> None:
    f = bleeding_fight(client)
    text = client.get(f"/encounters/{f['eid']}/events", params={"format": "ndjson"}).text
    n = len(text.splitlines()) - 1  # the last line is the checkpoint
    body = tamperings(text, "ndjson")["truncated"]  # the last two events cut
    report = client.post("/audit/verify", content=body, headers={"Content-Type": KIND["ndjson"]})
    assert report.json()["checkpoint"]["missing"] == [n - 1, n]
    assert report.json()["checkpoint"]["position"] == n


def test_given_an_export_taken_after_the_last_checkpoint_then_the_unsigned_events_are_named(
    client: TestClient,
) -> None:
    # given a round that ended (signed at its last event), then two more commands
    f = bleeding_fight(client)
    signed = client.get(f"/encounters/{f['eid']}/checkpoints").json()["checkpoints"][-1]
    command(client, f["eid"], {"type": "declare", "combatant": f["t"], "actions": []})
    command(client, f["eid"], {"type": "declare", "combatant": f["a"], "actions": []})
    last = client.get(f"/encounters/{f['eid']}").json()["version"]
    # when it is exported and verified
    for fmt in KIND:
        text = client.get(f"/encounters/{f['eid']}/events", params={"format": fmt}).text
        report = client.post("/audit/verify", content=text, headers={"Content-Type": KIND[fmt]})
        # then it is intact, whole up to the checkpoint, and the events after it are named
        verdict = report.json()["checkpoint"]
        assert report.json()["ok"] and verdict["status"] == "after_checkpoint"
        assert verdict["unsigned"] == [signed["position"] + 1, last]


def test_given_no_export_then_a_problem_naming_the_body_or_its_type(client: TestClient) -> None:
    for body, kind, field in (
        (b"", "application/x-ndjson", "body"),
        (
            b'{"type":"about:blank","title":"Encounter not found","status":404}\n',
            "application/x-ndjson",
            "body",
        ),
        (b"\xff\xfe", "text/csv", "body"),
        (b"position,type\n", "application/json", "Content-Type"),
        (b'{"checkpoint":{}}\n', "application/x-ndjson", "body"),
    ):
        r = client.post("/audit/verify", content=body, headers={"Content-Type": kind})
        assert r.status_code == 422, r.text
        assert r.headers["content-type"].startswith("application/problem+json")
        assert (r.json()["rule"], r.json()["field"]) == ("AUDIT", field)
