"""POST /audit/verify: anyone checks an export file over HTTP, with no token and nothing
stored, and gets the verdict `fraylog verify FILE` gives on the same file."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from api.cli import app as cli
from tests.api.test_record import bleeding_fight

KIND = {"ndjson": "application/x-ndjson", "csv": "text/csv"}


def tamperings(text: str, fmt: str) -> dict[str, str]:
    """The export as sent, and edited, reordered, deleted from and cut short."""
    head = 1 if fmt == "csv" else 0
    lines = text.splitlines()
    edited = list(lines)
    edited[head + 7] = edited[head + 7].replace("19", "9", 1)
    reordered = list(lines)
    reordered[head + 3], reordered[head + 4] = reordered[head + 4], reordered[head + 3]
    deleted = lines[: head + 5] + lines[head + 6 :]
    return {
        "intact": text,
        "edited": "\n".join(edited) + "\n",
        "reordered": "\n".join(reordered) + "\n",
        "deleted": "\n".join(deleted) + "\n",
        "cut short": "\n".join(lines[:-2]) + "\n",
    }


@pytest.mark.parametrize("fmt", ["ndjson", "csv"])
def test_given_an_export_and_its_tamperings_then_http_and_the_cli_give_the_same_verdicts(
    client: TestClient, tmp_path: Path, fmt: str
) -> None:
    f = bleeding_fight(client)
    text = client.get(f"/encounters/{f['eid']}/events", params={"format": fmt}).text
    stored = client.app.state.fraylog.recorder.max_notification_id()
    verdicts = {}
    for name, body in tamperings(text, fmt).items():
        r = client.post("/audit/verify", content=body.encode(), headers={"Content-Type": KIND[fmt]})
        assert r.status_code == 200, r.text
        report = r.json()
        path = tmp_path / f"{name.replace(' ', '-')}.{fmt}"
        path.write_text(body)
        result = CliRunner().invoke(cli, ["verify", str(path)], env={"COLUMNS": "200"})
        assert result.exit_code == (0 if report["ok"] else 1), (name, result.output)
        if report["chain"]["ok"]:
            assert f"intact over {report['chain']['events']} events" in result.output
        else:
            assert f"broken at position {report['chain']['broken_at']}" in result.output
        verdicts[name] = (report["ok"], report["chain"]["broken_at"])
    assert verdicts["intact"] == (True, None)
    assert not verdicts["edited"][0] and not verdicts["reordered"][0]
    assert not verdicts["deleted"][0]
    # no checkpoint yet: an export cut at its end still verifies (issue 15's first hole)
    assert verdicts["cut short"] == (True, None)
    assert client.app.state.fraylog.recorder.max_notification_id() == stored  # nothing stored


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
    ):
        r = client.post("/audit/verify", content=body, headers={"Content-Type": kind})
        assert r.status_code == 422, r.text
        assert r.headers["content-type"].startswith("application/problem+json")
        assert (r.json()["rule"], r.json()["field"]) == ("AUDIT", field)
