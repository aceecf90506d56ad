"""A scripted PHANTÄSIA fight for `fraylog demo --ruleset phantasia`, played through the
application with seeded dice: the players roll every to-hit check (AT against the
narrator's creatures, DF against theirs), criticals and fumbles with the d6 table, a
potion of Rapidez that runs out after two of Endimion's turns, death checks."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from domain import commands as c
from domain.errors import DomainError
from domain.rulesystems.phantasia import commands as ph
from infra.app import Fraylog
from infra.settings import Settings
from projections.narrative import narrative
from projections.view import encounter_view

RULESET = "phantasia"  # the rule book it plays (`fraylog demo --ruleset`)
SEED = "p45"

PARTY: list[tuple[str, str, dict[str, Any]]] = [
    (
        "Endimion",
        "héroes",
        {
            "controller": "player",
            "fue": 10,
            "agi": 8,
            "int": 7,
            "vit": 6,
            "sue": 6,
            "level": 3,
            "pv": 30,
            "protection_df": 1,
            "shield": {"name": "escudo", "df": 1},
            "weapons": [{"name": "espada", "code": "AMM", "damage": "1d8"}],
        },
    ),
    (
        "Tybalt",
        "héroes",
        {
            "controller": "player",
            "fue": 5,
            "agi": 9,
            "int": 12,
            "vit": 7,
            "sue": 8,
            "level": 3,
            "pv": 22,
            "weapons": [{"name": "daga", "code": "AMP", "damage": "1d6"}],
            "powers": [{"name": "Rayo", "damage": "1d10", "pm_cost": 1, "element": "lightning"}],
        },
    ),
    (
        "Grashnak",
        "orcos",
        {
            "fue": 10,
            "agi": 7,
            "int": 4,
            "vit": 9,
            "sue": 4,
            "level": 2,
            "pv": 18,
            "enemy_type": "martial",
            "protection_df": 1,
            "weapons": [{"name": "hacha", "code": "AMG", "damage": "1d10"}],
        },
    ),
    (
        "Ratbag",
        "orcos",
        {
            "fue": 6,
            "agi": 11,
            "int": 5,
            "vit": 6,
            "sue": 6,
            "level": 1,
            "pv": 10,
            "weapons": [{"name": "arco", "code": "AP", "damage": "1d6"}],
        },
    ),
]
WEAPONS = {name: stats["weapons"][0]["name"] for name, _, stats in PARTY}
FOES = {"Endimion": "Grashnak", "Tybalt": "Ratbag", "Grashnak": "Endimion", "Ratbag": "Tybalt"}


def play(settings: Settings, seed: str, rounds: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Play `rounds` rounds; return the final view and the narrative log (English)."""
    with Fraylog(settings) as fraylog:
        created = fraylog.create_encounter("El vado de los orcos", RULESET, "seeded", seed)
        eid = UUID(created.state.id)
        ids = {
            name: fraylog.add_combatant(eid, name, side, stats)[0] for name, side, stats in PARTY
        }
        fraylog.execute(
            eid,
            ph.ApplyStatus(
                combatant=ids["Endimion"], status="haste", turns=2, reason="a potion of Rapidez"
            ),
        )
        fraylog.execute(eid, c.RollInitiative())
        for _ in range(rounds):
            _round(fraylog, eid, ids)
        return encounter_view(fraylog.state(eid)), list(narrative(fraylog.event_log(eid)))


def _round(fraylog: Fraylog, eid: UUID, ids: dict[str, str]) -> None:
    """Every combatant's turn, in the order: each attacks his foe with every action point
    (Tybalt casts Rayo while he has PM); damage and fumbles are rolled as they come."""
    names = {v: k for k, v in ids.items()}
    start = encounter_view(fraylog.state(eid))["round"]
    while encounter_view(fraylog.state(eid))["round"] == start:
        fraylog.execute(eid, ph.StartTurn())
        view = encounter_view(fraylog.state(eid))
        me = next(x for x in view["combatants"] if x["id"] == view["acting"])
        name = names[me["id"]]
        while _actions_left(fraylog, eid, me["id"]) > 0:
            foe = _foe(fraylog, eid, name, ids)
            if foe is None:
                break
            _attack(fraylog, eid, name, foe, ids)
        fraylog.execute(eid, c.EndTurn(combatant=me["id"]))


def _combatant(fraylog: Fraylog, eid: UUID, combatant: str) -> dict[str, Any]:
    view = encounter_view(fraylog.state(eid))
    return next(x for x in view["combatants"] if x["id"] == combatant)


def _actions_left(fraylog: Fraylog, eid: UUID, combatant: str) -> int:
    return int(_combatant(fraylog, eid, combatant)["actions_left"])


def _foe(fraylog: Fraylog, eid: UUID, name: str, ids: dict[str, str]) -> str | None:
    """His foe if still standing, else another of the other side who is."""
    side = next(side for n, side, _ in PARTY if n == name)
    others = [FOES[name]] + [n for n, s, _ in PARTY if s != side and n != FOES[name]]
    for other in others:
        x = _combatant(fraylog, eid, ids[other])
        if not (x["dead"] or x["unconscious"]):
            return other
    return None


def _attack(fraylog: Fraylog, eid: UUID, name: str, foe: str, ids: dict[str, str]) -> None:
    me = _combatant(fraylog, eid, ids[name])
    weapon = WEAPONS[name]
    means: dict[str, Any] = {"weapon": weapon}
    if name == "Tybalt" and me["pm"] >= 1:
        means = {"power": "Rayo"}
    if me["dropped"] == weapon:
        fraylog.execute(eid, ph.Act(combatant=me["id"], action="use_item", weapon=weapon))
        return
    block = [ids[foe]] if foe == "Endimion" else []
    try:
        fraylog.execute(
            eid,
            ph.AttackCheck(combatant=me["id"], targets=[ids[foe]], block=block, **means),
        )
    except DomainError:
        fraylog.execute(eid, ph.Act(combatant=me["id"], action="other", what="waits"))
        return
    _follow_up(fraylog, eid)


def _follow_up(fraylog: Fraylog, eid: UUID) -> None:
    """Roll what the check left open: the damage of a hit, the d6 of a fumble (and the
    free attack of result 5)."""
    pending = encounter_view(fraylog.state(eid))["pending_attack"]
    if pending is None:
        return
    if any(r["hit"] for r in pending["params"]["results"]):
        fraylog.execute(eid, ph.RollDamage())
        return
    fraylog.execute(eid, ph.RollFumble())
    for x in encounter_view(fraylog.state(eid))["combatants"]:
        if x["free_attack_on"]:
            target = _combatant(fraylog, eid, x["free_attack_on"])
            if target["dead"] or x["dead"] or x["unconscious"]:
                continue
            weapon = WEAPONS[x["name"]]
            fraylog.execute(
                eid,
                ph.AttackCheck(combatant=x["id"], targets=[target["id"]], weapon=weapon, free=True),
            )
            _follow_up(fraylog, eid)
