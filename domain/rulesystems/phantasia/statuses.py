"""The twenty statuses, their modifiers and the stacking rules (PHA-STS, PHA-STK); their
effects are applied automatically (PHA-STS-21) where the rules and commands read them.

A status is a condition of the encounter state whose `count` is the number of the
affected creature's own turns it has left (None: until it ends by a check, an action or
the GM) and whose `data` keeps what the status needs: its kind, its modifiers, the check
that ends it, the poison's damage, the turn it was applied in.
"""

from __future__ import annotations

from typing import Any

from domain.rulesystems.phantasia.state import StatusData
from domain.state import CombatantState

ALL = ("at", "df", "am", "dm")

# PHA-STS-1..20: Spanish name, kind, can act, modifiers (by figure), end-of-turn check,
# d20 instead of d12 for (checks). "magic": a beneficial magic for PHA-STK-1.
STATUSES: dict[str, dict[str, Any]] = {
    "grabbed": {"es": "Agarrado", "kind": "harmful", "rule": "PHA-STS-1"},
    "stunned": {
        "es": "Aturdido",
        "kind": "harmful",
        "rule": "PHA-STS-2",
        "acts": False,
        "mods": {"df": -3, "dm": -3},
        "end_check": ("int", "vit"),
    },
    "chaos": {
        "es": "Caos",
        "kind": "harmful",
        "rule": "PHA-STS-3",
        "end_check": ("int", "ca"),
    },
    "blind": {
        "es": "Ceguera",
        "kind": "harmful",
        "rule": "PHA-STS-4",
        "mods": {"at": -3, "df": -3, "am": -3, "dm": -3},
    },
    "weakness": {"es": "Debilidad", "kind": "harmful", "rule": "PHA-STS-5", "d20": ALL},
    "defense": {
        "es": "Defensa",
        "kind": "beneficial",
        "rule": "PHA-STS-6",
        "mods": {"df": 3},
        "not_magic": True,  # PHA-STK-4: the Defense action adds normally
    },
    "fascinated": {"es": "Fascinado", "kind": "harmful", "rule": "PHA-STS-7"},
    "unconscious": {"es": "Inconsciente", "kind": "harmful", "rule": "PHA-STS-8", "acts": False},
    "invisible": {
        "es": "Invisible",
        "kind": "beneficial",
        "rule": "PHA-STS-9",
        "mods": {"at": 5, "df": 5, "am": 5, "dm": 5},
    },
    "slowness": {
        "es": "Lentitud",
        "kind": "harmful",
        "rule": "PHA-STS-10",
        "mods": {"at": -1, "df": -1, "am": -1, "dm": -1},
    },
    "curse": {
        "es": "Maldición",
        "kind": "harmful",
        "rule": "PHA-STS-11",
        "d20": ("fue", "agi", "int", "vit", "sue", "ca"),  # Default PHA-AMB-16
    },
    "mute": {"es": "Mudez", "kind": "harmful", "rule": "PHA-STS-12"},
    "dead": {"es": "Muerto", "kind": "harmful", "rule": "PHA-STS-13", "acts": False},
    "paralysed": {
        "es": "Parálisis",
        "kind": "harmful",
        "rule": "PHA-STS-14",
        "acts": False,
        "end_check": ("vit", "fue"),
    },
    "petrified": {"es": "Petrificación", "kind": "harmful", "rule": "PHA-STS-15", "acts": False},
    "haste": {
        "es": "Rapidez",
        "kind": "beneficial",
        "rule": "PHA-STS-16",
        "mods": {"at": 1, "df": 1, "am": 1, "dm": 1},
    },
    "asleep": {"es": "Sueño", "kind": "harmful", "rule": "PHA-STS-17", "acts": False},
    "fear": {"es": "Temor", "kind": "harmful", "rule": "PHA-STS-18"},
    "prone": {"es": "Tumbado", "kind": "harmful", "rule": "PHA-STS-19"},
    "poisoned": {"es": "Veneno", "kind": "harmful", "rule": "PHA-STS-20"},
    # PHA-STK-4 (Default PHA-AMB-13): fumble results 3 and 4 count as statuses
    "fumble_defense": {
        "es": "Pifia (DF/DM −3)",
        "kind": "harmful",
        "rule": "PHA-CRIT-5",
        "mods": {"df": -3, "dm": -3},
    },
    "fumble_attack": {
        "es": "Pifia (AT/AM −3)",
        "kind": "harmful",
        "rule": "PHA-CRIT-5",
        "mods": {"at": -3, "am": -3},
    },
    "suffocating": {"es": "Asfixia", "kind": "harmful", "rule": "PHA-SUF-1"},
    "overloaded": {
        "es": "Sobrecarga",
        "kind": "harmful",
        "rule": "PHA-WPN-7",
        "d20": ALL,  # Default PHA-AMB-53: Weakness without damage reduction
        "mods": {"movement": -3},
    },
}

# the parts the rules compute into a check's target: a magic may not take one of their names
COMPUTED_PARTS = frozenset(
    {
        "base",
        "cover",
        "item bonus",
        "level increments",
        "other at adjustments",
        "protection",
        "protection dm",
        "shield (block)",
        "df",
        "dm",
        "am figure",
        "gauntlets",
        "prone against ranged",
        "target prone, adjacent",
        "attacking from the ground",
        "repeated offensive action",
        "levels above the power's user",
        "fue",
        "agi",
        "int",
        "vit",
        "sue",
        "ca",
        "suffocation",
    }
)


def clashes(name: str) -> bool:
    low = name.strip().lower()
    return low in COMPUTED_PARTS or low.endswith(" adj") or low.startswith(("attacker ", "target "))


MAGIC = "magic"  # a GM-entered magic or power effect on scores and figures (PHA-STK-1, -2)
NAMES = frozenset(STATUSES) | {MAGIC}
MAX_BENEFICIAL = 3  # PHA-STK-3


def name_es(status: str) -> str:
    """A status by its name in the book (Rapidez, Veneno, ...); a magic by its own name."""
    return str(STATUSES.get(status, {}).get("es", status))


def spec(status: str) -> dict[str, Any]:
    return STATUSES.get(status, {"kind": "beneficial", "rule": "PHA-STK-1"})


def kind_of(who: CombatantState, name: str) -> str:
    data = StatusData.of(who.conditions[name])
    return str(data.kind or spec(data.status_or(name))["kind"])


def beneficial(who: CombatantState) -> list[str]:
    """PHA-STK-3: the beneficial statuses that count towards the three (the Defense action
    counts: the source's own example lists Defensa); an item's bonus is equipment, not a
    status (PHA-STK-1)."""
    return [
        n
        for n, cond in who.conditions.items()
        if kind_of(who, n) == "beneficial" and not StatusData.of(cond).item
    ]


def modifiers(who: CombatantState, figure: str) -> dict[str, int]:
    """Named modifiers of the statuses on `who` to a figure, characteristic or MO after
    PHA-STK-1 (only the best beneficial magic counts), PHA-STK-2 (only the worst penalty)
    and PHA-STK-4 (Default PHA-AMB-13: AT, DF, AM, DM and MO are covered; fumble results
    count as statuses; the Defense action and items add normally)."""
    if who.has("petrified") and figure != "movement":
        return {}
    best: tuple[int, str] | None = None
    worst: tuple[int, str] | None = None
    plain: dict[str, int] = {}
    for name, cond in who.conditions.items():
        data = StatusData.of(cond)
        if data.deferred:
            continue  # PHA-INIT-3: a simultaneous partner's result, not yet in force
        status = data.status_or(name)
        mods = data.modifiers or spec(status).get("mods", {})
        value = int(mods.get(figure, 0))
        if not value:
            continue
        if spec(status).get("not_magic") or data.item:
            plain[name] = value
        elif value > 0 and (best is None or value > best[0]):
            best = (value, name)
        elif value < 0 and (worst is None or value < worst[0]):
            worst = (value, name)
    out = dict(plain)
    for pick in (best, worst):
        if pick is not None:
            out[pick[1]] = pick[0]
    return out


def die_for(who: CombatantState, what: str) -> int:
    """PHA-CHK-3: 1d20 instead of 1d12 when a status says so (Weakness: AT, DF, AM, DM;
    Curse: characteristic checks, Default PHA-AMB-16)."""
    for name, cond in who.conditions.items():
        if what in spec(StatusData.of(cond).status_or(name)).get("d20", ()) and active(who, name):
            return 20
    return 12


def can_act(who: CombatantState) -> bool:
    """PHA-ACT-6: no actions while Stunned, Paralysed, Unconscious, Dead, Asleep or
    Petrified (Default PHA-AMB-34, -43)."""
    return all(spec(n).get("acts", True) or not active(who, n) for n in who.conditions)


def active(who: CombatantState, name: str) -> bool:
    """He has the status and it is in force: not a result of a simultaneous partner's turn
    still waiting for his own to end (PHA-INIT-3, Default PHA-AMB-8)."""
    cond = who.conditions.get(name)
    return cond is not None and not StatusData.of(cond).deferred
