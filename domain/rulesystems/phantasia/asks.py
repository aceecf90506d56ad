"""What each PHANTÄSIA die is for, as the table is asked for it one face at a time: who
picks up the die, the roll in the table's words and in the book's Spanish (PV, PM, AT,
AM, DF, DM, chequeo, crítico, pifia, chequeo de muerte), and what a face means."""

from __future__ import annotations

from domain.dice import Ask
from domain.rulesystems.phantasia import statuses


def check_ask(
    by: str | None,
    en: str,
    es: str,
    target: int | None,
    die: int,
    *,
    crits: bool = False,
) -> Ask:
    """A roll-under check (PHA-CHK-1): the d12 (or d20, PHA-CHK-3) and the most it may
    show; on AT, AM, DF and DM a natural 1 is a critical and the top face a fumble
    (PHA-CRIT-1, -4, -6, -7). `target` None: one roll against several numbers (an area
    power's AM, one roll for every target, PHA-CRIT-2)."""
    if target is None:
        number_en = number_es = ""
    elif target < 1 and not crits:
        number_en, number_es = " — no roll makes it", " — ninguna tirada lo consigue"
    else:
        number_en, number_es = f", {target} or less", f", {target} o menos"
    tail_en = f"; a 1 is a critical, a {die} a fumble" if crits else ""
    tail_es = f"; un 1 es crítico, un {die} es pifia" if crits else ""
    return Ask(
        by,
        f"{en}: 1d{die}{number_en}{tail_en}",
        f"{es}: 1d{die}{number_es}{tail_es}",
    )


def status_en(name: str) -> str:
    """A status as the English log names it."""
    return name.replace("_", " ").capitalize()


def status_es(name: str) -> str:
    """A status by its name in the book (Aturdido, Veneno, ...)."""
    return str(statuses.spec(name).get("es", name))


def means_en(weapon: str | None, power: str | None) -> str:
    return power or weapon or "bare hands"


def means_es(weapon: str | None, power: str | None) -> str:
    return power or weapon or "sin armas"


def pv(n: int) -> str:
    """PV as the log writes them (−3, not -3)."""
    return str(n) if n >= 0 else f"−{-n}"


def names(items: list[str]) -> str:
    return ", ".join(items)
