"""The view at version N equals the fold of the first N events (snapshots included), and
each correction, refolded from a snapshot, records what a refold of the whole history would."""

from __future__ import annotations

import contextlib
from dataclasses import replace
from uuid import UUID

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain import commands as c
from domain.corrections import changes, fold_without, is_correction, voided_by
from domain.errors import DomainError, RuleViolation
from domain.fold import fold
from domain.rulesystems.novus import commands as nc
from infra.app import Fraylog
from infra.settings import Settings
from projections.view import encounter_view, view_of
from tests.builders.novus import novus_stats

KINDS = ["melee_attack", "dodge", "move", "missile_attack", "first_aid", "none"]


def play(fraylog: Fraylog, seed: str, choices: list[int]) -> UUID:
    """Play a seeded Novus fight whose every decision comes from `choices`."""
    eid = UUID(fraylog.create_encounter("Prop", "novus", "seeded", seed).state.id)
    ids = [
        fraylog.add_combatant(eid, f"C{i}", "ab"[i % 2], novus_stats(hits=25, melee_ranks=5))[0]
        for i in range(3)
    ]
    fraylog.add_combatant(eid, "Soft", "b", novus_stats(hits=20, bonuses={"spd": -3}))
    fraylog.execute(eid, c.RollInitiative())
    for choice in choices:
        view = encounter_view(fraylog.state(eid))
        step = view["step"]
        if choice % 13 == 0:
            _try(fraylog, eid, c.Undo())
        elif choice % 19 == 0:
            _try(fraylog, eid, c.Redo())
        elif choice % 17 == 0:
            history = fraylog.event_log(eid)
            voided = voided_by(history)
            rolls = [
                e.originator_version
                for e in history
                if getattr(e, "rolls", None) or is_correction(e)
            ]
            rolls = [p for p in rolls if p not in voided]
            if rolls:
                _try(fraylog, eid, c.Void(target=rolls[choice % len(rolls)], reason="prop"))
        elif choice % 7 == 0:
            who = ids[choice % 3]  # undone, he may be gone: refused
            _try(
                fraylog,
                eid,
                c.SetCondition(combatant=who, condition="bleeding", rate=1 + choice % 3),
            )
        elif choice % 11 == 0:
            _try(fraylog, eid, c.AdjustHits(combatant=ids[choice % 3], amount=-(choice % 9)))
        elif step == "declaration":
            who = view["next_to_declare"]
            me = next(x for x in view["combatants"] if x["id"] == who)
            kind = KINDS[choice % len(KINDS)]
            foes = [x["id"] for x in view["combatants"] if x["id"] != who]
            if me["helpless"]:
                actions = [nc.ActionSpec(kind="first_aid")]
            elif kind == "none":
                actions = []
            elif kind in ("melee_attack", "missile_attack"):
                weapon = "sword" if kind == "melee_attack" else "bow"
                actions = [nc.ActionSpec(kind=kind, target=foes[choice % len(foes)], weapon=weapon)]
            elif kind == "first_aid":
                actions = [nc.ActionSpec(kind="first_aid", target=foes[choice % len(foes)])]
            else:
                actions = (
                    [nc.ActionSpec(kind=kind, ap=1 + choice % 2)]
                    if kind == "move"
                    else [nc.ActionSpec(kind=kind)]
                )
            try:
                fraylog.execute(eid, nc.Declare(combatant=who, actions=actions))
            except RuleViolation:  # e.g. a mook's unarmed friend: declare nothing instead
                fraylog.execute(eid, nc.Declare(combatant=who, actions=[]))
        elif step == "boons":
            boons = [nc.BoonSpec(name="bleeder")] if choice % 2 else []
            try:
                fraylog.execute(eid, nc.SpendBoons(boons=boons))
            except RuleViolation:  # Bleeder needs an edge: forgo the points
                fraylog.execute(eid, nc.SpendBoons(boons=[]))
        elif step == "snags":
            snags = [nc.SnagSpec(name="strained_muscle")] if choice % 2 else []
            fraylog.execute(eid, nc.SpendSnags(snags=snags))
        elif step == "resolution":
            fraylog.execute(eid, nc.Resolve())
        elif step == "end_round":
            fraylog.execute(eid, c.EndRound())
    return eid


def _try(fraylog: Fraylog, eid: UUID, command: object) -> None:
    # refused: nothing to undo, later commands depend on it, an undone combatant …
    with contextlib.suppress(DomainError):
        fraylog.execute(eid, command)


@pytest.mark.parametrize("interval", [3, 7])  # small: corrections refold from snapshots
@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(seed=st.text(min_size=1, max_size=8), choices=st.lists(st.integers(0, 1000), max_size=60))
def test_given_any_fight_when_loading_version_n_then_it_equals_the_fold_of_n_events(
    settings: Settings, interval: int, seed: str, choices: list[int]
) -> None:
    with Fraylog(replace(settings, snapshot_interval=interval)) as fraylog:
        eid = play(fraylog, seed, choices)
        events = list(fraylog.event_log(eid))
        latest = fraylog.state(eid).version
        assert [e.originator_version for e in events] == list(range(1, latest + 1))
        for n in range(1, latest + 1):
            assert encounter_view(fraylog.state(eid, n)) == view_of(events[:n]), f"version {n}"
        # each correction records the changes a refold of the whole history gives
        for n in (e.originator_version for e in events if is_correction(e)):
            whole = fold_without(events[: n - 1], voided_by(events[:n]))
            before = fold(events[: n - 1])
            assert before is not None
            assert events[n - 1].changes == changes(before.model_dump(), whole.model_dump()), n
        # the fold with corrections equals the fold without what they void
        clean = fold_without(events, voided_by(events))
        folded = fold(events)
        assert folded is not None
        assert folded.model_dump() == clean.model_dump()
        fresh = Fraylog(fraylog.settings)  # a cold load (snapshot + events) agrees too
        try:
            assert encounter_view(fresh.state(eid)) == view_of(events)
        finally:
            fresh.close()
