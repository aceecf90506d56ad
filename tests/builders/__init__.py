"""Test data builders: encounters in the domain and over HTTP, and HTTP helpers; each rule
book's combatants in its own module (`tests.builders.novus`, `.wits`, `.phantasia`)."""

from __future__ import annotations

import copy
import socket
from types import SimpleNamespace
from typing import Any
from uuid import UUID

from fastapi.testclient import TestClient

from domain import commands as c
from domain.dice import ManualDice
from domain.encounter import Encounter
from domain.errors import DiceError, DomainError, NotFound, RuleViolation
from domain.rulesystems.novus import commands as nc
from tests.builders.novus import novus_stats, target_stats


class DomainTable:
    """An encounter driven in the domain, by commands with manual dice."""

    def __init__(self, ruleset: str = "novus", options: dict[str, Any] | None = None) -> None:
        self.encounter = Encounter.start("Test fight", ruleset, "manual", options=options)
        self.ids: dict[str, str] = {}

    @property
    def state(self):
        return self.encounter.state

    @property
    def view(self) -> dict[str, Any]:
        return self.encounter.rules.view(self.state)

    def who(self, name: str) -> dict[str, Any]:
        return next(x for x in self.view["combatants"] if x["name"] == name)

    def add(self, name: str, stats: dict[str, Any], side: str = "") -> str:
        self.ids[name] = self.encounter.add_combatant(name, side, stats)
        return self.ids[name]

    def history(self) -> list[Any]:
        return list(self.encounter.pending_events)

    def run(self, command: Any, **dice: list[int]) -> list[Any]:
        before = len(self.encounter.pending_events)
        kept = copy.deepcopy(self.encounter)  # a refused command records nothing, as in the app
        try:
            if isinstance(command, c.Void | c.Undo | c.Redo):
                self.encounter.correct(command, list(self.encounter.pending_events))
            else:
                self.encounter.execute(command, ManualDice(dice))
        except DomainError:
            self.encounter = kept
            raise
        return self.encounter.pending_events[before:]

    def ip(self, name: str, ip: int) -> None:
        self.run(c.RollInitiative(combatant=self.ids[name], ip=ip))

    def declare(self, name: str, *actions: dict[str, Any], **kw: Any) -> list[Any]:
        specs = []
        for a in actions:
            a = dict(a)
            if "target" in a:
                a["target"] = self.ids[a["target"]]
            specs.append(nc.ActionSpec(**a))
        return self.run(nc.Declare(combatant=self.ids[name], actions=specs, **kw))

    def resolve(self, attack: list[int] | None = None, **kw: Any) -> list[Any]:
        dice = {"attack": attack} if attack is not None else {}
        dice.update(kw.pop("dice", {}))
        return self.run(nc.Resolve(**kw), **dice)


class HttpTable(DomainTable):
    """The same encounter driven through the HTTP API (manual dice, problem+json refusals)."""

    def __init__(
        self, client: TestClient, ruleset: str = "novus", options: dict[str, Any] | None = None
    ) -> None:
        self.client = client
        self.eid = new_encounter(client, "manual", ruleset=ruleset, options=options or {})
        self.ids = {}

    @property
    def state(self):
        return self.client.app.state.fraylog.state(UUID(self.eid))

    @property
    def view(self) -> dict[str, Any]:
        return self.client.get(f"/encounters/{self.eid}").json()

    def add(self, name: str, stats: dict[str, Any], side: str = "") -> str:
        self.ids[name] = add_combatant(self.client, self.eid, name, stats, side)
        return self.ids[name]

    def history(self) -> list[Any]:
        return self.client.app.state.fraylog.event_log(UUID(self.eid))

    def run(self, command: Any, **dice: list[int]) -> list[Any]:
        body = command.model_dump(mode="json", exclude_none=True)
        if dice:
            body["dice"] = dice
        r = self.client.post(f"/encounters/{self.eid}/commands", json=body)
        if r.status_code != 200:
            raise _refusal(r.json())
        return [_as_event(e) for e in r.json()["events"]]


def _refusal(problem: dict[str, Any]) -> DomainError:
    """A problem+json back as the domain error it reports."""
    if problem.get("title") == "Bad dice":
        return DiceError(problem["roll"], problem["detail"], die=problem.get("die"))
    kind = NotFound if problem.get("title") == "Unknown reference" else RuleViolation
    return kind(problem.get("rule") or "HTTP", problem["detail"], field=problem.get("field"))


_EVENT_TYPES: dict[str, type] = {}


def _as_event(record: dict[str, Any]) -> Any:
    """An event record as an object like the domain's: `type(e).__name__` and attributes."""
    cls = _EVENT_TYPES.setdefault(record["type"], type(record["type"], (SimpleNamespace,), {}))
    return cls(
        **record["data"],
        originator_version=record["position"],
        cause=record["cause"],
        command=record["command"],
        actor=record["actor"],
    )


MODE: dict[str, TestClient | None] = {"client": None}


def Table(ruleset: str = "novus", options: dict[str, Any] | None = None) -> DomainTable:
    """An encounter for a test: in the domain, or over HTTP when the test runs that way."""
    client = MODE["client"]
    if client is None:
        return DomainTable(ruleset, options)
    return HttpTable(client, ruleset, options)


def duel(
    attacker: dict[str, Any] | None = None,
    target: dict[str, Any] | None = None,
    action: dict[str, Any] | None = None,
) -> Table:
    """A (IP 19) has declared one attack on T (IP 12); T declared nothing."""
    t = Table()
    t.add("A", attacker or novus_stats(), side="heroes")
    t.add("T", target or target_stats(), side="foes")
    t.ip("A", 19)
    t.ip("T", 12)
    t.declare("T")
    t.declare("A", action or {"kind": "melee_attack", "target": "T", "weapon": "sword"})
    return t


def free_port() -> int:
    """A TCP port nobody listens on, for a server a test starts."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def of_type(events: list[Any], name: str) -> list[Any]:
    return [e for e in events if type(e).__name__ == name]


# -- HTTP -----------------------------------------------------------------------
def new_encounter(client: TestClient, dice_source: str = "manual", **kw: Any) -> str:
    r = client.post(
        "/encounters",
        json={"name": "Test fight", "ruleset": "novus", "dice_source": dice_source} | kw,
    )
    assert r.status_code == 201, r.text
    return r.json()["id"]


def add_combatant(
    client: TestClient, eid: str, name: str, stats: dict[str, Any], side: str = ""
) -> str:
    r = client.post(
        f"/encounters/{eid}/combatants", json={"name": name, "side": side, "stats": stats}
    )
    assert r.status_code == 201, r.text
    return r.json()["id"]


def command(
    client: TestClient, eid: str, body: dict[str, Any], status: int = 200
) -> dict[str, Any]:
    r = client.post(f"/encounters/{eid}/commands", json=body)
    assert r.status_code == status, r.text
    return r.json()
