"""`fraylog demo`: a scripted fight of a rule book, played with seeded dice in a temporary
database (or kept), its log, the state after it, and the commands that find it again."""

from __future__ import annotations

import os
import pkgutil
import shlex
import tempfile
from enum import Enum
from importlib import import_module
from pathlib import Path
from types import ModuleType
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from api.cli_common import console, program, shown, sqlite_file, where
from api.cli_print import hits_table
from domain.rulesystems import get_rule_system, rulesets
from infra.settings import Settings

# the rule books a demo may be asked for, by name (registered ones included)
Book = Enum("Book", {name: name for name in rulesets()}, type=str)  # type: ignore[misc]
DemoBook = Annotated[Book, typer.Option(help=f"The rule system: {', '.join(rulesets())}.")]
DemoSeed = Annotated[
    str | None, typer.Option(help="Seed of the demo's dice (default: the ruleset's).")
]
DemoRounds = Annotated[int, typer.Option(min=1, max=20, help="Rounds to play.")]
Keep = Annotated[
    bool,
    typer.Option(
        "--keep",
        help="Store the fight in the configured database (FRAYLOG_SQLITE_PATH, default "
        "fraylog.db, or FRAYLOG_DATABASE_URL, as `serve` uses) and print the commands that "
        "replay and verify it.",
    ),
]
DemoDatabase = Annotated[
    Path | None,
    typer.Option(
        help="SQLite file to store the fight in (default: a temporary one; with --keep, "
        "the configured database)."
    ),
]


def demo(
    ruleset: DemoBook = Book(rulesets()[0]),
    seed: DemoSeed = None,
    rounds: DemoRounds = 3,
    keep: Keep = False,
    database: DemoDatabase = None,
) -> None:
    """Play a scripted fight with seeded dice and print its log, the state after it and its
    id. Novus: a mounted charge met by a last-moment dodge (a cancel), a called shot, a hold,
    Boons, bleeding and a stun ticking down at upkeep. Wits: a charge met by a Total
    Defense, a shot aimed for three actions, damage dice rolling up. PHANTÄSIA: players rolling
    every to-hit check, a critical, a fumble on the d6 table, a potion of Rapidez running out,
    death checks."""
    module = _demos().get(ruleset.value)
    if module is None:
        console.print(f"[red]no demo plays {ruleset.value}: {', '.join(_demos())} have one[/red]")
        raise typer.Exit(2)
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
            f"[dim]{line['position']:>3}[/dim] {shown(line['text'])}", style=style, highlight=False
        )
    console.print(_demo_table(ruleset.value, view))
    if database is None and not keep:
        console.print(
            f"Encounter {view['id']} was played in a temporary database, gone now: "
            f"`{escape(program())} demo --keep` stores it in {escape(where(configured))} "
            "to replay and verify it.",
            soft_wrap=True,
            highlight=False,
        )
        return
    _print_kept(view["id"], settings, configured, named=database is not None)


def _print_kept(eid: str, settings: Settings, configured: Settings, named: bool) -> None:
    """Where a demo's fight is kept, and the commands that find it again: as they are where
    the store is the default one (or PostgreSQL, whose URL the environment holds), else
    naming the SQLite file (`named`: the one `--database` gave)."""
    env = ""
    file = sqlite_file(settings)
    if file is not None and (named or "FRAYLOG_SQLITE_PATH" in os.environ):
        env = f"FRAYLOG_SQLITE_PATH={shlex.quote(str(file))} "
        if configured.backend != "sqlite":
            env = f"FRAYLOG_DATABASE_URL= {env}"
    console.print(
        f"Encounter {eid} is kept in {escape(where(settings))}; replay it, verify it:",
        soft_wrap=True,
        highlight=False,
    )
    for command in ("replay", "verify"):
        console.print(
            f"  {escape(env)}{escape(shlex.quote(program()))} {command} {eid}",
            soft_wrap=True,
            highlight=False,
        )


def _demos() -> dict[str, ModuleType]:
    """The scripted fights by the rule book each plays: every `api/demo*.py`, which names
    its book (`RULESET`)."""
    import api

    names = (m.name for m in pkgutil.iter_modules(api.__path__) if m.name.startswith("demo"))
    found = [import_module(f"api.{name}") for name in sorted(names)]
    return {m.RULESET: m for m in found}


def _demo_table(ruleset: str, view: dict[str, Any]) -> Table:
    """The state after the demo: the book's hits (Novus: hits, Wits: Current Health,
    PHANTÄSIA: PV), in the table `replay` prints after each round."""
    what = get_rule_system(ruleset).hits_word
    return hits_table(view["combatants"], title=f"After round {view['round'] - 1}: {what}")
