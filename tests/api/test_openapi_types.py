"""The contract a generated client can type: openapi-typescript (npm, pinned in
tests/contract/package.json) turns /openapi.json into TypeScript, and tsc --strict checks
a client that leans on it: refusals, each event type's data, stats per rule book, the
rule-book description and the choices are typed, not `unknown`. And the real records of
a fight of each book match their event type's schema."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from uuid import UUID

import pytest
from pydantic import TypeAdapter

from api import demo, demo_phantasia, demo_wits
from api.event_schemas import EventRecord, event_classes
from api.main import create_app
from infra.app import Fraylog
from infra.settings import Settings
from projections.export import records

CONTRACT = Path(__file__).resolve().parents[1] / "contract"
IN_CI = os.environ.get("CI", "") not in ("", "0", "false")


@pytest.fixture(scope="module")
def tools() -> Path:
    """tests/contract/node_modules/.bin, installed from the lock file when missing."""
    if shutil.which("npm") is None or shutil.which("node") is None:
        if IN_CI:
            pytest.fail("CI needs node and npm for the OpenAPI contract test")
        pytest.skip("node and npm are not installed: the OpenAPI types are not checked")
    bin_ = CONTRACT / "node_modules" / ".bin"
    if not (bin_ / "openapi-typescript").exists() or not (bin_ / "tsc").exists():
        subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund", "--silent"],
            cwd=CONTRACT,
            check=True,
            timeout=300,
        )
    return bin_


@pytest.fixture(scope="module")
def spec(tmp_path_factory: pytest.TempPathFactory) -> dict:
    folder = tmp_path_factory.mktemp("openapi")
    app = create_app(Settings(sqlite_path=str(folder / "f.db")))
    return app.openapi()


def client_code() -> str:
    """A TypeScript client's uses of the generated types: each line fails to compile if
    what it reads is `unknown` (or missing)."""
    lines = [
        'import type { components, operations } from "./api";',
        'type S = components["schemas"];',
        "type Expect<T extends true> = T;",
        "type Known<T> = unknown extends T ? false : true;",
        'type Refusal = operations["run_command"]["responses"][422]["content"]'
        '["application/problem+json"];',
        "export type _refusal = Expect<Known<Refusal>>;",
        "export const nextDie = (p: Refusal): number | undefined => p.needed?.sides;",
        "export const story = (p: Refusal): string[] =>",
        '  (p.so_far ?? []).map((e) => `${e.position} ${e.type}: ${e.text ?? ""}`);',
        'type Stats = S["CombatantCreate"]["stats"];',
        "export type _stats = Expect<Known<Stats>>;",
        'export const novusHits = (s: S["NovusStats"]): number | null | undefined => s.hits;',
        'type Ruleset = operations["describe_ruleset"]["responses"][200]["content"]'
        '["application/json"];',
        "export type _ruleset = Expect<Known<Ruleset>>;",
        "export const conditions = (r: Ruleset): string[] => r.conditions;",
        'export type _action = Expect<Known<Ruleset["actions"][number]>>;',
        "export const actionRule = (r: Ruleset): string | undefined => r.actions[0]?.rule;",
        "export const boonCost = (r: Ruleset): number | undefined => r.boons?.[0]?.cost;",
        'type Choices = operations["get_choices"]["responses"][200]["content"]'
        '["application/json"];',
        "export const firstDie = (c: Choices): number | undefined =>",
        "  c.choices[0]?.first_roll?.sides;",
        'type Event = S["CommandResult"]["events"][number];',
        "export const hitsAfter = (e: Event): number | null =>",
        '  e.type === "DamageApplied" ? e.data.hits_after : null;',
    ]
    for cls in event_classes():
        name = cls.__name__
        lines.append(f'export type _{name} = Expect<Known<S["{name}Record"]["data"]>>;')
        lines.append(f'export const _{name}Type: S["{name}Record"]["type"] = "{name}";')
    return "\n".join(lines) + "\n"


def test_given_the_openapi_then_a_generated_typescript_client_types_what_the_server_knows(
    tools: Path, spec: dict, tmp_path: Path
) -> None:
    (tmp_path / "openapi.json").write_text(json.dumps(spec))
    generated = subprocess.run(
        [str(tools / "openapi-typescript"), "openapi.json", "-o", "api.d.ts"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert generated.returncode == 0, generated.stderr
    types = (tmp_path / "api.d.ts").read_text()
    assert '"application/problem+json": unknown' not in types
    (tmp_path / "client.ts").write_text(client_code())
    checked = subprocess.run(
        [str(tools / "tsc"), "--noEmit", "--strict", "--skipLibCheck", "client.ts"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_given_the_openapi_then_every_operation_has_a_readable_id_and_refusals_a_problem(
    spec: dict,
) -> None:
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            assert operation["operationId"].replace("_", "").isalpha(), (method, path)
            for status, response in operation["responses"].items():
                if status.startswith("4"):
                    assert list(response["content"]) == ["application/problem+json"], (
                        method,
                        path,
                        status,
                    )
    stream = spec["paths"]["/encounters/{encounter_id}/stream"]["get"]
    assert "text/event-stream" in stream["responses"]["200"]["content"]
    assert "event: view" in stream["responses"]["200"]["description"]


@pytest.mark.parametrize("module", [demo, demo_wits, demo_phantasia], ids=lambda m: m.__name__)
def test_given_a_demo_fight_then_every_record_matches_its_event_types_schema(
    module, tmp_path: Path
) -> None:
    settings = Settings(sqlite_path=str(tmp_path / "f.db"))
    module.play(settings, module.SEED, 3)
    adapter = TypeAdapter(EventRecord)
    with Fraylog(settings) as fraylog:
        (created,) = fraylog.list_encounters()
        from uuid import UUID

        for rec in records(fraylog.event_log(UUID(created["id"]))):
            adapter.validate_python(rec)


@pytest.mark.parametrize("ruleset", ["novus", "wits", "phantasia"])
def test_given_the_typed_ruleset_answer_then_it_is_the_rule_systems_own_description(
    ruleset: str, sqlite_client
) -> None:
    from domain.rulesystems import get_rule_system

    answer = sqlite_client.get(f"/rulesets/{ruleset}")
    assert answer.status_code == 200, answer.text
    assert answer.json() == json.loads(json.dumps(get_rule_system(ruleset).describe()))


def test_given_a_record_written_before_an_event_gained_a_field_then_its_schema_accepts_it(
    tmp_path: Path,
) -> None:
    # given a HitsAdjusted as recorded before reasons had codes (no reason_code, reason_params)
    settings = Settings(sqlite_path=str(tmp_path / "f.db"))
    demo.play(settings, demo.SEED, 1)
    with Fraylog(settings) as fraylog:
        (created,) = fraylog.list_encounters()
        rec = next(iter(records(fraylog.event_log(UUID(created["id"])))))
    old = {
        **rec,
        "type": "HitsAdjusted",
        "data": {"combatant": "c", "amount": -3, "hits_before": 9, "hits_after": 6, "reason": "x"},
    }
    # when it is read against the event records' schema, then it passes, its new fields null
    checked = TypeAdapter(EventRecord).validate_python(old)
    assert checked.data.reason_code is None and checked.data.reason_params is None
