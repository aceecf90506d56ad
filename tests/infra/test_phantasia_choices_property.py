"""PHANTÄSIA `choices` against the rules: random fights played on the application (SQLite,
manual dice, no tokens: the narrator's view) by picking only from `fraylog.choices(eid)`,
the table dice fed one face at a time with drawn faces, check that every pick is accepted
(asking only for the rolls it names, the first one first); and that a command type absent
from `by_combatant` for a combatant is refused, whatever instance of it is sent.

What choices leaves out on purpose (domain/rulesystems/phantasia/choices.py) is left out
of the instances too: the dead as actors (but for their death re-roll, offered) and as
targets, and the narrator's overrides of the step machine (out_of_order, an entered hit
or ip, situational modifiers, cover, offensive, doublings)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, get_args
from uuid import UUID

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from domain.errors import DomainError
from domain.rulesystems.base import Choice
from domain.rulesystems.phantasia import attacks, turns
from domain.rulesystems.phantasia.choices import PLAY_TYPES
from domain.rulesystems.phantasia.commands import Act
from domain.state import CombatantState, EncounterState
from infra.app import Fraylog
from tests.choices_play import Book, DrawnFaces, fights, on_sqlite, play_from_choices, settling
from tests.table_dice import send_app

MAX_COMMANDS = 40  # a fight's length, or until a side is down
FREE_FACES = 12  # faces a command draws freely; then ties settle
WEAPONS = {
    "sword": {"name": "sword", "code": "AMM", "damage": "1d8"},
    "dagger": {"name": "dagger", "code": "AMP", "damage": "1d4"},
    "crossbow": {"name": "crossbow", "code": "AP", "damage": "1d6", "crossbow_or_firearm": True},
    "greataxe": {"name": "greataxe", "code": "AMG", "damage": "1d10", "two_handed": True},
}
POWERS = {
    "Fuego": {"name": "Fuego", "damage": "1d6", "magic": True, "pm_cost": 2, "element": "fire"},
    "Rayo": {"name": "Rayo", "damage": "1d4", "per_level": True, "magic": True, "cooldown": 1},
    "Escudo": {"name": "Escudo", "magic": True, "pm_cost": 1},
}
STATUSES = [
    "fear",
    "poisoned",
    "stunned",
    "prone",
    "slowness",
    "haste",
    "blind",
    "weakness",
    "curse",
    "mute",
    "chaos",
    "paralysed",
    "asleep",
    "invisible",
    "suffocating",
    "grabbed",
]
CHARACTERISTICS = ["fue", "agi", "int", "vit", "sue", "ca"]
ACTS = get_args(Act.model_fields["action"].annotation)  # every other action an act may be


@pytest.fixture(scope="module")
def fraylog(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fraylog]:
    yield from on_sqlite(tmp_path_factory.mktemp("phantasia"))


@st.composite
def sheet(draw: st.DrawFn, player: bool) -> dict[str, Any]:
    score = st.integers(2, 12)
    out: dict[str, Any] = {
        "controller": "player" if player else "narrator",
        "fue": draw(score),
        "agi": draw(st.sampled_from([6, 8])),  # shared scores: ties on initiative happen
        "int": draw(score),
        "vit": draw(st.integers(1, 8)),
        "sue": draw(score),
        "level": draw(st.integers(1, 12)),
        "pv": draw(st.integers(4, 12)),
        "phantasia_points": draw(st.integers(0, 1)),
        "movement": draw(st.sampled_from([0, 3, 6])),
        "weapons": [
            WEAPONS[w]
            for w in draw(st.lists(st.sampled_from(sorted(WEAPONS)), max_size=2, unique=True))
        ],
        "powers": [
            POWERS[p]
            for p in draw(st.lists(st.sampled_from(sorted(POWERS)), max_size=2, unique=True))
        ],
    }
    if draw(st.booleans()):
        out["shield"] = {"name": "buckler", "df": 1}
    if draw(st.integers(0, 3)) == 0:
        out["current_pv"] = draw(st.integers(-2, 2))
    if draw(st.integers(0, 3)) == 0:
        out["elements"] = {"fire": draw(st.sampled_from(["affinity", "vulnerability"]))}
    return out


OPTIONS = st.fixed_dictionaries(
    {
        "initiative": st.sampled_from(["roll", "roll", "agi_order"]),
        "who_rolls": st.sampled_from(["publisher", "publisher", "attacker"]),
    }
)


def living(state: EncounterState) -> list[str]:
    return [i for i, w in state.combatants.items() if not w.has("dead")]


def instance(draw: st.DrawFn, state: EncounterState, kind: str) -> dict[str, Any]:
    """Any command of `kind` a table might send for a living combatant at a living target
    (no overrides of the narrator's)."""
    ids = living(state) or list(state.combatants)
    who = draw(st.sampled_from(ids))
    stats = turns.stats_of(state.combatants[who])
    others = [i for i in ids if i != who] or ids
    target = draw(st.sampled_from(others))
    flag = st.booleans()
    body: dict[str, Any] = {"type": kind, "combatant": who}
    if kind == "declare_surprise":
        body = {"type": kind, "combatants": [who, *draw(st.lists(st.sampled_from(others)))]}
        body["combatants"] = list(dict.fromkeys(body["combatants"]))
    elif kind == "roll_initiative":
        shape = draw(st.sampled_from(["one", "all", "group", "ties"]))
        body = {"type": kind}
        if shape == "one":
            body["combatant"] = who
        elif shape == "group":
            body["group"] = draw(st.permutations(ids))[: draw(st.integers(2, max(2, len(ids))))]
        elif shape == "ties":
            body["tie_order"] = draw(st.permutations(ids))[: draw(st.integers(2, max(2, len(ids))))]
        if shape != "one" and draw(flag):
            body["simultaneous"] = True
    elif kind in ("roll_damage", "roll_fumble"):
        body = {"type": kind}
        if kind == "roll_fumble" and draw(flag):
            body["choice"] = draw(st.sampled_from(["pv", "pm"]))
        if kind == "roll_damage" and draw(flag):
            body["shield_breaks"] = [target]
    elif kind == "start_turn":
        if draw(flag):
            body = {"type": kind}
    elif kind == "attack_check":
        means = draw(st.sampled_from(["unarmed", "weapon", "power"]))
        if means == "weapon" and stats.weapons:
            body["weapon"] = draw(st.sampled_from([w.name for w in stats.weapons]))
        if means == "power" and stats.powers:
            body["power"] = draw(st.sampled_from([p.name for p in stats.powers]))
            body["targets"] = draw(st.lists(st.sampled_from(others), min_size=1, unique=True))
        body.setdefault("targets", [target])
        if draw(flag):
            body["block"] = [target]
        if draw(flag):
            body["characteristic"] = draw(st.sampled_from(["fue", "agi"]))
        body["reaction"] = draw(flag)
        body["free"] = draw(st.integers(0, 3)) == 0
    elif kind == "contest":
        body |= {
            "kind": draw(st.sampled_from(["grab", "snatch", "push", "knock_down", "escape"])),
            "target": target,
            "characteristic": draw(st.sampled_from(["fue", "agi"])),
            "target_characteristic": draw(st.sampled_from(["fue", "agi"])),
            "reaction": draw(flag),
            "phantasia_point": draw(st.integers(0, 3)) == 0,
        }
    elif kind == "act":
        action = draw(st.sampled_from(ACTS))
        body |= {"action": action, "reaction": draw(flag)}
        if action in ("switch_weapon", "reload", "use_item") and stats.weapons and draw(flag):
            body["weapon"] = draw(st.sampled_from([w.name for w in stats.weapons]))
        if action == "cast_power" and stats.powers:
            body["power"] = draw(st.sampled_from([p.name for p in stats.powers]))
        if action == "move" and draw(flag):
            body["metres"] = draw(st.integers(0, 8))
        if action == "prepare" and draw(flag):
            body["trigger"] = "when the orc moves"
        if action == "defense" and draw(flag):
            body["replace"] = "least_time"
    elif kind == "check":
        body |= {
            "characteristic": draw(st.sampled_from(CHARACTERISTICS)),
            "as_action": draw(flag),
            "reaction": draw(flag),
            "phantasia_point": draw(st.integers(0, 3)) == 0,
        }
    elif kind == "jump":
        body |= {
            "kind": draw(st.sampled_from(["long", "high"])),
            "metres": draw(st.integers(1, 6)),
            "phantasia_point": draw(st.integers(0, 3)) == 0,
        }
    elif kind == "spend_phantasia_point":
        body["use"] = draw(st.sampled_from(["reroll", "death_reroll", "pm"]))
        if draw(flag):
            body["for_combatant"] = draw(st.sampled_from(ids))
    return body


def key_of(state: EncounterState, body: dict[str, Any]) -> str:
    """Under whom `by_combatant` files a command: who acts (PHANTÄSIA's choices say)."""
    kind = body["type"]
    if kind == "declare_surprise":
        return str(body["combatants"][0])
    if kind in ("roll_damage", "roll_fumble"):
        pending = attacks.pending_attack(state)
        return pending.combatant if pending else ""
    if kind == "start_turn" and "combatant" not in body:
        up = turns.next_up(state)
        return up.id if up else ""
    return str(body.get("combatant") or "")


def down(state: EncounterState, who: CombatantState) -> bool:
    return who.has("dead") or who.has("unconscious")


def by_type(data: st.DataObject, offered: list[Choice]) -> Choice:
    """A type offered, then one choice of it: each type as likely, however many it has."""
    kind = data.draw(st.sampled_from(sorted({c["type"] for c in offered})), label="type")
    return data.draw(st.sampled_from([c for c in offered if c["type"] == kind]), label="pick")


def alive(state: EncounterState, key: str) -> bool:
    """The encounter's own commands and the living's (the dead's are left out)."""
    return key == "" or key in living(state)


PHANTASIA = Book(PLAY_TYPES, instance, key_of, down, pick=by_type, tried=alive)


@fights(20)
@given(data=st.data())
def test_given_random_phantasia_fights_when_playing_only_choices_then_each_is_accepted_and_the_rest_refused(  # noqa: E501
    fraylog: Fraylog, data: st.DataObject
) -> None:
    options = data.draw(OPTIONS, label="options")
    eid = fraylog.create_encounter("Prop", "phantasia", "manual", options=options).state.id
    players = data.draw(st.integers(1, 2), label="players")
    creatures = data.draw(st.integers(1, 2), label="creatures")
    names: list[str] = []
    for i in range(players + creatures):
        name, player = f"C{i}", i < players
        names.append(name)
        stats = data.draw(sheet(player), label=name)
        fraylog.add_combatant(UUID(eid), name, "heroes" if player else "foes", stats)
    state = fraylog.state(UUID(eid))
    for _ in range(data.draw(st.integers(0, 2), label="statuses")):  # the narrator's given
        status = data.draw(st.sampled_from(STATUSES), label="status")
        body: dict[str, Any] = {
            "type": "apply_status",
            "combatant": data.draw(st.sampled_from(list(state.combatants))),
            "status": status,
        }
        if data.draw(st.booleans()):
            body["turns"] = data.draw(st.integers(1, 2))
        try:
            send_app(fraylog, eid, body, lambda needed: 1)
        except DomainError as refusal:  # a status the rules turn down here: not a given
            event(f"status refused: {refusal}")
    faces = DrawnFaces(data, FREE_FACES, settling(names))
    play_from_choices(fraylog, eid, data, PHANTASIA, faces, MAX_COMMANDS)
