"""Each rule system's doc maps its rule ids; every AUTO id there is cited in the code of the
rule system where it is applied and named by a test."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SYSTEMS = {"novus": "NOV", "phantasia": "PHA", "wits": "WIT"}


def auto_ids(ruleset: str, prefix: str) -> list[str]:
    doc = (ROOT / "docs" / "rules" / f"{ruleset}.md").read_text()
    return re.findall(rf"^\| ({prefix}-[A-Z]+-\d+) \| AUTO \|", doc, re.MULTILINE)


def cited(text: str, rule: str) -> bool:
    """`rule` named alone, in a range (NOV-X-1..3) or in a list (NOV-X-1, -4)."""
    area, n = rule.rsplit("-", 1)
    if re.search(re.escape(rule) + r"(?!\d)", text):
        return True
    for m in re.finditer(re.escape(area) + r"-(\d+)\.\.(\d+)", text):
        if int(m[1]) <= int(n) <= int(m[2]):
            return True
    for m in re.finditer(re.escape(area) + r"-\d+((?:, -\d+)+)", text):
        if f"-{n}" in re.findall(r"-\d+", m[1]):
            return True
    return False


@pytest.mark.parametrize("ruleset", sorted(SYSTEMS))
def test_given_a_rule_map_then_every_auto_rule_is_applied_in_code_and_named_by_a_test(
    ruleset: str,
) -> None:
    prefix = SYSTEMS[ruleset]
    ids = auto_ids(ruleset, prefix)
    assert len(ids) > 40
    files = [*(ROOT / "domain" / "rulesystems" / ruleset).glob("*.py"), ROOT / "domain/fold.py"]
    code = "\n".join(p.read_text() for p in files)
    named = "\n".join(
        p.read_text() for p in (ROOT / "tests").rglob("test_*.py") if p.name != Path(__file__).name
    )
    assert [r for r in ids if not cited(code, r)] == []
    assert [r for r in ids if not cited(named, r)] == []
