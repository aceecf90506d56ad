"""Rule systems behind one interface, looked up by name in one registry.

A rule book is a package under `domain/rulesystems/<book>/` whose `system` module defines
a `RuleSystem`; fraylog's own three are listed here by the module that holds each. Any
other (a table's house rules, the tests' skirmish) joins with `register` before it is
used: nothing outside its package names it.
"""

from __future__ import annotations

from importlib import import_module

from domain.errors import UnknownRuleSystem
from domain.rulesystems.base import RuleSystem

# fraylog's own rule books: a name and the `module:class` of its RuleSystem
BUILT_IN = {
    "novus": "domain.rulesystems.novus.system:NovusRules",
    "phantasia": "domain.rulesystems.phantasia.system:PhantasiaRules",
    "wits": "domain.rulesystems.wits.system:WitsRules",
}
_LOADED: dict[str, RuleSystem] = {}
_REGISTERED: dict[str, RuleSystem] = {}


def register(system: RuleSystem) -> RuleSystem:
    """Make a rule system playable under its `name` (one not taken already)."""
    if system.name in BUILT_IN or system.name in _REGISTERED:
        raise ValueError(f"a rule system called {system.name!r} is registered already")
    _REGISTERED[system.name] = system
    return system


def unregister(name: str) -> None:
    """Forget a rule system `register` added (fraylog's own stay)."""
    _REGISTERED.pop(name, None)


def rulesets() -> tuple[str, ...]:
    """The names of every rule system that may be played now, fraylog's own first."""
    return (*BUILT_IN, *sorted(_REGISTERED))


def get_rule_system(name: str) -> RuleSystem:
    """The rule system called `name`."""
    if name in _REGISTERED:
        return _REGISTERED[name]
    if name not in BUILT_IN:
        raise UnknownRuleSystem("RULESET", f"unknown rule system {name!r}", field="ruleset")
    if name not in _LOADED:
        module, cls = BUILT_IN[name].split(":")
        _LOADED[name] = getattr(import_module(module), cls)()
    return _LOADED[name]


def all_rule_systems() -> list[RuleSystem]:
    """Every rule system that may be played now, in `rulesets()` order."""
    return [get_rule_system(name) for name in rulesets()]
