"""The command line: `fraylog demo` plays a fight; the served app documents itself."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient
from typer.testing import CliRunner

from api.cli import app
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
    assert "is no longer Haste (its duration is over (PHA-STS-0))" in out
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
    assert checked >= 20  # the attack, defence, damage, death and fumble dice all counted
    english = CliRunner().invoke(app, ["replay", eid], env=env)
    assert "critical!" in english.output and "Round 3" in english.output
    assert "¡crítico!" not in english.output


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
    from tests.builders import novus_stats, target_stats

    path = str(tmp_path / "replay.db")
    with Fraylog(Settings(sqlite_path=path)) as fraylog:
        eid = UUID(fraylog.create_encounter("Replay", "novus", "manual").state.id)
        a, _ = fraylog.add_combatant(eid, "Brakka", "h", novus_stats())
        t, _ = fraylog.add_combatant(eid, "Goblin", "r", target_stats(def_=18, ar=6))
        fraylog.execute(eid, c.RollInitiative(combatant=a, ip=19))
        fraylog.execute(eid, c.RollInitiative(combatant=t, ip=12))
        fraylog.execute(eid, c.Declare(combatant=t))
        fraylog.execute(
            eid,
            c.Declare(
                combatant=a, actions=[c.ActionSpec(kind="melee_attack", target=t, weapon="sword")]
            ),
        )
        fraylog.execute(eid, c.Resolve(dice={"attack": [10, 7, 9]}, boons=[]))
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
