"""Table dice one face at a time: send a command, and while the answer is DICE_NEEDED add
the one face it asks for and send it again. Over HTTP or straight to the application."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any
from uuid import UUID

from fastapi.testclient import TestClient

from domain.errors import DiceNeeded, DomainError
from infra.app import Fraylog

Face = Callable[[dict[str, Any]], int]  # needed → the face the table rolled
MAX_FACES = 200  # a command asking for more is a bug (a chain that never ends)


def send_http(
    client: TestClient, eid: str, body: dict[str, Any], face: Face
) -> tuple[int, dict[str, Any], list[dict[str, Any]]]:
    """(status, answer, every `needed` asked for in order) of `body` sent one face at a
    time; the faces end up in the answer's events as if sent at once."""
    body = copy.deepcopy(body)
    asked: list[dict[str, Any]] = []
    for _ in range(MAX_FACES):
        r = client.post(f"/encounters/{eid}/commands", json=body)
        answer = r.json()
        if r.status_code != 422 or answer.get("rule") != "DICE_NEEDED":
            return r.status_code, answer, asked
        needed = answer["needed"]
        asked.append(needed)
        body.setdefault("dice", {}).setdefault(needed["roll"], []).append(face(needed))
    raise AssertionError(f"more than {MAX_FACES} faces asked for by {body}")


def send_app(
    fraylog: Fraylog, eid: str, body: dict[str, Any], face: Face, grant: Any = None
) -> tuple[list[Any], dict[str, list[int]], list[dict[str, Any]]]:
    """The same straight to the application: (events recorded, the faces it took, every
    `needed`); a refusal other than DICE_NEEDED is raised."""
    body = copy.deepcopy(body)
    asked: list[dict[str, Any]] = []
    for _ in range(MAX_FACES):
        try:
            recorded = fraylog.execute(UUID(eid), fraylog.command(UUID(eid), body), grant)
        except DiceNeeded as e:
            asked.append(e.needed)
            body.setdefault("dice", {}).setdefault(e.needed["roll"], []).append(face(e.needed))
            continue
        return recorded.events, body.get("dice") or {}, asked
    raise AssertionError(f"more than {MAX_FACES} faces asked for by {body}")


def refused(fraylog: Fraylog, eid: str, body: dict[str, Any], face: Face) -> str | None:
    """The rule that refuses `body` (its dice fed as asked), or None if it is recorded."""
    try:
        send_app(fraylog, eid, body, face)
    except DomainError as e:
        return e.rule
    return None
