"""Growth: the command path on a store already holding ~1,000,000 events, against an
empty one.

How the big store is made, fast: one encounter is played through `Fraylog.execute` (a
1,000-event fight of attack rounds, snapshots every `snapshot_interval`), then its stored
rows (events and snapshots) are copied under new encounter ids by the database itself, in
batches of 100 encounters per statement (`INSERT INTO ... SELECT ... CROSS JOIN` a list of
new ids): about a minute for a million rows instead of the quarter of an hour that playing
them would take. The copies are whole encounters (their events and snapshots as stored;
only their dice secrets and tokens are not copied), so the tables, their indexes and the
notification sequence are as large as a million played events would make them. On
PostgreSQL the table is ANALYZEd afterwards, as autovacuum would.

Then two instances, one per store, each play their own new fight, a few rounds in turn
(`fraylog_runs.interleaved`), and the ratio is commands/s on the big store ÷ on the empty.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from typing import Any
from uuid import UUID, uuid4

from bench.fraylog_runs import Table, interleaved
from bench.long_runs import build_fight
from bench.timing import Row
from infra.app import Fraylog
from infra.settings import Settings

TEMPLATE = 1_000  # events of the encounter copied
BATCH = 100  # encounters per INSERT statement


def fill(settings: Settings, events: int, log: Callable[[str], None]) -> dict[str, Any]:
    """Store about `events` events: a played template encounter and copies of its rows."""
    t0 = time.monotonic()
    with Fraylog(settings) as fraylog:
        fight = build_fight(fraylog, min(TEMPLATE, events))
    played = time.monotonic() - t0
    copies = max(0, round(events / TEMPLATE) - 1)
    t1 = time.monotonic()
    if settings.database_url:
        _copy_postgres(settings, fight.eid, copies, log)
    else:
        _copy_sqlite(settings, fight.eid, copies, log)
    copied = time.monotonic() - t1
    stored = _count(settings)
    return {
        "template": fight.eid,
        "copies": copies,
        "stored": stored,
        "played_s": played,
        "copied_s": copied,
        "rows_per_s": (stored - TEMPLATE) / copied if copied else 0.0,
    }


def _copy_sqlite(settings: Settings, eid: UUID, copies: int, log: Callable[[str], None]) -> None:
    conn = sqlite3.connect(settings.sqlite_path, isolation_level=None)
    try:
        conn.execute("CREATE TEMP TABLE ids (id TEXT)")
        for table in ("stored_events", "stored_snapshots"):
            conn.execute(
                f"CREATE TEMP TABLE t_{table} AS SELECT originator_version, topic, state "
                f"FROM {table} WHERE originator_id = ?",
                (eid.hex,),
            )
        for done in range(0, copies, BATCH):
            n = min(BATCH, copies - done)
            conn.execute("BEGIN")
            conn.execute("DELETE FROM ids")
            conn.executemany("INSERT INTO ids VALUES (?)", [(uuid4().hex,) for _ in range(n)])
            for table in ("stored_events", "stored_snapshots"):
                conn.execute(
                    f"INSERT INTO {table} (originator_id, originator_version, topic, state) "
                    f"SELECT ids.id, t.originator_version, t.topic, t.state "
                    f"FROM ids CROSS JOIN t_{table} AS t ORDER BY ids.id, t.originator_version"
                )
            conn.execute("COMMIT")
            if (done // BATCH) % 3 == 2:
                log(f"    {(done + n) * TEMPLATE:,} events copied")
    finally:
        conn.close()


def _copy_postgres(settings: Settings, eid: UUID, copies: int, log: Callable[[str], None]) -> None:
    import psycopg
    from psycopg import sql

    schema = settings.postgres_schema or "public"
    with psycopg.connect(settings.database_url, autocommit=True) as conn:
        for table in ("fraylog_events", "fraylog_snapshots"):
            conn.execute(
                sql.SQL(
                    "CREATE TEMP TABLE {} AS SELECT originator_version, topic, state "
                    "FROM {} WHERE originator_id = %s"
                ).format(sql.Identifier(f"t_{table}"), sql.Identifier(schema, table)),
                (eid,),
            )
        for done in range(0, copies, BATCH):
            n = min(BATCH, copies - done)
            ids = [uuid4() for _ in range(n)]
            with conn.transaction():
                for table in ("fraylog_events", "fraylog_snapshots"):
                    conn.execute(
                        sql.SQL(
                            "INSERT INTO {} (originator_id, originator_version, topic, state) "
                            "SELECT i.id, t.originator_version, t.topic, t.state "
                            "FROM unnest(%s::uuid[]) AS i(id) CROSS JOIN {} AS t "
                            "ORDER BY i.id, t.originator_version"
                        ).format(sql.Identifier(schema, table), sql.Identifier(f"t_{table}")),
                        (ids,),
                    )
            if (done // BATCH) % 3 == 2:
                log(f"    {(done + n) * TEMPLATE:,} events copied")
        for table in ("fraylog_events", "fraylog_snapshots"):
            conn.execute(sql.SQL("ANALYZE {}").format(sql.Identifier(schema, table)))


def _count(settings: Settings) -> int:
    if settings.database_url:
        import psycopg
        from psycopg import sql

        schema = settings.postgres_schema or "public"
        with psycopg.connect(settings.database_url) as conn:
            row = conn.execute(
                sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(schema, "fraylog_events"))
            ).fetchone()
            return int(row[0]) if row else 0
    conn = sqlite3.connect(settings.sqlite_path)
    try:
        return int(conn.execute("SELECT count(*) FROM stored_events").fetchone()[0])
    finally:
        conn.close()


def growth_rows(
    backend: str,
    empty: Settings,
    grown: Settings,
    events: int,
    rounds: int,
    log: Callable[[str], None],
) -> tuple[list[Row], dict[str, Any]]:
    """Fill `grown`, then attack rounds on both stores in turn."""
    log(f"[{backend}] growth: storing {events:,} events (a played encounter and copies) ...")
    info = fill(grown, events, log)
    log(
        f"[{backend}] growth: {info['stored']:,} events stored in "
        f"{info['played_s'] + info['copied_s']:.0f} s; commands on both stores in turn ..."
    )
    with Fraylog(empty) as on_empty, Fraylog(grown) as on_grown:
        samples = interleaved(
            {"empty": Table(on_empty), "grown": Table(on_grown)}, rounds, warmup=3, block=2
        )
    rates = {k: len(v) / (sum(v) / 1e9) for k, v in samples.items()}
    ratio = rates["grown"] / rates["empty"]
    info["ratio"] = ratio
    rows = [
        Row(
            backend,
            "growth: attack round commands, empty store",
            samples["empty"],
            rates["empty"],
            "cmds/s",
            "empty",
            1.0,
            "in-process execute; alternated with the row below, 2 rounds at a time",
        ),
        Row(
            backend,
            f"growth: the same, {info['stored']:,} events already stored",
            samples["grown"],
            rates["grown"],
            "cmds/s",
            "empty",
            ratio,
            f"{info['copies'] + 1:,} encounters of {TEMPLATE:,} events (copied at "
            f"{info['rows_per_s']:,.0f} rows/s)",
        ),
    ]
    return rows, info
