"""`python -m bench.load URL`: the HTTP load generator, run as a process of its own so that
the clients do not share the benchmark's interpreter (its GIL, its garbage collector).

`--clients` threads, each with one keep-alive connection (`http.client`, the lightest
client in the standard library), each create their own encounter through the API (keeping
its GM token and sending it as `Authorization: Bearer` on every request), add the two
fighters, roll initiative, and then play attack rounds (declare, declare, resolve, resolve,
end round: `bench.workload.ROUND`) as fast as the server answers: a closed loop. After
`--warmup` untimed rounds each, all start together and send commands for `--seconds`;
every `HEAL_EVERY` rounds an untimed `adjust_hits` gives the fighters back their hits.

Prints one JSON object: per command (in timed order) its kind and latency in ns, the
commands completed inside the window, errors, and the events recorded per kind.
"""

from __future__ import annotations

import argparse
import http.client
import json
import sys
import threading
import time
from collections import Counter
from typing import Any
from urllib.parse import urlparse

from bench.workload import (
    FIGHTERS,
    HEAL_EVERY,
    ROUND,
    create_body,
    heal_body,
    initiative_bodies,
    round_bodies,
)

clock = time.perf_counter_ns


class Client:
    """One table: its own encounter, connection and token."""

    def __init__(self, host: str, port: int, auth: bool) -> None:
        self.conn = http.client.HTTPConnection(host, port, timeout=60)
        self.auth = auth
        self.headers = {"Content-Type": "application/json"}
        self.eid = ""
        self.ids: list[str] = []
        self.samples: list[tuple[str, int, int]] = []  # (kind, start ns, latency ns)
        self.errors: list[str] = []
        self.events: Counter[str] = Counter()
        self.worker_pids: Counter[str] = Counter()

    def post(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        self.conn.request("POST", path, json.dumps(body), self.headers)
        r = self.conn.getresponse()
        data = r.read()
        self.worker_pids[r.getheader("Fraylog-Worker") or "?"] += 1
        return r.status, json.loads(data) if data else {}

    def setup(self) -> None:
        status, created = self.post("/encounters", create_body())
        if status != 201:
            raise RuntimeError(f"POST /encounters -> {status}: {created}")
        self.eid = created["id"]
        if self.auth:
            self.headers["Authorization"] = f"Bearer {created['gm_token']}"
        for name, side, stats in FIGHTERS:
            status, added = self.post(
                f"/encounters/{self.eid}/combatants", {"name": name, "side": side, "stats": stats}
            )
            if status != 201:
                raise RuntimeError(f"POST combatants -> {status}: {added}")
            self.ids.append(added["id"])
        for body in initiative_bodies(*self.ids):
            self.command(body)

    def command(self, body: dict[str, Any]) -> dict[str, Any]:
        status, out = self.post(f"/encounters/{self.eid}/commands", body)
        if status != 200:
            raise RuntimeError(f"{body['type']} -> {status}: {str(out)[:300]}")
        return out

    def play_round(self, timed: bool, n: int) -> None:
        bodies = round_bodies(*self.ids)
        out: dict[str, Any] = {}
        for kind, body in zip(ROUND, bodies, strict=True):
            t0 = clock()
            try:
                out = self.command(body)
            except Exception as e:
                self.errors.append(f"{type(e).__name__}: {e}")
                raise
            elapsed = clock() - t0
            if timed:
                self.samples.append((kind, t0, elapsed))
                self.events.update(e["type"] for e in out["events"])
        if n % HEAL_EVERY == HEAL_EVERY - 1:  # untimed: give the fighters back their hits
            for c in out["encounter"]["combatants"]:
                if c["hits"] < c["max_hits"]:
                    self.command(heal_body(c["id"], c["max_hits"] - c["hits"]))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.load", description=__doc__)
    p.add_argument("url", help="the server, e.g. http://127.0.0.1:8000")
    p.add_argument("--clients", type=int, default=4)
    p.add_argument("--seconds", type=float, default=8.0)
    p.add_argument("--warmup", type=int, default=5, help="untimed rounds per client first")
    p.add_argument("--no-auth", action="store_true", help="the server runs --no-auth")
    args = p.parse_args(argv)
    u = urlparse(args.url)
    clients = [
        Client(u.hostname or "127.0.0.1", u.port or 80, not args.no_auth)
        for _ in range(args.clients)
    ]
    window: dict[str, int] = {}

    def open_window() -> None:  # run once, by the last thread to arrive, before any goes on
        window["start"] = clock()
        window["end"] = window["start"] + int(args.seconds * 1e9)

    ready = threading.Barrier(args.clients + 1, action=open_window)
    failed: list[str] = []

    def run(client: Client) -> None:
        try:
            client.setup()
            for n in range(args.warmup):
                client.play_round(False, n)
        except Exception as e:
            failed.append(f"setup: {type(e).__name__}: {e}")
            ready.abort()
            return
        try:
            ready.wait()
        except threading.BrokenBarrierError:
            return
        n = args.warmup
        try:
            while clock() < window["end"]:
                client.play_round(True, n)
                n += 1
        except Exception as e:
            failed.append(f"{type(e).__name__}: {e}")

    threads = [threading.Thread(target=run, args=(c,), daemon=True) for c in clients]
    for t in threads:
        t.start()
    try:
        ready.wait(timeout=120)
    except threading.BrokenBarrierError:
        print(json.dumps({"failed": failed or ["setup timed out"]}))
        return 1
    for t in threads:
        t.join(timeout=args.seconds + 120)
    end = window["end"]
    samples = sorted(
        (s for c in clients for s in c.samples if s[1] + s[2] <= end), key=lambda s: s[1]
    )
    events: Counter[str] = Counter()
    pids: Counter[str] = Counter()
    for c in clients:
        events.update(c.events)
        pids.update(c.worker_pids)
    print(
        json.dumps(
            {
                "clients": args.clients,
                "seconds": args.seconds,
                "samples": [[s[0], s[2]] for s in samples],
                "failed": failed,
                "events": dict(events),
                "workers": dict(pids),
            }
        )
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
