"""Rule systems behind one interface, looked up by name in one registry.

A rule book is a package under `domain/rulesystems/<book>/` whose `system` module defines
a `RuleSystem`; fraylog's own three are listed here by the module that holds each. Any
other (a table's house rules, the tests' skirmish) joins with `register` before it is
used: nothing outside its package names it.
"""

from __future__ import annotations

import threading
from importlib import import_module

from domain import commands as c
from domain import events as ev
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
_LOCK = threading.RLock()
_EVENTS: dict[tuple[str, ...], dict[str, type[ev.EncounterEvent]]] = {}


def register(system: RuleSystem) -> RuleSystem:
    """Make a rule system playable under its `name`: one not taken already, whose own
    commands' types and events' names are no other book's (a record names its event by
    class name, a body its command by type)."""
    with _LOCK:
        if system.name in BUILT_IN or system.name in _REGISTERED:
            raise ValueError(f"a rule system called {system.name!r} is registered already")
        clashes = _clashes(system)
        if clashes:
            raise ValueError(f"{system.name!r} would take {', '.join(clashes)} of another book")
        _REGISTERED[system.name] = system
        _EVENTS.clear()
    return system


def unregister(name: str) -> None:
    """Forget a rule system `register` added (fraylog's own stay)."""
    with _LOCK:
        _REGISTERED.pop(name, None)
        _EVENTS.clear()


def _clashes(system: RuleSystem) -> list[str]:
    """The command types and event names `system` would take from another book: a command
    type another book plays with another class (the book's own subclass of a core command
    of that type is its own), an event name another class has."""
    core = {m.model_fields["type"].default: m for m in c.CORE_COMMANDS}
    kinds: dict[str, set[type]] = {kind: {m} for kind, m in core.items()}
    for other in all_rule_systems():
        for m in other.commands:
            kinds.setdefault(m.model_fields["type"].default, set()).add(m)
    names = event_classes()
    return [
        f"command {kind!r}"
        for m in system.commands
        if kinds.get(kind := m.model_fields["type"].default, {m}) - {m}
        and not (kind in core and issubclass(m, core[kind]))
    ] + [f"event {e.__name__!r}" for e in own_events(system) if names.get(e.__name__, e) is not e]


def own_events(system: RuleSystem) -> tuple[type[ev.EncounterEvent], ...]:
    """The event classes a rule book defines in its own package (its system module's)."""
    module = type(system).__module__
    package = module.rpartition(".")[0] or module
    return tuple(
        cls
        for cls in _subclasses(ev.EncounterEvent)
        if cls.__module__ == package or cls.__module__.startswith(f"{package}.")
    )


def event_classes() -> dict[str, type[ev.EncounterEvent]]:
    """Every event class a record may name now, by name: the core's and every registered
    book's."""
    key = rulesets()
    found = _EVENTS.get(key)
    if found is None:
        core = [cls for cls in _subclasses(ev.EncounterEvent) if cls.__module__ == ev.__name__]
        books = [cls for system in all_rule_systems() for cls in own_events(system)]
        found = _EVENTS[key] = {cls.__name__: cls for cls in (*core, *books)}
    return found


def _subclasses(cls: type) -> list[type]:
    found: list[type] = []
    for sub in cls.__subclasses__():
        found += [sub, *_subclasses(sub)]
    return found


def rulesets() -> tuple[str, ...]:
    """The names of every rule system that may be played now, fraylog's own first."""
    return (*BUILT_IN, *sorted(list(_REGISTERED)))


def get_rule_system(name: str) -> RuleSystem:
    """The rule system called `name`."""
    if name in _REGISTERED:
        return _REGISTERED[name]
    if name not in BUILT_IN:
        raise UnknownRuleSystem("RULESET", f"unknown rule system {name!r}", field="ruleset")
    if name not in _LOADED:
        with _LOCK:
            if name not in _LOADED:
                module, cls = BUILT_IN[name].split(":")
                _LOADED[name] = getattr(import_module(module), cls)()
    return _LOADED[name]


def all_rule_systems() -> list[RuleSystem]:
    """Every rule system that may be played now, in `rulesets()` order."""
    return [get_rule_system(name) for name in rulesets()]
