"""The copy a command works on (domain/state.py `copied`, Encounter.__deepcopy__): changing
anything in it leaves the cached encounter as it was."""

from __future__ import annotations

from copy import deepcopy
from typing import Any

from domain import commands as c
from domain.state import CombatantState
from tests.builders import duel


def changed_everywhere(value: Any) -> None:
    """Add to every list and dict, and change every model's field, reachable from `value`."""
    if isinstance(value, list):
        for item in list(value):
            changed_everywhere(item)
        value.append("changed")
    elif isinstance(value, dict):
        for item in list(value.values()):
            changed_everywhere(item)
        value["changed"] = "changed"
    elif hasattr(value, "__pydantic_fields__"):
        for name in type(value).model_fields:
            if isinstance(value, CombatantState) and name == "stats":
                continue  # shared by design: a stat block never changes once he is added
            item = getattr(value, name)
            changed_everywhere(item)
            if isinstance(item, int) and not isinstance(item, bool):
                object.__setattr__(value, name, item + 1)
        for item in (value.__pydantic_extra__ or {}).values():
            changed_everywhere(item)


def test_given_a_fight_under_way_when_its_copy_is_changed_everywhere_then_the_encounter_is_not():
    table = duel()
    a = table.who("A")["id"]
    table.run(c.SetCondition(combatant=a, condition="bleeding", rate=2))
    table.run(c.SetCondition(combatant=a, condition="stunned", count=2))
    table.run(c.TakeNote(text="ambush at the ford"))
    encounter = table.encounter
    before = encounter.state.model_dump()
    assert before["actions"] and before["combatants"][a]["wounds"]  # something to change

    copy = deepcopy(encounter)
    assert copy.state.model_dump() == before and copy.last_hash == encounter.last_hash
    changed_everywhere(copy.state)
    copy.state.version += 1

    assert encounter.state.model_dump() == before
    assert copy.state.model_dump(warnings=False) != before


def test_given_a_combatant_when_his_stats_are_read_often_then_validated_once_and_shared():
    from domain.rulesystems.novus.stats import NovusStats
    from domain.state import stats_as

    table = duel()
    who = table.state.combatants[table.who("A")["id"]]
    calls = []
    real = NovusStats.model_validate

    def counted(data: Any, *args: Any, **kw: Any) -> NovusStats:
        calls.append(data)
        return real(data, *args, **kw)

    NovusStats.model_validate = counted  # type: ignore[method-assign]
    try:
        first = stats_as(deepcopy(who), NovusStats)  # a copy of him shares his stat block
        again = stats_as(who, NovusStats)
    finally:
        NovusStats.model_validate = real  # type: ignore[method-assign]

    # then: one model for every read (no rule changes it: tests/conftest.py checks each test)
    assert len(calls) <= 1 and again is first and again.ar == who.stats["ar"]
