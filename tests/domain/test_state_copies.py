"""The copy a command works on (domain/state.py `state_copy`, Encounter.__deepcopy__): changing
anything in it leaves the cached encounter as it was."""

from __future__ import annotations

from copy import deepcopy
from typing import Any

import pytest

from domain import commands as c
from domain.encounter import Encounter
from domain.rulesystems.phantasia import commands as ph
from domain.state import CombatantState, EncounterState
from tests.builders import DomainTable, Table, duel
from tests.builders.phantasia import ORC, PC
from tests.builders.wits import fighter


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


def novus_fight() -> DomainTable:
    table = duel()
    a = table.who("A")["id"]
    table.run(c.SetCondition(combatant=a, condition="bleeding", rate=2))
    table.run(c.SetCondition(combatant=a, condition="stunned", count=2))
    table.run(c.TakeNote(text="ambush at the ford"))
    assert table.state.actions and table.state.combatants[a].wounds  # something to change
    return table


def phantasia_fight() -> DomainTable:
    table = Table("phantasia")
    for ip, (name, stats, side) in enumerate((("P", PC, "heroes"), ("O", ORC, "foes"))):
        table.add(name, stats, side=side)
        table.run(c.RollInitiative(combatant=table.ids[name], ip=30 - ip))
    table.run(ph.StartTurn())
    table.run(c.TakeNote(text="the orc guards the bridge"))
    return table


def wits_fight() -> DomainTable:
    table = Table("wits")
    table.add("A", fighter(), side="heroes")
    table.add("B", fighter(wits=10), side="foes")
    table.run(c.RollInitiative())
    table.run(c.AdjustHits(combatant=table.ids["B"], amount=-2))
    return table


@pytest.mark.parametrize("fight", [novus_fight, phantasia_fight, wits_fight])
def test_given_a_fight_under_way_when_its_copy_is_changed_everywhere_then_the_encounter_is_not(
    fight: Any,
) -> None:
    encounter = fight().encounter
    before = encounter.state.model_dump()

    copy = deepcopy(encounter)
    assert copy.state.model_dump() == before and copy.last_hash == encounter.last_hash
    assert copy.state.model_fields_set == encounter.state.model_fields_set
    for model, its_copy in [(encounter.state, copy.state)] + [
        (who, copy.state.combatants[key]) for key, who in encounter.state.combatants.items()
    ]:
        assert its_copy.__pydantic_fields_set__ is not model.__pydantic_fields_set__
    changed_everywhere(copy.state)
    copy.state.version += 1

    assert encounter.state.model_dump() == before
    assert copy.state.model_dump(warnings=False) != before


def test_given_one_list_held_twice_when_the_state_is_copied_then_the_copy_holds_one_copy_twice():
    # given: what the generic deep copy keeps (its memo), and what a rule could hold twice
    state = novus_fight().state
    held = ["one", {"deep": [1]}]
    state.options.update(first=held, second=held)
    state.marks.__pydantic_extra__ = {"again": held}  # type: ignore[assignment]
    # when
    copy = deepcopy(state)
    # then
    assert copy.options["first"] is copy.options["second"] is copy.marks.__pydantic_extra__["again"]
    assert copy.options["first"] == held and copy.options["first"] is not held
    assert copy.options["first"][1] is not held[1]


class OwnCopy:
    """A value with its own deep copy, which the walk must use."""

    def __init__(self) -> None:
        self.copies = 0

    def __deepcopy__(self, memo: dict[int, Any]) -> OwnCopy:
        self.copies += 1
        return OwnCopy()


def test_given_values_the_walk_does_not_know_when_the_state_is_copied_then_each_by_its_own_copy():
    state = novus_fight().state
    own, pair = OwnCopy(), ({"in": [1]}, 2)
    state.options.update(own=own, pair=pair, tags={"a", "b"})
    # when
    copy = deepcopy(state)
    # then
    assert own.copies == 1 and isinstance(copy.options["own"], OwnCopy)
    assert copy.options["pair"] == pair and copy.options["pair"][0] is not pair[0]
    assert copy.options["tags"] == {"a", "b"} and copy.options["tags"] is not state.options["tags"]


def test_given_an_encounter_when_copied_then_its_state_and_pending_events_are_its_own():
    table = novus_fight()
    encounter: Encounter = table.encounter
    # when
    copy = deepcopy(encounter)
    # then
    assert isinstance(copy.state, EncounterState) and copy.state is not encounter.state
    assert copy.pending_events == encounter.pending_events
    assert copy.pending_events is not encounter.pending_events
    who = next(iter(copy.state.combatants.values()))
    assert who.stats is encounter.state.combatants[who.id].stats  # shared by design


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
