"""On the long encounter: the full fold against a raw SELECT + json.loads of the same rows,
export + verify (in this process and over HTTP), and the projector lever."""

from __future__ import annotations

import contextlib
import gc
import json
import sqlite3
from collections.abc import Callable
from typing import Any
from uuid import UUID

import httpx

from bench.timing import Row, clock, percentile
from domain.encounter import project_encounter
from infra.app import Fraylog
from infra.settings import Settings
from projections.audit import decoded, read_export, read_export_stream, verify_export
from projections.view import view_of


def _p50(samples: list[int]) -> float:
    return percentile([float(x) for x in samples], 0.5)


class RawReader:
    """The stored events of one encounter with no library: a plain SELECT of the rows'
    state, in order, and json.loads of each (what any reader of the table must do at
    least)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        if settings.database_url:
            import psycopg
            from psycopg import sql

            self.conn: Any = psycopg.connect(settings.database_url, autocommit=True)
            table = sql.Identifier(settings.postgres_schema or "public", "fraylog_events")
            self.query: Any = sql.SQL(
                "SELECT state FROM {} WHERE originator_id = %s ORDER BY originator_version"
            ).format(table)
        else:
            self.conn = sqlite3.connect(settings.sqlite_path)
            self.query = (
                "SELECT state FROM stored_events WHERE originator_id = ? "
                "ORDER BY originator_version"
            )

    def read(self, eid: UUID) -> list[dict[str, Any]]:
        if self.settings.database_url:
            rows = self.conn.execute(self.query, (eid,), prepare=True).fetchall()
        else:
            rows = self.conn.execute(self.query, (eid.hex,)).fetchall()
        return [json.loads(state) for (state,) in rows]

    def close(self) -> None:
        self.conn.close()


def fold_vs_raw(
    backend: str, label: str, fraylog: Fraylog, eid: UUID, events: int, reps: int
) -> tuple[list[Row], dict[str, float]]:
    """view_of(list(event_log(id))) and the raw read, alternately, `reps` times each, the
    garbage collected before each: a collection of what earlier runs left fell inside one
    timing or the other, by chance (the ratio of one run went from 0.31 to 0.78 and back)."""
    raw = RawReader(fraylog.settings)
    try:
        assert len(raw.read(eid)) == events
        view_of(fraylog.event_log(eid))  # both warm
        folds, reads = [], []
        for _ in range(reps):
            gc.collect()
            t0 = clock()
            rows = raw.read(eid)
            reads.append(clock() - t0)
            del rows
            gc.collect()
            t0 = clock()
            view = view_of(list(fraylog.event_log(eid)))
            folds.append(clock() - t0)
            assert view["version"] == events
    finally:
        raw.close()
    raw_rate = events / (_p50(reads) / 1e9)
    fold_rate = events / (_p50(folds) / 1e9)
    rows = [
        Row(
            backend,
            f"{label}: raw SELECT + json.loads of the stored rows (no library)",
            reads,
            raw_rate,
            "events/s",
            "raw",
            1.0,
            "plain sqlite3/psycopg on its own connection; alternated with the row below",
        ),
        Row(
            backend,
            f"{label}: full fold, view_of(list(event_log(id)))",
            folds,
            fold_rate,
            "events/s",
            "raw",
            fold_rate / raw_rate,
            "read through the library's mapper into domain events, then fold and view",
        ),
    ]
    return rows, {"fold_rate": fold_rate, "raw_rate": raw_rate}


def export_lines(fraylog: Fraylog, eid: UUID) -> list[str]:
    """What `GET /encounters/{id}/events?format=ndjson` streams: the corrections first (for
    `voided_by`), then the log page by page as NDJSON lines."""
    from api.routes.reads import _export  # the route's own code (infra.export_rows)

    chunks = _export(fraylog, eid, None, "ndjson", None)
    return [line for chunk in chunks for line in chunk.splitlines(keepends=True)]


def verify_lines(lines: list[str], keys: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """What `fraylog verify FILE` does with an NDJSON export (its lines, each ending in a
    line feed), its checkpoint checked against `keys`."""
    return verify_export(read_export("".join(lines)), keys or [])


def export_verify(
    backend: str, label: str, fraylog: Fraylog, eid: UUID, events: int, reps: int
) -> tuple[list[Row], float, float]:
    """Export (in this process, the route's code) then verify, `reps` times, taking turns
    with the raw SELECT + json.loads of the same rows; the rows, both rates (events/s)."""
    totals, exports, verifies, reads = [], [], [], []
    raw = RawReader(fraylog.settings)
    try:
        raw.read(eid)  # warm
        for _ in range(reps):
            t0 = clock()
            raw.read(eid)
            reads.append(clock() - t0)
            _export_verify_once(fraylog, eid, events, totals, exports, verifies)
    finally:
        raw.close()
    rate = events / (_p50(totals) / 1e9)
    raw_rate = events / (_p50(reads) / 1e9)
    rows = [
        Row(
            backend,
            f"{label}: raw SELECT + json.loads of the stored rows (no library), with snapshots",
            reads,
            raw_rate,
            "events/s",
            "raw",
            1.0,
            "the encounter exported below; taking turns with it",
        ),
        Row(
            backend,
            f"{label}: export NDJSON + verify it, in-process",
            totals,
            rate,
            "events/s",
            "raw",
            rate / raw_rate,
            note="the export route's code (corrections, pages, ndjson_lines), then json.loads "
            "of each line and `verification` (hash chain, derived columns, dice)",
        ),
        Row(
            backend,
            "  of which the export",
            exports,
            events / (_p50(exports) / 1e9),
            "events/s",
        ),
        Row(
            backend,
            "  of which verify (json.loads + verification)",
            verifies,
            events / (_p50(verifies) / 1e9),
            "events/s",
        ),
    ]
    return rows, rate, raw_rate


def _export_verify_once(
    fraylog: Fraylog,
    eid: UUID,
    events: int,
    totals: list[int],
    exports: list[int],
    verifies: list[int],
) -> None:
    keys = fraylog.checkpoints.keys()  # what a verifier holds (GET /audit/keys)
    t0 = clock()
    lines = export_lines(fraylog, eid)
    t1 = clock()
    report = verify_lines(lines, keys)
    t2 = clock()
    # the events' lines and the export's trailer: its checkpoint
    assert report["ok"] and report["chain"]["events"] == events, report
    exports.append(t1 - t0)
    verifies.append(t2 - t1)
    totals.append(t2 - t0)


def export_verify_http(
    backend: str, label: str, url: str, token: str, eid: UUID, events: int, reps: int
) -> tuple[Row, float]:
    """`GET /encounters/{id}/events?format=ndjson`, each line verified as soon as it has
    arrived (as `fraylog verify -` reads a pipe: `curl … | fraylog verify -`), `reps`
    times; the server makes and sends the export while the client checks what came."""
    totals = []
    with httpx.Client(base_url=url, timeout=120.0) as client:
        headers = {"Authorization": f"Bearer {token}"}
        keys = client.get("/audit/keys").json()["keys"]  # the export ends with a checkpoint
        for _ in range(reps):
            t0 = clock()
            with client.stream(
                "GET", f"/encounters/{eid}/events", params={"format": "ndjson"}, headers=headers
            ) as r:
                r.raise_for_status()
                report = verify_export(read_export_stream(decoded(r.iter_bytes())), keys)
            totals.append(clock() - t0)
            assert report["ok"] and report["chain"]["events"] == events, report
    rate = events / (_p50(totals) / 1e9)
    return (
        Row(
            backend,
            f"{label}: GET …/events?format=ndjson over HTTP, verified as it arrives",
            totals,
            rate,
            "events/s",
            note="fraylog serve, the GM's token, one client; each line checked once it has "
            "arrived, as `fraylog verify -` does (the export made and checked at once)",
        ),
        rate,
    )


def projector_lever(fraylog: Fraylog, eid: UUID, events: int, reps: int) -> dict[str, list[int]]:
    """A cache miss on a running instance, no snapshots, by fraylog's project_encounter and
    by the library's default projector (project_aggregate, with its per-event isinstance
    assertion), alternately."""
    cache = fraylog.repository.cache
    loads: dict[str, Callable[[], Any]] = {
        "project_encounter (fraylog's default)": lambda: fraylog.repository.get(
            eid, projector_func=project_encounter
        ),
        "the library's project_aggregate": lambda: fraylog.repository.get(eid),
    }
    samples: dict[str, list[int]] = {k: [] for k in loads}
    for _ in range(reps):
        for k, load in loads.items():
            if cache is not None:
                with contextlib.suppress(KeyError):
                    cache.get(eid, evict=True)
            t0 = clock()
            agg = load()
            samples[k].append(clock() - t0)
            assert agg.version == events
    return samples
