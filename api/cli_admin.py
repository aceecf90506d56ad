"""The installation's own `fraylog` commands: `keys` (list the signing keys, rotate them)
and `projections` (keep the read models up to date, rebuild them)."""

from __future__ import annotations

from typing import Annotated

import typer
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
    recorded. Safe to kill at any time: it resumes after the last event it committed."""
    import signal
    import threading
    import time

    from infra.read_models import ReadModelsStore, catch_up, runner

    settings = Settings.from_env()
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
    """Drop the read models and their tracking and project every event again. Stop
    `fraylog projections run` first."""
    import time

    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    from infra.read_models import rebuild

    settings = Settings.from_env()
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    with Progress(*columns, TimeRemainingColumn(), console=console) as progress:
        task = progress.add_task("notifications projected", total=None)

        def shown(position: int, end: int) -> None:
            progress.update(task, completed=position, total=end)

        started = time.perf_counter()
        events = rebuild(settings, shown, batch_size=batch)
        seconds = time.perf_counter() - started
    console.print(
        f"rebuilt from {events} events in {seconds:.1f} s "
        f"({events / seconds if seconds else 0:,.0f} events/s) on {settings.describe()}"
    )
