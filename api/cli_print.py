"""What `fraylog` prints besides the log's lines: the combatants' table (after a demo, and
after each round `replay` shows) and a verification's report (`verify`)."""

from __future__ import annotations

from typing import Any

from rich import box
from rich.table import Table

from api.cli_common import console, shown


def _figure(n: int) -> str:
    """'12', '−3': a negative figure with a true minus sign, as the log lines print it."""
    return str(n) if n >= 0 else f"−{-n}"


_BAR = 10  # the bar's cells: the widest book's table fits in 80 columns


def _novus_state(c: dict[str, Any]) -> str:
    if c["dead"]:
        return "dead"
    return "dying" if c["dying"] else "helpless" if c["helpless"] else "fighting"


def hits_table(combatants: list[dict], spanish: bool = False, title: str | None = None) -> Table:
    """The combatants' table, one style for every rule book (`demo` after the fight, `replay`
    after each round): name, side, hits with a bar, and the book's own columns: bleeding,
    daze, stun and state (Novus), aim and conditions (Wits), PM and statuses (PHANTÄSIA, in
    Spanish if asked); another book's (registered): `hits`, `max_hits` and whether down."""
    wits = bool(combatants) and "health" in combatants[0]
    phantasia = bool(combatants) and "pv" in combatants[0]
    novus = bool(combatants) and "bleeding" in combatants[0]
    table = Table(title=title, box=box.SIMPLE_HEAD, title_justify="left", pad_edge=False)
    if phantasia:
        extra: tuple[str, ...] = ("PM", "Estados" if spanish else "Statuses")
        head = "PV"
    else:
        extra = ("Bleeding", "Daze", "Stun", "State") if novus else ("State",)
        extra = ("Aim", "Conditions") if wits else extra
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
        elif novus:
            now, most = c["hits"], c["max_hits"]
            cells = (
                str(c["bleeding"]),
                str(c["daze_count"]),
                str(c["stun_count"]),
                _novus_state(c),
            )
        else:
            now, most = c["hits"], c["max_hits"]
            cells = ("down" if c.get("down") else "fighting",)
        share = max(0, min(1, now / most)) if most else 0
        bar = "█" * round(share * _BAR) + "░" * (_BAR - round(share * _BAR))
        colour = "green" if share > 0.5 else "yellow" if share > 0.25 else "red"
        table.add_row(
            shown(c["name"]),
            shown(c["side"] or ""),
            f"{_figure(now)}/{most}",
            f"[{colour}]{bar}[/{colour}]",
            *(shown(cell) for cell in cells),
        )
    return table


def print_report(report: dict[str, Any], local_keys: bool) -> None:
    """A verification's report, a part a line or more: the hash chain, the dice, the
    checkpoint (`local_keys`: checked against this installation's keys)."""
    _print_chain(report["chain"])
    if report["dice"] is not None:
        _print_dice(report["dice"])
    if report["checkpoint"] is not None:
        _print_checkpoint(report["checkpoint"], local_keys)


def _print_chain(chain: dict[str, Any]) -> None:
    if chain["ok"]:
        console.print(f"hash chain: [green]intact[/green] over {chain['events']} events")
    else:
        console.print(
            f"hash chain: [red]broken at position {chain['broken_at']}[/red] "
            f"({shown(chain['reason'])})"
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


def _print_dice(dice: dict[str, Any]) -> None:
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


def _print_checkpoint(signed: dict[str, Any], local_keys: bool) -> None:
    words = {
        "none": "[yellow]none[/yellow]",
        "complete": "[green]complete[/green]",
        "after_checkpoint": "[yellow]events after it[/yellow]",
    }
    status = words.get(signed["status"], f"[red]{signed['status'].replace('_', ' ').upper()}[/red]")
    console.print(f"checkpoint: {status}: {shown(signed['reason'])}", soft_wrap=True)
    if signed["encounter"] is not None:
        console.print(
            f"  signed for encounter {shown(signed['encounter'])} at {shown(signed['time'])}"
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
