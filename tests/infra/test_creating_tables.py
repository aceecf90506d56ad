"""Processes and threads starting at once on one store take turns creating its tables
(infra.runner_lock.creating_tables): the workers of `fraylog serve --workers N`, its read
models' runner, a restart while a killed process's sessions still run. On PostgreSQL, at
once, `CREATE … IF NOT EXISTS` collides in the catalog and `CREATE OR REPLACE FUNCTION`
fails with "tuple concurrently updated"; on SQLite two read models' views record the same
migration."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from infra.app import Fraylog
from infra.read_models import projection
from infra.settings import Settings


def at_once(starts: list[Callable[[], Any]]) -> list[str]:
    """Run every start on its own thread, released together; the errors they raised."""
    barrier = threading.Barrier(len(starts))
    errors: list[str] = []

    def run(start: Callable[[], Any]) -> None:
        barrier.wait()
        try:
            start()
        except Exception as e:
            errors.append(f"{type(e).__name__}: {e}")

    threads = [threading.Thread(target=run, args=(start,)) for start in starts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return errors


def a_server(settings: Settings) -> None:
    Fraylog(settings).close()


def a_runner(settings: Settings) -> None:
    """What a read models' runner opens first: its view and its source, tables made."""
    with projection(settings):
        return


def test_given_servers_and_runners_starting_at_once_on_a_new_store_then_each_starts(
    own_settings: Settings,
) -> None:
    # when two servers and two read-model runners start together on a store never used
    errors = at_once([lambda: a_server(own_settings), lambda: a_runner(own_settings)] * 2)
    # then none fails, and the store works
    assert errors == []
    with Fraylog(own_settings) as fraylog:
        assert fraylog.create_encounter("After", "novus", "seeded", "s").state.version == 1


def test_given_servers_starting_at_once_on_a_used_store_then_each_starts(
    own_settings: Settings,
) -> None:
    a_server(own_settings)
    # when four start together where the tables (and the insert function) exist
    errors = at_once([lambda: a_server(own_settings)] * 4)
    # then none fails ("tuple concurrently updated" when they replace the function at once)
    assert errors == []
