"""`python -m bench.crash`: kill the server with SIGKILL under load, restart it, and check
that nothing it acknowledged was lost.

Per backend, on a fresh store (a temporary SQLite file, or a PostgreSQL schema created for
the run and dropped after it): `fraylog serve` runs as a subprocess; a few encounters (Novus
and Wits, server dice) get two combatants each; then client threads send commands over HTTP:
rolls (Novus initiative, declare and resolve; Wits initiative, attacks with declared
defenses; now and then a `reveal_dice`), `adjust_hits` and `set_condition`. Meanwhile the
server is killed with SIGKILL at random moments, `--kills` times, and started again at once.

A request with no answer (the connection dropped: it was in flight at a kill) is "unknown";
a refused connection (the server was down) is sent again, since nothing reached the server.
One client sends every command with an Idempotency-Key, retries an unknown one with the same
key until it gets an answer, and after each restart asks again for a key that was already
answered (a replay). It is the only writer of its encounters and sends one command at a
time, so its log can be cut into one slice per key.

Checked at the end, per encounter: every acknowledged command's events are stored with the
positions and hashes it was answered with; positions run 1..n with no gap; `…/verify` is ok;
`GET /encounters/{id}` equals the fold of the stored events computed here by a new
application (cold cache: `Fraylog(settings).state(id)`, and `view_of(event_log(id))`); no
command was recorded that no request accounts for (recorded commands − acknowledged ≤
unknown); a tagged command (its `reason`) is stored once if acknowledged, never if refused,
at most once if unknown; and each Idempotency-Key's slice holds its command once if
acknowledged (a replay: the first answer, nothing new), nothing if refused, at most one
command otherwise. A 5xx, a 401/403/404 or an unexpected 4xx is a violation too.

Prints a table (restart times, commands per life, unknown outcomes) and exits 1 on any
violation.
"""

from __future__ import annotations

import argparse
import bisect
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console
from rich.table import Table

from infra.app import Fraylog
from infra.settings import Settings
from projections.view import encounter_view, view_of

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_URL = os.environ.get(
    "FRAYLOG_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test"
)
SNAPSHOT_INTERVAL = 10  # small, so snapshots are taken (and interrupted) often

# outcomes of a command
ACKED = "acknowledged"  # a 2xx answer
REFUSED = "refused"  # a 4xx the client expects (422, 409 version conflict): nothing recorded
UNKNOWN = "unknown"  # no answer: the request was in flight when the server was killed
AMBIGUOUS = "ambiguous"  # Idempotency-Key still taken by a command that never answered
ERROR = "error"  # a 5xx or an unexpected answer: a violation
UNSENT = "unsent"  # the run ended before it could be sent


def novus_stats(str_: int, ar: int, weapon: str, dr: int) -> dict[str, Any]:
    return {
        "hits": 10_000,
        "bonuses": {"str": str_, "dex": 1, "spd": 1, "con": 2, "wil": 1, "wis": 0},
        "melee_ranks": 7,
        "ar": ar,
        "weapons": [{"name": weapon, "dr": dr, "stat": "str", "ranks": 7}],
    }


NOVUS_FIGHTERS = [
    ("Brakka", "heroes", novus_stats(2, 6, "longsword", 6)),
    ("Grukk", "raiders", novus_stats(3, 4, "great axe", 8)),
]
WITS_FIGHTERS = [
    (
        name,
        side,
        {
            "wits": wits,
            "move": 12,
            "strength": 12,
            "base_damage": "1d6",
            "health": 200,
            "skills": {"short sword": 13, "shield": 14},
            "shield": {"name": "small shield", "defense": 2},
            "weapons": [{"name": "short sword", "damage": "1d8", "skill": "short sword"}],
        },
    )
    for name, side, wits in (("Lief", "heroes", 12), ("Farthan", "foes", 10))
]
CONDITIONS = {
    "novus": ["prone", "hasted", "unaware", "dazed", "stunned"],
    "wits": ["prone", "knocked_back", "fighting_on", "stunned"],
}


# -- the store and the server ---------------------------------------------------------------


def postgres_problem(url: str) -> str | None:
    """Why PostgreSQL cannot be used at `url`, or None."""
    try:
        import psycopg

        with psycopg.connect(url, connect_timeout=3) as conn:
            conn.execute("select 1")
    except Exception as e:  # any failure to connect is reported, whatever its kind
        return f"PostgreSQL not reachable at {url}: {e}".splitlines()[0]
    return None


@contextmanager
def fresh_store(
    backend: str, postgres_url: str = DEFAULT_URL, snapshot_interval: int = SNAPSHOT_INTERVAL
) -> Iterator[Settings]:
    """Settings for a store no one used: a temporary SQLite file, or a new PostgreSQL schema
    (dropped afterwards)."""
    if backend == "sqlite":
        with tempfile.TemporaryDirectory(prefix="fraylog-crash-") as tmp:
            yield Settings(
                sqlite_path=str(Path(tmp) / "crash.db"), snapshot_interval=snapshot_interval
            )
        return
    import psycopg
    from psycopg import sql

    schema = f"fraylog_crash_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(postgres_url, autocommit=True, connect_timeout=5) as conn:
        conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
    try:
        yield Settings(
            database_url=postgres_url, postgres_schema=schema, snapshot_interval=snapshot_interval
        )
    finally:
        with psycopg.connect(postgres_url, autocommit=True, connect_timeout=5) as conn:
            conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve_env(settings: Settings) -> dict[str, str]:
    """This environment without its FRAYLOG_ settings, and the store's (tokens on)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("FRAYLOG_")}
    env.update(
        FRAYLOG_SNAPSHOT_INTERVAL=str(settings.snapshot_interval),
        FRAYLOG_CACHE_SIZE=str(settings.cache_size),
        # its clients flood the server on purpose: no rate limits
        FRAYLOG_RATE_CREATE="off",
        FRAYLOG_RATE_MINT="off",
        FRAYLOG_RATE_COMMANDS="off",
        PYTHONUNBUFFERED="1",
    )
    if settings.database_url:
        env.update(
            FRAYLOG_DATABASE_URL=settings.database_url,
            FRAYLOG_POSTGRES_SCHEMA=settings.postgres_schema,
        )
    else:
        env["FRAYLOG_SQLITE_PATH"] = settings.sqlite_path
    return env


def serve_command(port: int) -> list[str]:
    """`fraylog serve` (the console script of this interpreter's environment)."""
    script = Path(sys.executable).with_name("fraylog")
    head = (
        [str(script)]
        if script.exists()
        else [sys.executable, "-c", "from api.cli import app; app(prog_name='fraylog')"]
    )
    return [*head, "serve", "--host", "127.0.0.1", "--port", str(port)]


class ServerProcess:
    """`fraylog serve` on one port, started again after each kill; its output goes to one
    log file per life."""

    def __init__(self, settings: Settings, logs: Path, port: int | None = None) -> None:
        self.settings = settings
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.logs = logs
        self.proc: subprocess.Popen[bytes] | None = None
        self.lives = 0
        self.started_at = 0.0

    def start(self) -> None:
        self.lives += 1
        log = (self.logs / f"server-{self.lives:03d}.log").open("wb")
        self.started_at = time.monotonic()
        with log:  # the child keeps its own descriptor
            self.proc = subprocess.Popen(
                serve_command(self.port),
                cwd=ROOT,
                env=serve_env(self.settings),
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    def wait_ready(self, timeout: float = 60.0) -> float:
        """Seconds from start() to the first answer (GET /rulesets/novus)."""
        assert self.proc is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"fraylog serve exited with {self.proc.returncode}:\n{self.log_tail()}"
                )
            try:
                if httpx.get(f"{self.url}/rulesets/novus", timeout=2.0).status_code == 200:
                    return time.monotonic() - self.started_at
            except httpx.TransportError:
                pass
            time.sleep(0.01)
        raise RuntimeError(f"fraylog serve did not answer within {timeout}s:\n{self.log_tail()}")

    def kill(self) -> None:
        """SIGKILL, and wait until the process is gone."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        code = self.proc.wait()
        if code != -signal.SIGKILL:
            raise RuntimeError(f"fraylog serve ended with {code} before it was killed")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def log_tail(self, chars: int = 3000) -> str:
        path = self.logs / f"server-{self.lives:03d}.log"
        return path.read_text(errors="replace")[-chars:] if path.exists() else ""

    def tracebacks(self) -> list[str]:
        """The first line after each Traceback in the logs of every life."""
        found = []
        for path in sorted(self.logs.glob("server-*.log")):
            lines = path.read_text(errors="replace").splitlines()
            for i, line in enumerate(lines):
                if line.startswith("Traceback"):
                    last = next(
                        (x for x in lines[i + 1 :] if x and not x.startswith((" ", "\t"))), "?"
                    )
                    found.append(f"{path.name}: {last}")
        return found

    def __enter__(self) -> ServerProcess:
        self.start()
        try:
            self.wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


# -- what the clients do ----------------------------------------------------------------------


@dataclass
class Fight:
    """One encounter; `owner` is the client that rolls in it."""

    id: str
    token: str
    ruleset: str
    combatants: list[str]
    setup_version: int
    owner: int
    idempotent: bool
    # the owner's own bookkeeping (only its thread touches these)
    version: int = 0  # idempotent: the version before the next command (it is the only writer)
    stuck_at: int = -1  # the version at which its last roll was refused
    pending: Sent | None = None  # idempotent: a command without a final answer yet
    retry_at: float = 0.0
    last_acked: Sent | None = None


@dataclass
class Sent:
    """One command and what came of it (for an Idempotency-Key: of all its attempts)."""

    client: int
    fight: str
    body: dict[str, Any]
    key: str | None = None
    tag: str | None = None  # the `reason` it carries, found again in the stored events
    before: int | None = None  # idempotent: the version before it
    after: int | None = None  # idempotent: the version once it was settled
    replay_of: Sent | None = None  # a replay probe of an acknowledged key
    outcome: str = UNSENT
    status: int | None = None
    events: list[dict[str, Any]] = field(default_factory=list)
    replayed: bool = False
    attempts: int = 0
    unknown_attempts: int = 0
    in_use: int = 0  # 409 Idempotency-Key in use
    sent_at: float = 0.0  # when its last attempt was sent (time.monotonic)
    answered_at: float = 0.0
    life: int = 0  # the server's life that answered it (1 = before the first kill)
    detail: str = ""


class Run:
    """What the client threads share: the server's address, the life counter, counters."""

    def __init__(self, url: str, seed: int) -> None:
        self.url = url
        self.seed = seed
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.life = 1
        self.counters: Counter[str] = Counter()
        self.violations: list[str] = []

    def count(self, what: str, n: int = 1) -> None:
        with self.lock:
            self.counters[what] += n

    def violation(self, what: str) -> None:
        with self.lock:
            self.violations.append(what)


def roll_command(fight: Fight, view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """The next roll of the fight as its view stands; after a refusal at the same version,
    the plain variant (a declaration without actions, an end of turn)."""
    if rng.random() < 0.03:
        return {"type": "reveal_dice"}  # so that verify re-derives the server faces
    stuck = fight.stuck_at == view["version"]
    step = view["step"]
    a, b = fight.combatants
    if fight.ruleset == "novus":
        if step in ("initiative", "setup"):
            return {"type": "roll_initiative"}
        if step == "declaration":
            who = view["next_to_declare"]
            actions = [] if stuck else [{"kind": "melee_attack", "target": b if who == a else a}]
            return {"type": "declare", "combatant": who, "actions": actions}
        if step == "boons":
            return {"type": "spend_boons", "boons": []}
        if step == "snags":
            return {"type": "spend_snags", "snags": []}
        if step == "resolution":
            return {"type": "resolve", "boons": [], "snags": []}
        return {"type": "end_round"}
    if step in ("order", "setup"):
        return {"type": "roll_initiative"}
    if step == "attack":
        return {"type": "roll_attack"}
    if step == "end_round" or view["acting"] is None:
        return {"type": "end_round"}
    who = view["acting"]
    me = next(c for c in view["combatants"] if c["id"] == who)
    if stuck or me["actions_left"] < 1:
        return {"type": "end_turn", "combatant": who}
    defense = rng.choice(["dodge", "block", "parry"])
    return {
        "type": "attack",
        "combatant": who,
        "target": b if who == a else a,
        "weapon": "short sword",
        "defense": {"kind": defense},
    }


def heal_command(fight: Fight, view: dict[str, Any], tag: str) -> dict[str, Any] | None:
    """Hits back for a combatant below 30% of his maximum, so the fight goes on."""
    for c in view["combatants"]:
        now, most = (c["health"], c["max_health"]) if "health" in c else (c["hits"], c["max_hits"])
        if now < most * 0.3:
            amount = most // 2 - min(now, 0)
            return {"type": "adjust_hits", "combatant": c["id"], "amount": amount, "reason": tag}
    return None


def gm_command(fight: Fight, rng: random.Random, tag: str) -> dict[str, Any]:
    who = rng.choice(fight.combatants)
    if rng.random() < 0.6:
        amount = rng.choice([-3, -2, -1, 1, 2, 3])
        return {"type": "adjust_hits", "combatant": who, "amount": amount, "reason": tag}
    return {
        "type": "set_condition",
        "combatant": who,
        "condition": rng.choice(CONDITIONS[fight.ruleset]),
        "count": rng.randint(1, 2),
        "reason": tag,
    }


class Client(threading.Thread):
    """Sends commands until the run stops. Plain clients roll in their own encounters and
    send GM commands to any plain encounter; the idempotent one keeps to its encounters,
    one command at a time each, every command with an Idempotency-Key."""

    def __init__(
        self, number: int, run: Run, own: list[Fight], shared: list[Fight], idempotent: bool
    ) -> None:
        super().__init__(name=f"crash-client-{number}", daemon=True)
        self.number = number
        self.run_ = run
        self.own = own
        self.shared = shared
        self.idempotent = idempotent
        self.rng = random.Random(run.seed * 1000 + number)
        self.sent: list[Sent] = []
        self.seq = 0
        self.probed_life = 1
        self.http = httpx.Client(
            base_url=run.url,
            timeout=httpx.Timeout(30.0, connect=3.0),
            # a new connection per request: a request sent while the server is down is
            # refused (not sent) instead of written to a dead keep-alive connection
            limits=httpx.Limits(max_keepalive_connections=0),
            headers={"Connection": "close"},
        )

    def run(self) -> None:
        try:
            while not self.run_.stop.is_set():
                if self.idempotent:
                    self.step_idempotent()
                else:
                    self.step_plain()
        except Exception:
            self.run_.violation(f"client {self.number} crashed:\n{traceback.format_exc()}")
            self.run_.stop.set()
        finally:
            self.http.close()

    def tag(self) -> str:
        self.seq += 1
        return f"crash-{self.number}-{self.seq}"

    # -- HTTP ------------------------------------------------------------------------------
    def view(self, fight: Fight) -> dict[str, Any] | None:
        """GET /encounters/{id}, asked again while the server is down (reads are safe)."""
        while not self.run_.stop.is_set():
            try:
                r = self.http.get(f"/encounters/{fight.id}", headers=self.auth(fight))
            except httpx.TransportError:
                self.run_.count("view retried")
                time.sleep(0.02)
                continue
            if r.status_code == 200:
                return r.json()
            self.run_.violation(f"GET /encounters/{fight.id} -> {r.status_code}: {r.text[:300]}")
            return None
        return None

    @staticmethod
    def auth(fight: Fight) -> dict[str, str]:
        return {"Authorization": f"Bearer {fight.token}"}

    def post(self, sent: Sent, fight: Fight) -> httpx.Response | None:
        """One attempt: the answer, or None when it got none (counted as unknown). A refused
        connection reached nothing: it is sent again."""
        headers = self.auth(fight)
        if sent.key:
            headers["Idempotency-Key"] = sent.key
        while not self.run_.stop.is_set():
            try:
                sent.attempts += 1
                sent.sent_at = time.monotonic()
                return self.http.post(
                    f"/encounters/{fight.id}/commands", json=sent.body, headers=headers
                )
            except (httpx.ConnectError, httpx.ConnectTimeout):
                sent.attempts -= 1
                self.run_.count("connections refused (server down; sent again)")
                time.sleep(0.02)
            except httpx.TransportError as e:
                sent.unknown_attempts += 1
                if isinstance(e, httpx.TimeoutException):
                    self.run_.count("timeouts")
                return None
        return None

    def settle(self, sent: Sent, r: httpx.Response | None) -> None:
        """The outcome of one attempt."""
        if r is None:
            sent.outcome = UNKNOWN if sent.attempts else UNSENT
            return
        sent.status = r.status_code
        if 200 <= r.status_code < 300:
            body = r.json()
            sent.outcome = ACKED
            sent.events = body["events"]
            sent.replayed = r.headers.get("Idempotent-Replayed") == "true"
            sent.answered_at = time.monotonic()
            return
        problem = _problem(r)
        sent.detail = f"{r.status_code} {problem.get('rule')}: {problem.get('detail')}"
        if r.status_code == 409 and problem.get("rule") == "IDEMPOTENCY":
            sent.in_use += 1
            sent.outcome = AMBIGUOUS
        elif (r.status_code, problem.get("rule")) == (409, "VERSION") or (
            r.status_code == 422 and problem.get("rule") != "IDEMPOTENCY"
        ):
            sent.outcome = REFUSED  # a stale step or a lost race: nothing was recorded
        else:
            sent.outcome = ERROR
            self.run_.violation(
                f"{sent.body['type']} on {sent.fight} (key {sent.key}) -> {r.status_code}: "
                f"{r.text[:300]}"
            )

    # -- plain clients -------------------------------------------------------------------
    def step_plain(self) -> None:
        roll = self.rng.random() < 0.55
        if roll:
            fight = self.rng.choice(self.own)
            view = self.view(fight)
            if view is None:
                return
            body = heal_command(fight, view, self.tag()) or roll_command(fight, view, self.rng)
        else:
            fight = self.rng.choice(self.shared)
            body = gm_command(fight, self.rng, self.tag())
        sent = Sent(self.number, fight.id, body, tag=body.get("reason"))
        self.sent.append(sent)
        self.settle(sent, self.post(sent, fight))
        if roll and sent.outcome == REFUSED:
            fight.stuck_at = view["version"]

    # -- the idempotent client -------------------------------------------------------------
    def step_idempotent(self) -> None:
        now = time.monotonic()
        due = [f for f in self.own if f.pending is not None and f.retry_at <= now]
        if due:
            self.retry(due[0])
            return
        free = [f for f in self.own if f.pending is None]
        if not free:
            time.sleep(0.05)
            return
        fight = self.rng.choice(free)
        life = self.run_.life
        if life != self.probed_life and fight.last_acked is not None:
            self.probed_life = life  # after a restart: ask again for an answered key
            first = fight.last_acked
            sent = Sent(
                self.number,
                fight.id,
                first.body,
                key=first.key,
                tag=first.tag,
                before=fight.version,
                replay_of=first,
            )
        else:
            view = self.view(fight)
            if view is None:
                return
            fight.version = view["version"]
            tag = self.tag()  # also the key
            if self.rng.random() < 0.6:
                body = heal_command(fight, view, tag) or roll_command(fight, view, self.rng)
            else:
                body = gm_command(fight, self.rng, tag)
            sent = Sent(
                self.number, fight.id, body, key=tag, tag=body.get("reason"), before=fight.version
            )
        self.sent.append(sent)
        self.attempt(fight, sent)

    def retry(self, fight: Fight) -> None:
        sent = fight.pending
        assert sent is not None
        self.attempt(fight, sent)

    def attempt(self, fight: Fight, sent: Sent) -> None:
        self.settle(sent, self.post(sent, fight))
        if sent.outcome == ACKED:
            assert sent.before is not None
            fight.pending = None
            if sent.replay_of is not None or not sent.events:
                fight.version = sent.after = sent.before  # a replay records nothing
            else:  # (also a retry answered by a replay: the first attempt's events)
                fight.version = sent.after = sent.events[-1]["position"]
                fight.last_acked = sent
            return
        if sent.outcome in (UNKNOWN, UNSENT):
            fight.pending = sent  # the same key again, as soon as the server answers
            fight.retry_at = time.monotonic() + 0.05
            return
        view = self.view(fight)  # refused, in use or an error: where does the fight stand?
        if view is None:
            fight.pending = sent
            return
        if sent.outcome == AMBIGUOUS and view["version"] == sent.before:
            # nothing recorded since the key was taken: it is free again once its lease
            # lapses (or at once, where keys have no lease); ask again a little later
            fight.pending = sent
            fight.retry_at = time.monotonic() + 1.0
            return
        fight.pending = None  # recorded or not, it is settled: its slice tells which
        fight.version = sent.after = view["version"]
        if sent.outcome == REFUSED and sent.replay_of is None:
            fight.stuck_at = view["version"]


def _problem(r: httpx.Response) -> dict[str, Any]:
    try:
        body = r.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


# -- setting up -------------------------------------------------------------------------------


def create_fights(url: str, clients: int, idempotent_fights: int) -> list[Fight]:
    """One rolling encounter per plain client, `idempotent_fights` for the idempotent one
    (client 0); Novus and Wits in turn; server dice; two combatants each."""
    fights = []
    with httpx.Client(base_url=url, timeout=30.0) as http:
        owners = [0] * idempotent_fights + list(range(1, clients))
        for i, owner in enumerate(owners):
            ruleset = "novus" if i % 2 == 0 else "wits"
            r = http.post("/encounters", json={"name": f"Crash {i}", "ruleset": ruleset})
            r.raise_for_status()
            created = r.json()
            auth = {"Authorization": f"Bearer {created['gm_token']}"}
            ids = []
            for name, side, stats in NOVUS_FIGHTERS if ruleset == "novus" else WITS_FIGHTERS:
                r = http.post(
                    f"/encounters/{created['id']}/combatants",
                    json={"name": name, "side": side, "stats": stats},
                    headers=auth,
                )
                r.raise_for_status()
                ids.append(r.json()["id"])
            version = r.json()["encounter"]["version"]
            fights.append(
                Fight(
                    created["id"],
                    created["gm_token"],
                    ruleset,
                    ids,
                    version,
                    owner,
                    idempotent=owner == 0,
                    version=version,
                )
            )
    return fights


# -- the run ----------------------------------------------------------------------------------


@dataclass
class Restart:
    life: int  # the life that began with this start
    startup_s: float  # process start -> first answer
    outage_s: float | None  # SIGKILL -> first acknowledged command after the restart
    killed_at: float


@dataclass
class Result:
    backend: str
    kills: int
    seconds: float
    clients: int
    fights: list[Fight]
    sent: list[Sent]
    restarts: list[Restart]
    first_startup_s: float
    duration_s: float
    counters: Counter[str]
    violations: list[str]
    facts: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.violations


def crash_run(
    settings: Settings,
    kills: int = 20,
    seconds: float = 3.0,
    clients: int = 4,
    seed: int = 1,
    idempotent_fights: int = 4,
    log: Callable[[str], None] = lambda msg: None,
) -> Result:
    """Load, kills and restarts, then the checks. `seconds` is a life's mean length (each
    is drawn from 0.5x to 1.5x of it); the last life, after the last restart, lasts it."""
    if clients < 2:
        raise ValueError("at least 2 clients: one idempotent, one plain")
    rng = random.Random(seed)
    t_run = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="fraylog-crash-logs-") as logs:
        server = ServerProcess(settings, Path(logs))
        run = Run(server.url, seed)
        restarts: list[Restart] = []
        threads: list[Client] = []
        try:
            server.start()
            first_startup = server.wait_ready()
            fights = create_fights(server.url, clients, idempotent_fights)
            plain = [f for f in fights if not f.idempotent]
            threads = [
                Client(n, run, [f for f in fights if f.owner == n], plain, idempotent=n == 0)
                for n in range(clients)
            ]
            for t in threads:
                t.start()
            killed: list[float] = []
            for k in range(kills):
                if run.stop.wait(rng.uniform(0.5, 1.5) * seconds):
                    break  # a client crashed
                killed.append(time.monotonic())
                server.kill()
                with run.lock:
                    run.life += 1
                server.start()
                try:
                    startup = server.wait_ready()
                except RuntimeError as e:
                    run.violation(f"the server did not start again after kill {k + 1}: {e}")
                    break
                restarts.append(Restart(run.life, startup, None, killed[-1]))
                log(f"  kill {k + 1}/{kills}: up again in {startup:.2f}s")
            else:
                run.stop.wait(seconds)
            run.stop.set()
            for t in threads:
                t.join(timeout=60)
                if t.is_alive():
                    run.violation(f"{t.name} did not stop within 60 s")
            sent = [s for t in threads for s in t.sent]
            _lives(sent, restarts)
            log("  checking the store")
            violations = list(run.violations)
            facts: dict[str, Any] = {}
            if not any("did not start again" in v for v in violations):
                violations += check(server.url, settings, fights, sent, facts)
        finally:
            run.stop.set()
            server.stop()
        violations += [f"server log: {tb}" for tb in server.tracebacks()]
    return Result(
        settings.backend,
        len(restarts),
        seconds,
        clients,
        fights,
        sent,
        restarts,
        first_startup,
        time.monotonic() - t_run,
        run.counters,
        violations,
        facts,
    )


def _lives(sent: list[Sent], restarts: list[Restart]) -> None:
    """Which life answered each acknowledged command (an answer comes from the server that
    was up when its request was sent), and each restart's outage: from the kill to the
    first answer to a request sent after it."""
    killed = [r.killed_at for r in restarts]
    acked = [s for s in sent if s.outcome == ACKED]
    for s in acked:
        s.life = bisect.bisect_right(killed, s.sent_at) + 1
    for r in restarts:
        after = [s.answered_at for s in acked if s.sent_at > r.killed_at]
        r.outage_s = min(after) - r.killed_at if after else None


# -- the checks -------------------------------------------------------------------------------

COMPARED = ("position", "type", "timestamp", "actor", "cause", "command", "data", "hash")


def stored_events(http: httpx.Client, fight: Fight) -> list[dict[str, Any]]:
    """GET /encounters/{id}/events, page after page."""
    events: list[dict[str, Any]] = []
    after: int | None = 0
    while after is not None:
        r = http.get(
            f"/encounters/{fight.id}/events",
            params={"after": after},
            headers=Client.auth(fight),
        )
        r.raise_for_status()
        page = r.json()
        events += page["events"]
        after = page["next_after"]
    return events


def _commands(events: list[dict[str, Any]]) -> dict[int, list[dict[str, Any]]]:
    """Stored events by the position of their command's first event."""
    out: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for e in events:
        out[e["command"]].append(e)
    return out


def check(
    url: str,
    settings: Settings,
    fights: list[Fight],
    sent: list[Sent],
    facts: dict[str, Any] | None = None,
) -> list[str]:
    """Every violation found in the store, read through the server at `url` and, in this
    process, through a new application (a cold cache). `facts` receives what the store says
    of the outcomes the clients did not know."""
    from pydantic import TypeAdapter

    from api.schemas import EncounterPublic

    facts = facts if facts is not None else {}
    facts.update(events=0, dice_checked=0, plain_recorded=0, plain_lost=0, keys=Counter())
    bad: list[str] = []
    by_fight: dict[str, list[Sent]] = defaultdict(list)
    for s in sent:
        by_fight[s.fight].append(s)
    answered = TypeAdapter(EncounterPublic)
    with httpx.Client(base_url=url, timeout=60.0) as http, Fraylog(settings) as fresh:
        for fight in fights:
            found: list[str] = []
            try:
                _check_fight(http, fresh, answered, fight, by_fight[fight.id], facts, found)
            except Exception as e:  # a failed read is a finding too, not the end of the checks
                found.append(f"the checks stopped: {type(e).__name__}: {e}")
            bad += [f"encounter {fight.id} ({fight.ruleset}): {v}" for v in found]
    return bad


def _check_fight(
    http: httpx.Client,
    fresh: Fraylog,
    answered: Any,
    fight: Fight,
    mine: list[Sent],
    facts: dict[str, Any],
    bad: list[str],
) -> None:
    """The checks of one encounter; what they find goes into `bad` as it is found."""
    events = stored_events(http, fight)
    facts["events"] += len(events)
    positions = [e["position"] for e in events]
    if positions != list(range(1, len(events) + 1)):
        missing = sorted(set(range(1, max(positions, default=0) + 1)) - set(positions))
        bad.append(f"positions are not 1..{len(events)}; missing {missing[:20]}")
    at = {e["position"]: e for e in events}
    commands = _commands(events)
    # every acknowledged command's events are stored as they were answered
    claimed: dict[int, Sent] = {}
    for s in mine:
        if s.outcome != ACKED:
            continue
        what = f"acknowledged {s.body['type']} (key {s.key}, tag {s.tag})"
        for e in s.events:
            stored = at.get(e["position"])
            if stored is None:
                bad.append(f"{what}: its event {e['position']} {e['type']} is not stored")
            elif any(stored[k] != e[k] for k in COMPARED):
                diff = [k for k in COMPARED if stored[k] != e[k]]
                bad.append(
                    f"{what}: event {e['position']} differs in {diff}: answered {e['type']} "
                    f"{e['hash'][:12]}, stored {stored['type']} {stored['hash'][:12]}"
                )
        if s.events:
            first = s.events[0]["command"]
            other = claimed.setdefault(first, s)
            if other is not s and not (s.key is not None and s.key == other.key):
                bad.append(
                    f"two commands were answered with the command at {first}: "
                    f"{other.body['type']} ({other.tag}) and {s.body['type']} ({s.tag})"
                )
    # no command stored that no request accounts for
    extra = {p for p in commands if p > fight.setup_version} - set(claimed)
    unanswered = [s for s in mine if s.outcome in (UNKNOWN, AMBIGUOUS) and s.attempts]
    if len(extra) > len(unanswered):
        bad.append(
            f"{len(extra)} stored commands no answer accounts for (at {sorted(extra)[:20]}), "
            f"but only {len(unanswered)} requests went unanswered"
        )
    # a tagged command: once if acknowledged, never if refused, at most once otherwise
    tagged = Counter(
        e["data"].get("reason") for e in events if e["type"] in ("HitsAdjusted", "ConditionApplied")
    )
    for s in mine:
        if not s.tag or s.replay_of is not None:
            continue
        n = tagged.get(s.tag, 0)
        if (s.outcome == ACKED and n != 1) or (s.outcome == REFUSED and n) or n > 1:
            bad.append(f"{s.outcome} {s.body['type']} {s.tag} is stored {n} times")
    sent_tags = {s.tag for s in mine}
    bad += [f"a command tagged {t} is stored, never sent" for t in tagged if t not in sent_tags]
    if fight.idempotent:
        bad += _check_slices(fight, mine, events, commands, facts["keys"])
    else:
        facts["plain_recorded"] += len(extra)
        facts["plain_lost"] += len(unanswered) - len(extra)
    # the hash chain and the dice
    r = http.get(f"/encounters/{fight.id}/verify", headers=Client.auth(fight))
    report = r.json()
    if r.status_code != 200 or not report.get("ok"):
        bad.append(f"verify is not ok: {json.dumps(report)[:400]}")
    elif report["chain"]["events"] != len(events):
        bad.append(f"verify checked {report['chain']['events']} events of {len(events)}")
    facts["dice_checked"] += (report.get("dice") or {}).get("checked", 0)
    # the view served is the fold of the stored events, done again by a new application
    r = http.get(f"/encounters/{fight.id}", headers=Client.auth(fight))
    served = r.json()
    if r.status_code != 200 or served.get("version") != len(events):
        bad.append(f"the view is at version {served.get('version')}, the log at {len(events)}")
    eid = uuid.UUID(fight.id)
    for how, view in (
        ("Fraylog(settings).state(id)", encounter_view(fresh.state(eid))),
        ("view_of(event_log(id))", view_of(fresh.event_log(eid))),
    ):
        folded = answered.dump_python(answered.validate_python(view), mode="json", by_alias=True)
        if folded != served:
            diff = sorted(k for k in set(folded) | set(served) if folded.get(k) != served.get(k))
            bad.append(f"GET /encounters/{{id}} differs from {how} in {diff}")


def _check_slices(
    fight: Fight,
    mine: list[Sent],
    events: list[dict[str, Any]],
    commands: dict[int, list[dict[str, Any]]],
    keys: Counter[str],
) -> list[str]:
    """The idempotent client's encounter, cut at the versions it read between its commands
    (it is the only writer, one command at a time): each key's slice holds its command once
    if acknowledged, nothing if refused or asked again, at most one command otherwise."""
    bad: list[str] = []
    ordered = [s for s in mine if s.before is not None]
    end = len(events)
    if ordered and ordered[0].before != fight.setup_version:
        bad.append(f"the first key was sent at {ordered[0].before}, after {fight.setup_version}")
    for i, s in enumerate(ordered):
        assert s.before is not None
        after = ordered[i + 1].before if i + 1 < len(ordered) else end
        assert after is not None
        label = f"key {s.key} ({s.body['type']})"
        if s.after is not None and s.after != after:  # something was recorded in between
            bad.append(f"{label} settled at version {s.after}, the next key began at {after}")
        inside = [p for p in commands if s.before < p <= after]
        if s.replay_of is not None:
            keys["asked again after a restart"] += 1
            if s.outcome == ACKED and (not s.replayed or s.events != s.replay_of.events):
                bad.append(f"{label}: asked again, not answered with its first answer")
            if inside:
                bad.append(f"{label}: asked again, it recorded commands at {inside}")
            continue
        keys["keys"] += 1
        if s.unknown_attempts:
            keys["retried after no answer"] += 1
        if s.in_use:
            keys["answered 409 in use"] += 1
        if len(inside) > 1:
            bad.append(f"{label}: its slice ({s.before}, {after}] holds {len(inside)} commands")
        if s.outcome == ACKED:
            keys["acknowledged"] += 1
            if s.unknown_attempts:
                keys[
                    "retried: then answered by a replay" if s.replayed else "retried: then run"
                ] += 1
            got = [e["position"] for e in s.events]
            if got != positions_in(events, s.before, after) or len(inside) != bool(got):
                bad.append(f"{label}: answered with events {got}, slice ({s.before}, {after}]")
        elif s.outcome == REFUSED:
            keys["refused"] += 1
            if inside:
                bad.append(f"{label}: refused ({s.detail}), yet commands stored at {inside}")
        else:
            keys["never answered: recorded once" if inside else "never answered: not recorded"] += 1
    return bad


def positions_in(events: list[dict[str, Any]], after: int, until: int) -> list[int]:
    return [e["position"] for e in events if after < e["position"] <= until]


# -- the report -------------------------------------------------------------------------------


def _spread(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{statistics.median(values):.2f} s (min {min(values):.2f}, max {max(values):.2f})"


def summary_rows(result: Result) -> list[tuple[str, str]]:
    sent = [s for s in result.sent if s.replay_of is None]
    acked = [s for s in sent if s.outcome == ACKED]
    lives = result.kills + 1
    per_life = Counter(s.life for s in acked)
    counts = [per_life.get(life, 0) for life in range(1, lives + 1)]
    plain_unknown = [s for s in sent if s.key is None and s.outcome == UNKNOWN]
    keyed_unknown = [s for s in sent if s.key is not None and s.unknown_attempts]
    refused = Counter(s.detail.split(":")[0] for s in sent if s.outcome == REFUSED)
    facts = result.facts
    keys: Counter[str] = facts.get("keys", Counter())
    outages = [r.outage_s for r in result.restarts if r.outage_s is not None]
    never = keys["never answered: recorded once"] + keys["never answered: not recorded"]
    return [
        ("kills (SIGKILL) / lives", f"{result.kills} / {lives}"),
        ("run time", f"{result.duration_s:.1f} s"),
        ("first start: spawn -> first answer", f"{result.first_startup_s:.2f} s"),
        ("restart: spawn -> first answer", _spread([r.startup_s for r in result.restarts])),
        ("outage: SIGKILL -> first acknowledged command", _spread(outages)),
        ("encounters / events stored", f"{len(result.fights)} / {facts.get('events', '?')}"),
        ("commands sent (clients)", f"{len(sent)} ({result.clients})"),
        ("  acknowledged", str(len(acked))),
        (
            "  acknowledged per life",
            f"mean {statistics.mean(counts):.0f}, min {min(counts)}, max {max(counts)}",
        ),
        (
            "  refused (nothing recorded)",
            ", ".join([str(sum(refused.values()))] + [f"{k}: {n}" for k, n in refused.items()]),
        ),
        ("  no answer (in flight at a kill)", str(len(plain_unknown) + len(keyed_unknown))),
        (
            "    without a key: then found recorded / not",
            f"{len(plain_unknown)}: {facts.get('plain_recorded', '?')} / "
            f"{facts.get('plain_lost', '?')}",
        ),
        (
            "    with a key, sent again: then run / replayed",
            f"{len(keyed_unknown)}: {keys['retried: then run']} / "
            f"{keys['retried: then answered by a replay']}",
        ),
        ("  timeouts", str(result.counters.get("timeouts", 0))),
        (
            "  refused connections (server down; sent again)",
            str(result.counters.get("connections refused (server down; sent again)", 0)),
        ),
        (
            "Idempotency-Keys acknowledged / keys",
            f"{keys['acknowledged']} / {keys['keys']} (each stored once)",
        ),
        ("  answered 409 in use (at least once)", str(keys["answered 409 in use"])),
        (
            "  no answer by the end (409 in use): recorded once / not",
            f"{keys['never answered: recorded once']} / {keys['never answered: not recorded']}"
            if never
            else "0",
        ),
        ("  asked again after a restart (replays)", str(keys["asked again after a restart"])),
        ("server faces re-derived by verify", str(facts.get("dice_checked", 0))),
        ("violations", str(len(result.violations))),
    ]


def summary_table(results: list[Result]) -> Table:
    table = Table(title="fraylog crash test: SIGKILL under load, then the store checked")
    table.add_column("")
    for r in results:
        style = "green" if r.ok else "red"
        table.add_column(r.backend, style=None, header_style=f"bold {style}")
    rows = [summary_rows(r) for r in results]
    for i, (label, _) in enumerate(rows[0]):
        table.add_row(label, *(r[i][1] for r in rows))
    return table


# -- the command line -------------------------------------------------------------------------


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m bench.crash",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--backend",
        choices=["sqlite", "postgres", "both"],
        default="both",
        help="store to crash (default both; PostgreSQL is skipped with the reason when it is "
        "not reachable, unless FRAYLOG_REQUIRE_POSTGRES is set or --backend postgres)",
    )
    p.add_argument("--kills", type=int, default=20, help="SIGKILLs per backend (default 20)")
    p.add_argument(
        "--seconds",
        type=float,
        default=3.0,
        help="mean life of the server between kills, in seconds (each is drawn from 0.5x to "
        "1.5x; default 3)",
    )
    p.add_argument(
        "--clients",
        type=int,
        default=4,
        help="client threads; one sends Idempotency-Keys (default 4, at least 2)",
    )
    p.add_argument("--seed", type=int, default=1, help="seed of the kill times and commands")
    p.add_argument("--postgres-url", default=DEFAULT_URL, help=f"default {DEFAULT_URL}")
    p.add_argument(
        "--snapshot-interval",
        type=int,
        default=SNAPSHOT_INTERVAL,
        help=f"events between snapshots (default {SNAPSHOT_INTERVAL})",
    )
    args = p.parse_args(argv)
    if args.kills < 0 or args.seconds <= 0 or args.clients < 2:
        p.error("--kills must be 0 or more, --seconds more than 0, --clients 2 or more")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    console = Console()
    if not console.is_terminal:  # a log file: wide enough for the table's rows
        console = Console(width=120)
    err = Console(stderr=True)
    backends = ["sqlite", "postgres"] if args.backend == "both" else [args.backend]
    required = os.environ.get("FRAYLOG_REQUIRE_POSTGRES", "") not in ("", "0")
    results: list[Result] = []
    skipped = ""
    for backend in backends:
        if backend == "postgres":
            problem = postgres_problem(args.postgres_url)
            if problem:
                if args.backend == "postgres" or required:
                    err.print(f"[red]{problem}[/red]")
                    return 2
                skipped = problem
                err.print(f"[yellow]PostgreSQL skipped: {problem}[/yellow]")
                continue
        err.print(
            f"{backend}: {args.kills} kills, {args.clients} clients, ~{args.seconds} s a life"
        )
        with fresh_store(backend, args.postgres_url, args.snapshot_interval) as settings:
            results.append(
                crash_run(
                    settings,
                    args.kills,
                    args.seconds,
                    args.clients,
                    args.seed,
                    log=err.print,
                )
            )
    if not results:
        return 2
    console.print(summary_table(results))
    if skipped:
        console.print(f"[yellow]PostgreSQL skipped: {skipped}[/yellow]")
    failed = False
    for r in results:
        if r.violations:
            failed = True
            console.print(f"[red]{r.backend}: {len(r.violations)} violation(s)[/red]")
            for v in r.violations[:30]:
                console.print(f"  {v}", markup=False, highlight=False)
    if not failed:
        console.print(
            "[green]no acknowledged command lost, no gap, verify ok, views = folds, "
            "every key recorded at most once[/green]"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
