"""The `fraylog` command line: serve the API, play a demo fight (`cli_demo.py`), export,
verify and replay what is stored; the signing keys and the read models (`cli_admin.py`).
What the commands share is in `cli_common.py`, the tables and reports they print in
`cli_print.py`."""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path
from typing import Annotated, Any, BinaryIO, Literal
from uuid import UUID

import typer
from rich.markup import escape

from api.cli_admin import keys, projections
from api.cli_common import console, encounter_id, installation_keys, shown, store, where
from api.cli_demo import demo
from api.cli_print import hits_table, print_report
from infra.settings import Settings

ExportFormat = Literal["ndjson", "csv"]

app = typer.Typer(
    help="fraylog: an event-sourced combat log for tabletop RPGs.", no_args_is_help=True
)


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
    no_projections: Annotated[
        bool,
        typer.Option(
            "--no-projections",
            help="Do not keep the read models in this process (FRAYLOG_PROJECTIONS=off): "
            "`fraylog projections run` keeps them apart.",
        ),
    ] = False,
) -> None:
    """Serve the HTTP API (SQLite file by default; FRAYLOG_DATABASE_URL for PostgreSQL).
    Every encounter route needs its bearer token unless --no-auth (or FRAYLOG_NO_AUTH=1).
    The read models are kept up to date by a runner on a thread of this process (one, with
    any number of workers), unless --no-projections or another runner keeps them."""
    import uvicorn

    if no_auth:
        os.environ["FRAYLOG_NO_AUTH"] = "1"  # read by every worker
    if workers > 1:  # a token rotated or revoked in one worker stops at once in the others
        os.environ.setdefault("FRAYLOG_GRANT_CACHE_SECONDS", "0")
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
        f"fraylog: events in {escape(where(settings))}; access: {mode}; "
        f"API docs at http://{host}:{port}/docs"
    )
    follower = None if no_projections or not settings.projections else _projections(settings)
    if follower is None:
        uvicorn.run("api.main:app_from_env", factory=True, host=host, port=port, workers=workers)
        return
    import signal

    def terminated(*_: object) -> None:
        raise _Terminated

    signal.signal(signal.SIGTERM, terminated)  # uvicorn raises it again once it has stopped
    try:
        uvicorn.run("api.main:app_from_env", factory=True, host=host, port=port, workers=workers)
    except _Terminated:
        follower.stop(timeout=10)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.raise_signal(signal.SIGTERM)  # ends as SIGTERM ends it without a runner
    finally:
        follower.stop(timeout=10)


class _Terminated(BaseException):
    """SIGTERM: stop the read models' runner, then end as SIGTERM ends a process."""


def _projections(settings: Settings) -> Any:
    """The read models' runner on a thread of this (the parent) process, started; None when
    another runner holds the lock (the server then serves without one)."""
    from infra.read_models import Follower

    follower = Follower(
        settings, float(os.environ.get("FRAYLOG_PROJECTIONS_POLL_SECONDS", "0.5") or 0.5)
    )
    try:
        started = follower.start()
    except Exception as e:  # the store unreachable for the lock: serve, and say so
        console.print(f"read models: no runner ({escape(str(e).splitlines()[0])})")
        return None
    if not started:
        console.print("read models: another runner keeps them; this server runs none")
        return None
    console.print(
        "read models: kept up to date by this server (--no-projections leaves them to "
        "`fraylog projections run`)"
    )
    return follower


app.command()(demo)  # api/cli_demo.py


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


def _export_stream(stream: BinaryIO) -> Any:
    """An export read from a stream as it arrives, each line checked once whole; one that is
    no export is a message and exit 2, as a file's."""
    from projections.audit import NotAnExport, decoded, read_export_stream

    try:
        return read_export_stream(decoded(iter(lambda: stream.read1(1 << 16), b"")))
    except (NotAnExport, UnicodeDecodeError) as e:
        console.print(f"[red]standard input is not a fraylog export: {escape(str(e))}[/red]")
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


def _looks_like_a_path(text: str) -> bool:
    return "/" in text or "\\" in text or text.endswith((".ndjson", ".csv", ".json"))


@app.command()
def verify(
    source: Annotated[
        str,
        typer.Argument(
            help="An NDJSON or CSV export file, - for one read from standard input as it "
            "arrives (curl … | fraylog verify -), or an encounter id in the configured store."
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
    if source == "-":  # each line checked as it arrives: the download and the check overlap
        export = _export_stream(sys.stdin.buffer)
        report = verify_export(export, _keys_file(keys) if keys else installation_keys())
    elif path.is_file():
        export = _export_file(path)
        known = _keys_file(keys) if keys else installation_keys()
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
        with store() as fraylog:
            report = fraylog.verify(eid)
    if as_json:
        print(json.dumps(report))
    else:
        print_report(report, keys is None and path.is_file())
    raise typer.Exit(0 if report["ok"] else 1)


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
    eid = encounter_id(encounter)
    with store() as fraylog:
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

    eid = encounter_id(encounter)
    with store() as fraylog:
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
                f"[dim]{line['position']:>4}[/dim] {shown(line['text'])}{note}",
                style=style,
                highlight=False,
            )
            if step:
                input()
        console.print(hits_table(chunk["combatants"], spanish))


@app.command()
def reference() -> None:
    """Print the command reference (docs/reference.md), rendered from the command models:
    each command's fields, rule books, roll names and who may send it; the event types."""
    from api.reference import render

    typer.echo(render(), nl=False)


app.add_typer(keys, name="keys")
app.add_typer(projections, name="projections")
