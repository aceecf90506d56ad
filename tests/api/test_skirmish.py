"""A fourth rule book that lives in the tests only (tests/skirmish), registered and played
over HTTP on SQLite and PostgreSQL: the API, the store, the fold, the log, the export and its
verification reach it through the registry alone (issue 17, item 2). And no file outside
tests/ names it."""

from __future__ import annotations

import ast
import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from api.cli import app as cli
from api.main import app_from_env
from domain import commands as c
from domain.commands import CommandBase
from domain.events import EncounterEvent, event_class
from domain.rulesystems import get_rule_system, register, rulesets, unregister
from domain.rulesystems.base import RuleSystem
from infra.settings import Settings
from tests.skirmish.system import SkirmishRules

ROOT = Path(__file__).resolve().parents[2]
# the packages fraylog is made of (docs/ may tell of the skirmish; tests/ holds it)
SOURCES = ("api", "bench", "domain", "infra", "projections", "pyproject.toml", "Makefile")
WOLF = {"fight": 3, "guard": 2, "hits": 3}  # struck at 5 or more (guard 2 + 3)
BEAR = {"fight": 1, "guard": 4, "hits": 4}  # struck at 7 or more (guard 4 + 3)


@pytest.fixture(autouse=True)
def skirmish() -> Iterator[RuleSystem]:
    """The skirmish is playable while a test runs, and forgotten after it."""
    rules = register(SkirmishRules())
    yield rules
    unregister(rules.name)


def post(client: TestClient, path: str, body: dict[str, Any], status: int = 200) -> Any:
    r = client.post(path, json=body)
    assert r.status_code == status, r.text
    return r.json()


def started(client: TestClient) -> tuple[str, str, str]:
    """A skirmish with manual dice: the wolf and the bear, each on his side."""
    body = {"name": "Den", "ruleset": "skirmish", "dice_source": "manual"}
    created = post(client, "/encounters", body, 201)
    assert created["ruleset"] == "skirmish" and created["step"] == "setup"
    eid = created["id"]
    wolf = {"name": "Wolf", "side": "wolves", "stats": WOLF}
    bear = {"name": "Bear", "side": "bears", "stats": BEAR}
    wolf = post(client, f"/encounters/{eid}/combatants", wolf, 201)
    bear = post(client, f"/encounters/{eid}/combatants", bear, 201)
    assert wolf["combatant"]["fight"] == 3 and bear["encounter"]["step"] == "initiative"
    return eid, wolf["id"], bear["id"]


def command(client: TestClient, eid: str, body: dict[str, Any]) -> dict[str, Any]:
    return post(client, f"/encounters/{eid}/commands", body)


def strike(client: TestClient, eid: str, who: str, whom: str, face: int) -> dict[str, Any]:
    body = {"type": "strike", "combatant": who, "target": whom, "dice": {"strike": [face]}}
    return command(client, eid, body)


def fight(client: TestClient) -> tuple[str, dict[str, Any]]:
    """The wolf and the bear fight until the bear is down, on the table's dice: the id and
    the last answer."""
    eid, wolf, bear = started(client)
    # when: initiative (SKR-INIT-1), the wolf 4 + 3 = 7, the bear 5 + 1 = 6
    rolled = command(
        client,
        eid,
        {"type": "roll_initiative", "dice": {"initiative:Wolf": [4], "initiative:Bear": [5]}},
    )
    assert rolled["encounter"]["order"] == [wolf, bear]
    assert rolled["encounter"]["acting"] == wolf and rolled["encounter"]["step"] == "strikes"
    # the wolf strikes 6 + 3 against 7: a hit, and a natural 6 takes 2 (SKR-STR-3)
    hit = strike(client, eid, wolf, bear, 6)
    assert [e["type"] for e in hit["events"]] == ["Struck", "DamageApplied"]
    assert hit["events"][0]["data"]["hits"] == 2 and hit["events"][1]["data"]["hits_after"] == 2
    # the bear strikes 3 + 1 against 5: a miss; the round is the GM's to end (SKR-RND-1)
    missed = strike(client, eid, bear, wolf, 3)
    assert [e["type"] for e in missed["events"]] == ["Struck"]
    assert missed["encounter"]["step"] == "end_round"
    ended = command(client, eid, {"type": "end_round"})
    assert ended["encounter"]["round"] == 2 and ended["encounter"]["acting"] == wolf
    # round 2: the wolf's 2 + 3 = 5 against 7 misses, the bear's 5 + 1 against 5 hits
    strike(client, eid, wolf, bear, 2)
    strike(client, eid, bear, wolf, 5)
    command(client, eid, {"type": "end_round"})
    # round 3: the wolf's 5 + 3 = 8 hits for 1, the bear's 1 + 1 misses; round 4: 4 + 3 = 7
    strike(client, eid, wolf, bear, 5)
    strike(client, eid, bear, wolf, 1)
    command(client, eid, {"type": "end_round"})
    return eid, strike(client, eid, wolf, bear, 4)


def test_given_the_skirmish_registered_when_a_fight_is_played_over_http_then_it_is_recorded_told_and_verified(  # noqa: E501
    client: TestClient,
) -> None:
    eid, last = fight(client)
    # then: the bear is down (SKR-DOWN-1) and no strike is due
    view = client.get(f"/encounters/{eid}").json()
    assert view == last["encounter"]
    down = {c["name"]: (c["hits"], c["down"], c["health_state"]) for c in view["combatants"]}
    assert down == {"Wolf": (2, False, "hurt"), "Bear": (0, True, "down")}
    assert view["step"] == "end_round" and view["acting"] is None
    log = [line["text"] for line in client.get(f"/encounters/{eid}/log").json()["lines"]]
    assert "Wolf strikes Bear: 9 against 7, a hit for 2 (a 6)." in log
    assert "Bear strikes Wolf: 4 against 5, a miss." in log
    assert "Bear takes 1 (1 → 0)." in log
    export = client.get(f"/encounters/{eid}/events", params={"format": "ndjson"}).text
    records = [json.loads(line) for line in export.splitlines()]
    assert sum(1 for rec in records if rec.get("type") == "Struck") == 7
    verdict = client.get(f"/encounters/{eid}/verify").json()
    assert verdict["ok"] and verdict["chain"]["events"] == len(log)
    checked = client.post(
        "/audit/verify", content=export, headers={"Content-Type": "application/x-ndjson"}
    ).json()
    assert checked["ok"] and checked["chain"]["broken_at"] is None


def test_given_the_skirmish_when_the_gm_asks_what_can_happen_then_its_own_choices_answer(
    client: TestClient,
) -> None:
    # given a skirmish whose initiative is rolled: the wolf acts first
    eid, wolf, bear = started(client)
    assert [c["type"] for c in client.get(f"/encounters/{eid}/choices").json()["choices"]] == [
        "roll_initiative"
    ]
    dice = {"initiative:Wolf": [4], "initiative:Bear": [5]}
    command(client, eid, {"type": "roll_initiative", "dice": dice})
    # when the GM asks what can happen now
    offered = client.get(f"/encounters/{eid}/choices").json()["choices"]
    # then the wolf's strike at the bear, complete but for its die, which is sent as it is
    (only,) = offered
    assert only["command"] == {"type": "strike", "combatant": wolf, "target": bear}
    assert only["label"] == "Wolf strikes Bear" and only["rolls"] == ["strike"]
    command(client, eid, {**only["command"], "dice": {"strike": [1]}})
    strike(client, eid, bear, wolf, 1)
    # and once both have struck, only the round's end
    ends = client.get(f"/encounters/{eid}/choices").json()["choices"]
    assert [c["type"] for c in ends] == ["end_round"]


def test_given_the_skirmish_then_its_description_and_its_refusals_come_from_its_package(
    client: TestClient,
) -> None:
    described = client.get("/rulesets/skirmish").json()
    assert described["name"] == "skirmish"
    assert set(described["stats_schema"]["properties"]) == {"fight", "guard", "hits"}
    assert described["actions"][0]["command"] == "strike"
    eid, wolf, bear = started(client)
    # a command of another book, and one of no book: problem+json, nothing recorded
    for body, rule in (
        ({"type": "aim", "combatant": wolf}, "SKIRMISH-CMD"),
        ({"type": "fly", "combatant": wolf}, None),
    ):
        r = client.post(f"/encounters/{eid}/commands", json=body)
        assert r.status_code == 422 and r.headers["content-type"] == "application/problem+json"
        assert r.json().get("rule") == rule, r.text
    # a strike before initiative, and a strike with a bad field
    body = {"type": "strike", "combatant": wolf, "target": bear}
    early = client.post(f"/encounters/{eid}/commands", json=body)
    assert early.status_code == 422 and early.json()["rule"] == "SKR-STR-1"
    bad = client.post(f"/encounters/{eid}/commands", json={"type": "strike", "combatant": wolf})
    assert bad.status_code == 422 and bad.json()["field"] == "body.strike.target"
    assert client.get(f"/encounters/{eid}").json()["version"] == 3


def test_given_the_skirmish_registered_then_the_openapi_lists_it_and_unregistered_it_is_refused(
    client: TestClient, skirmish: RuleSystem
) -> None:
    spec = client.get("/openapi.json").json()
    schemas = spec["components"]["schemas"]
    assert "skirmish" in schemas["EncounterCreate"]["properties"]["ruleset"]["enum"]
    assert "SkirmishEncounter" in schemas and "Strike" in schemas
    assert "StruckRecord" in schemas  # its event's record, beside the core's
    unregister(skirmish.name)
    assert "skirmish" not in rulesets()
    r = client.post("/encounters", json={"name": "x", "ruleset": "skirmish"})
    assert r.status_code == 422 and r.json()["field"] == "body.ruleset"
    assert r.json()["detail"] == "body.ruleset: Input should be 'novus', 'phantasia' or 'wits'"
    register(skirmish)
    assert get_rule_system("skirmish") is skirmish


def test_given_a_book_whose_command_or_event_another_book_has_then_it_is_not_registered() -> None:
    # given a book that would take Wits's `aim`, and one with an event named like Novus's
    class Aim(CommandBase):
        type: Literal["aim"] = "aim"

    class Thief(SkirmishRules):
        name = "thief"
        commands = (Aim,)

    # when each is registered, then it is refused, naming what it would take
    with pytest.raises(ValueError, match="command 'aim'"):
        register(Thief())
    assert "thief" not in rulesets()

    # a book may give a core command fields of its own (its subclass), but not another class
    class Initiative(CommandBase):
        type: Literal["roll_initiative"] = "roll_initiative"

    class Usurper(SkirmishRules):
        name = "usurper"
        commands = (Initiative,)

    class Roller(c.RollInitiative):
        type: Literal["roll_initiative"] = "roll_initiative"
        reroll: bool = False

    class Heir(SkirmishRules):
        name = "heir"
        commands = (Roller,)

    with pytest.raises(ValueError, match="command 'roll_initiative'"):
        register(Usurper())
    register(Heir())
    try:
        assert "heir" in rulesets()
    finally:
        unregister("heir")

    class SaveRolled(EncounterEvent):  # Novus's name, whose `tn` is the GM's
        combatant: str

    class Mimic(SkirmishRules):
        name = "mimic"
        commands = ()

    with pytest.raises(ValueError, match="event 'SaveRolled'"):
        register(Mimic())
    assert "mimic" not in rulesets() and event_class("SaveRolled").__module__.startswith("domain.")

    # and the books already there still parse their commands
    wits = get_rule_system("wits").command_adapter()
    assert type(wits.validate_python({"type": "aim", "combatant": "x"})).__name__ == "Aim"


def test_given_fraylog_rule_books_in_the_environment_when_the_app_is_made_then_the_book_is_played(
    skirmish: RuleSystem, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given: the skirmish not registered, and the environment naming it (as `serve` reads it)
    unregister(skirmish.name)
    monkeypatch.setenv("FRAYLOG_RULE_BOOKS", " tests.skirmish.system:SkirmishRules ,")
    monkeypatch.setenv("FRAYLOG_SQLITE_PATH", str(tmp_path / "f.db"))
    monkeypatch.setenv("FRAYLOG_NO_AUTH", "1")
    # when: the app is made from the environment (twice: a second worker registers nothing)
    app_from_env().state.fraylog.close()
    with TestClient(app_from_env()) as client:
        # then: the skirmish is played, and the CLI replays and verifies what was stored
        eid, _ = fight(client)
        assert client.get("/rulesets/skirmish").status_code == 200
    assert isinstance(get_rule_system("skirmish"), SkirmishRules)
    unregister(skirmish.name)  # the CLI registers it from the environment too
    replayed = CliRunner().invoke(cli, ["replay", eid], env={"COLUMNS": "120"})
    assert replayed.exit_code == 0, replayed.output
    assert "Wolf strikes Bear: 7 against 7, a hit for 1." in replayed.output
    assert "Bear" in replayed.output and "down" in replayed.output
    verified = CliRunner().invoke(cli, ["verify", eid])
    assert verified.exit_code == 0 and "hash chain: intact over 19 events" in verified.output


@pytest.mark.parametrize("spec", ["skirmish", "tests.skirmish.system", "a b:C"])
def test_given_a_rule_book_that_is_not_module_and_class_then_the_settings_refuse_it(
    spec: str,
) -> None:
    with pytest.raises(ValueError, match="FRAYLOG_RULE_BOOKS"):
        Settings(rule_books=(spec,))


def _named_in_code(path: Path) -> bool:
    """Whether the code of a source file says "skirmish": any name, string or text but a
    docstring's or a comment's (which may tell of the tests' rule book, as the registry's
    does); a file that is not Python, anywhere in it."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix != ".py":
        return "skirmish" in text.lower()
    tree = ast.parse(text)
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and id(node) not in docstrings:
            said = str(node.value)
        elif isinstance(node, ast.Name | ast.alias | ast.Attribute | ast.arg):
            said = ast.unparse(node) if not isinstance(node, ast.alias) else node.name
        else:
            continue
        if "skirmish" in said.lower():
            return True
    return False


def test_given_the_sources_then_no_code_outside_tests_names_the_skirmish() -> None:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", *SOURCES],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    sources = [ROOT / p for p in listed if (ROOT / p).is_file()]
    assert len(sources) > 100  # the packages and the web client
    assert [str(p.relative_to(ROOT)) for p in sources if _named_in_code(p)] == []
    # and the check sees a name where one is: this test's own file names it
    assert _named_in_code(Path(__file__))
