"""The `fraylog` command line: serve the API, play a demo fight, export, verify and replay
what is stored."""

from __future__ import annotations

import json
import logging
import os
import shlex
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, Literal
from uuid import UUID

import typer
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from infra.settings import Settings

ExportFormat = Literal["ndjson", "csv"]


def _encounter_id(text: str) -> UUID:
    try:
        return UUID(text)
    except ValueError:
        console.print(f"[red]{escape(text)} is not an encounter id[/red]")
        raise typer.Exit(2) from None


def _sqlite_file(settings: Settings) -> Path | None:
    """The SQLite file the settings name, absolute (None: PostgreSQL, or SQLite in memory)."""
    name = settings.sqlite_path
    if settings.backend != "sqlite" or name.startswith((":memory:", "file:")):
        return None
    return Path(name).absolute()


def _where(settings: Settings) -> str:
    """Where the events are, for a person: the SQLite file's absolute path, or PostgreSQL."""
    file = _sqlite_file(settings)
    return f"SQLite file {file}" if file else settings.describe()


@contextmanager
def _store() -> Iterator[Any]:
    """The configured application, for a command that only reads: a SQLite file that does
    not exist is a message naming where it looked, and nothing is created; an unknown
    encounter is a message, not a traceback."""
    from domain.errors import DomainError
    from infra.app import Fraylog

    settings = Settings.from_env()
    file = _sqlite_file(settings)
    if file is not None and not file.is_file():
        missing = "is not a file" if file.exists() else "does not exist"
        console.print(
            f"[red]no fraylog database here: the SQLite file {escape(str(file))} {missing}"
            "[/red]. FRAYLOG_SQLITE_PATH sets the file (default fraylog.db in the current "
            "folder: run this where `fraylog serve` or `make run` ran), FRAYLOG_DATABASE_URL "
            "a PostgreSQL database.",
            soft_wrap=True,
        )
        raise typer.Exit(2)
    try:
        with Fraylog(settings) as fraylog:
            yield fraylog
    except DomainError as e:
        where = f" (looked in {_where(settings)})" if e.rule == "ENCOUNTER" else ""
        console.print(f"[red]{escape(e.detail)}[/red]{escape(where)}", soft_wrap=True)
        raise typer.Exit(2) from None


def _program() -> str:
    """How this command was called, for commands printed to be run as they are: the path
    typed (`.venv/bin/fraylog`), or `fraylog` when that is the one on PATH."""
    import shutil
    import sys

    called = sys.argv[0] if sys.argv else ""
    if Path(called).name != "fraylog":
        return "fraylog"
    on_path = shutil.which("fraylog")
    if on_path and Path(on_path).resolve() == Path(called).resolve():
        return "fraylog"
    return called


app = typer.Typer(
    help="fraylog: an event-sourced combat log for tabletop RPGs.", no_args_is_help=True
)
console = Console()


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    no_auth: Annotated[
        bool,
        typer.Option(
            "--no-auth",
            help="Open mode for local use: no tokens, anyone may read and change everything.",
        ),
    ] = False,
    workers: Annotated[
        int,
        typer.Option(min=1, max=64, help="Worker processes (more than one needs PostgreSQL)."),
    ] = 1,
) -> None:
    """Serve the HTTP API (SQLite file by default; FRAYLOG_DATABASE_URL for PostgreSQL).
    Every encounter route needs its bearer token unless --no-auth (or FRAYLOG_NO_AUTH=1)."""
    import uvicorn

    if no_auth:
        os.environ["FRAYLOG_NO_AUTH"] = "1"  # read by every worker
    settings = Settings.from_env()
    if workers > 1 and settings.backend != "postgres":
        console.print(
            "[red]several workers share one store through PostgreSQL: set "
            "FRAYLOG_DATABASE_URL (SQLite allows one writing process)[/red]"
        )
        raise typer.Exit(2)
    logging.basicConfig(level=logging.INFO)
    mode = "[bold red]OPEN, no tokens (--no-auth)[/bold red]" if not settings.auth else "tokens"
    console.print(
        f"fraylog: events in {escape(_where(settings))}; access: {mode}; "
        f"API docs at http://{host}:{port}/docs"
    )
    uvicorn.run("api.main:app_from_env", factory=True, host=host, port=port, workers=workers)


@app.command()
def demo(
    ruleset: Annotated[
        Literal["novus", "phantasia", "wits"],
        typer.Option(help="The rule system: novus, phantasia or wits."),
    ] = "novus",
    seed: Annotated[
        str | None, typer.Option(help="Seed of the demo's dice (default: the ruleset's).")
    ] = None,
    rounds: Annotated[int, typer.Option(min=1, max=20, help="Rounds to play.")] = 3,
    keep: Annotated[
        bool,
        typer.Option(
            "--keep",
            help="Store the fight in the configured database (FRAYLOG_SQLITE_PATH, default "
            "fraylog.db, or FRAYLOG_DATABASE_URL, as `serve` uses) and print the commands that "
            "replay and verify it.",
        ),
    ] = False,
    database: Annotated[
        Path | None,
        typer.Option(
            help="SQLite file to store the fight in (default: a temporary one; with --keep, "
            "the configured database)."
        ),
    ] = None,
) -> None:
    """Play a scripted fight with seeded dice and print its log, the state after it and its
    id. Novus: a mounted charge met by a last-moment dodge (a cancel), a called shot, a hold,
    Boons, bleeding and a stun ticking down at upkeep. Wits: a charge met by a Total
    Defense, a shot aimed for three actions, damage dice rolling up. PHANTÄSIA: players rolling
    every to-hit check, a critical, a fumble on the d6 table, a potion of Rapidez running out,
    death checks."""
    from api import demo as novus_demo
    from api import demo_phantasia, demo_wits

    module = {"wits": demo_wits, "phantasia": demo_phantasia}.get(ruleset, novus_demo)
    configured = Settings.from_env()
    with tempfile.TemporaryDirectory() as tmp:
        if database is not None:
            settings = Settings(sqlite_path=str(database))
        elif keep:
            settings = configured
        else:
            settings = Settings(sqlite_path=str(Path(tmp) / "demo.db"))
        view, lines = module.play(settings, seed or module.SEED, rounds)
    for line in lines:
        style = "bold" if line["type"] in ("RoundEnded", "EncounterCreated") else None
        console.print(
            f"[dim]{line['position']:>3}[/dim] {escape(line['text'])}", style=style, highlight=False
        )
    console.print(_demo_table(ruleset, view))
    eid = view["id"]
    if database is None and not keep:
        console.print(
            f"Encounter {eid} was played in a temporary database, gone now: "
            f"`{escape(_program())} demo --keep` stores it in {escape(_where(configured))} "
            "to replay and verify it.",
            soft_wrap=True,
            highlight=False,
        )
        return
    # the commands that find it again: as they are where the store is the default one (or
    # PostgreSQL, whose URL the environment holds), else naming the SQLite file
    env = ""
    file = _sqlite_file(settings)
    if file is not None and (database is not None or "FRAYLOG_SQLITE_PATH" in os.environ):
        env = f"FRAYLOG_SQLITE_PATH={shlex.quote(str(file))} "
        if configured.backend != "sqlite":
            env = f"FRAYLOG_DATABASE_URL= {env}"
    console.print(
        f"Encounter {eid} is kept in {escape(_where(settings))}; replay it, verify it:",
        soft_wrap=True,
        highlight=False,
    )
    for command in ("replay", "verify"):
        console.print(
            f"  {escape(env)}{escape(shlex.quote(_program()))} {command} {eid}",
            soft_wrap=True,
            highlight=False,
        )


def _demo_table(ruleset: str, view: dict[str, Any]) -> Table:
    """The state after the demo: hits (Novus), Current Health (Wits) or PV (PHANTÄSIA), in
    the table `replay` prints after each round."""
    what = {"wits": "Current Health", "phantasia": "PV"}.get(ruleset, "hits")
    return _hits_table(view["combatants"], title=f"After round {view['round'] - 1}: {what}")


def _export_file(path: Path) -> Any:
    """An NDJSON or CSV export as written (edited or not); a file that is no export (empty,
    an HTTP error answer, other JSON) is a message and exit 2."""
    from projections.audit import NotAnExport, read_export

    try:
        return read_export(path.read_bytes().decode("utf-8"))  # as sent: no newline translation
    except (NotAnExport, UnicodeDecodeError) as e:
        console.print(
            f"[red]{escape(str(path))} is not a fraylog export: {escape(str(e))}[/red]",
            soft_wrap=True,
        )
        raise typer.Exit(2) from None


def _keys_file(path: Path) -> list[dict[str, Any]]:
    """The keys of a file saved from GET /audit/keys; a message and exit 2 if it is none."""
    try:
        keys = json.loads(path.read_text(encoding="utf-8"))["keys"]
    except (OSError, ValueError, KeyError, TypeError):
        keys = None
    if isinstance(keys, list) and all(isinstance(k, dict) for k in keys):
        return keys
    console.print(
        f"[red]{escape(str(path))} is not a keys file (save GET /audit/keys: "
        '{"keys": [...]})[/red]',
        soft_wrap=True,
    )
    raise typer.Exit(2)


def _installation_keys() -> list[dict[str, Any]]:
    """The configured store's public keys, or none if there is no store here (no SQLite
    file is created where there is none)."""
    from infra.checkpoints import Checkpoints

    settings = Settings.from_env()
    file = _sqlite_file(settings)
    if file is not None and not file.is_file():
        return []
    tables = Checkpoints(settings)
    try:
        return tables.keys()
    finally:
        tables.close()


def _looks_like_a_path(text: str) -> bool:
    return "/" in text or "\\" in text or text.endswith((".ndjson", ".csv", ".json"))


@app.command()
def verify(
    source: Annotated[
        str,
        typer.Argument(
            help="An NDJSON or CSV export file, or an encounter id in the configured store."
        ),
    ],
    keys: Annotated[
        Path | None,
        typer.Option(
            help="A file saved from GET /audit/keys of the server the export came from "
            "(default: this installation's keys).",
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the report as JSON (as POST /audit/verify).")
    ] = False,
) -> None:
    """Recompute the hash chain, re-derive the seeded and revealed server dice, and check
    the signed checkpoint: exit 0 when all hold, 1 when not, 2 when it is no export."""
    from projections.audit import verify_export

    path = Path(source)
    if path.is_file():
        export = _export_file(path)
        known = _keys_file(keys) if keys else _installation_keys()
        report = verify_export(export, known)
    elif path.exists() or _looks_like_a_path(source):
        what = "not a file" if path.exists() else "no such file"
        console.print(f"[red]{what}: {escape(str(path.absolute()))}[/red]", soft_wrap=True)
        raise typer.Exit(2)
    else:
        try:
            eid = UUID(source)
        except ValueError:
            console.print(f"[red]no such file, nor an encounter id: {escape(source)}[/red]")
            raise typer.Exit(2) from None
        with _store() as fraylog:
            report = fraylog.verify(eid)
    if as_json:
        print(json.dumps(report))
    else:
        _print_report(report, keys is None and path.is_file())
    raise typer.Exit(0 if report["ok"] else 1)


def _print_report(report: dict[str, Any], local_keys: bool) -> None:
    chain, dice, signed = report["chain"], report["dice"], report["checkpoint"]
    if chain["ok"]:
        console.print(f"hash chain: [green]intact[/green] over {chain['events']} events")
    else:
        console.print(
            f"hash chain: [red]broken at position {chain['broken_at']}[/red] ({chain['reason']})"
        )
    if chain.get("redacted"):
        console.print(
            f"  {chain['redacted']} withheld from this reader (position and hash only)",
            highlight=False,
        )
    if chain.get("concealed"):
        console.print(
            f"  {chain['concealed']} partly concealed from this reader (members named in "
            "their withheld changed: only their place in the chain is proven)",
            soft_wrap=True,
            highlight=False,
        )
    if dice is not None:
        status = "[green]all match[/green]" if dice["ok"] else "[red]MISMATCH[/red]"
        console.print(
            f"dice: {status}: {dice['checked']} face{'' if dice['checked'] == 1 else 's'} "
            f"re-derived, {dice['manual']} "
            f"manual, {dice['unrevealed']} awaiting the secret's reveal, "
            f"{dice['inherited']} proven by the encounter forked from"
        )
        for m in dice["mismatches"]:
            console.print(
                f"  position {m['position']} roll {m['roll']} die {m['die']}: "
                f"{m['face']}, derived {m['expected']}"
            )
        for p in dice["bad_reveals"]:
            console.print(f"  position {p}: the revealed secret does not match its commitment")
    if signed is not None:
        words = {
            "none": "[yellow]none[/yellow]",
            "complete": "[green]complete[/green]",
            "after_checkpoint": "[yellow]events after it[/yellow]",
        }
        status = words.get(
            signed["status"], f"[red]{signed['status'].replace('_', ' ').upper()}[/red]"
        )
        console.print(f"checkpoint: {status}: {escape(signed['reason'])}", soft_wrap=True)
        if signed["encounter"] is not None:
            console.print(
                f"  signed for encounter {escape(signed['encounter'])} at {escape(signed['time'])}"
                f" with key {signed['key'][:16]}…",
                soft_wrap=True,
                highlight=False,
            )
        if signed["status"] == "unknown_key" and local_keys:
            console.print(
                "  checked against this installation's keys; for an export from another "
                "server, save its GET /audit/keys and pass --keys FILE",
                soft_wrap=True,
            )


@app.command()
def export(
    encounter: Annotated[str, typer.Argument(help="Encounter id.")],
    format: Annotated[str, typer.Option(help="ndjson or csv.")] = "ndjson",
    until: Annotated[int | None, typer.Option(help="Only events up to N.")] = None,
) -> None:
    """Write an encounter's events as NDJSON or CSV to standard output."""
    import sys

    from projections.export import csv_lines, ndjson_lines, trailer

    lines = csv_lines if format == "csv" else ndjson_lines
    eid = _encounter_id(encounter)
    with _store() as fraylog:
        history = fraylog.event_log(eid, until)
        for line in lines(history):
            sys.stdout.write(line)
        sys.stdout.write(
            trailer(fraylog.checkpoints.latest(eid, history[-1].originator_version), format)
        )


@app.command()
def replay(
    encounter: Annotated[str, typer.Argument(help="Encounter id.")],
    until: Annotated[int | None, typer.Option(help="Stop at version N.")] = None,
    step: Annotated[bool, typer.Option(help="Wait for Enter between events.")] = False,
    lang: Annotated[
        Literal["en", "es"],
        typer.Option(help="The lines' language: en, or es for a PHANTÄSIA encounter."),
    ] = "en",
) -> None:
    """Replay a fight round by round: each event's line, hits after each round, voided
    events struck through."""
    from projections.narrative import check_lang
    from projections.replay import rounds_of

    eid = _encounter_id(encounter)
    with _store() as fraylog:
        events = fraylog.event_log(eid, until)
        check_lang(lang, events[0].ruleset)  # Spanish for PHANTÄSIA only: exit 2 otherwise
    spanish = lang == "es"
    for chunk in rounds_of(events, lang):
        console.rule(f"{'Ronda' if spanish else 'Round'} {chunk['round']}")
        for line in chunk["lines"]:
            style = "strike dim" if line["voided_by"] else None
            voided = "anulado por" if spanish else "voided by"
            note = f" [dim]({voided} {line['voided_by']})[/dim]" if line["voided_by"] else ""
            console.print(
                f"[dim]{line['position']:>4}[/dim] {escape(line['text'])}{note}",
                style=style,
                highlight=False,
            )
            if step:
                input()
        console.print(_hits_table(chunk["combatants"], spanish))


def _figure(n: int) -> str:
    """'12', '−3': a negative figure with a true minus sign, as the log lines print it."""
    return str(n) if n >= 0 else f"−{-n}"


_BAR = 10  # the bar's cells: the widest book's table fits in 80 columns


def _novus_state(c: dict[str, Any]) -> str:
    if c["dead"]:
        return "dead"
    return "dying" if c["dying"] else "helpless" if c["helpless"] else "fighting"


def _hits_table(combatants: list[dict], spanish: bool = False, title: str | None = None) -> Table:
    """The combatants' table, one style for every rule book (`demo` after the fight, `replay`
    after each round): name, side, hits with a bar, and the book's own columns: bleeding,
    daze, stun and state (Novus), aim and conditions (Wits), PM and statuses (PHANTÄSIA, in
    Spanish if asked)."""
    wits = bool(combatants) and "health" in combatants[0]
    phantasia = bool(combatants) and "pv" in combatants[0]
    table = Table(title=title, box=box.SIMPLE_HEAD, title_justify="left", pad_edge=False)
    if phantasia:
        extra: tuple[str, ...] = ("PM", "Estados" if spanish else "Statuses")
        head = "PV"
    else:
        extra = ("Aim", "Conditions") if wits else ("Bleeding", "Daze", "Stun", "State")
        head = "Health" if wits else "Hits"
    name, side = ("Combatiente", "Bando") if spanish else ("Combatant", "Side")
    for column in (name, side, head):
        table.add_column(column, no_wrap=True)
    table.add_column("", no_wrap=True, min_width=_BAR)  # the bar
    for column in extra:
        table.add_column(column)
    for c in combatants:
        if phantasia:
            now, most = c["pv"], c["max_pv"]
            names = [v["es"] if spanish else k for k, v in c["statuses"].items()]
            cells: tuple[str, ...] = (f"{c['pm']}/{c['max_pm']}", ", ".join(names))
        elif wits:
            now, most = c["health"], c["max_health"]
            down = ["down"] if c["down"] else []
            cells = (f"+{c['aim']}" if c["aim"] else "", ", ".join([*down, *c["conditions"]]))
        else:
            now, most = c["hits"], c["max_hits"]
            cells = (
                str(c["bleeding"]),
                str(c["daze_count"]),
                str(c["stun_count"]),
                _novus_state(c),
            )
        share = max(0, min(1, now / most)) if most else 0
        bar = "█" * round(share * _BAR) + "░" * (_BAR - round(share * _BAR))
        colour = "green" if share > 0.5 else "yellow" if share > 0.25 else "red"
        table.add_row(
            escape(c["name"]),
            escape(c["side"] or ""),
            f"{_figure(now)}/{most}",
            f"[{colour}]{bar}[/{colour}]",
            *cells,
        )
    return table


@app.command()
def reference() -> None:
    """Print the command reference (docs/reference.md), rendered from the command models:
    each command's fields, rule books, roll names and who may send it; the event types."""
    from api.reference import render

    typer.echo(render(), nl=False)


keys = typer.Typer(
    help="The Ed25519 keys checkpoints are signed with (docs/record.md).",
    invoke_without_command=True,
    no_args_is_help=False,
)
app.add_typer(keys, name="keys")


@keys.callback()
def keys_list(context: typer.Context) -> None:
    """List the installation's signing keys, the current one first (as GET /audit/keys)."""
    if context.invoked_subcommand is not None:
        return
    listed = _installation_keys()
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
app.add_typer(projections, name="projections")


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
