"""Settings from the environment."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from importlib import import_module
from ipaddress import ip_network
from urllib.parse import unquote, urlparse

from domain.rulesystems import get_rule_system, register, rulesets

BOOK_SPEC = r"[A-Za-z_][\w.]*:[A-Za-z_]\w*"  # module:Class of a RuleSystem
RATE_SPEC = r"0|off|\d+/(second|minute|hour)"  # a rate limit (api/quotas.py)
CPU_SPEC = r"auto|off|\d+(,\d+)*"  # FRAYLOG_CPU (infra/cpus.py)
SQLITE_SYNCHRONOUS = ("FULL", "NORMAL", "EXTRA")  # OFF is not offered: it may corrupt the store


@dataclass(frozen=True)
class Settings:
    """Where events are stored and how the application caches and snapshots."""

    database_url: str | None = None  # postgresql://user:pass@host:port/db
    sqlite_path: str = "fraylog.db"
    postgres_schema: str = ""
    snapshot_interval: int = 100
    cache_size: int = 1000
    pool_size: int = 5
    pg_db_functions: bool = False  # the PostgreSQL recorder's insert function (one round trip)
    # saves that wait for the store commit together, at most this many a transaction
    # (infra/group_commit.py); 1: each alone
    commit_group_size: int = 64
    # SQLite's PRAGMA synchronous (docs/performance.md): FULL syncs the log at every
    # commit; NORMAL syncs it at checkpoints only (a power cut may lose the last commits,
    # a killed process loses nothing)
    sqlite_synchronous: str = "FULL"
    auth: bool = True  # bearer tokens on every encounter route; off only for local use
    worker_header: bool = False  # `Fraylog-Worker: <pid>` on every answer (tests, benches)
    cors_origins: tuple[str, ...] = ()
    max_body_bytes: int = 64 * 1024
    max_combatants: int = 100  # per encounter
    max_encounters_per_account: int = 1000
    max_streams_per_token: int = 5
    max_streams: int = 10_000  # open live feeds per process: keep it under `ulimit -n`
    # how long a process keeps what a token allows: a token rotated or revoked in another
    # process works here that long (`fraylog serve --workers N`, N > 1, makes it 0)
    grant_cache_seconds: float = 5.0
    max_tokens_per_encounter: int = 100  # unexpired tokens, the GM's and the players'
    page_size: int = 1000  # events a JSON page holds at most, and the store reads at once
    heartbeat_seconds: float = 15.0  # live feed comments that keep proxies from closing it
    # rate limits per worker (api/quotas.py): N/second|minute|hour, 0 or off
    rate_create: str = "60/hour"  # encounters created, per address and per credential
    rate_mint: str = "120/minute"  # tokens, stream tickets, per address and credential
    rate_accounts: str = "10/hour"  # accounts opened, per address
    rate_commands: str = "1200/minute"  # commands and combatants added, per credential
    trusted_proxies: tuple[str, ...] = ()  # whose X-Forwarded-For names the client
    # rule books beyond fraylog's own, each `module:Class` of a RuleSystem, registered when
    # the application is made (FRAYLOG_RULE_BOOKS, comma-separated)
    rule_books: tuple[str, ...] = ()
    idempotency_retention_hours: float = 24.0  # an Idempotency-Key older is forgotten
    projections: bool = True  # `fraylog serve` keeps the read models (FRAYLOG_PROJECTIONS)
    # reads kept in memory (infra/kept_reads.py): the narrative logs of this many encounters
    # (each language apart), and the latest answers' bytes of the view and log up to this size
    narrative_cache_size: int = 100
    answer_cache_bytes: int = 64 * 1024 * 1024
    # the CPU a served process's threads run on (infra/cpus.py): off, auto, or CPU numbers
    cpu: str = "off"
    # commands decided on the event loop where the store is not needed to, their
    # events committed by the writer thread (infra.app Fraylog.execute_on_loop); off: every
    # command in a worker thread
    decide_on_loop: bool = True
    # PostgreSQL: the commands decided on the event loop committed there too, on a
    # connection of its own (infra.group_commit LoopCommits); off: by the writer thread
    commit_on_loop: bool = True

    @classmethod
    def from_env(cls) -> Settings:
        origins = os.environ.get("FRAYLOG_CORS_ORIGINS", "")
        books = os.environ.get("FRAYLOG_RULE_BOOKS", "")
        return cls(
            rule_books=tuple(b.strip() for b in books.split(",") if b.strip()),
            auth=os.environ.get("FRAYLOG_NO_AUTH", "") not in ("1", "true", "yes", "y"),
            worker_header=os.environ.get("FRAYLOG_WORKER_HEADER", "").lower()
            in ("1", "true", "yes", "y"),
            cors_origins=tuple(o.strip() for o in origins.split(",") if o.strip()),
            max_body_bytes=int(os.environ.get("FRAYLOG_MAX_BODY_BYTES", str(64 * 1024))),
            max_combatants=int(os.environ.get("FRAYLOG_MAX_COMBATANTS", "100")),
            max_encounters_per_account=int(
                os.environ.get("FRAYLOG_MAX_ENCOUNTERS_PER_ACCOUNT", "1000")
            ),
            max_streams_per_token=int(os.environ.get("FRAYLOG_MAX_STREAMS_PER_TOKEN", "5")),
            max_streams=int(os.environ.get("FRAYLOG_MAX_STREAMS", "10000")),
            grant_cache_seconds=float(os.environ.get("FRAYLOG_GRANT_CACHE_SECONDS", "5")),
            max_tokens_per_encounter=int(os.environ.get("FRAYLOG_MAX_TOKENS_PER_ENCOUNTER", "100")),
            page_size=int(os.environ.get("FRAYLOG_PAGE_SIZE", "1000")),
            heartbeat_seconds=float(os.environ.get("FRAYLOG_HEARTBEAT_SECONDS", "15")),
            rate_create=os.environ.get("FRAYLOG_RATE_CREATE", cls.rate_create),
            rate_mint=os.environ.get("FRAYLOG_RATE_MINT", cls.rate_mint),
            rate_accounts=os.environ.get("FRAYLOG_RATE_ACCOUNTS", cls.rate_accounts),
            rate_commands=os.environ.get("FRAYLOG_RATE_COMMANDS", cls.rate_commands),
            trusted_proxies=tuple(
                p.strip()
                for p in os.environ.get("FRAYLOG_TRUSTED_PROXIES", "").split(",")
                if p.strip()
            ),
            database_url=os.environ.get("FRAYLOG_DATABASE_URL") or None,
            sqlite_path=os.environ.get("FRAYLOG_SQLITE_PATH", "fraylog.db"),
            postgres_schema=os.environ.get("FRAYLOG_POSTGRES_SCHEMA", ""),
            snapshot_interval=int(os.environ.get("FRAYLOG_SNAPSHOT_INTERVAL", "100")),
            cache_size=int(os.environ.get("FRAYLOG_CACHE_SIZE", "1000")),
            pool_size=int(os.environ.get("FRAYLOG_POOL_SIZE", "5")),
            pg_db_functions=os.environ.get("FRAYLOG_PG_DB_FUNCTIONS", "")
            in ("1", "true", "yes", "y"),
            commit_group_size=int(os.environ.get("FRAYLOG_COMMIT_GROUP_SIZE", "64")),
            sqlite_synchronous=os.environ.get("FRAYLOG_SQLITE_SYNCHRONOUS", "FULL").upper(),
            idempotency_retention_hours=float(
                os.environ.get("FRAYLOG_IDEMPOTENCY_RETENTION_HOURS", "24")
            ),
            projections=os.environ.get("FRAYLOG_PROJECTIONS", "").lower()
            not in ("off", "0", "false", "no", "n"),
            narrative_cache_size=int(os.environ.get("FRAYLOG_NARRATIVE_CACHE_SIZE", "100")),
            answer_cache_bytes=int(float(os.environ.get("FRAYLOG_ANSWER_CACHE_MB", "64")) * 2**20),
            cpu=os.environ.get("FRAYLOG_CPU", "off"),
            decide_on_loop=os.environ.get("FRAYLOG_DECIDE_ON_LOOP", "").lower()
            not in ("off", "0", "false", "no", "n"),
            commit_on_loop=os.environ.get("FRAYLOG_COMMIT_ON_LOOP", "").lower()
            not in ("off", "0", "false", "no", "n"),
        )

    def __post_init__(self) -> None:
        if self.postgres_schema and not re.fullmatch(
            r"[a-z_][a-z0-9_]{0,62}", self.postgres_schema
        ):
            raise ValueError(
                "FRAYLOG_POSTGRES_SCHEMA must be a lower-case identifier "
                "(letters, digits, _), as the event store looks it up unquoted"
            )
        if self.snapshot_interval < 1:
            raise ValueError("FRAYLOG_SNAPSHOT_INTERVAL must be 1 or more")
        for name in (
            "max_body_bytes",
            "max_combatants",
            "max_encounters_per_account",
            "max_streams_per_token",
            "max_streams",
            "max_tokens_per_encounter",
            "page_size",
            "commit_group_size",
        ):
            if getattr(self, name) < 1:
                raise ValueError(f"FRAYLOG_{name.upper()} must be 1 or more")
        if self.sqlite_synchronous not in SQLITE_SYNCHRONOUS:
            raise ValueError(
                f"FRAYLOG_SQLITE_SYNCHRONOUS must be one of {', '.join(SQLITE_SYNCHRONOUS)}"
            )
        if self.grant_cache_seconds < 0:
            raise ValueError("FRAYLOG_GRANT_CACHE_SECONDS must be 0 (no cache) or more")
        if self.heartbeat_seconds <= 0:
            raise ValueError("FRAYLOG_HEARTBEAT_SECONDS must be more than 0")
        if not self.idempotency_retention_hours > 0:
            raise ValueError("FRAYLOG_IDEMPOTENCY_RETENTION_HOURS must be more than 0")
        if self.cache_size < 0:
            raise ValueError("FRAYLOG_CACHE_SIZE must be 0 (no cache) or more")
        if self.narrative_cache_size < 0 or self.answer_cache_bytes < 0:
            raise ValueError(
                "FRAYLOG_NARRATIVE_CACHE_SIZE and FRAYLOG_ANSWER_CACHE_MB must be 0 (none) or more"
            )
        for name in ("rate_create", "rate_mint", "rate_accounts", "rate_commands"):
            if not re.fullmatch(RATE_SPEC, getattr(self, name).strip().lower()):
                raise ValueError(
                    f"FRAYLOG_{name.upper()} must be N/second, N/minute, N/hour, 0 or off"
                )
        for proxy in self.trusted_proxies:
            try:
                ip_network(proxy, strict=False)
            except ValueError:
                raise ValueError(
                    f"FRAYLOG_TRUSTED_PROXIES: {proxy!r} is not an address or network"
                ) from None
        if not re.fullmatch(CPU_SPEC, self.cpu.strip().lower()):
            raise ValueError("FRAYLOG_CPU must be auto, off or CPU numbers (0,1)")
        for spec in self.rule_books:
            if not re.fullmatch(BOOK_SPEC, spec):
                raise ValueError(f"FRAYLOG_RULE_BOOKS: {spec!r} is not module:Class")

    @property
    def backend(self) -> str:
        return "postgres" if self.database_url else "sqlite"

    def describe(self) -> str:
        if self.database_url:
            u = urlparse(self.database_url)
            schema = f", schema {self.postgres_schema}" if self.postgres_schema else ""
            return f"PostgreSQL {u.hostname}:{u.port or 5432}/{u.path.lstrip('/')}{schema}"
        return f"SQLite file {self.sqlite_path}"

    def eventsourcing_env(self) -> dict[str, str]:
        # "" switches the cache off, whatever the process environment says
        env = {
            "IS_SNAPSHOTTING_ENABLED": "y",
            "AGGREGATE_CACHE_MAXSIZE": str(self.cache_size) if self.cache_size else "",
        }
        if not self.database_url:
            env.update(
                PERSISTENCE_MODULE="eventsourcing.sqlite",
                SQLITE_DBNAME=self.sqlite_path,
                SQLITE_LOCK_TIMEOUT="10",
            )
            return env
        u = urlparse(self.database_url)
        if u.scheme not in ("postgresql", "postgres"):
            raise ValueError(f"FRAYLOG_DATABASE_URL must be postgresql://..., not {u.scheme}://")
        env.update(
            PERSISTENCE_MODULE="eventsourcing.postgres",
            POSTGRES_DBNAME=u.path.lstrip("/") or "postgres",
            POSTGRES_HOST=u.hostname or "127.0.0.1",
            POSTGRES_PORT=str(u.port or 5432),
            POSTGRES_USER=unquote(u.username or "postgres"),
            POSTGRES_PASSWORD=unquote(u.password or ""),
            POSTGRES_POOL_SIZE=str(self.pool_size),
            POSTGRES_CONNECT_TIMEOUT="5",
        )
        if self.postgres_schema:
            env["POSTGRES_SCHEMA"] = self.postgres_schema
        if self.pg_db_functions:
            env["POSTGRES_ENABLE_DB_FUNCTIONS"] = "y"
        return env


def register_rule_books(specs: tuple[str, ...]) -> None:
    """Make the rule books `specs` names (`module:Class` each) playable; one registered
    already by the same class is left as it is."""
    for spec in specs:
        module, name = spec.split(":")
        cls = getattr(import_module(module), name)
        if cls.name in rulesets() and type(get_rule_system(cls.name)) is cls:
            continue
        register(cls())
