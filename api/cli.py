"""The `fraylog` command line: serve the API, play a demo fight."""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from infra.settings import Settings

app = typer.Typer(
    help="fraylog: an event-sourced combat log for tabletop RPGs.", no_args_is_help=True
)
console = Console()


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
) -> None:
    """Serve the HTTP API (SQLite file by default; FRAYLOG_DATABASE_URL for PostgreSQL)."""
    import uvicorn

    from api.main import create_app

    settings = Settings.from_env()
    logging.basicConfig(level=logging.INFO)
    console.print(
        f"fraylog: events in {settings.describe()}; API docs at http://{host}:{port}/docs"
    )
    uvicorn.run(create_app(settings), host=host, port=port)


@app.command()
def demo(
    seed: Annotated[str, typer.Option(help="Seed of the demo's dice.")] = "s16",
    rounds: Annotated[int, typer.Option(min=1, max=20, help="Rounds to play.")] = 3,
    database: Annotated[
        Path | None, typer.Option(help="SQLite file (default: a fresh temporary one).")
    ] = None,
) -> None:
    """Play a scripted Novus fight with seeded dice and print its log and hits."""
    from api.demo import play

    with tempfile.TemporaryDirectory() as tmp:
        path = database or Path(tmp) / "demo.db"
        view, lines = play(Settings(sqlite_path=str(path)), seed, rounds)
    for line in lines:
        style = "bold" if line["type"] in ("RoundEnded", "EncounterCreated") else None
        console.print(
            f"[dim]{line['position']:>3}[/dim] {escape(line['text'])}", style=style, highlight=False
        )
    table = Table(title=f"After round {view['round'] - 1}: hits")
    for column in ("Combatant", "Side", "Hits", "Bleeding", "Daze", "Stun", "State"):
        table.add_column(column)
    for c in view["combatants"]:
        state = (
            "dead"
            if c["dead"]
            else "dying"
            if c["dying"]
            else "helpless"
            if c["helpless"]
            else "fighting"
        )
        table.add_row(
            c["name"],
            c["side"],
            f"{c['hits']}/{c['max_hits']}",
            str(c["bleeding"]),
            str(c["daze_count"]),
            str(c["stun_count"]),
            state,
        )
    console.print(table)
