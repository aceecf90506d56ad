"""A scripted Wits fight for `fraylog demo --ruleset wits`, played through the application
with seeded dice: a charge met by a Total Defense, a shot aimed for three actions, damage
dice rolling up, parries and blocks."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from domain import commands as c
from domain.rulesystems.wits import commands as wc
from infra.app import Fraylog
from infra.settings import Settings
from projections.narrative import narrative
from projections.view import encounter_view

RULESET = "wits"  # the rule book it plays (`fraylog demo --ruleset`)
SEED = "w32"


def _fighter(wits: int, move: int, health: int, skills: dict[str, int], **more: Any) -> dict:
    return {"wits": wits, "move": move, "health": health, "skills": skills, **more}


PARTY = [
    (
        "Vartok",
        "heroes",
        _fighter(
            14,
            12,
            24,
            {"broadsword": 14},
            strength=14,
            base_damage="1d6",
            armour={"protection": 3, "defense": 2},
            weapons=[{"name": "broadsword", "damage": "1d10", "skill": "broadsword"}],
        ),
    ),
    (
        "Jokkler",
        "heroes",
        _fighter(
            12,
            10,
            16,
            {"sling": 12, "dagger": 10, "acrobatics": 13},
            strength=9,
            base_damage="1d4",
            armour={"protection": 1, "defense": 1},
            weapons=[
                {"name": "sling", "damage": "1d4", "skill": "sling", "ranged": True},
                {"name": "dagger", "damage": "1d4", "skill": "dagger"},
            ],
        ),
    ),
    (
        "Grukk",
        "raiders",
        _fighter(
            11,
            10,
            26,
            {"axe": 13, "shield": 12},
            strength=14,
            base_damage="1d6",
            armour={"protection": 3, "defense": 2},
            shield={"name": "round shield", "defense": 2},
            weapons=[{"name": "war axe", "damage": "1d10", "skill": "axe", "top_heavy": True}],
        ),
    ),
    (
        "Snaga",
        "raiders",
        _fighter(
            9,
            12,
            18,
            {"spear": 12, "acrobatics": 8},
            strength=11,
            base_damage="1d6",
            armour={"protection": 1, "defense": 1},
            weapons=[{"name": "spear", "damage": "1d8", "skill": "spear"}],
        ),
    ),
]


def play(settings: Settings, seed: str, rounds: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Play `rounds` rounds; return the final view and the narrative log."""
    with Fraylog(settings) as fraylog:
        eid = UUID(fraylog.create_encounter("Ford of the Jotans", RULESET, "seeded", seed).state.id)
        ids = {
            name: fraylog.add_combatant(eid, name, side, stats)[0] for name, side, stats in PARTY
        }
        fraylog.execute(eid, c.RollInitiative())
        _opening_round(fraylog, eid, ids)
        for _ in range(rounds - 1):
            _round(fraylog, eid, ids)
        return encounter_view(fraylog.state(eid)), list(narrative(fraylog.event_log(eid)))


def _opening_round(fraylog: Fraylog, eid: UUID, ids: dict[str, str]) -> None:
    """Vartok charges Grukk from 6 m, who answers with a Total Defense; Jokkler aims twice;
    Grukk has no action left; Snaga thrusts at Vartok."""
    fraylog.execute(
        eid,
        wc.Attack(
            combatant=ids["Vartok"],
            target=ids["Grukk"],
            weapon="broadsword",
            charge=True,
            distance_ft=18,
            defense=wc.DefenseSpec(kind="block", mode="total"),
        ),
    )
    fraylog.execute(eid, wc.Aim(combatant=ids["Jokkler"]))
    fraylog.execute(eid, wc.Aim(combatant=ids["Jokkler"]))
    fraylog.execute(eid, wc.Attack(combatant=ids["Snaga"], target=ids["Vartok"], weapon="spear"))
    fraylog.execute(eid, c.EndTurn(combatant=ids["Snaga"]))
    fraylog.execute(eid, c.EndRound())


FOES = {"Vartok": "Grukk", "Jokkler": "Snaga", "Grukk": "Vartok", "Snaga": "Jokkler"}


def _round(fraylog: Fraylog, eid: UUID, ids: dict[str, str]) -> None:
    """Each on his turn: Jokkler aims once more if he has an aim under way, then everyone
    attacks his foe once, keeping an action to defend; the target parries, blocks or
    dodges with an action left."""
    names = {v: k for k, v in ids.items()}
    while (view := encounter_view(fraylog.state(eid)))["step"] == "turns":
        who = next(x for x in view["combatants"] if x["id"] == view["acting"])
        name = names[who["id"]]
        foe = next(x for x in view["combatants"] if x["name"] == FOES[name])
        if foe["down"]:
            fraylog.execute(eid, c.EndTurn(combatant=who["id"]))
            continue
        if name == "Jokkler" and 0 < who["aim"] < 3 and who["actions_left"] == 2:
            fraylog.execute(eid, wc.Aim(combatant=who["id"]))
        weapon = "sling" if name == "Jokkler" else PARTY_WEAPONS[name]
        defense = _defense(FOES[name], foe)
        fraylog.execute(
            eid,
            wc.Attack(combatant=who["id"], target=foe["id"], weapon=weapon, defense=defense),
        )
        after = encounter_view(fraylog.state(eid))
        if after["acting"] == who["id"]:
            fraylog.execute(eid, c.EndTurn(combatant=who["id"]))
    fraylog.execute(eid, c.EndRound())


PARTY_WEAPONS = {name: stats["weapons"][0]["name"] for name, _, stats in PARTY}


def _defense(name: str, view: dict[str, Any]) -> wc.DefenseSpec | None:
    if view["actions_left"] == 0 or view["down"]:
        return None
    if name == "Grukk":
        return wc.DefenseSpec(kind="block")
    if name in ("Jokkler", "Snaga"):
        return wc.DefenseSpec(kind="dodge")
    return wc.DefenseSpec(kind="parry")
