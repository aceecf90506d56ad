"""Correcting and auditing the record through the HTTP API: void, undo, redo, fork,
the hash chain, the dice proof (SQLite and PostgreSQL)."""

from __future__ import annotations

import json
from uuid import UUID

from fastapi.testclient import TestClient
from typer.testing import CliRunner

from api.cli import app as cli
from infra.app import Fraylog
from projections.audit import read_export
from tests.builders import add_combatant, command, new_encounter
from tests.builders.novus import novus_stats, target_stats


def bleeding_fight(client: TestClient, dice_source: str = "manual") -> dict:
    """A hits T (DEF 18, AR 6) for 19 with a Bleeder; the GM adds a wound of 2; round 1 ends.
    T: 30 → 11, then bleeds 1 + 2 at upkeep → 8."""
    eid = new_encounter(client, dice_source)
    a = add_combatant(client, eid, "A", novus_stats(), "heroes")
    t = add_combatant(client, eid, "T", target_stats(def_=18, ar=6), "foes")
    command(client, eid, {"type": "roll_initiative", "combatant": a, "ip": 19})
    command(client, eid, {"type": "roll_initiative", "combatant": t, "ip": 12})
    command(client, eid, {"type": "declare", "combatant": t, "actions": []})
    command(
        client,
        eid,
        {
            "type": "declare",
            "combatant": a,
            "actions": [{"kind": "melee_attack", "target": t, "weapon": "sword"}],
        },
    )
    hit = command(
        client,
        eid,
        {"type": "resolve", "dice": {"attack": [10, 7, 9]}, "boons": [{"name": "bleeder"}]},
    )
    command(
        client, eid, {"type": "set_condition", "combatant": t, "condition": "bleeding", "rate": 2}
    )
    command(client, eid, {"type": "end_round"})
    by_type = {e["type"]: e["position"] for e in hit["events"]}
    return {"eid": eid, "a": a, "t": t, **by_type}


def target(client: TestClient, f: dict) -> dict:
    view = client.get(f"/encounters/{f['eid']}").json()
    return next(c for c in view["combatants"] if c["id"] == f["t"])


def test_given_a_damage_event_when_voided_then_hits_and_bleeding_are_restored_exactly(
    client: TestClient,
) -> None:
    f = bleeding_fight(client)
    assert (target(client, f)["hits"], target(client, f)["bleeding"]) == (8, 3)
    out = command(
        client, f["eid"], {"type": "void", "target": f["DamageApplied"], "reason": "wrong armour"}
    )
    assert out["events"][0]["type"] == "RollVoided"
    assert out["events"][0]["data"]["cascade"] == [f["DamageApplied"]]
    assert (target(client, f)["hits"], target(client, f)["bleeding"]) == (27, 3)


def test_given_an_attack_that_caused_bleeding_when_voided_then_its_upkeep_losses_go_too(
    client: TestClient,
) -> None:
    f = bleeding_fight(client)
    out = command(
        client,
        f["eid"],
        {"type": "void", "target": f["AttackRolled"], "reason": "the die rolled off the table"},
    )
    cascade = out["events"][0]["data"]["cascade"]
    events = client.get(f"/encounters/{f['eid']}/events").json()["events"]
    voided = {e["type"] for e in events if e["voided_by"] == out["events"][0]["position"]}
    assert voided == {
        "AttackRolled",
        "BoonsSpent",
        "DamageApplied",
        "ConditionApplied",
        "UpkeepTicked",
    }
    assert len(cascade) == 5
    # the GM's own wound still bled 2 at upkeep; the attack's damage and its wound are gone
    assert (target(client, f)["hits"], target(client, f)["bleeding"]) == (28, 2)
    lines = client.get(f"/encounters/{f['eid']}/log").json()["lines"]
    assert [x["voided_by"] for x in lines if x["position"] == f["AttackRolled"]] == [
        out["events"][0]["position"]
    ]
    # voiding the void restores everything it voided
    command(
        client,
        f["eid"],
        {"type": "void", "target": out["events"][0]["position"], "reason": "settled"},
    )
    assert (target(client, f)["hits"], target(client, f)["bleeding"]) == (8, 3)


def test_given_a_declaration_when_voided_then_refused_with_the_reason(client: TestClient):
    f = bleeding_fight(client)
    r = client.post(
        f"/encounters/{f['eid']}/commands", json={"type": "void", "target": 2, "reason": "x"}
    )
    assert r.status_code == 422 and r.json()["rule"] == "VOID"
    assert "neither a roll nor caused by one" in r.json()["detail"]


def test_given_commands_when_undone_and_redone_then_the_view_round_trips(
    client: TestClient,
) -> None:
    f = bleeding_fight(client)
    views = [client.get(f"/encounters/{f['eid']}").json()]
    command(client, f["eid"], {"type": "adjust_hits", "combatant": f["t"], "amount": -3})
    views.append(client.get(f"/encounters/{f['eid']}").json())
    command(client, f["eid"], {"type": "undo"})
    command(client, f["eid"], {"type": "undo"})  # the end of round 1
    undone_twice = client.get(f"/encounters/{f['eid']}").json()
    assert (undone_twice["round"], undone_twice["step"]) == (1, "end_round")
    command(client, f["eid"], {"type": "redo"})
    back = client.get(f"/encounters/{f['eid']}").json()
    assert back["combatants"] == views[0]["combatants"] and back["round"] == 2
    command(client, f["eid"], {"type": "redo"})
    assert client.get(f"/encounters/{f['eid']}").json()["combatants"] == views[1]["combatants"]


def test_given_a_fork_at_n_then_it_matches_the_original_at_n_and_diverges_after(
    client: TestClient,
) -> None:
    f = bleeding_fight(client)
    at = f["ConditionApplied"]  # the end of the attack's command
    r = client.post(f"/encounters/{f['eid']}/fork", json={"at": at, "name": "What if"})
    assert r.status_code == 201, r.text
    fork = r.json()
    original_at_n = client.get(f"/encounters/{f['eid']}", params={"version": at}).json()
    fork_at_n = client.get(f"/encounters/{fork['id']}", params={"version": at}).json()
    for key in ("round", "step", "combatants", "order", "actions"):
        assert fork_at_n[key] == original_at_n[key], key
    first = client.get(f"/encounters/{fork['id']}/events").json()["events"][0]
    assert first["data"]["forked_from"] == {"encounter": f["eid"], "at": at, "name": "Test fight"}
    command(client, fork["id"], {"type": "adjust_hits", "combatant": f["t"], "amount": -5})
    assert target(client, {**f, "eid": fork["id"]})["hits"] == 11 - 5
    assert target(client, f)["hits"] == 8  # the original is untouched
    diff = client.get(f"/encounters/{fork['id']}/diff", params={"from": at}).json()
    assert diff["combatants"][f["t"]]["changes"]["hits"] == [11, 6]


def test_given_an_export_when_a_line_is_edited_then_verify_breaks_at_that_line(
    client: TestClient,
    tmp_path,
) -> None:
    f = bleeding_fight(client)
    assert client.get(f"/encounters/{f['eid']}/verify").json()["ok"]
    runner = CliRunner()
    keys = tmp_path / "keys.json"
    keys.write_text(client.get("/audit/keys").text)
    for fmt in ("ndjson", "csv"):
        text = client.get(f"/encounters/{f['eid']}/events", params={"format": fmt}).text
        clean = tmp_path / f"clean.{fmt}"
        clean.write_text(text)
        assert runner.invoke(cli, ["verify", str(clean), "--keys", str(keys)]).exit_code == 0
        lines = text.splitlines()
        n = f["DamageApplied"] + (1 if fmt == "csv" else 0) - 1
        lines[n] = (
            lines[n].replace('"amount":19', '"amount":9').replace('""amount"":19', '""amount"":9')
        )
        assert lines[n] != text.splitlines()[n]
        edited = tmp_path / f"edited.{fmt}"
        edited.write_text("\n".join(lines) + "\n")
        result = runner.invoke(cli, ["verify", str(edited)], env={"COLUMNS": "200"})
        assert result.exit_code == 1
        assert f"broken at position {f['DamageApplied']}" in result.output


def test_given_a_tampered_store_when_verified_then_the_edited_position_is_named(
    fraylog: Fraylog,
    client: TestClient,
) -> None:
    f = bleeding_fight(client)
    events = fraylog.event_log(UUID(f["eid"]))
    tampered = list(events)
    damage = tampered[f["DamageApplied"] - 1]
    object.__setattr__(damage, "amount", 1)  # as if someone edited the row
    from projections.audit import verification
    from projections.export import records

    report = verification(list(records(tampered)))
    assert report["chain"]["broken_at"] == f["DamageApplied"]


def test_given_server_dice_when_the_encounter_ends_then_the_secret_rederives_every_face(
    fraylog: Fraylog,
    client: TestClient,
) -> None:
    eid = new_encounter(client, "server")
    a = add_combatant(client, eid, "A", novus_stats(), "heroes")
    add_combatant(client, eid, "B", novus_stats(), "foes")
    command(client, eid, {"type": "roll_initiative"})
    commitment = client.get(f"/encounters/{eid}").json()["dice_commitment"]
    secret = fraylog.secrets.get(UUID(eid), commitment).hex()
    for _ in range(3):
        command(client, eid, {"type": "save", "combatant": a, "stat": "con"})
    before = [
        client.get(f"/encounters/{eid}").text,
        client.get(f"/encounters/{eid}/events").text,
        client.get(f"/encounters/{eid}/events", params={"format": "ndjson"}).text,
        client.get(f"/encounters/{eid}/events", params={"format": "csv"}).text,
        client.get(f"/encounters/{eid}/log").text,
        client.get(f"/encounters/{eid}/verify").text,
        client.get("/encounters").text,
    ]
    assert not any(secret in text for text in before)
    report = client.get(f"/encounters/{eid}/verify").json()
    assert report["dice"]["unrevealed"] > 0 and report["dice"]["checked"] == 0
    command(client, eid, {"type": "end_encounter"})
    report = client.get(f"/encounters/{eid}/verify").json()
    assert report["ok"] and report["dice"]["unrevealed"] == 0
    assert report["dice"]["checked"] >= 2 * 2 + 3 * 2
    refused = client.post(
        f"/encounters/{eid}/commands", json={"type": "save", "combatant": a, "stat": "con"}
    )
    assert refused.status_code == 422 and refused.json()["rule"] == "ENDED"
    # a face changed in the export no longer matches its derivation
    rows = read_export(
        client.get(f"/encounters/{eid}/events", params={"format": "ndjson"}).text
    ).records
    save = next(r for r in rows if r["type"] == "SaveRolled")
    face = save["data"]["rolls"]["save"]["faces"][0]
    save["data"]["rolls"]["save"]["faces"][0] = face % 10 + 1
    from domain.audit import verify_dice

    mismatch = verify_dice(rows).mismatches
    assert mismatch and mismatch[0]["position"] == save["position"]


def test_given_an_early_reveal_then_later_rolls_use_a_fresh_committed_secret(
    client: TestClient,
) -> None:
    eid = new_encounter(client, "server")
    a = add_combatant(client, eid, "A", novus_stats())
    command(client, eid, {"type": "save", "combatant": a, "stat": "con"})
    revealed = command(client, eid, {"type": "reveal_dice"})["events"][0]["data"]
    assert revealed["next_commitment"] and revealed["next_commitment"] != revealed["commitment"]
    command(client, eid, {"type": "save", "combatant": a, "stat": "con"})
    report = client.get(f"/encounters/{eid}/verify").json()
    assert report["dice"]["checked"] >= 2 and report["dice"]["unrevealed"] >= 2
    assert report["ok"]


def test_given_a_log_when_asked_until_n_then_only_the_first_n_lines(client: TestClient):
    f = bleeding_fight(client)
    lines = client.get(f"/encounters/{f['eid']}/log", params={"until": 4}).json()["lines"]
    assert [x["position"] for x in lines] == [1, 2, 3, 4]


def test_given_an_ended_encounter_when_revealing_again_then_refused_as_ended(
    client: TestClient,
) -> None:
    eid = new_encounter(client, "server")
    command(client, eid, {"type": "end_encounter"})
    for body in ({"type": "reveal_dice"}, {"type": "end_encounter"}):
        r = client.post(f"/encounters/{eid}/commands", json=body)
        assert r.status_code == 422 and r.json()["rule"] == "ENDED"


def test_given_a_fork_inside_a_command_then_refused(client: TestClient) -> None:
    f = bleeding_fight(client)
    r = client.post(
        f"/encounters/{f['eid']}/fork", json={"at": f["AttackRolled"], "name": "mid-command"}
    )
    assert r.status_code == 422 and r.json()["rule"] == "FORK"


def test_given_a_reveal_that_misses_the_commitment_in_force_then_verify_flags_it(
    client: TestClient,
) -> None:
    from domain.audit import verify_dice

    eid = new_encounter(client, "server")
    command(client, eid, {"type": "reveal_dice"})
    rows = [
        json.loads(x)
        for x in client.get(
            f"/encounters/{eid}/events", params={"format": "ndjson"}
        ).text.splitlines()
    ]
    assert verify_dice(rows).ok
    rows[0]["data"]["dice_commitment"] = "0" * 64  # as if another secret had been committed
    assert verify_dice(rows).bad_reveals == [rows[-1]["position"]]


def test_given_a_refused_command_that_drew_server_dice_then_a_retry_draws_anew(
    client: TestClient,
) -> None:
    eid = new_encounter(client, "server")
    a = add_combatant(client, eid, "A", novus_stats())
    # the save draws server faces, then its manual "typo" roll is refused: nothing recorded
    refused = client.post(
        f"/encounters/{eid}/commands",
        json={"type": "save", "combatant": a, "stat": "con", "dice": {"typo": [3]}},
    )
    assert refused.status_code == 422
    save = command(client, eid, {"type": "save", "combatant": a, "stat": "con"})
    roll = save["events"][0]["data"]["rolls"]["save"]
    assert roll["attempt"] == 1  # the burned draw shows in the log
    command(client, eid, {"type": "end_encounter"})
    report = client.get(f"/encounters/{eid}/verify").json()
    assert report["ok"] and report["dice"]["checked"] >= 2


def test_given_an_export_whose_voided_by_or_dice_column_lies_then_verify_names_it(
    client: TestClient,
    tmp_path,
) -> None:
    f = bleeding_fight(client)
    command(client, f["eid"], {"type": "void", "target": f["DamageApplied"], "reason": "x"})
    rows = read_export(
        client.get(f"/encounters/{f['eid']}/events", params={"format": "ndjson"}).text
    ).records
    from projections.audit import verification

    assert verification(rows)["ok"]  # its checkpoint left out: status none
    rows[1]["voided_by"] = rows[-1]["position"]  # claim a combatant was voided
    assert verification(rows)["chain"]["broken_at"] == 2
    csv_text = client.get(f"/encounters/{f['eid']}/events", params={"format": "csv"}).text
    edited = tmp_path / "edited.csv"
    edited.write_text(csv_text.replace('{""attack"":[10,7,9]}', '{""attack"":[10,7,1]}'))
    result = CliRunner().invoke(cli, ["verify", str(edited)], env={"COLUMNS": "200"})
    assert result.exit_code == 1 and f"position {f['AttackRolled']}" in result.output
