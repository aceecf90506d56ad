"""Signed checkpoints: the server's Ed25519 signature over an encounter's last position and
hash, at each round's end, at end_encounter and when the GM asks; carried by exports;
checked against the keys GET /audit/keys publishes, rotated keys included."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any
from uuid import UUID

import psycopg
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from fastapi.testclient import TestClient
from psycopg import sql
from typer.testing import CliRunner

from api import demo, demo_phantasia, demo_wits
from api.cli import app as cli
from domain.audit import checkpoint_statement
from infra.app import Fraylog, ensure_schema
from infra.checkpoints import KEYS, Checkpoints
from infra.settings import Settings
from projections.audit import NO_CHECKPOINT, read_export, verify_export
from projections.export import checkpoint_line, ndjson_lines
from tests.api.test_record import bleeding_fight
from tests.builders import command


def signed_by_published_key(client: TestClient, checkpoint: dict[str, Any]) -> bool:
    keys = {k["id"]: k for k in client.get("/audit/keys").json()["keys"]}
    public = Ed25519PublicKey.from_public_bytes(
        bytes.fromhex(keys[checkpoint["key"]]["public_key"])
    )
    public.verify(bytes.fromhex(checkpoint["signature"]), checkpoint_statement(checkpoint))
    return True


def cli_env(settings: Settings) -> dict[str, str]:
    return {
        "FRAYLOG_SQLITE_PATH": settings.sqlite_path,
        "FRAYLOG_DATABASE_URL": settings.database_url or "",
        "FRAYLOG_POSTGRES_SCHEMA": settings.postgres_schema,
    }


@pytest.mark.parametrize("book", [demo, demo_wits, demo_phantasia], ids=lambda m: m.__name__)
def test_given_each_books_fight_when_rounds_end_then_each_end_is_checkpointed(
    settings: Settings, book: Any
) -> None:
    # given three rounds of each book's demo fight, played on the application
    book.play(settings, "checkpoints", 3)
    with Fraylog(settings) as fraylog:
        eid = UUID(fraylog.list_encounters(limit=10**6)[-1]["id"])  # the newest (a shared schema)
        history = fraylog.event_log(eid)
        # then a checkpoint was signed at the last event of each command that ended a round
        ends = {e.command for e in history if type(e).__name__ == "RoundEnded"}
        last_of = {}
        for e in history:
            last_of[e.command] = e
        expected = [(last_of[c].originator_version, last_of[c].hash) for c in sorted(ends)]
        kept = fraylog.checkpoints.of(eid)
        assert len(expected) >= 2
        assert [(k["position"], k["hash"]) for k in kept] == expected
        # and the export carries the latest, which the published keys verify
        text = "".join(ndjson_lines(history)) + checkpoint_line(kept[-1])
        report = verify_export(read_export(text), fraylog.checkpoints.keys())
        assert report["ok"], report
        status = "complete" if kept[-1]["position"] == len(history) else "after_checkpoint"
        assert report["checkpoint"]["status"] == status


def test_given_an_ended_encounter_then_its_export_is_complete_up_to_a_signed_checkpoint(
    client: TestClient,
) -> None:
    f = bleeding_fight(client, dice_source="server")
    ended = command(client, f["eid"], {"type": "end_encounter", "reason": "the goblin fled"})
    last = ended["events"][-1]["position"]
    kept = client.get(f"/encounters/{f['eid']}/checkpoints").json()["checkpoints"]
    assert kept[-1]["position"] == last
    assert kept[-1]["hash"] == ended["events"][-1]["hash"]
    assert signed_by_published_key(client, kept[-1])
    report = client.get(f"/encounters/{f['eid']}/verify").json()
    assert report["ok"] and report["checkpoint"]["status"] == "complete", report
    assert report["dice"]["ok"]


def test_given_the_gm_asks_for_a_checkpoint_then_it_signs_the_last_event_once(
    client: TestClient,
) -> None:
    # given a round that ended, then one more command
    f = bleeding_fight(client)
    command(client, f["eid"], {"type": "declare", "combatant": f["t"], "actions": []})
    version = client.get(f"/encounters/{f['eid']}").json()["version"]
    # when the GM asks twice
    first = client.post(f"/encounters/{f['eid']}/checkpoints")
    again = client.post(f"/encounters/{f['eid']}/checkpoints")
    # then one checkpoint signs the last event, and the second answer is the same one
    assert first.status_code == 201, first.text
    assert first.json()["position"] == version
    assert again.json() == first.json()
    assert first.json()["encounter"] == f["eid"]
    assert signed_by_published_key(client, first.json())
    positions = [
        k["position"]
        for k in client.get(f"/encounters/{f['eid']}/checkpoints").json()["checkpoints"]
    ]
    assert positions == sorted(set(positions)) and positions[-1] == version
    # and an export taken now is complete
    text = client.get(f"/encounters/{f['eid']}/events", params={"format": "ndjson"}).text
    assert text.splitlines()[-1] == checkpoint_line(first.json()).strip()


def test_given_an_export_up_to_an_earlier_version_then_it_carries_the_checkpoint_before_it(
    client: TestClient,
) -> None:
    f = bleeding_fight(client)
    signed = client.get(f"/encounters/{f['eid']}/checkpoints").json()["checkpoints"][-1]
    for until, carried in ((signed["position"] - 1, NO_CHECKPOINT), (signed["position"], signed)):
        text = client.get(
            f"/encounters/{f['eid']}/events", params={"format": "ndjson", "until": until}
        ).text
        assert read_export(text).checkpoint == carried


def test_given_a_key_rotated_then_old_checkpoints_verify_and_new_ones_use_the_new_key(
    client: TestClient, settings: Settings, tmp_path: Path
) -> None:
    # given a checkpoint signed with the first key
    f = bleeding_fight(client)
    old = client.get(f"/encounters/{f['eid']}/checkpoints").json()["checkpoints"][-1]
    old_export = client.get(f"/encounters/{f['eid']}/events", params={"format": "csv"}).text
    # when the key is rotated from the command line
    rotated = CliRunner().invoke(cli, ["keys", "rotate"], env=cli_env(settings))
    assert rotated.exit_code == 0, rotated.output
    # then the new key is current (listed first), the old one retired and still published
    keys = client.get("/audit/keys").json()["keys"]
    assert [k["current"] for k in keys] == [True] + [False] * (len(keys) - 1)
    retired = next(k for k in keys if k["id"] == old["key"])
    assert retired["retired"] is not None and not retired["current"]
    assert keys[0]["id"] in rotated.output
    listed = CliRunner().invoke(cli, ["keys"], env={**cli_env(settings), "COLUMNS": "300"})
    assert keys[0]["id"] in listed.output and old["key"] in listed.output
    # and its private key is gone
    tables = Checkpoints(settings)
    try:
        private = tables.execute(
            f"SELECT private_key FROM {tables.table(KEYS)} WHERE key_id = ?", (old["key"],)
        )
    finally:
        tables.close()
    assert private == [(None,)]
    # and the old export still verifies; a new checkpoint is signed with the new key
    check = client.post("/audit/verify", content=old_export, headers={"Content-Type": "text/csv"})
    assert check.json()["ok"] and check.json()["checkpoint"]["key"] == old["key"]
    new = client.post(f"/encounters/{f['eid']}/checkpoints")
    assert new.status_code == 201
    # (at the same position: a checkpoint per key)
    assert new.json()["key"] == keys[0]["id"] and new.json()["position"] == old["position"]
    assert signed_by_published_key(client, new.json())


@pytest.fixture
def installation(settings: Settings, tmp_path: Path) -> Iterator[Settings]:
    """A store of its own, with no signing key yet (the PostgreSQL schema of the session
    is shared by the tests)."""
    if not settings.database_url:
        yield replace(settings, sqlite_path=str(tmp_path / "new.db"))
        return
    schema = f"fraylog_keys_{uuid.uuid4().hex[:10]}"
    yield replace(settings, postgres_schema=schema)
    with psycopg.connect(settings.database_url, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))


def test_given_two_processes_signing_first_at_once_then_they_agree_on_one_key(
    installation: Settings,
) -> None:
    if installation.database_url:
        ensure_schema(installation)
    tables = [Checkpoints(installation) for _ in range(4)]
    found: list[str] = []
    barrier = threading.Barrier(len(tables))

    def first(t: Checkpoints) -> None:
        barrier.wait()
        found.append(t.current_key()[0])

    threads = [threading.Thread(target=first, args=(t,)) for t in tables]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert len(set(found)) == 1
        published = tables[0].keys()
        assert [k["id"] for k in published] == found[:1]
    finally:
        for t in tables:
            t.close()


def test_given_a_fork_then_it_carries_none_of_the_originals_checkpoints(client: TestClient) -> None:
    f = bleeding_fight(client)
    fork = client.post(f"/encounters/{f['eid']}/fork", json={"at": 7, "name": "again"})
    assert fork.status_code == 201, fork.text
    fid = fork.json()["id"]
    client.auth.tokens[fid] = fork.json()["gm_token"]
    assert client.get(f"/encounters/{fid}/checkpoints").json() == {"checkpoints": []}
    text = client.get(f"/encounters/{fid}/events", params={"format": "ndjson"}).text
    report = client.post(
        "/audit/verify", content=text, headers={"Content-Type": "application/x-ndjson"}
    )
    assert report.json()["checkpoint"]["status"] == "none"


def test_given_no_encounter_then_its_checkpoints_are_a_404(client: TestClient) -> None:
    missing = "00000000-0000-4000-8000-000000000000"
    assert client.get(f"/encounters/{missing}/checkpoints").status_code == 404


def test_given_rotations_at_once_then_one_key_is_current_and_every_other_signs_nothing(
    installation: Settings,
) -> None:
    if installation.database_url:
        ensure_schema(installation)
    tables = [Checkpoints(installation) for _ in range(6)]
    tables[0].current_key()
    barrier = threading.Barrier(len(tables))

    def rotate(t: Checkpoints) -> None:
        barrier.wait()
        for _ in range(5):  # each rotates again at once: a slow one's cleanup meets a new key
            t.rotate()

    threads = [threading.Thread(target=rotate, args=(t,)) for t in tables]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        keys = tables[0].keys()
        current = [k["id"] for k in keys if k["current"]]
        assert len(current) == 1 and keys[0]["id"] == current[0]
        assert all(k["retired"] for k in keys[1:])
        private = tables[0].execute(
            f"SELECT key_id FROM {tables[0].table(KEYS)} WHERE private_key IS NOT NULL"
        )
        assert private == [(current[0],)]
        assert tables[1].current_key()[0] == current[0]
    finally:
        for t in tables:
            t.close()
