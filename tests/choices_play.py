"""Playing from `choices`, what every rule book's choice tests share: asking for the choices
(in the domain or over HTTP) and for the dice a command wants next; a random fight played
on the application from choices alone, table dice drawn one face at a time, every pick
accepted and the command types not offered refused (the property tests); over HTTP, a
choice sent one face at a time and a fight replayed with every face at once. Each book's
test keeps its own fighters, commands and script."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import UUID

from fastapi.testclient import TestClient
from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st

from domain.errors import DiceNeeded
from domain.rulesystems.base import Choice
from domain.state import CombatantState, EncounterState
from infra.access import PLAYER_ROLE, Grant
from infra.app import Fraylog
from infra.choices import choices
from infra.settings import Settings
from tests.builders import DomainTable, HttpTable, add_combatant, new_encounter
from tests.table_dice import Face, refused, send_app, send_http

# -- asking, in the domain or over HTTP (tests/domain/conftest.py runs a test both ways) ----


def offered(t: DomainTable, player: str | None = None) -> dict[str, Any]:
    """The answer of GET …/choices: the GM's, or that of a player's token bound to
    `player`'s combatant."""
    if isinstance(t, HttpTable):
        headers = {}
        if player is not None:
            r = t.client.post(
                f"/encounters/{t.eid}/tokens",
                json={"combatants": [t.ids[player]], "label": player},
            )
            assert r.status_code == 201, r.text
            headers = {"Authorization": f"Bearer {r.json()['token']}"}
        r = t.client.get(f"/encounters/{t.eid}/choices", headers=headers)
        assert r.status_code == 200, r.text
        return r.json()
    grant = None
    if player is not None:
        grant = Grant(str(t.state.id), PLAYER_ROLE, frozenset({t.ids[player]}), player)
    return choices(t.encounter, grant, {})


def of(answer: dict[str, Any], kind: str, who: str | None = None) -> list[dict[str, Any]]:
    """The choices of this type (of the combatant with id `who`)."""
    return [
        x for x in answer["choices"] if x["type"] == kind and (who is None or x["combatant"] == who)
    ]


def types(t: DomainTable, answer: dict[str, Any], name: str | None) -> list[str]:
    """The types offered to `name` (None: the encounter's own)."""
    return answer["by_combatant"].get(t.ids[name] if name else "", [])


def needed(t: DomainTable, command: Any, **dice: list[int]) -> dict[str, Any]:
    """The roll a command asks for next, given these faces."""
    if isinstance(t, HttpTable):
        body = command.model_dump(mode="json", exclude_none=True) | {"dice": dice}
        r = t.client.post(f"/encounters/{t.eid}/commands", json=body)
        assert r.status_code == 422 and r.json()["rule"] == "DICE_NEEDED", r.text
        return r.json()["needed"]
    try:
        t.run(command, **dice)
    except DiceNeeded as e:
        return e.needed
    raise AssertionError(f"{command} asked for no more faces")


# -- random fights from choices alone (the property tests) ----------------------------------


def on_sqlite(folder: Path) -> Iterator[Fraylog]:
    """The application on a SQLite file in `folder` (manual dice, no tokens), closed after."""
    app = Fraylog(Settings(sqlite_path=str(folder / "p.db")))
    yield app
    app.close()


def fights(examples: int) -> settings:
    """Hypothesis settings for `examples` random fights: no deadline (a fight takes a
    while), and a long or large one is no health problem."""
    return settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


class DrawnFaces:
    """The table's faces for one command: the first `free` drawn from the test's data, the
    rest `then(needed)` (a face that ends a chain, settles a tie). `fresh()` before each
    command."""

    def __init__(
        self, data: st.DataObject, free: int, then: Callable[[dict[str, Any]], int]
    ) -> None:
        self.data, self.free, self.then = data, free, then
        self.drawn = 0

    def fresh(self) -> DrawnFaces:
        self.drawn = 0
        return self

    def __call__(self, needed: dict[str, Any]) -> int:
        self.drawn += 1
        if self.drawn <= self.free:
            return self.data.draw(st.integers(1, needed["sides"]))
        return self.then(needed)


def settling(names: list[str], face: int = 1) -> Callable[[dict[str, Any]], int]:
    """Faces that end a fight's chains: each tied one (`tie:<name>`) a different face, so
    the tie settles; any other roll `face`."""

    def then(needed: dict[str, Any]) -> int:
        if needed["roll"].startswith("tie:"):
            return 1 + names.index(needed["roll"][4:])
        return face

    return then


def any_choice(data: st.DataObject, offered: list[Choice]) -> Choice:
    return data.draw(st.sampled_from(offered), label="pick")


@dataclass(frozen=True)
class Book:
    """What playing from choices needs of a rule book's test: the command types it may try
    (`types`), any instance of one a table might send (`instance`), under whom
    `by_combatant` files it (`key_of`), who is down (a side all down ends the fight), and
    optionally: how many absent types are tried before each pick, how a pick is drawn, and
    whose absent types are tried (by their key)."""

    types: Sequence[str]
    instance: Callable[[st.DrawFn, EncounterState, str], dict[str, Any]]
    key_of: Callable[[EncounterState, dict[str, Any]], str]
    down: Callable[[EncounterState, CombatantState], bool]
    checks: int = 1
    pick: Callable[[st.DataObject, list[Choice]], Choice] = any_choice
    tried: Callable[[EncounterState, str], bool] = lambda state, key: True


def side_down(
    state: EncounterState, down: Callable[[EncounterState, CombatantState], bool]
) -> bool:
    """Whether every combatant of a side is down."""
    sides: dict[str, bool] = {}
    for who in state.combatants.values():
        sides[who.side] = sides.get(who.side, True) and down(state, who)
    return any(sides.values())


def play_from_choices(
    fraylog: Fraylog,
    eid: str,
    data: st.DataObject,
    book: Book,
    faces: DrawnFaces,
    max_commands: int = 40,
) -> None:
    """Up to `max_commands` commands or a side down: before each pick, `book.checks` command
    types drawn and, where not offered, refused whatever instance is sent; then a choice
    picked and sent one face at a time: accepted, asking only for the rolls it names, the
    first one as its `first_roll` says (none asked: no `first_roll`)."""
    for _ in range(max_commands):
        state = fraylog.state(UUID(eid))
        if side_down(state, book.down):
            return
        answer = fraylog.choices(UUID(eid))
        for _ in range(book.checks):
            absent_is_refused(fraylog, eid, data, book, state, answer["by_combatant"], faces)
        assert answer["choices"], "nothing to do"
        pick = book.pick(data, answer["choices"])
        _, _, asked = send_app(fraylog, eid, pick["command"], faces.fresh())  # raises if refused
        assert {n["roll"] for n in asked} <= set(pick["rolls"]), (pick, asked)
        if asked:
            first = pick["first_roll"]
            assert (first["roll"], first["die"], first["label"]) == (
                asked[0]["roll"],
                asked[0]["die"],
                asked[0]["label"],
            ), (pick, asked)
        else:
            assert pick["first_roll"] is None, pick
        event(f"picked: {pick['type']}")


def absent_is_refused(
    fraylog: Fraylog,
    eid: str,
    data: st.DataObject,
    book: Book,
    state: EncounterState,
    offered: dict[str, list[str]],
    faces: DrawnFaces,
) -> None:
    """A command type drawn: if it is not offered to whom it is filed under, an instance of
    it is refused (its dice fed as asked)."""
    kind = data.draw(st.sampled_from(book.types), label="absent?")
    body = book.instance(data.draw, state, kind)
    key = book.key_of(state, body)
    if kind in offered.get(key, []) or not book.tried(state, key):
        return
    rule = refused(fraylog, eid, body, faces.fresh())
    assert rule is not None, f"{body} is accepted but {kind} is not offered: {offered}"
    event(f"refused, not offered: {kind}")


# -- a fight over HTTP ---------------------------------------------------------------------

Played = list[tuple[dict[str, Any], dict[str, list[int]]]]  # each command, its faces by roll


def seat(
    client: TestClient,
    ruleset: str,
    cast: dict[str, tuple[dict[str, Any], str]],
    dice_source: str = "manual",
) -> tuple[str, dict[str, str]]:
    """A new encounter with `cast` (name: stats and side) added in order: (its id, the
    combatants' ids by name)."""
    eid = new_encounter(client, dice_source, ruleset=ruleset)
    ids = {
        name: add_combatant(client, eid, name, stats, side) for name, (stats, side) in cast.items()
    }
    return eid, ids


def choices_of(client: TestClient, eid: str) -> dict[str, Any]:
    r = client.get(f"/encounters/{eid}/choices")
    assert r.status_code == 200, r.text
    return r.json()


def events(client: TestClient, eid: str) -> list[dict[str, Any]]:
    r = client.get(f"/encounters/{eid}/events")
    assert r.status_code == 200, r.text
    return r.json()["events"]


def view(client: TestClient, eid: str) -> dict[str, Any]:
    return client.get(f"/encounters/{eid}").json()


def told_face_by_face(
    client: TestClient, eid: str, body: dict[str, Any], faces: list[tuple[str, int]]
) -> tuple[dict[str, Any], list[tuple[dict[str, Any], list[str]]]]:
    """`body` sent again and again while the server asks for a face, each time the next of
    `faces` (the roll asked for by that name), nothing recorded meanwhile; then recorded.
    (The answer, each `needed` with the log lines of `so_far` that came with it.)"""
    before = events(client, eid)
    body = {**body, "dice": {}}
    story = []
    for roll, value in faces:
        r = client.post(f"/encounters/{eid}/commands", json=body)
        assert r.status_code == 422 and r.json()["rule"] == "DICE_NEEDED", r.text
        problem = r.json()
        assert problem["needed"]["roll"] == roll
        story.append((problem["needed"], [x["text"] for x in problem["so_far"]]))
        body["dice"].setdefault(roll, []).append(value)
        assert events(client, eid) == before  # nothing recorded while a face is missing
    r = client.post(f"/encounters/{eid}/commands", json=body)
    assert r.status_code == 200, r.text
    return r.json(), story


def send_choice(
    client: TestClient, eid: str, choice: Choice, face: Face, ids: dict[str, str]
) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, list[int]]]:
    """`choice`'s command sent one face at a time, `face` giving each face asked for:
    recorded; each roll asked for worded and for one of `ids`, among the choice's `rolls`,
    the first as its `first_roll` says (none asked: no `first_roll`). (The answer, every
    `needed` in turn, the faces given by roll.)"""
    given: dict[str, list[int]] = {}

    def noted(needed: dict[str, Any]) -> int:
        assert needed["label"] and needed["for"] in ids.values(), needed
        value = face(needed)
        given.setdefault(needed["roll"], []).append(value)
        return value

    status, answer, asked = send_http(client, eid, choice["command"], noted)
    assert status == 200, (choice, answer)
    assert sum(len(got) for got in given.values()) == len(asked)  # no face unasked
    assert {n["roll"] for n in asked} <= set(choice["rolls"]), (choice, asked)
    if asked:  # the choice said which roll comes first, in the same words
        first = choice["first_roll"]
        assert (first["roll"], first["label"]) == (asked[0]["roll"], asked[0]["label"])
    else:
        assert choice["first_roll"] is None, choice
    return answer, asked, given


def play_by_choices(
    client: TestClient,
    eid: str,
    ids: dict[str, str],
    *,
    pick: Callable[[dict[str, Any], dict[str, Any]], Choice],
    face: Face,
    over: Callable[[dict[str, Any]], bool],
    max_commands: int,
) -> Played:
    """The fight until `over(view)`: each command as `pick(choices, view)` chooses, sent
    with the faces the server asks for one at a time (`send_choice`)."""
    played: Played = []
    for _ in range(max_commands):
        state = view(client, eid)
        if over(state):
            return played
        choice = pick(choices_of(client, eid), state)
        _, _, given = send_choice(client, eid, choice, face, ids)
        played.append((choice["command"], given))
    raise AssertionError("the fight did not end")


def comparable(client: TestClient, eid: str, ids: dict[str, str]) -> list[Any]:
    """The events as (type, data), combatant ids named, the dice commitment left out."""
    text = json.dumps([(e["type"], e["data"]) for e in events(client, eid)])
    for name, cid in ids.items():
        text = text.replace(cid, f"<{name}>")
    records = json.loads(text)
    records[0][1].pop("dice_commitment")
    return records


def replayed_at_once(
    client: TestClient,
    eid: str,
    ids: dict[str, str],
    played: Played,
    again: tuple[str, dict[str, str]],
) -> list[str]:
    """`played` sent again on the encounter `again` (its id, its combatants' ids by name),
    each command with all its faces at once: each is recorded, and the events and the log
    are those of `eid`. The log's lines."""
    other, other_ids = again
    for body, faces in played:
        text = json.dumps(body)
        for name, cid in ids.items():
            text = text.replace(cid, other_ids[name])
        r = client.post(f"/encounters/{other}/commands", json=json.loads(text) | {"dice": faces})
        assert r.status_code == 200, r.text
    assert comparable(client, other, other_ids) == comparable(client, eid, ids)
    told = [
        [x["text"] for x in client.get(f"/encounters/{e}/log").json()["lines"]]
        for e in (eid, other)
    ]
    assert told[0] == told[1]
    return told[0]


def secret_unseen(client: TestClient, eid: str, previews: list[str]) -> None:
    """The encounter ended: the server dice secret it reveals is in none of `previews` (the
    answers' text), and its record verifies."""
    r = client.post(f"/encounters/{eid}/commands", json={"type": "end_encounter"})
    assert r.status_code == 200, r.text
    revealed = next(e for e in r.json()["events"] if e["type"] == "DiceSecretRevealed")
    assert all(revealed["data"]["secret"] not in text for text in previews)
    verified = client.get(f"/encounters/{eid}/verify").json()
    assert verified["ok"] is True, verified
