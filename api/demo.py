"""A scripted Novus fight for `fraylog demo`, played through the application."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from domain import commands as c
from infra.app import Fraylog
from infra.settings import Settings
from projections.narrative import narrative
from projections.view import encounter_view

PARTY = [
    (
        "Brakka",
        "heroes",
        {
            "hits": 42,
            "bonuses": {"str": 2, "dex": 1, "spd": 1, "con": 2, "wil": 1, "wis": 0},
            "melee_ranks": 8,
            "shield": "normal",
            "ar": 6,
            "first_aid": 3,
            "weapons": [
                {
                    "name": "longsword",
                    "dr": 6,
                    "stat": "str",
                    "ranks": 8,
                    "size": "medium",
                    "damage_type": "slashing",
                }
            ],
        },
    ),
    (
        "Sela",
        "heroes",
        {
            "hits": 34,
            "bonuses": {"str": 0, "dex": 3, "spd": 2, "con": 1, "wil": 0, "wis": 2},
            "melee_ranks": 3,
            "ar": 4,
            "first_aid": 6,
            "weapons": [
                {
                    "name": "shortbow",
                    "kind": "missile",
                    "dr": 5,
                    "stat": "dex",
                    "ranks": 7,
                    "damage_type": "piercing",
                    "family": "bow",
                }
            ],
        },
    ),
    (
        "Grukk",
        "raiders",
        {
            "hits": 48,
            "bonuses": {"str": 3, "dex": 0, "spd": 0, "con": 3, "wil": 0, "wis": 0},
            "melee_ranks": 6,
            "ar": 4,
            "weapons": [
                {
                    "name": "great axe",
                    "dr": 8,
                    "stat": "str",
                    "ranks": 6,
                    "size": "large",
                    "damage_type": "slashing",
                }
            ],
        },
    ),
    (
        "Snikt",
        "raiders",
        {
            "hits": 24,
            "bonuses": {"str": 0, "dex": 2, "spd": 3, "con": 0, "wil": 0, "wis": 1},
            "melee_ranks": 5,
            "ar": 2,
            "minor_foe": True,
            "weapons": [
                {
                    "name": "spear",
                    "dr": 5,
                    "stat": "dex",
                    "ranks": 5,
                    "size": "medium",
                    "damage_type": "piercing",
                }
            ],
        },
    ),
]
# What each side prefers to buy with Boon Points, best first.
BOON_TASTE = ["bleeder", "daze_foe", "strong_attack", "defensive_posture"]


def play(settings: Settings, seed: str, rounds: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Play `rounds` rounds; return the final view and the narrative log."""
    with Fraylog(settings) as fraylog:
        eid = UUID(fraylog.create_encounter("Raid on the mill", "novus", "seeded", seed).state.id)
        for name, side, stats in PARTY:
            fraylog.add_combatant(eid, name, side, stats)
        fraylog.execute(eid, c.RollInitiative())
        for _ in range(rounds):
            _play_round(fraylog, eid)
        view = encounter_view(fraylog.state(eid))
        return view, list(narrative(fraylog.event_log(eid)))


def _play_round(fraylog: Fraylog, eid: UUID) -> None:
    view = encounter_view(fraylog.state(eid))
    while view["step"] == "declaration":
        who = next(x for x in view["combatants"] if x["id"] == view["next_to_declare"])
        fraylog.execute(eid, c.Declare(combatant=who["id"], actions=_intent(view, who)))
        view = encounter_view(fraylog.state(eid))
    while view["step"] in ("resolution", "boons", "snags"):
        if view["step"] == "boons":
            fraylog.execute(eid, c.SpendBoons(boons=_boons(view)))
        elif view["step"] == "snags":
            fraylog.execute(eid, c.SpendSnags(snags=_snags(view)))
        else:
            fraylog.execute(eid, c.Resolve())
        view = encounter_view(fraylog.state(eid))
    fraylog.execute(eid, c.EndRound())


def _intent(view: dict[str, Any], who: dict[str, Any]) -> list[c.ActionSpec]:
    if who["helpless"]:
        return [c.ActionSpec(kind="first_aid", target=who["id"], ap=2)]
    foes = [x for x in view["combatants"] if x["side"] != who["side"] and not x["down"]]
    if not foes:
        return []
    foe = min(foes, key=lambda x: x["hits"])
    kind = "missile_attack" if who["name"] == "Sela" else "melee_attack"
    return [c.ActionSpec(kind=kind, target=foe["id"])]


def _boons(view: dict[str, Any]) -> list[c.BoonSpec]:
    pending = view["pending_boons"]
    points = pending["points"]
    buys = []
    for name in BOON_TASTE:
        if points >= 1 and not (name == "bleeder" and pending["params"].get("move") == "cut"):
            buys.append(c.BoonSpec(name=name, points=points if name == "bleeder" else None))
            points -= points if name == "bleeder" else 1
    return buys


def _snags(view: dict[str, Any]) -> list[c.SnagSpec]:
    """The player picks (NOV-AMB-40): the cheapest harm that uses the points."""
    points = view["pending_snags"]["points"]
    return [c.SnagSpec(name="hurt_yourself" if points >= 2 else "strained_muscle")]
