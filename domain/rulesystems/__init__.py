"""Rule systems behind one interface, looked up by name."""

from __future__ import annotations

from domain.errors import UnknownRuleSystem
from domain.rulesystems.base import RuleSystem

RULESETS = ("novus", "phantasia", "wits")


def get_rule_system(name: str) -> RuleSystem:
    """The rule system called `name`."""
    if name == "novus":
        from domain.rulesystems.novus.system import NovusRules

        return NovusRules()
    if name == "wits":
        from domain.rulesystems.wits.system import WitsRules

        return WitsRules()
    if name == "phantasia":
        from domain.rulesystems.phantasia.system import PhantasiaRules

        return PhantasiaRules()
    raise UnknownRuleSystem("RULESET", f"unknown rule system {name!r}", field="ruleset")
