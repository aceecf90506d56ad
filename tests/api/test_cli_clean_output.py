"""The command line prints user text as written: rich markup in a name or a reason prints
literally, and a control character kept in an older record reaches no terminal."""

from __future__ import annotations

from uuid import UUID

from fastapi.testclient import TestClient
from typer.testing import CliRunner

from api.cli import app
from api.main import create_app
from domain import commands as c
from infra.app import Fraylog
from infra.settings import Settings
from tests.builders import add_combatant, command, new_encounter
from tests.builders.novus import novus_stats
from tests.tokens import TokenJar

runner = CliRunner()


def test_given_a_name_with_rich_markup_when_replayed_then_printed_literally(tmp_path) -> None:
    # given: a fight made over HTTP whose combatant is named in rich markup
    path = str(tmp_path / "markup.db")
    with TestClient(create_app(Settings(sqlite_path=path))) as client:
        client.auth = TokenJar()
        eid = new_encounter(client, name="[red]Ambush[/red]")
        eve = add_combatant(client, eid, "[bold]Eve[/bold]", novus_stats(), side="[i]us[/i]")
        command(client, eid, {"type": "adjust_hits", "combatant": eve, "amount": -2,
                              "reason": "[blink]trap[/blink]"})  # fmt: skip
    # when: the fight is replayed
    out = runner.invoke(app, ["replay", eid], env={"FRAYLOG_SQLITE_PATH": path, "COLUMNS": "200"})
    # then: the markup prints as typed, in the log lines and in the hits table
    assert out.exit_code == 0, out.output
    assert out.output.count("[bold]Eve[/bold]") >= 2  # a line and the table
    assert "[i]us[/i]" in out.output and "[blink]trap[/blink]" in out.output


def test_given_a_name_with_an_escape_sequence_in_the_record_when_replayed_then_no_esc_byte(
    tmp_path,
) -> None:
    # given: a record written before the API refused control characters
    path = str(tmp_path / "esc.db")
    with Fraylog(Settings(sqlite_path=path)) as fraylog:
        eid = UUID(fraylog.create_encounter("Old fight", "novus", "manual").state.id)
        who, _ = fraylog.add_combatant(eid, "Mallory\x1b[2J\u202e", "", novus_stats())
        fraylog.execute(eid, c.AdjustHits(combatant=who, amount=-1, reason="gone\x07\x9b"))
    env = {"FRAYLOG_SQLITE_PATH": path, "COLUMNS": "200"}
    # when: replayed, and its record verified
    replayed = runner.invoke(app, ["replay", str(eid)], env=env)
    verified = runner.invoke(app, ["verify", str(eid)], env=env)
    # then: the characters are shown as their codes; none reaches the terminal
    assert replayed.exit_code == 0, replayed.output
    assert "Mallory\\x1b[2J\\u202e" in replayed.output and "gone\\x07\\x9b" in replayed.output
    for output in (replayed.output, verified.output):
        assert not any(ch in output for ch in "\x1b\x07\x9b\u202e")
