"""The command line: `fraylog demo` plays a fight; the served app documents itself."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient
from typer.testing import CliRunner

from api.cli import app

runner = CliRunner()


def test_given_a_seed_when_running_demo_then_three_rounds_log_and_hp_table_print(tmp_path):
    result = runner.invoke(
        app, ["demo", "--database", str(tmp_path / "demo.db")], env={"COLUMNS": "200"}
    )
    assert result.exit_code == 0, result.output
    assert "Round 3 ends." in result.output and "Round 4" not in result.output
    assert "After round 3: hits" in result.output
    assert re.search(r"attacks .+ vs DEF \d+", result.output)
    again = runner.invoke(
        app, ["demo", "--database", str(tmp_path / "again.db")], env={"COLUMNS": "200"}
    )
    strip = lambda s: re.sub(r"\d{4}-\d\d-\d\dT[\d:.+]+", "", s)  # noqa: E731
    assert strip(again.output) == strip(result.output)  # seeded: the same fight


def test_given_the_app_when_asking_for_docs_then_openapi_lists_every_command(
    sqlite_client: TestClient,
) -> None:
    assert sqlite_client.get("/docs").status_code == 200
    spec = sqlite_client.get("/openapi.json").json()
    text = str(spec)
    for command in (
        "roll_initiative",
        "declare",
        "resolve",
        "spend_boons",
        "save",
        "end_round",
        "adjust_hits",
        "set_condition",
        "clear_condition",
        "set_modifier",
        "clear_modifier",
    ):
        assert command in text
    assert "/encounters/{encounter_id}/commands" in spec["paths"]


def test_given_the_cli_when_asking_help_then_serve_and_demo_are_listed() -> None:
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0 and "serve" in result.output and "demo" in result.output


def test_given_novus_when_describing_the_ruleset_then_stats_actions_and_tables_are_listed(
    sqlite_client: TestClient,
) -> None:
    body = sqlite_client.get("/rulesets/novus").json()
    assert "weapons" in body["stats_schema"]["properties"]
    costs = {a["kind"]: a["ap"] for a in body["actions"]}
    assert costs["missile_attack"] == 2 and costs["cast_spell"] == 4
    assert {b["name"] for b in body["boons"]} >= {"bleeder", "daze_foe"}
    assert "hit_friend" in {s["name"] for s in body["snags"]}
    assert sqlite_client.get("/rulesets/wits").status_code == 422
