"""The installation's own `fraylog` commands: `keys` (list the signing keys, rotate them)
and `projections` (keep the read models up to date, rebuild them, show how far they are)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from api.cli_common import console, installation_keys
from infra.settings import Settings

keys = typer.Typer(
    help="The Ed25519 keys checkpoints are signed with (docs/record.md).",
    invoke_without_command=True,
    no_args_is_help=False,
)


@keys.callback()
def keys_list(context: typer.Context) -> None:
    """List the installation's signing keys, the current one first (as GET /audit/keys)."""
    if context.invoked_subcommand is not None:
        return
    listed = installation_keys()
    if not listed:
        console.print("no signing key yet: the first checkpoint makes one")
        return
    table = Table("id", "created", "retired", "current")
    for k in listed:
        table.add_row(k["id"], k["created"], k["retired"] or "", "yes" if k["current"] else "")
    console.print(table)


@keys.command("rotate")
def keys_rotate() -> None:
    """Make a new signing key current. The old one signs nothing more (its private key is
    erased) and stays published, so checkpoints it signed still verify."""
    from infra.checkpoints import Checkpoints

    tables = Checkpoints(Settings.from_env())
    try:
        made = tables.rotate()
    finally:
        tables.close()
    console.print(f"signing key {made} is current; earlier keys stay published")


projections = typer.Typer(
    help="Read models across encounters: the encounter list and combatant statistics.",
    no_args_is_help=True,
)


@projections.command("run")
def projections_run(
    poll: Annotated[
        float,
        typer.Option(
            min=0.01,
            envvar="FRAYLOG_PROJECTIONS_POLL_SECONDS",
            help="SQLite: seconds between polls for new events (PostgreSQL is notified).",
        ),
    ] = 0.5,
) -> None:
    """Keep the read models up to date until interrupted (Ctrl-C or SIGTERM): first the
    backlog since the last run, a batch per transaction, then each new event as it is
    recorded. Safe to kill at any time: it resumes after the last event it committed.
    One runner per store: it refuses (exit 1) while another runs (`fraylog serve` runs
    one unless --no-projections)."""
    from infra.read_models import PROJECTION
    from infra.runner_lock import RunnerLock

    settings = Settings.from_env()
    lock = RunnerLock(settings, PROJECTION)
    if not lock.acquire():
        _refuse(settings, "another runner keeps the read models")
    try:
        _follow(settings, poll)
    finally:
        lock.release()


def _refuse(settings: Settings, what: str) -> None:
    console.print(
        f"[red]{what} of {escape(settings.describe())} (`fraylog projections run`, or "
        "`fraylog serve` without --no-projections): stop it first[/red]",
        soft_wrap=True,
    )
    raise typer.Exit(1)


def _follow(settings: Settings, poll: float) -> None:
    """Catch up, then follow until a signal (the lock held)."""
    import signal
    import threading
    import time

    from infra.read_models import ReadModelsStore, catch_up, runner

    store = ReadModelsStore(settings)
    # A signal only sets a flag, looked at between batches and every half second: an
    # exception raised wherever the signal lands (KeyboardInterrupt) could strike while the
    # follower starts its threads, or inside a database call, and leave it unable to stop.
    stopping = threading.Event()
    for each in (signal.SIGTERM, signal.SIGINT):
        signal.signal(each, lambda *_: stopping.set())
    started = time.perf_counter()
    backlog = catch_up(settings, stopping=stopping)
    if not stopping.is_set():
        console.print(
            f"fraylog projections: {backlog} events caught up in "
            f"{time.perf_counter() - started:.1f} s; following {settings.describe()}"
        )
        with runner(settings, poll_seconds=poll) as following:
            while not (stopping.is_set() or following.is_interrupted.is_set()):
                following.run_forever(timeout=0.5)
    console.print(f"stopped after notification {store.position() or 0}")
    store.close()


@projections.command("rebuild")
def projections_rebuild(
    batch: Annotated[int, typer.Option(min=1, max=10_000, help="Events per transaction.")] = 500,
) -> None:
    """Drop the read models and their tracking and project every event again. Refused
    (exit 1) while a runner runs: stop `fraylog projections run` (or serve with
    --no-projections) first."""
    import time

    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    from infra.read_models import PROJECTION, rebuild
    from infra.runner_lock import RunnerLock

    settings = Settings.from_env()
    lock = RunnerLock(settings, PROJECTION)  # held while it rebuilds: no runner starts
    if not lock.acquire():
        _refuse(settings, "a runner keeps the read models")
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    try:
        with Progress(*columns, TimeRemainingColumn(), console=console) as progress:
            task = progress.add_task("notifications projected", total=None)

            def shown(position: int, end: int) -> None:
                progress.update(task, completed=position, total=end)

            started = time.perf_counter()
            events = rebuild(settings, shown, batch_size=batch)
            seconds = time.perf_counter() - started
    finally:
        lock.release()
    console.print(
        f"rebuilt from {events} events in {seconds:.1f} s "
        f"({events / seconds if seconds else 0:,.0f} events/s) on {settings.describe()}"
    )


def _age(seconds: float | None) -> str:
    if seconds is None:
        return ""
    seconds = max(seconds, 0.0)
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.1f} {unit}"
    return f"{seconds:.1f} s"


@projections.command("status")
def projections_status(
    as_json: Annotated[
        bool, typer.Option("--json", help="Print each read model's status as JSON.")
    ] = False,
) -> None:
    """How far each read model is: its position (the last notification projected), the
    store's latest notification, the lag in events, the age of the last projected event,
    and whether a runner keeps it (`fraylog projections run`, or `fraylog serve`'s own)."""
    import json

    from infra.read_models import ReadModelsStore

    settings = Settings.from_env()
    store = ReadModelsStore(settings)
    try:
        listed = store.statuses()
    finally:
        store.close()
    if as_json:
        print(json.dumps({"store": settings.describe(), "read_models": listed}))
        return
    table = Table(
        "read model",
        "position",
        "latest",
        "lag",
        "last projected",
        "age",
        "runner",
        title=escape(settings.describe()),
    )
    for each in listed:
        table.add_row(
            each["name"],
            str(each["position"]),
            str(each["latest"]),
            str(each["lag"]),
            each["last_projected_at"] or "nothing yet",
            _age(each["age_seconds"]),
            "[green]running[/green]" if each["running"] else "[yellow]none[/yellow]",
        )
    console.print(table)
