"""Many workers on one PostgreSQL: `fraylog serve --workers 2` with clients hammering one
encounter; every 2xx answer's event is stored once, with no version gap, and the live feed
of one worker carries what the other recorded."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from infra.settings import Settings
from tests.api.test_stream import follow
from tests.builders import free_port
from tests.builders.cpus import cpus_of_threads, two_cpus
from tests.builders.novus import novus_stats

CLIENTS, EACH = 8, 40


@contextlib.contextmanager
def serving_two_workers(settings: Settings, **more: str) -> Iterator[str]:
    """`fraylog serve --workers 2` on the test's PostgreSQL schema (with `more` of the
    environment), once both workers answer; its address."""
    if settings.backend != "postgres":
        pytest.skip("several workers need PostgreSQL (fraylog serve refuses them on SQLite)")
    port = free_port()
    env = {
        **os.environ,
        "FRAYLOG_DATABASE_URL": settings.database_url or "",
        "FRAYLOG_POSTGRES_SCHEMA": settings.postgres_schema,
        "FRAYLOG_WORKER_HEADER": "1",  # which worker answered: how the test sees both serve
        **more,
    }
    fraylog = Path(sys.executable).with_name("fraylog")
    server = subprocess.Popen(
        [str(fraylog), "serve", "--workers", "2", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    deadline, seen = time.monotonic() + 30, set()
    try:  # the server is stopped whatever happens, even while it starts
        while len(seen) < 2 and time.monotonic() < deadline:  # until both workers answer
            try:
                seen.add(httpx.get(f"{url}/rulesets/novus", timeout=1).headers["fraylog-worker"])
            except httpx.TransportError:
                time.sleep(0.2)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=20)


@pytest.fixture
def two_workers(settings: Settings) -> Iterator[str]:
    with serving_two_workers(settings) as url:
        yield url


@pytest.fixture
def two_pinned_workers(settings: Settings, tmp_path: Path) -> Iterator[str]:
    """Each worker on a CPU it claims (FRAYLOG_CPU=auto, infra/cpus.py), its claims in
    tmp_path, apart from other servers'."""
    with serving_two_workers(settings, FRAYLOG_CPU="auto", TMPDIR=str(tmp_path)) as url:
        yield url


def test_given_two_workers_racing_on_one_encounter_then_no_event_is_lost_or_doubled(
    two_workers: str,
) -> None:
    http = httpx.Client(base_url=two_workers, timeout=30)
    created = http.post("/encounters", json={"name": "Race", "ruleset": "novus"}).json()
    eid, gm = created["id"], {"Authorization": f"Bearer {created['gm_token']}"}
    a = http.post(
        f"/encounters/{eid}/combatants", json={"name": "A", "stats": novus_stats()}, headers=gm
    ).json()["id"]
    expected_total = 2 + CLIENTS * EACH  # if every command succeeded
    feed: list[dict] = []

    def following() -> None:
        with contextlib.suppress(httpx.TransportError):  # the server stops at the end
            follow(f"{two_workers}/encounters/{eid}/stream", gm, feed, 10**9, [])

    follower = threading.Thread(target=following)
    follower.daemon = True
    follower.start()

    def hammer(_: int) -> tuple[Counter, set[str]]:
        codes, workers = Counter(), set()
        # a new connection per request, so the kernel hands them to either worker
        fresh = httpx.Limits(max_keepalive_connections=0)
        with httpx.Client(base_url=two_workers, timeout=30, limits=fresh) as mine:
            for _ in range(EACH):
                r = mine.post(
                    f"/encounters/{eid}/commands",
                    json={"type": "adjust_hits", "combatant": a, "amount": -1},
                    headers=gm,
                )
                codes[r.status_code] += 1
                workers.add(r.headers["fraylog-worker"])
        return codes, workers

    with ThreadPoolExecutor(CLIENTS) as pool:
        results = list(pool.map(hammer, range(CLIENTS)))
    codes = sum((c for c, _ in results), Counter())
    workers = set().union(*(w for _, w in results))
    assert len(workers) == 2, workers  # both workers answered
    assert set(codes) <= {200, 409}, codes  # a lost race is a 409, never a 500
    events = http.get(f"/encounters/{eid}/events", headers=gm).json()["events"]
    assert [e["position"] for e in events] == list(range(1, len(events) + 1))  # no gap
    assert len(events) == 2 + codes[200]  # one event per 2xx, none without one
    assert http.get(f"/encounters/{eid}", headers=gm).json()["combatants"][0]["hits"] == (
        30 - codes[200]
    )
    deadline = time.monotonic() + 20
    while len(feed) < len(events) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [int(e["id"]) for e in feed] == list(range(1, len(events) + 1))
    assert len(events) <= expected_total


def test_given_two_workers_when_the_gm_token_is_rotated_then_no_worker_takes_the_old_one(
    two_workers: str,
) -> None:
    http = httpx.Client(base_url=two_workers, timeout=30)
    created = http.post("/encounters", json={"name": "Rotate", "ruleset": "novus"}).json()
    eid, old = created["id"], {"Authorization": f"Bearer {created['gm_token']}"}
    fresh = httpx.Limits(max_keepalive_connections=0)  # either worker may answer each

    def on_each_worker(headers: dict[str, str], status: int) -> None:
        """Ask until both workers have answered, each with `status`."""
        workers: set[str] = set()
        for _ in range(200):
            r = each.get(f"/encounters/{eid}", headers=headers)
            assert r.status_code == status, r.text
            workers.add(r.headers["fraylog-worker"])
            if len(workers) == 2:
                return
        pytest.fail(f"only worker {workers} answered")

    with httpx.Client(base_url=two_workers, timeout=30, limits=fresh) as each:
        on_each_worker(old, 200)  # both workers have read (and may keep) the old token
        rotated = each.post(f"/encounters/{eid}/tokens/gm/rotate", headers=old)
        assert rotated.status_code == 201, rotated.text
        on_each_worker(old, 404)  # at once, on each worker
        on_each_worker({"Authorization": f"Bearer {rotated.json()['token']}"}, 200)


@two_cpus
def test_given_two_workers_with_cpu_auto_then_each_runs_its_threads_on_a_cpu_of_its_own(
    two_pinned_workers: str,
) -> None:
    fresh = httpx.Limits(max_keepalive_connections=0)  # either worker may answer each
    with httpx.Client(base_url=two_pinned_workers, timeout=30, limits=fresh) as each:
        workers = set()
        for _ in range(200):
            workers.add(int(each.get("/rulesets/novus").headers["fraylog-worker"]))
            if len(workers) == 2:
                break
    assert len(workers) == 2, workers

    cpus = [cpus_of_threads(pid) for pid in workers]

    assert all(len(one) == 1 and len(next(iter(one))) == 1 for one in cpus), cpus
    assert cpus[0] != cpus[1]
