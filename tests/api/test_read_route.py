"""GET /encounters/{id} and …/log read their common case by hand (api/routes/read_route.py):
each request gets the answer FastAPI's own dependency solving gives the same endpoint, and a
plain read is answered without it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from uuid import UUID

import fastapi.routing
import pytest
from fastapi import Depends, FastAPI, Request
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from api import problems
from api.deps import known_query
from api.main import create_app
from api.routes.encounters import VIEW_ROUTE, get_encounter
from api.routes.read_route import read_route
from api.routes.reads import LOG_ROUTE, get_log
from bench.command_levers import _table
from domain import commands as c
from infra.app import Fraylog
from infra.settings import Settings
from tests.builders.novus import novus_stats

ENDPOINTS = {
    "/encounters/{encounter_id}": (get_encounter, VIEW_ROUTE),
    "/encounters/{encounter_id}/log": (get_log, LOG_ROUTE),
}


def reads_app(fraylog: Fraylog, by_hand: bool) -> FastAPI:
    """The two reads alone (with the app's query check and problem handlers), read by hand
    or by FastAPI's generic solving."""
    app = FastAPI(dependencies=[Depends(known_query)])
    app.state.fraylog = fraylog
    problems.install(app)
    for path, (endpoint, route_class) in ENDPOINTS.items():
        app.router.add_api_route(
            path,
            endpoint,
            methods=["GET"],
            route_class_override=route_class if by_hand else APIRoute,
        )
    return app


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    fraylog = Fraylog(Settings(sqlite_path=str(tmp_path_factory.mktemp("r") / "r.db")))
    eid = fraylog.create_encounter("Parity", "novus", "seeded", "s").state.id
    a, _ = fraylog.add_combatant(UUID(eid), "A", "x", novus_stats())
    fraylog.add_combatant(UUID(eid), "B", "y", novus_stats(), hidden=True)
    fraylog.execute(UUID(eid), c.AdjustHits(combatant=a, amount=-3))
    other = fraylog.create_encounter("Other", "novus", "seeded", "s").state.id
    yield {
        "fraylog": fraylog,
        "id": eid,
        "gm": fraylog.access.mint(eid, "gm"),
        "player": fraylog.access.mint(eid, "player", combatants=[a]),
        "other": fraylog.access.mint(other, "gm"),
        "by_hand": TestClient(reads_app(fraylog, by_hand=True)),
        "generic": TestClient(reads_app(fraylog, by_hand=False)),
    }
    fraylog.close()


def requests(t: dict[str, Any]) -> list[tuple[str, str, dict[str, str]]]:
    out = []
    for path in (f"/encounters/{t['id']}", f"/encounters/{t['id']}/log"):
        gm = {"Authorization": f"Bearer {t['gm']}"}
        out += [
            ("the GM", path, gm),
            ("a player (B is hidden from him)", path, {"Authorization": f"Bearer {t['player']}"}),
            ("no token", path, {}),
            ("another scheme", path, {"Authorization": f"Basic {t['gm']}"}),
            ("an unknown token", path, {"Authorization": "Bearer nope"}),
            ("another encounter's token", path, {"Authorization": f"Bearer {t['other']}"}),
            ("an id that is no UUID", path.replace(t["id"], "x"), gm),
            ("an id in capitals", path.replace(t["id"], t["id"].upper()), gm),
            ("a query", path + ("?version=2" if path.endswith(t["id"]) else "?until=2"), gm),
            ("an unknown query", path + "?untill=3", gm),
            ("a bad query and no token", path + "?version=x&limit=0", {}),
        ]
    return out


@pytest.mark.parametrize("index", range(22))
def test_given_a_read_when_read_by_hand_then_fastapi_would_answer_the_same(
    table: dict[str, Any], index: int
) -> None:
    name, path, headers = requests(table)[index]
    by_hand = table["by_hand"].get(path, headers=headers)
    generic = table["generic"].get(path, headers=headers)
    assert (by_hand.status_code, by_hand.json()) == (generic.status_code, generic.json()), name
    for header in ("content-type", "etag", "content-language", "www-authenticate"):
        assert by_hand.headers.get(header) == generic.headers.get(header), (name, header)


def test_given_the_etag_of_a_read_when_asked_again_by_hand_then_304(table: dict[str, Any]) -> None:
    path, auth = f"/encounters/{table['id']}/log", {"Authorization": f"Bearer {table['gm']}"}
    etag = table["generic"].get(path, headers=auth).headers["ETag"]
    again = table["by_hand"].get(path, headers={**auth, "If-None-Match": etag})
    assert again.status_code == 304


@pytest.fixture
def solved(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths of the requests whose dependencies FastAPI solves from now on."""
    paths: list[str] = []
    solve = fastapi.routing.solve_dependencies

    async def counted(*args: Any, **kwargs: Any) -> Any:
        paths.append(kwargs["request"].url.path)
        return await solve(*args, **kwargs)

    monkeypatch.setattr(fastapi.routing, "solve_dependencies", counted)
    return paths


def test_given_a_plain_read_when_read_by_hand_then_no_dependency_is_solved(
    table: dict[str, Any], solved: list[str]
) -> None:
    auth = {"Authorization": f"Bearer {table['gm']}"}
    # when: a plain read by hand, then the same generically
    for path in (f"/encounters/{table['id']}", f"/encounters/{table['id']}/log"):
        assert table["by_hand"].get(path, headers=auth).status_code == 200
    assert solved == []
    table["generic"].get(f"/encounters/{table['id']}", headers=auth)
    assert solved == [f"/encounters/{table['id']}"]


def test_given_an_endpoint_with_a_parameter_without_default_then_the_route_is_refused() -> None:
    async def endpoint(encounter_id: UUID, lang: str) -> None:
        return None

    with pytest.raises(TypeError, match="lang has no default"):
        read_route()("/x/{encounter_id}", endpoint).get_route_handler()


def test_given_a_route_with_a_dependency_of_its_own_then_fastapi_solves_every_read(
    table: dict[str, Any],
) -> None:
    """A dependency added to the route (or its router) is never skipped by the plain read."""
    called: list[str] = []

    async def audited(request: Request) -> None:
        called.append(request.url.path)

    app = reads_app(table["fraylog"], by_hand=False)
    app.router.routes.clear()
    app.router.add_api_route(
        "/encounters/{encounter_id}",
        get_encounter,
        methods=["GET"],
        dependencies=[Depends(audited)],
        route_class_override=VIEW_ROUTE,
    )
    path = f"/encounters/{table['id']}"
    # when
    answer = TestClient(app).get(path, headers={"Authorization": f"Bearer {table['gm']}"})
    # then
    assert answer.status_code == 200
    assert called == [path]


def test_given_the_app_when_the_view_and_the_log_are_read_plainly_then_no_dependency_is_solved(
    tmp_path: Any, solved: list[str]
) -> None:
    """The routes the app serves are the ones read by hand (a dependency added to their
    router would make FastAPI solve them again: test above)."""
    app = create_app(Settings(sqlite_path=str(tmp_path / "app.db")))
    eid, _, token = _table(app.state.fraylog)
    with TestClient(app) as client:
        for path in (f"/encounters/{eid}", f"/encounters/{eid}/log"):
            answer = client.get(path, headers={"Authorization": f"Bearer {token}"})
            assert answer.status_code == 200
    assert solved == []
