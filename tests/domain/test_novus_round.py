"""Novus round sequence, AP budget, initiative and upkeep, as Given/When/Then on the domain.

Vectors and the rules they test (from the rule files):
- NOV-TV-1: NOV-DECL-3
- NOV-TV-2: NOV-DECL-3, NOV-DECL-4
- NOV-TV-13: NOV-INIT-2
- NOV-TV-14: NOV-DECL-1, NOV-RES-1, NOV-RES-2
- NOV-TV-20: NOV-END-1
- NOV-TV-23: NOV-HASTE-1, NOV-HASTE-2
- NOV-TV-49: NOV-MOVE-1
- Default NOV-AMB-10 (a round whose whole budget was carried takes no new action): NOV-DECL-3
"""

from __future__ import annotations

import pytest

from domain import commands as c
from domain.errors import RuleViolation
from domain.rulesystems.novus import commands as nc
from domain.rulesystems.novus.choices import choices as novus_choices
from tests.builders import Table, of_type
from tests.builders.novus import novus_stats, target_stats
from tests.choices_play import of, offered


@pytest.mark.over_http
def test_given_speed_2_wisdom_1_when_rolling_7_and_9_then_ip_19() -> None:
    t = Table()  # NOV-TV-13
    t.add("A", novus_stats(bonuses={"spd": 2, "wis": 1}))
    events = t.run(c.RollInitiative(combatant=t.ids["A"]), initiative=[7, 9])
    assert events[0].ip == 19 and events[0].raw == 16


@pytest.mark.over_http
def test_given_an_ip_when_rolling_again_then_refused_once_per_combat() -> None:
    t = Table()
    t.add("A", novus_stats())
    t.ip("A", 10)
    with pytest.raises(RuleViolation) as e:
        t.run(c.RollInitiative(combatant=t.ids["A"]), initiative=[3, 4])
    assert e.value.rule == "NOV-INIT-3"


def test_given_ips_19_12_15_when_a_has_two_attacks_then_declare_low_to_high_resolve_high_to_low():
    t = Table()  # NOV-TV-14 (A's second attack comes from Haste, NOV-HASTE-1)
    for name in ("A", "B", "C"):
        t.add(name, novus_stats(), side=name)
    t.ip("A", 19), t.ip("B", 12), t.ip("C", 15)
    t.run(c.SetCondition(combatant=t.ids["A"], condition="hasted", count=1))
    declared = []
    while t.view["step"] == "declaration":
        name = next(x["name"] for x in t.view["combatants"] if x["id"] == t.view["next_to_declare"])
        declared.append(name)
        foe = "B" if name != "B" else "C"
        attacks = 2 if name == "A" else 1
        t.declare(name, *[{"kind": "melee_attack", "target": foe, "weapon": "sword"}] * attacks)
    assert declared == ["B", "C", "A"]
    order = [t.state.combatants[a["combatant"]].name for a in t.view["actions"]]
    assert order == ["A", "C", "B", "A"]


@pytest.mark.over_http
def test_given_b_must_declare_first_when_a_declares_then_refused_unless_gm_overrides() -> None:
    t = Table()
    t.add("A", novus_stats())
    t.add("B", novus_stats())
    t.ip("A", 19), t.ip("B", 12)
    with pytest.raises(RuleViolation) as e:
        t.declare("A")
    assert e.value.rule == "NOV-DECL-1"
    events = t.declare("A", out_of_order=True)
    assert events[0].out_of_order is True


def test_given_budget_5_when_declaring_dodge_and_medium_attack_then_refused() -> None:
    t = Table()  # NOV-TV-1
    t.add("A", novus_stats())
    t.add("B", novus_stats())
    t.ip("A", 19), t.ip("B", 12)
    t.declare("B")
    with pytest.raises(RuleViolation) as e:
        t.declare(
            "A", {"kind": "dodge"}, {"kind": "melee_attack", "target": "B", "weapon": "sword"}
        )
    assert e.value.rule == "NOV-DECL-3"


def test_given_budget_5_when_declaring_power_attack_alone_then_2_ap_carried_and_resolves_next():
    t = Table()  # NOV-TV-2
    t.add("A", novus_stats())
    t.add("B", target_stats(def_=30))
    t.ip("A", 19), t.ip("B", 12)
    t.declare("B")
    events = t.declare("A", {"kind": "power_attack", "target": "B", "weapon": "sword"})
    assert (events[0].ap_spent, events[0].ap_carried) == (5, 2)
    assert t.view["step"] == "end_round"  # nothing resolves this round
    t.run(c.EndRound())
    assert t.who("A")["ap_budget"] == 3
    t.declare("B")
    t.declare("A", {"kind": "draw_weapon"})
    assert [a["kind"] for a in t.view["actions"]] == ["power_attack", "draw_weapon"]
    t.resolve([5, 5])
    with pytest.raises(RuleViolation):  # 3 AP left, a 4 AP attack does not fit alongside
        t.declare("A", {"kind": "melee_attack", "target": "B", "weapon": "sword"})


def _reloading_heavy_crossbow() -> Table:
    """A (IP 19) reloads a Heavy crossbow (10 AP): 5 this round, 5 carried, so round 2's
    whole budget is gone (NOV-DECL-4); B (IP 12) declares nothing. Round 2, B declared."""
    t = Table()
    t.add("A", novus_stats())
    t.add("B", target_stats())
    t.ip("A", 19), t.ip("B", 12)
    t.declare("B")
    events = t.declare("A", {"kind": "reload_heavy_crossbow"})
    assert (events[0].ap_spent, events[0].ap_carried) == (5, 5)
    t.run(c.EndRound())
    t.declare("B")
    return t


@pytest.mark.parametrize(
    "action",
    [
        {"kind": "draw_weapon"},
        {"kind": "power_attack", "target": "B", "weapon": "sword"},  # over budget, alone
        {"kind": "prepare_reroll"},  # "the whole round", which is 0 AP
    ],
    ids=lambda a: a["kind"],
)
def test_given_a_round_whose_whole_budget_was_carried_when_declaring_an_action_then_refused(
    action: dict,
) -> None:
    t = _reloading_heavy_crossbow()  # Default NOV-AMB-10
    assert t.who("A")["ap_budget"] == 0
    recorded = len(t.history())
    with pytest.raises(RuleViolation) as e:
        t.declare("A", action)
    assert (e.value.rule, e.value.field) == ("NOV-DECL-3", "actions")
    assert len(t.history()) == recorded
    assert t.view["next_to_declare"] == t.ids["A"]


def test_given_a_round_whose_whole_budget_was_carried_when_declaring_nothing_then_reload_resolves():
    t = _reloading_heavy_crossbow()
    events = t.declare("A")
    assert (events[0].ap_budget, events[0].ap_spent, events[0].ap_carried) == (0, 0, 0)
    assert [(a["kind"], a["round"]) for a in t.view["actions"]] == [("reload_heavy_crossbow", 2)]


def test_given_a_round_whose_whole_budget_was_carried_when_asking_choices_then_only_no_action():
    t = _reloading_heavy_crossbow()
    (declaration,) = of(offered(t), "declare", t.ids["A"])  # NOV-DECL-3, Default NOV-AMB-10
    assert declaration["command"]["actions"] == []
    assert declaration["label"] == "A declares no action"
    assert declaration["fields"]["actions"]["maxItems"] == 0
    candidates = [x for x in novus_choices(t.state) if x["combatant"] == t.ids["A"]]
    assert [x["command"]["actions"] for x in candidates if x["type"] == "declare"] == [[]]


def _reloading_heavy_crossbow_at_budget_3() -> Table:
    """Round 1: A (IP 19) declares a Power Attack (7 AP: 5 now, 2 carried), so round 2's
    budget is 3; round 2: he reloads a Heavy crossbow (10 AP: 3 now, 7 carried) while his
    Power Attack resolves; B (IP 12) declares nothing. Round 3, B declared."""
    t = Table()
    t.add("A", novus_stats())
    t.add("B", target_stats(def_=25))
    t.ip("A", 19), t.ip("B", 12)
    t.declare("B")
    t.declare("A", {"kind": "power_attack", "target": "B", "weapon": "sword"})
    t.run(c.EndRound())
    t.declare("B")
    events = t.declare("A", {"kind": "reload_heavy_crossbow"})
    assert (events[0].ap_budget, events[0].ap_spent, events[0].ap_carried) == (3, 3, 7)
    t.resolve([8, 8])  # the Power Attack: 16 + AB 9 = 25 against DEF 25, a hit, no Boon
    assert t.view["step"] == "end_round"
    t.run(c.EndRound())
    t.declare("B")
    return t


def test_given_7_ap_carried_when_round_3_pays_5_then_round_4_owes_the_last_2() -> None:
    t = _reloading_heavy_crossbow_at_budget_3()  # NOV-DECL-4, NOV-AP-2
    assert (t.who("A")["ap_budget"], t.who("A")["ap_carried"]) == (0, 7)
    events = t.declare("A")  # budget 0: no new action (Default NOV-AMB-10)
    assert (events[0].ap_budget, events[0].ap_spent, events[0].ap_carried) == (0, 0, 2)
    assert t.who("A")["ap_carried"] == 2
    assert [(a.kind, a.round) for a in t.state.actions] == [("reload_heavy_crossbow", 4)]
    assert t.view["step"] == "end_round"  # nothing of his resolves in round 3
    t.run(c.EndRound())
    a = t.who("A")
    assert (a["ap_budget"], a["action_points_left"], a["ap_carried"]) == (3, 3, 2)


def test_given_2_ap_owed_by_round_4_when_declaring_then_budget_3_and_reload_resolves():
    t = _reloading_heavy_crossbow_at_budget_3()
    t.declare("A")
    t.run(c.EndRound())
    t.declare("B")
    with pytest.raises(RuleViolation) as e:  # 1 + 2 + 1 AP do not fit in the 3 left
        t.declare("A", {"kind": "draw_weapon"}, {"kind": "dodge"}, {"kind": "draw_weapon"})
    assert e.value.rule == "NOV-DECL-3"
    events = t.declare("A", {"kind": "dodge"}, {"kind": "draw_weapon"})
    assert (events[0].ap_budget, events[0].ap_spent, events[0].ap_carried) == (3, 3, 0)
    queued = [(a["kind"], a["round"]) for a in t.view["actions"]]
    assert queued == [("reload_heavy_crossbow", 4), ("dodge", 4), ("draw_weapon", 4)]
    t.run(nc.Resolve())  # NOV-DECL-4: the reload resolves at his IP in round 4
    statuses = [(a.kind, a.status) for a in t.state.actions]
    assert statuses[0] == ("reload_heavy_crossbow", "resolved")


def test_given_2_ap_owed_by_round_4_when_asking_choices_then_offered_within_3_ap():
    t = _reloading_heavy_crossbow_at_budget_3()
    t.declare("A")
    t.run(c.EndRound())
    t.declare("B")
    declarations = of(offered(t), "declare", t.ids["A"])
    labels = [d["label"] for d in declarations]
    assert "A declares Draw Weapon (1 AP of 3)" in labels
    assert declarations[0]["fields"]["actions"]["description"].startswith(
        "Actions for this round within 3 AP"
    )


def test_given_haste_when_declaring_dodge_and_two_attacks_then_10_ap_accepted() -> None:
    t = Table()  # NOV-TV-23
    t.add("A", novus_stats())
    t.add("B", novus_stats())
    t.ip("A", 19), t.ip("B", 12)
    t.run(c.SetCondition(combatant=t.ids["A"], condition="hasted", count=1))
    t.declare("B")
    swing = {"kind": "melee_attack", "target": "B", "weapon": "sword"}
    events = t.declare("A", {"kind": "dodge"}, swing, swing)
    assert events[0].ap_spent == 10 and events[0].ap_budget == 10


def test_given_haste_when_declaring_two_fast_casts_then_refused_one_spell_a_round() -> None:
    t = Table()  # NOV-TV-23
    t.add("A", novus_stats())
    t.ip("A", 19)
    t.run(c.SetCondition(combatant=t.ids["A"], condition="hasted", count=1))
    with pytest.raises(RuleViolation) as e:
        t.declare("A", {"kind": "fast_cast"}, {"kind": "fast_cast"})
    assert e.value.rule == "NOV-HASTE-2"


@pytest.mark.parametrize(("weapon", "rule"), [("sword", "NOV-MAS-1"), ("bow", "NOV-MAS-5")])
def test_given_two_attacks_without_haste_or_skill_when_declaring_then_refused(
    weapon: str, rule: str
) -> None:
    t = Table()  # skill bonus 9 (7 ranks + Dex 2): one attack a round (NOV-MAS-1)
    t.add("A", novus_stats())
    t.add("B", novus_stats())
    t.ip("A", 19), t.ip("B", 12)
    t.declare("B")
    kind = "melee_attack" if weapon == "sword" else "missile_attack"
    swing = {"kind": kind, "target": "B", "weapon": weapon}
    with pytest.raises(RuleViolation) as e:
        t.declare("A", swing, swing)
    assert e.value.rule == rule


def _in_round_two_with(t: Table, name: str) -> None:
    t.ip(name, 10)
    t.declare(name)
    t.run(c.EndRound())


def test_given_bleeding_3_stun_2_daze_1_when_round_ends_then_hits_17_stun_1_daze_ends() -> None:
    t = Table()  # NOV-TV-20
    t.add("Brakka", novus_stats(hits=20))
    t.run(c.SetCondition(combatant=t.ids["Brakka"], condition="bleeding", rate=3))
    t.run(c.SetCondition(combatant=t.ids["Brakka"], condition="stunned", count=2))
    t.run(c.SetCondition(combatant=t.ids["Brakka"], condition="dazed", count=1))
    t.ip("Brakka", 10)
    t.run(c.EndRound())  # round 1: the wound bleeds, the counts are new and stay
    assert t.who("Brakka")["hits"] == 17
    assert (t.who("Brakka")["stun_count"], t.who("Brakka")["daze_count"]) == (2, 1)
    t.run(c.AdjustHits(combatant=t.ids["Brakka"], amount=3))
    ticks = t.run(c.EndRound())  # round 2: stunned, so no declaration is due
    upkeep = of_type(ticks, "UpkeepTicked")
    assert [(u.kind, u.hits_before, u.hits_after) for u in upkeep if u.kind == "bleeding"] == [
        ("bleeding", 20, 17)
    ]
    assert t.who("Brakka")["hits"] == 17
    assert t.who("Brakka")["stun_count"] == 1
    assert t.who("Brakka")["daze_count"] == 0 and "dazed" not in t.who("Brakka")["conditions"]
    assert all(u.cause is not None for u in upkeep)  # each tick points at its cause


def test_given_b_stunned_before_his_turn_when_resolving_then_his_attack_is_lost() -> None:
    t = Table()  # NOV-COND-3 (Default NOV-AMB-27)
    t.add("A", novus_stats())
    t.add("B", novus_stats())
    t.ip("A", 19), t.ip("B", 12)
    t.declare("B", {"kind": "melee_attack", "target": "A", "weapon": "sword"})
    t.declare("A", {"kind": "dodge"})
    t.resolve()  # A's dodge
    t.run(c.SetCondition(combatant=t.ids["B"], condition="stunned", count=1))
    lost = t.resolve()
    assert [(type(e).__name__, e.rule) for e in lost] == [("ActionLost", "NOV-COND-3")]
    assert t.view["step"] == "end_round"


def test_given_no_weapon_when_declaring_an_attack_then_refused() -> None:
    t = Table()
    t.add("A", novus_stats())
    t.add("B", target_stats())
    t.ip("A", 19), t.ip("B", 12)
    with pytest.raises(RuleViolation) as e:
        t.declare("B", {"kind": "melee_attack", "target": "A"})
    assert e.value.rule == "NOV-DMG-1"


def test_given_run_2_ap_when_attacking_then_minus_4_and_whole_round_run_then_minus_10_next():
    t = Table()  # NOV-TV-49
    t.add("A", novus_stats())
    t.add("B", target_stats(def_=10, ar=0))
    t.ip("A", 19), t.ip("B", 12)
    t.declare("B", {"kind": "run", "ap": 5})
    t.declare(
        "A", {"kind": "run", "ap": 2}, {"kind": "missile_attack", "target": "B", "weapon": "bow"}
    )
    t.resolve()  # A's run
    events = t.resolve([5, 5])
    assert events[0].attack_bonus["running"] == -4
    t.resolve()  # B's run
    t.run(c.EndRound())
    assert {m["name"]: m["value"] for m in t.who("B")["modifiers"]} == {"running": -10}
