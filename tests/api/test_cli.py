"""The command line: `fraylog demo` plays a fight; the served app documents itself."""

from __future__ import annotations

import re
from uuid import UUID

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from api.cli import app
from domain.rulesystems.novus import commands as nc
from infra.app import Fraylog
from infra.settings import Settings

runner = CliRunner()


def test_given_a_seed_when_running_demo_then_three_rounds_log_and_hp_table_print(tmp_path):
    result = runner.invoke(
        app,
        ["demo", "--ruleset", "novus", "--database", str(tmp_path / "demo.db")],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    assert "Round 3 ends." in result.output and "Round 4" not in result.output
    assert "After round 3: hits" in result.output
    assert re.search(r"attacks .+ vs DEF \d+", result.output)
    for shown in (
        "called shot: head",
        "holds to IP",
        "cancels",
        "Mounted Charge",
        "rolls Riding",
        "upkeep: Sela bleeds",
        "upkeep: Brakka stun 1 → 0",
    ):
        assert shown in result.output, shown
    again = runner.invoke(
        app, ["demo", "--database", str(tmp_path / "again.db")], env={"COLUMNS": "200"}
    )
    strip = lambda s: re.sub(r"\d{4}-\d\d-\d\dT[\d:.+]+", "", s)  # noqa: E731
    fight = lambda s: strip(s.rpartition("\nEncounter ")[0])  # noqa: E731 (not its id, file)
    assert fight(again.output) == fight(result.output)  # seeded: the same fight


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


def test_given_wits_when_running_demo_then_a_roll_up_a_total_defense_an_aimed_shot_and_a_charge(
    tmp_path,
):
    db = tmp_path / "wits.db"
    result = CliRunner().invoke(
        app, ["demo", "--ruleset", "wits", "--database", str(db)], env={"COLUMNS": "250"}
    )
    assert result.exit_code == 0, result.output
    out = result.output
    assert re.search(r"rolling up: .*\[\d+(\+\d+)+\]", out)  # a roll-up chain kept with its die
    assert "(Total Defense)" in out
    assert "+3 aiming" in out and "→ hit" in out
    assert "charging Grukk" in out and "−2 charge" in out
    assert "After round 3: Current Health" in out
    with Fraylog(Settings(sqlite_path=str(db))) as fraylog:
        (summary,) = fraylog.list_encounters()
        eid = summary["id"]
    replayed = CliRunner().invoke(
        app, ["replay", eid], env={"COLUMNS": "250", "FRAYLOG_SQLITE_PATH": str(db)}
    )
    assert replayed.exit_code == 0, replayed.output
    assert "Round 3" in replayed.output and "Health" in replayed.output


def test_given_phantasia_when_running_demo_then_a_critical_a_fumble_an_expiry_and_a_death_check(
    tmp_path,
):
    db = tmp_path / "phantasia.db"
    result = CliRunner().invoke(
        app, ["demo", "--ruleset", "phantasia", "--database", str(db)], env={"COLUMNS": "250"}
    )
    assert result.exit_code == 0, result.output
    out = result.output
    assert re.search(r"rolls A[TM] d12 1 ≤ -?\d+: critical! → hit, double damage", out)
    assert re.search(r"fumble: d6 [1-6], ", out)  # the d6 on the table, and its effect
    assert "status Haste ends (its duration is over (PHA-STS-0))" in out
    assert re.search(r"death check: d100 \d+ [≤>] \d+ negative damage", out)
    assert re.search(r"rolls DF \(block\) d12", out)  # the player rolls against the orc
    assert "After round 3: PV" in out
    with Fraylog(Settings(sqlite_path=str(db))) as fraylog:
        (summary,) = fraylog.list_encounters()
        eid = summary["id"]
    env = {"COLUMNS": "250", "FRAYLOG_SQLITE_PATH": str(db)}
    spanish = CliRunner().invoke(app, ["replay", eid, "--lang", "es"], env=env)
    assert spanish.exit_code == 0, spanish.output
    for shown in ("Ronda 3", "¡crítico!", "Pifia de", "Chequeo de muerte de", "Inconsciente"):
        assert shown in spanish.output, shown
    verified = CliRunner().invoke(app, ["verify", eid], env=env)
    assert verified.exit_code == 0, verified.output  # every seeded face re-derived
    assert "hash chain: intact" in verified.output and "all match" in verified.output
    checked = int(re.search(r"(\d+) faces re-derived", verified.output)[1])
    assert checked >= 20  # the attack, defense, damage, death and fumble dice all counted
    english = CliRunner().invoke(app, ["replay", eid], env=env)
    assert "critical!" in english.output and "Round 3" in english.output
    assert "¡crítico!" not in english.output


def test_given_the_cli_when_asking_help_then_serve_and_demo_are_listed() -> None:
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0 and "serve" in result.output and "demo" in result.output


def test_given_the_cli_when_asking_for_the_reference_then_the_page_api_reference_renders(
    tmp_path,
) -> None:
    from api.reference import render

    result = runner.invoke(app, ["reference"], env={"FRAYLOG_SQLITE_PATH": str(tmp_path / "f.db")})
    assert result.exit_code == 0, result.output
    assert result.output == render() and "## `roll_initiative`" in result.output
    assert not (tmp_path / "f.db").exists()  # it reads no store


def test_given_novus_when_describing_the_ruleset_then_stats_actions_and_tables_are_listed(
    sqlite_client: TestClient,
) -> None:
    body = sqlite_client.get("/rulesets/novus").json()
    assert "weapons" in body["stats_schema"]["properties"]
    costs = {a["kind"]: a["ap"] for a in body["actions"]}
    assert costs["missile_attack"] == 2 and costs["cast_spell"] == 4
    assert {b["name"] for b in body["boons"]} >= {"bleeder", "daze_foe"}
    assert "hit_friend" in {s["name"] for s in body["snags"]}


def test_given_phantasia_when_describing_the_ruleset_then_statuses_and_the_fumble_table(
    sqlite_client: TestClient,
) -> None:
    body = sqlite_client.get("/rulesets/phantasia").json()
    assert body["statuses"]["stunned"]["es"] == "Aturdido"
    assert body["statuses"]["prone"]["es"] == "Tumbado"
    assert len(body["fumble_table"]) == 6
    assert {a["rule"] for a in body["actions"]} >= {f"PHA-ACT-{n}" for n in range(7, 20)}
    assert "initiative" in body["options_schema"]["properties"]


def test_given_wits_when_describing_the_ruleset_then_stats_options_and_called_shots(
    sqlite_client: TestClient,
) -> None:
    body = sqlite_client.get("/rulesets/wits").json()
    assert {"wits", "move", "base_damage"} <= set(body["stats_schema"]["properties"])
    assert body["options_schema"]["properties"]["test_die"]["default"] == "1d20"
    assert body["called_shots"]["heart"] == -10
    assert {a["command"] for a in body["actions"]} >= {"attack", "aim", "move", "defend"}


def test_given_a_fight_with_a_void_when_replayed_then_rounds_bars_and_struck_lines(tmp_path):
    from uuid import UUID

    from domain import commands as c
    from infra.app import Fraylog
    from infra.settings import Settings
    from tests.builders.novus import novus_stats, target_stats

    path = str(tmp_path / "replay.db")
    with Fraylog(Settings(sqlite_path=path)) as fraylog:
        eid = UUID(fraylog.create_encounter("Replay", "novus", "manual").state.id)
        a, _ = fraylog.add_combatant(eid, "Brakka", "h", novus_stats())
        t, _ = fraylog.add_combatant(eid, "Goblin", "r", target_stats(def_=18, ar=6))
        fraylog.execute(eid, c.RollInitiative(combatant=a, ip=19))
        fraylog.execute(eid, c.RollInitiative(combatant=t, ip=12))
        fraylog.execute(eid, nc.Declare(combatant=t))
        fraylog.execute(
            eid,
            nc.Declare(
                combatant=a, actions=[nc.ActionSpec(kind="melee_attack", target=t, weapon="sword")]
            ),
        )
        fraylog.execute(eid, nc.Resolve(dice={"attack": [10, 7, 9]}, boons=[]))
        fraylog.execute(eid, c.EndRound())
        fraylog.execute(eid, c.Void(target=8, reason="dispute"))
    env = {"FRAYLOG_SQLITE_PATH": path, "COLUMNS": "200"}
    out = runner.invoke(app, ["replay", str(eid)], env=env)
    assert out.exit_code == 0, out.output
    assert "Round 1" in out.output and "(voided by 12)" in out.output
    assert "Goblin" in out.output and "█" in out.output
    short = runner.invoke(app, ["replay", str(eid), "--until", "3"], env=env)
    assert "Brakka attacks" not in short.output
    assert runner.invoke(app, ["verify", str(eid)], env=env).exit_code == 0
    exported = runner.invoke(app, ["export", str(eid), "--format", "csv"], env=env)
    assert exported.output.startswith("position,type,")


def test_given_a_novus_encounter_when_replayed_with_lang_es_then_refused_with_exit_2(tmp_path):
    from uuid import UUID

    path = str(tmp_path / "lang.db")
    with Fraylog(Settings(sqlite_path=path)) as fraylog:
        eid = UUID(fraylog.create_encounter("Emboscada", "novus", "manual").state.id)
    env = {"FRAYLOG_SQLITE_PATH": path, "COLUMNS": "200"}
    refused = runner.invoke(app, ["replay", str(eid), "--lang", "es"], env=env)
    assert refused.exit_code == 2, refused.output
    assert "Spanish is offered for PHANTÄSIA encounters" in refused.output
    assert "Emboscada" not in refused.output  # nothing replayed
    unknown = runner.invoke(app, ["replay", str(eid), "--lang", "fr"], env=env)
    assert unknown.exit_code == 2 and "Emboscada" not in unknown.output
    english = runner.invoke(app, ["replay", str(eid), "--lang", "en"], env=env)
    assert english.exit_code == 0 and "Encounter “Emboscada” begins" in english.output


UUID_ = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"


@pytest.mark.parametrize("ruleset", ["novus", "wits", "phantasia"])
def test_given_keep_when_running_demo_then_it_is_stored_and_the_printed_commands_find_it(
    ruleset, tmp_path
):
    db = tmp_path / "kept.db"
    env = {"COLUMNS": "250", "FRAYLOG_SQLITE_PATH": str(db), "FRAYLOG_DATABASE_URL": None}
    result = runner.invoke(app, ["demo", "--keep", "--ruleset", ruleset], env=env)
    assert result.exit_code == 0, result.output
    shown = re.search(rf"Encounter ({UUID_}) is kept in SQLite file (\S+); replay", result.output)
    assert shown and shown[2] == str(db), result.output
    eid = shown[1]
    with Fraylog(Settings(sqlite_path=str(db))) as fraylog:
        assert [e["id"] for e in fraylog.list_encounters()] == [eid]
    printed = re.findall(
        rf"^  FRAYLOG_SQLITE_PATH=(\S+) fraylog (replay|verify) ({eid})$", result.output, re.M
    )
    assert [(path, command) for path, command, _ in printed] == [
        (str(db), "replay"),
        (str(db), "verify"),
    ]
    as_printed = {**env, "FRAYLOG_SQLITE_PATH": printed[0][0]}
    replayed = runner.invoke(app, ["replay", eid], env=as_printed)
    assert replayed.exit_code == 0 and "Round 3" in replayed.output, replayed.output
    verified = runner.invoke(app, ["verify", eid], env=as_printed)
    assert verified.exit_code == 0 and "hash chain: intact" in verified.output, verified.output


def test_given_no_keep_when_running_demo_then_its_id_is_printed_and_nothing_is_left(
    tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    env = {"COLUMNS": "250", "FRAYLOG_SQLITE_PATH": None, "FRAYLOG_DATABASE_URL": None}
    result = runner.invoke(app, ["demo", "--rounds", "1"], env=env)
    assert result.exit_code == 0, result.output
    assert re.search(
        rf"Encounter {UUID_} was played in a temporary database, gone now: `fraylog demo "
        rf"--keep` stores it in SQLite file {re.escape(str(tmp_path / 'fraylog.db'))} ",
        result.output,
    ), result.output
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "command",
    [["replay", str(UUID(int=1))], ["export", str(UUID(int=1))], ["verify", str(UUID(int=1))]],
)
def test_given_no_database_when_a_reading_command_runs_then_where_it_looked_and_nothing_created(
    command, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    env = {"COLUMNS": "100", "FRAYLOG_SQLITE_PATH": None, "FRAYLOG_DATABASE_URL": None}
    result = runner.invoke(app, command, env=env)
    assert result.exit_code == 2, result.output
    assert f"the SQLite file {tmp_path / 'fraylog.db'} does not exist" in result.output
    assert "FRAYLOG_SQLITE_PATH sets the file" in result.output
    elsewhere = tmp_path / "games" / "table.db"
    named = runner.invoke(app, command, env={**env, "FRAYLOG_SQLITE_PATH": str(elsewhere)})
    assert named.exit_code == 2 and f"the SQLite file {elsewhere} does not" in named.output
    assert list(tmp_path.iterdir()) == []  # no fraylog.db, no folder: nothing created


def test_given_a_database_without_the_encounter_when_replayed_then_where_it_looked(tmp_path):
    db = tmp_path / "fraylog.db"
    with Fraylog(Settings(sqlite_path=str(db))):
        pass
    env = {"COLUMNS": "100", "FRAYLOG_SQLITE_PATH": str(db), "FRAYLOG_DATABASE_URL": None}
    result = runner.invoke(app, ["replay", str(UUID(int=1))], env=env)
    assert result.exit_code == 2
    assert f"no encounter {UUID(int=1)} (looked in SQLite file {db})" in result.output


def test_given_a_missing_file_when_verifying_then_no_such_file_not_an_encounter_id(
    tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    env = {"COLUMNS": "200", "FRAYLOG_SQLITE_PATH": None, "FRAYLOG_DATABASE_URL": None}
    for given, named in (
        ("/missing", "/missing"),
        ("gone/ford.ndjson", str(tmp_path / "gone" / "ford.ndjson")),
        ("ford.ndjson", str(tmp_path / "ford.ndjson")),
        ("ford.csv", str(tmp_path / "ford.csv")),
    ):
        result = runner.invoke(app, ["verify", given], env=env)
        assert result.exit_code == 2, result.output
        assert f"no such file: {named}" in result.output
        assert "encounter id" not in result.output
    neither = runner.invoke(app, ["verify", "ford"], env=env)
    assert neither.exit_code == 2 and "no such file, nor an encounter id: ford" in neither.output
    assert list(tmp_path.iterdir()) == []


def test_given_a_file_that_is_no_export_when_verifying_then_exit_2_saying_what_it_is(tmp_path):
    answer = tmp_path / "ford.ndjson"
    answer.write_text(
        '{"type":"about:blank","title":"Encounter not found","status":404,'
        '"detail":"no encounter 1","rule":"ENCOUNTER"}'
    )
    env = {"COLUMNS": "300"}
    result = runner.invoke(app, ["verify", str(answer)], env=env)
    assert result.exit_code == 2, result.output
    assert "is not a fraylog export: it is an HTTP error answer (404 Encounter not found" in (
        result.output
    )
    assert "Authorization: Bearer" in result.output and "hash chain" not in result.output
    empty = tmp_path / "empty.ndjson"
    empty.write_text("")
    result = runner.invoke(app, ["verify", str(empty)], env=env)
    assert result.exit_code == 2 and "it holds no events" in result.output
    other = tmp_path / "other.ndjson"
    other.write_text('{"a": 1}\n')
    result = runner.invoke(app, ["verify", str(other)], env=env)
    assert result.exit_code == 2 and "are not event records" in result.output


def _table_after(out: str, title: str) -> list[str]:
    """The lines of the table printed under `title`, up to the line after it."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if title in line)
    end = next(i for i, line in enumerate(lines) if i > start and line.startswith("Encounter "))
    return lines[start + 1 : end]


def _frame(table: list[str]) -> set[str]:
    """The box-drawing characters a table is drawn with (its style), not its bars."""
    return {ch for line in table for ch in line if "\u2500" <= ch <= "\u257f"}


@pytest.mark.parametrize("ruleset", ["wits", "phantasia"])
def test_given_each_book_when_its_demo_prints_the_state_then_its_table_is_drawn_as_novus_is(
    tmp_path, ruleset
):
    # given: the Novus demo's table and another book's, both at 80 columns
    def table(book: str) -> list[str]:
        result = runner.invoke(
            app,
            ["demo", "--ruleset", book, "--database", str(tmp_path / f"{book}.db")],
            env={"COLUMNS": "80"},
        )
        assert result.exit_code == 0, result.output
        return _table_after(result.output, "After round 3: ")

    novus, other = table("novus"), table(ruleset)
    # then: the same frame, the same leading columns, every line within the terminal
    assert _frame(other) == _frame(novus) != set()
    for shown in (novus, other):
        header = next(line for line in shown if "Combatant" in line)
        assert header.split()[:2] == ["Combatant", "Side"]
        assert all(len(line) <= 80 for line in shown)


def test_given_a_phantasia_fight_when_replayed_in_spanish_then_the_table_headers_are_spanish(
    tmp_path,
):
    # given: the PHANTÄSIA demo, stored
    db = tmp_path / "phantasia.db"
    played = runner.invoke(app, ["demo", "--ruleset", "phantasia", "--database", str(db)])
    assert played.exit_code == 0, played.output
    with Fraylog(Settings(sqlite_path=str(db))) as fraylog:
        (summary,) = fraylog.list_encounters()
    env = {"COLUMNS": "120", "FRAYLOG_SQLITE_PATH": str(db)}
    # when: it is replayed in Spanish, and in English
    spanish = runner.invoke(app, ["replay", summary["id"], "--lang", "es"], env=env)
    english = runner.invoke(app, ["replay", summary["id"]], env=env)

    # then: each round's table is headed in the replay's language
    def heads(out: str, first: str) -> list[list[str]]:
        return [line.split() for line in out.splitlines() if line.split()[:1] == [first]]

    assert (
        heads(spanish.output, "Combatiente")
        == [["Combatiente", "Bando", "PV", "PM", "Estados"]] * 3
    )
    assert heads(english.output, "Combatant") == [["Combatant", "Side", "PV", "PM", "Statuses"]] * 3


def test_given_an_export_piped_in_when_verifying_stdin_then_it_is_checked_as_its_file_is() -> None:
    from tests.audit_vectors import FOLDER

    keys = str(FOLDER / "keys.json")
    env = {"COLUMNS": "300"}
    for name, code in (("example.ndjson", 0), ("edited.ndjson", 1), ("example.csv", 0)):
        text = (FOLDER / name).read_bytes()
        # when
        piped = runner.invoke(app, ["verify", "-", "--keys", keys], input=text, env=env)
        from_file = runner.invoke(app, ["verify", str(FOLDER / name), "--keys", keys], env=env)
        # then: the same report as the file's
        assert piped.exit_code == code, (name, piped.output)
        assert piped.output == from_file.output, name
    answer = b'{"type":"about:blank","title":"Encounter not found","status":404}\n'
    refused = runner.invoke(app, ["verify", "-"], input=answer, env=env)
    assert refused.exit_code == 2, refused.output
    assert "standard input is not a fraylog export: it is an HTTP error answer" in refused.output
    assert runner.invoke(app, ["verify", "-"], input=b"\xff\xfe", env=env).exit_code == 2
