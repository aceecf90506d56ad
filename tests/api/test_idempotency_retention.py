"""Idempotency-Keys a host can keep: a key is forgotten after its retention, and a key whose
command was recorded just before its process stopped is answered from the record (the key
is marked in the same transaction as the command's events), on both stores, PostgreSQL
also through its insert function (FRAYLOG_PG_DB_FUNCTIONS)."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from infra.app import Fraylog
from infra.idempotency import KEYS, LEASE_SECONDS, IdempotencyConflict, request_hash
from infra.settings import Settings
from tests.builders import add_combatant, new_encounter
from tests.builders.novus import novus_stats
from tests.tokens import TokenJar

HIT = {"type": "adjust_hits", "amount": -1}


class Died(Exception):
    """The process stopping where it is: nothing of the request runs after it."""


@contextmanager
def serving(settings: Settings, auth: TokenJar | None = None) -> Iterator[TestClient]:
    """A server process over the store: a new application, the same tokens."""
    with Fraylog(settings) as fraylog, TestClient(create_app(fraylog=fraylog)) as client:
        client.auth = auth or TokenJar()
        yield client


def later(client: TestClient, seconds: float) -> None:
    """Move this server's clock for its keys `seconds` ahead."""
    client.app.state.fraylog.keys.clock = lambda: time.time() + seconds


def version(client: TestClient, eid: str) -> int:
    return client.get(f"/encounters/{eid}").json()["version"]


def key_rows(fraylog: Fraylog, eid: str) -> list[tuple[Any, ...]]:
    """An encounter's keys: (key, recorded_from, recorded_to)."""
    return fraylog.keys.execute(
        f"SELECT key, recorded_from, recorded_to FROM {fraylog.keys.table(KEYS)} "
        "WHERE encounter_id = ? ORDER BY key",
        (eid,),
    )


@pytest.fixture(params=[False, True], ids=["insert", "db_functions"])
def store(request: pytest.FixtureRequest, settings: Settings) -> Settings:
    """The store; on PostgreSQL once more with the recorder's insert function."""
    if request.param and settings.backend != "postgres":
        pytest.skip("FRAYLOG_PG_DB_FUNCTIONS is PostgreSQL's")
    return dataclasses.replace(settings, pg_db_functions=request.param)


def test_given_a_command_recorded_when_its_process_stopped_then_answered_from_the_record(
    store: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = {"Idempotency-Key": "k-crash"}
    with serving(store) as before:
        eid = new_encounter(before)
        a = add_combatant(before, eid, "A", novus_stats())
        body = {**HIT, "combatant": a}
        fraylog: Fraylog = before.app.state.fraylog
        if store.backend == "postgres":  # the recorder inserts through its function, or not
            assert fraylog.recorder.datastore.enable_db_functions is store.pg_db_functions
        answered: list[dict[str, Any]] = []

        def dies(encounter_id: UUID, k: str, lease: str, response: dict[str, Any]) -> None:
            answered.append(response)  # what it was about to send
            raise Died

        monkeypatch.setattr(fraylog.keys, "complete", dies)
        with pytest.raises(Died):
            before.post(f"/encounters/{eid}/commands", json=body, headers=key)
        assert version(before, eid) == 3  # recorded, and the key marked with it
        assert [r[1:] for r in key_rows(fraylog, eid)] == [(3, 3)]
        running = before.post(f"/encounters/{eid}/commands", json=body, headers=key)
        assert running.status_code == 409 and running.json()["rule"] == "IDEMPOTENCY"

    with serving(store, before.auth) as after:  # a new process, once the lease lapsed
        later(after, LEASE_SECONDS + 1)
        again = after.post(f"/encounters/{eid}/commands", json=body, headers=key)
        assert again.status_code == 200, again.text
        assert again.headers["Idempotent-Replayed"] == "true"
        assert again.json() == answered[0]
        assert [e["position"] for e in again.json()["events"]] == [3]
        assert version(after, eid) == 3  # not run twice
        other = after.post(f"/encounters/{eid}/commands", json={**body, "amount": -2}, headers=key)
        assert other.status_code == 422 and other.json()["field"] == "Idempotency-Key"
        later(after, 0)  # the answer is kept now: replayed at once, lease or not
        third = after.post(f"/encounters/{eid}/commands", json=body, headers=key)
        assert third.status_code == 200 and third.json() == answered[0]
        assert third.headers["Idempotent-Replayed"] == "true"


def test_given_a_player_key_recorded_before_a_stop_when_answered_then_as_he_sees_it(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    with serving(settings) as gm:
        eid = new_encounter(gm)
        a = add_combatant(gm, eid, "A", novus_stats())
        lurker = {"name": "Lurker", "side": "raiders", "stats": novus_stats(), "hidden": True}
        assert gm.post(f"/encounters/{eid}/combatants", json=lurker).status_code == 201
        r = gm.post(f"/encounters/{eid}/tokens", json={"combatants": [a], "label": "Anna"})
        assert r.status_code == 201, r.text
        player = {"Authorization": f"Bearer {r.json()['token']}", "Idempotency-Key": "p-1"}
        answered: list[dict[str, Any]] = []

        def dies(encounter_id: UUID, k: str, lease: str, response: dict[str, Any]) -> None:
            answered.append(response)
            raise Died

        monkeypatch.setattr(gm.app.state.fraylog.keys, "complete", dies)
        body = {"type": "roll_initiative", "combatant": a, "dice": {"initiative": [4, 6]}}
        with pytest.raises(Died):
            gm.post(f"/encounters/{eid}/commands", json=body, headers=player)
        assert {e["actor"] for e in answered[0]["events"]} == {"player:Anna"}
        assert "Lurker" not in str(answered[0])  # hidden from the player
        assert "Lurker" in gm.get(f"/encounters/{eid}").text
    with serving(settings, gm.auth) as after:
        later(after, LEASE_SECONDS + 1)
        again = after.post(f"/encounters/{eid}/commands", json=body, headers=player)
        assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
        assert again.json() == answered[0]


def test_given_a_key_stopped_before_recording_when_sent_after_others_then_it_runs_once(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = {"Idempotency-Key": "k-lost"}
    with serving(settings) as before:
        eid = new_encounter(before)
        a = add_combatant(before, eid, "A", novus_stats())
        body = {**HIT, "combatant": a}
        fraylog: Fraylog = before.app.state.fraylog

        def dies(*args: Any, **kwargs: Any) -> Any:
            raise Died

        with monkeypatch.context() as m:
            m.setattr(fraylog, "execute", dies)
            with pytest.raises(Died):
                before.post(f"/encounters/{eid}/commands", json=body, headers=key)
        assert [r[1:] for r in key_rows(fraylog, eid)] == [(None, None)]  # reserved, not recorded
        moved = before.post(f"/encounters/{eid}/commands", json={**HIT, "combatant": a})
        assert moved.status_code == 200  # the version moves on without the key

    with serving(settings, before.auth) as after:
        later(after, LEASE_SECONDS + 1)
        again = after.post(f"/encounters/{eid}/commands", json=body, headers=key)
        assert again.status_code == 200, again.text
        assert "Idempotent-Replayed" not in again.headers
        assert [e["position"] for e in again.json()["events"]] == [4]
        replayed = after.post(f"/encounters/{eid}/commands", json=body, headers=key)
        assert replayed.headers["Idempotent-Replayed"] == "true"
        assert replayed.json() == again.json()
        assert version(after, eid) == 4


def test_given_a_lapsed_lease_taken_over_when_its_first_command_saves_then_nothing_is_recorded(
    store: Settings,
) -> None:
    with serving(store) as client:
        eid = new_encounter(client)
        a = add_combatant(client, eid, "A", novus_stats())
        fraylog: Fraylog = client.app.state.fraylog
        encounter_id = UUID(eid)
        command = fraylog.command(encounter_id, {**HIT, "combatant": a})
        digest = request_hash(command.model_dump(mode="json"))
        first = fraylog.keys.reserve(encounter_id, "slow", digest, 2)
        later(client, LEASE_SECONDS + 1)
        second = fraylog.keys.reserve(encounter_id, "slow", digest, 2)
        assert second.lease and second.lease != first.lease and second.recorded is None
        assert first.lease is not None
        with pytest.raises(IdempotencyConflict):  # the slow first one, saving at last
            fraylog.execute(
                encounter_id,
                command,
                idempotency=fraylog.keys.mark(encounter_id, "slow", first.lease),
            )
        assert version(client, eid) == 2
        recorded = fraylog.execute(
            encounter_id, command, idempotency=fraylog.keys.mark(encounter_id, "slow", second.lease)
        )
        assert [e.originator_version for e in recorded.events] == [3]
        assert [r[1:] for r in key_rows(fraylog, eid)] == [(3, 3)]


def test_given_a_key_past_its_retention_when_sent_again_then_new_and_old_keys_deleted(
    settings: Settings,
) -> None:
    hours = dataclasses.replace(settings, idempotency_retention_hours=2)
    with serving(hours) as client:
        eid = new_encounter(client)
        a = add_combatant(client, eid, "A", novus_stats())
        body = {**HIT, "combatant": a}
        for name in ("old-1", "old-2"):
            r = client.post(
                f"/encounters/{eid}/commands", json=body, headers={"Idempotency-Key": name}
            )
            assert r.status_code == 200
        fraylog: Fraylog = client.app.state.fraylog
        assert len(key_rows(fraylog, eid)) == 2

        later(client, 2 * 3600 - 60)  # within its retention: the first answer
        kept = client.post(
            f"/encounters/{eid}/commands", json=body, headers={"Idempotency-Key": "old-1"}
        )
        assert kept.headers["Idempotent-Replayed"] == "true"
        assert version(client, eid) == 4
        assert len(key_rows(fraylog, eid)) == 2

        later(client, 2 * 3600 + 60)  # past it: forgotten, so another body is a new command
        other = {**body, "amount": -2}
        new = client.post(
            f"/encounters/{eid}/commands", json=other, headers={"Idempotency-Key": "old-1"}
        )
        assert new.status_code == 200 and "Idempotent-Replayed" not in new.headers
        assert version(client, eid) == 5
        assert [r[0].split(":")[-1] for r in key_rows(fraylog, eid)] == ["old-1"]  # old-2 swept


def test_given_a_key_past_its_retention_before_the_sweep_when_sent_again_then_it_is_new(
    settings: Settings,
) -> None:
    with serving(dataclasses.replace(settings, idempotency_retention_hours=1)) as client:
        eid = new_encounter(client)
        a = add_combatant(client, eid, "A", novus_stats())
        headers = {"Idempotency-Key": "k"}
        client.post(f"/encounters/{eid}/commands", json={**HIT, "combatant": a}, headers=headers)
        fraylog: Fraylog = client.app.state.fraylog
        fraylog.keys.sweep = lambda force=False: None  # the sweep has not run yet
        later(client, 3600 + 1)
        again = client.post(
            f"/encounters/{eid}/commands", json={**HIT, "combatant": a}, headers=headers
        )
        assert again.status_code == 200 and "Idempotent-Replayed" not in again.headers
        assert version(client, eid) == 4


def test_given_the_retention_setting_then_read_from_the_environment_and_checked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FRAYLOG_IDEMPOTENCY_RETENTION_HOURS", "0.5")
    assert Settings.from_env().idempotency_retention_hours == 0.5
    monkeypatch.delenv("FRAYLOG_IDEMPOTENCY_RETENTION_HOURS")
    assert Settings.from_env().idempotency_retention_hours == 24
    with pytest.raises(ValueError, match="FRAYLOG_IDEMPOTENCY_RETENTION_HOURS"):
        Settings(idempotency_retention_hours=0)


def test_given_keys_kept_before_keys_were_marked_when_the_store_opens_then_they_keep_the_old_rule(
    settings: Settings,
) -> None:
    """A table of the old shape gets the columns; its lapsed unanswered key, taken before
    the version moved, is not known to be unrecorded: still the 409 that says so."""
    with Fraylog(settings) as fraylog:
        eid = UUID(fraylog.create_encounter("Old", "novus").state.id)
        keys = fraylog.keys
        keys.execute(f"DROP TABLE {keys.table(KEYS)}")
        keys.execute(
            f"CREATE TABLE {keys.table(KEYS)} (encounter_id TEXT NOT NULL, key TEXT NOT NULL, "
            "request_hash TEXT NOT NULL, at_version INTEGER NOT NULL, response TEXT, "
            "created_at TEXT NOT NULL, lease TEXT NOT NULL, leased_at DOUBLE PRECISION NOT "
            "NULL, PRIMARY KEY (encounter_id, key))"
        )
        keys.execute(
            f"INSERT INTO {keys.table(KEYS)} VALUES (?, 'old', 'h', 0, NULL, ?, 'l', ?)",
            (str(eid), datetime.now(UTC).isoformat(), time.time() - 2 * LEASE_SECONDS),
        )
    with Fraylog(settings) as reopened:
        with pytest.raises(IdempotencyConflict, match="after version 0"):
            reopened.keys.reserve(eid, "old", "h", 1)
        fresh = reopened.keys.reserve(eid, "new", "h", 1)
        assert fresh.lease is not None
        assert [r[1:] for r in key_rows(reopened, str(eid))] == [(None, None), (None, None)]
