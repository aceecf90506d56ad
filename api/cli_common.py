"""What the `fraylog` commands share: the console they print on, where the events are (for
a person), the stored application for a command that only reads, the installation's
signing keys, an encounter id typed, and how this program was called."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from uuid import UUID

import typer
from rich.console import Console
from rich.markup import escape

from infra.settings import Settings

console = Console()
_UNSHOWN = re.compile(  # controls but newline and tab; bidirectional; zero-width
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]"
)


def shown(text: str) -> str:
    """User text (a name, a reason, a log line) safe to print through rich: a control,
    bidirectional or zero-width character as its code (`\\x1b`, `\\u202e`), so no escape
    sequence reaches the terminal; rich markup escaped, so `[bold]` prints as typed."""
    visible = _UNSHOWN.sub(lambda m: m[0].encode("unicode_escape").decode("ascii"), text)
    return escape(visible)


def encounter_id(text: str) -> UUID:
    try:
        return UUID(text)
    except ValueError:
        console.print(f"[red]{escape(text)} is not an encounter id[/red]")
        raise typer.Exit(2) from None


def sqlite_file(settings: Settings) -> Path | None:
    """The SQLite file the settings name, absolute (None: PostgreSQL, or SQLite in memory)."""
    name = settings.sqlite_path
    if settings.backend != "sqlite" or name.startswith((":memory:", "file:")):
        return None
    return Path(name).absolute()


def where(settings: Settings) -> str:
    """Where the events are, for a person: the SQLite file's absolute path, or PostgreSQL."""
    file = sqlite_file(settings)
    return f"SQLite file {file}" if file else settings.describe()


@contextmanager
def store() -> Iterator[Any]:
    """The configured application, for a command that only reads: a SQLite file that does
    not exist is a message naming where it looked, and nothing is created; an unknown
    encounter is a message, not a traceback."""
    from domain.errors import DomainError
    from infra.app import Fraylog

    settings = Settings.from_env()
    file = sqlite_file(settings)
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
        looked = f" (looked in {where(settings)})" if e.rule == "ENCOUNTER" else ""
        console.print(f"[red]{escape(e.detail)}[/red]{escape(looked)}", soft_wrap=True)
        raise typer.Exit(2) from None


def installation_keys() -> list[dict[str, Any]]:
    """The configured store's public keys, or none if there is no store here (no SQLite
    file is created where there is none)."""
    from infra.checkpoints import Checkpoints

    settings = Settings.from_env()
    file = sqlite_file(settings)
    if file is not None and not file.is_file():
        return []
    tables = Checkpoints(settings)
    try:
        return tables.keys()
    finally:
        tables.close()


def program() -> str:
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
