"""One test at least for each Novus AUTO rule the vector tests do not already name, and the
second review's edge cases (through the domain and the HTTP API)."""

from __future__ import annotations

import pytest

from domain import commands as c
from domain.errors import RuleViolation
from domain.rulesystems.novus import commands as nc
from tests.builders import Table, duel, of_type
from tests.builders.novus import novus_stats, target_stats


def pair(a_ip: int = 19, b_ip: int = 12, **a_stats) -> Table:
    t = Table()
    t.add("A", novus_stats(**a_stats), side="h")
    t.add(
        "B",
        target_stats(
            def_=10, ar=0, hits=80, weapons=[{"name": "club", "dr": 4, "stat": "str", "ranks": 5}]
        ),
        side="f",
    )
    t.ip("A", a_ip), t.ip("B", b_ip)
    return t


@pytest.mark.over_http
def test_nov_ap_2_budget_is_5_less_carried_and_a_late_hold() -> None:
    t = pair()  # NOV-AP-1, NOV-AP-2
    t.declare("B")
    assert t.who("A")["ap_budget"] == 5


@pytest.mark.over_http
def test_nov_ap_3_a_combat_move_costs_its_own_ap_and_nov_cmv_1_gives_ab_and_def() -> None:
    t = pair()  # NOV-AP-3, NOV-CMV-1, NOV-CMV-2: All Out Attack +2 AB, −2 DEF, +2 AP
    t.declare("B")
    events = t.declare(
        "A", {"kind": "melee_attack", "target": "B", "weapon": "sword", "move": "all_out_attack"}
    )
    assert events[0].actions[0]["cost"] == 6 and t.who("A")["def"] == 15 - 2
    t.run(c.EndRound())  # it spilled: 6 > 5, alone, so it carries 1 AP (NOV-DECL-4)
    t.declare("B"), t.declare("A")
    attack = of_type(t.resolve([5, 5], boons=[]), "AttackRolled")[0]
    assert attack.attack_bonus["all_out_attack"] == 2


@pytest.mark.parametrize(
    ("kind", "ap", "ok"),
    [("simple", 2, True), ("simple", 3, False), ("complex", 5, True), ("complex", 1, False)],
)
def test_nov_ap_4_gm_priced_actions_within_their_range(kind: str, ap: int, ok: bool) -> None:
    t = pair()  # NOV-AP-4
    t.declare("B")
    if ok:
        assert t.declare("A", {"kind": kind, "ap": ap})[0].ap_spent == ap
    else:
        with pytest.raises(RuleViolation) as e:
            t.declare("A", {"kind": kind, "ap": ap})
        assert e.value.rule == "NOV-AP-4"


def test_nov_core_1_a_total_equal_to_the_tn_succeeds() -> None:
    t = duel()  # NOV-CORE-1, NOV-ATK-2: 11 + 9 = 20 against DEF 20
    assert of_type(t.resolve([5, 6]), "AttackRolled")[0].hit


def test_nov_init_1_3_ip_orders_resolution_only_once_per_combat() -> None:
    t = pair()  # NOV-INIT-1, NOV-INIT-3, NOV-RES-1
    t.declare("B", {"kind": "melee_attack", "target": "A", "weapon": "club"})
    t.declare("A", {"kind": "dodge"})
    assert [t.state.combatants[a["combatant"]].name for a in t.view["actions"]] == ["A", "B"]
    t.resolve(), t.resolve([5, 5])
    t.run(c.EndRound())
    assert t.view["step"] == "declaration"  # NOV-SEQ-2, NOV-END-2: no new roll


def test_nov_seq_2_init_5_a_late_joiner_rolls_in_step_1_of_the_next_round() -> None:
    t = pair()  # NOV-SEQ-2, NOV-INIT-5 (Default NOV-AMB-9)
    t.declare("B")
    t.add("Late", novus_stats())
    with pytest.raises(RuleViolation):
        t.run(c.RollInitiative(combatant=t.ids["Late"]), initiative=[5, 5])
    t.declare("A")
    t.run(c.EndRound())
    assert t.view["step"] == "initiative"
    t.run(c.RollInitiative(combatant=t.ids["Late"], ip=8))  # the GM may enter it
    assert t.view["step"] == "declaration"


def test_nov_res_4_equal_ip_breaks_ties_by_raw_dice_then_entry() -> None:
    t = Table()  # NOV-RES-4 (Default NOV-AMB-8)
    for name in ("First", "Second", "Third"):
        t.add(name, novus_stats())
    t.run(
        c.RollInitiative(),
        **{"initiative:First": [5, 5], "initiative:Second": [6, 6], "initiative:Third": [5, 5]},
    )
    t.run(c.AdjustHits(combatant=t.ids["First"], amount=0))
    order = [t.state.combatants[i].name for i in t.view["order"]]
    assert order == ["Second", "First", "Third"]


def test_nov_rnd_1_a_round_is_5_seconds() -> None:
    t = pair()  # NOV-RND-1
    t.declare("B"), t.declare("A")
    t.run(c.EndRound())
    assert t.view["elapsed_seconds"] == 5


def test_nov_save_5_saves_earn_no_boon_points() -> None:
    t = pair()  # NOV-SAVE-5 (Default NOV-AMB-40)
    save = t.run(nc.Save(combatant=t.ids["A"], stat="con", tn=5), save=[10, 10, 9, 9])[0]
    assert save.margin > 30 and not t.view["pending_boons"]


def test_nov_cond_4_getting_up_costs_2_ap_and_ends_prone() -> None:
    t = pair()  # NOV-COND-4
    t.run(c.SetCondition(combatant=t.ids["A"], condition="prone"))
    t.declare("B")
    assert t.declare("A", {"kind": "get_up"})[0].ap_spent == 2
    t.resolve()
    assert "prone" not in t.who("A")["conditions"]


def test_nov_hits_2_hits_may_go_below_zero() -> None:
    t = pair()  # NOV-HITS-2
    t.run(c.AdjustHits(combatant=t.ids["B"], amount=-85))
    assert t.who("B")["hits"] == -5 and t.who("B")["dying"]


def test_nov_fdef_2_4_not_with_a_dodge_and_only_with_a_melee_weapon() -> None:
    t = pair()  # NOV-FDEF-2, NOV-FDEF-4
    t.declare("B")
    with pytest.raises(RuleViolation) as e:
        t.declare(
            "A",
            {"kind": "dodge"},
            {"kind": "melee_attack", "target": "B", "weapon": "sword", "defensive": 2},
        )
    assert e.value.rule == "NOV-FDEF-2"
    with pytest.raises(RuleViolation) as e:
        t.declare("A", {"kind": "missile_attack", "target": "B", "weapon": "bow", "defensive": 2})
    assert e.value.rule == "NOV-FDEF-4"


def skilled(**more) -> dict:
    return novus_stats(
        weapons=[{"name": "sword", "dr": 6, "stat": "dex", "ranks": 23}], bonuses={"dex": 2}, **more
    )


def test_nov_fdef_5_the_shift_comes_off_ab_before_the_split_and_counts_once() -> None:
    t = Table()  # NOV-FDEF-5, NOV-MAS-3, NOV-MAR-1
    t.add("A", skilled())
    t.add("B", target_stats(def_=10, ar=0, hits=80))
    t.ip("A", 19), t.ip("B", 12)
    t.declare("B")
    swing = {"kind": "melee_attack", "target": "B", "weapon": "sword", "defensive": 4}
    events = t.declare("A", swing, swing)  # 25 − 4 (second attack) − 4 (defensive) = 17
    assert [a["params"]["ab_share"] for a in events[0].actions] == [9, 8]
    assert t.who("A")["def"] == 15 + 2  # +2 for the 4 moved, once, not once per attack
    assert [a["extra"] for a in t.view["actions"]] == [False, True]


def test_nov_mas_4_advanced_combat_training_replaces_the_high_skill_rule() -> None:
    t = pair(advanced_combat_training=True)  # NOV-MAS-4
    t.declare("B")
    swing = {"kind": "melee_attack", "target": "B", "weapon": "sword"}
    events = t.declare("A", swing, swing)
    assert not any("ab_share" in a["params"] for a in events[0].actions)


def test_nov_cancel_1_3_5_mar_2_no_new_action_after_a_first_attack() -> None:
    t = Table()  # NOV-CANCEL-1, -3, -5, NOV-MAR-2
    t.add("A", skilled())
    t.add("B", target_stats(def_=10, ar=0, hits=80))
    t.ip("A", 19), t.ip("B", 12)
    t.declare("B")
    swing = {"kind": "melee_attack", "target": "B", "weapon": "sword"}
    t.declare("A", swing, swing)
    t.resolve([5, 5], boons=[])
    with pytest.raises(RuleViolation) as e:
        t.run(nc.Cancel(combatant=t.ids["A"], replacement=nc.ActionSpec(kind="dodge")))
    assert e.value.rule == "NOV-CANCEL-5"
    dropped = t.run(nc.Cancel(combatant=t.ids["A"]))[0]  # the rest may still be dropped
    assert len(dropped.cancelled) == 1 and t.view["step"] == "end_round"


def test_a_cancel_replacement_is_one_melee_attack_at_most_and_not_cancelled_again() -> None:
    t = pair()  # NOV-CANCEL-2, -4 (Default NOV-AMB-15)
    t.declare("B")
    t.declare("A", {"kind": "brawl", "target": "B"})
    with pytest.raises(RuleViolation) as e:
        t.run(
            nc.Cancel(
                combatant=t.ids["A"],
                replacement=nc.ActionSpec(kind="melee_attack", target=t.ids["B"], weapon="sword"),
            )
        )
    assert e.value.rule == "NOV-CANCEL-4"
    with pytest.raises(RuleViolation) as e:
        t.run(
            nc.Cancel(
                combatant=t.ids["A"],
                replacement=nc.ActionSpec(kind="power_attack", target=t.ids["B"], weapon="sword"),
            )
        )
    assert e.value.rule == "NOV-CANCEL-2"
    t.run(nc.Cancel(combatant=t.ids["A"], replacement=nc.ActionSpec(kind="dodge")))
    with pytest.raises(RuleViolation):
        t.run(nc.Cancel(combatant=t.ids["A"], replacement=nc.ActionSpec(kind="perception")))


def test_a_first_aid_replacement_takes_the_minus_5() -> None:
    t = pair(first_aid=10)  # NOV-CANCEL-2 item 3
    t.run(c.SetCondition(combatant=t.ids["A"], condition="bleeding", rate=1))
    t.declare("B"), t.declare("A", {"kind": "perception"})
    t.run(nc.Cancel(combatant=t.ids["A"], replacement=nc.ActionSpec(kind="first_aid")))
    aid = of_type(t.resolve(dice={"first_aid": [5, 5]}), "FirstAidRolled")[0]
    assert aid.total == 10 + 10 - 5


@pytest.mark.over_http
def test_a_spell_replacement_after_a_cast_this_round_is_refused() -> None:
    t = pair()  # NOV-HASTE-2 (Default NOV-AMB-20)
    t.declare("B"), t.declare("A", {"kind": "fast_cast"}, {"kind": "perception"})
    t.resolve()
    with pytest.raises(RuleViolation) as e:
        t.run(nc.Cancel(combatant=t.ids["A"], replacement=nc.ActionSpec(kind="counterspell")))
    assert e.value.rule == "NOV-HASTE-2"


def test_an_opportunity_attack_keeps_the_declared_attacks_share_and_weapon() -> None:
    t = Table()  # NOV-OA-2
    t.add("A", skilled())
    t.add("B", target_stats(def_=10, ar=0, hits=80))
    t.add("C", target_stats(def_=10, ar=0, hits=80))
    t.ip("A", 5), t.ip("B", 19), t.ip("C", 1)
    t.declare("C")
    swing = {"kind": "melee_attack", "target": "C", "weapon": "sword", "called_shot": "leg"}
    t.declare("A", swing, swing), t.declare("B", {"kind": "move", "ap": 1})
    t.run(nc.OpportunityAttack(combatant=t.ids["A"], target=t.ids["B"]))
    ab = of_type(t.resolve([5, 5], boons=[]), "AttackRolled")[0].attack_bonus
    assert "share of AB" in ab and ab["called shot: leg"] == -4


def test_a_stunned_combatant_takes_no_opportunity_attack() -> None:
    t = pair()  # NOV-COND-3, NOV-OA-1
    t.declare("B", {"kind": "move", "ap": 1}), t.declare("A", {"kind": "perception"})
    t.run(c.SetCondition(combatant=t.ids["A"], condition="stunned", count=1))
    with pytest.raises(RuleViolation) as e:
        t.run(nc.OpportunityAttack(combatant=t.ids["A"], target=t.ids["B"], weapon="sword"))
    assert e.value.rule == "NOV-COND-3"


def test_an_improvised_weapon_halves_its_own_damage_not_a_strong_attack() -> None:
    t = duel(
        novus_stats(bonuses={"str": 4, "dex": 2}),
        target_stats(def_=10, ar=0, hits=80),
        {"kind": "melee_attack", "target": "T", "weapon": "sword", "improvised": True},
    )
    damage = of_type(
        t.resolve([10, 10, 5, 1], boons=[nc.BoonSpec(name="strong_attack")]), "DamageApplied"
    )[0]  # BD 6 + 2 = 8 → 4, then Strong Attack +4 in full
    assert sum(damage.breakdown["base_damage"].values()) == 4 + 4


def test_a_lightning_attack_from_the_saddle_rolls_riding_only_once() -> None:
    sword = {"name": "sword", "dr": 6, "stat": "str", "ranks": 7, "size": "small"}
    t = duel(
        novus_stats(riding=10, weapons=[sword], bonuses={"str": 2}, mounted_combat=1),
        target_stats(def_=10, ar=0, hits=80),
        {"kind": "melee_attack", "target": "T", "weapon": "sword", "mounted": True},
    )
    t.resolve([10, 10, 5, 1], dice={"riding": [9, 9]}, boons=[nc.BoonSpec(name="lightning_attack")])
    events = t.resolve([5, 5])
    assert not of_type(events, "RidingRolled")


def test_a_block_counts_the_blockers_fighting_defensively() -> None:
    t = pair()  # NOV-FDEF-3
    t.declare("B", {"kind": "melee_attack", "target": "A", "weapon": "club"})
    t.declare("A", {"kind": "melee_attack", "target": "B", "weapon": "sword", "defensive": 4})
    t.run(
        nc.Cancel(combatant=t.ids["A"], replacement=nc.ActionSpec(kind="block", target=t.ids["B"]))
    )
    block = of_type(t.resolve(dice={"block": [5, 5]}), "BlockRolled")[0]
    assert block.rolls["block"]["modifiers"].get("fighting defensively", 0) == 0  # it ended


@pytest.mark.parametrize(
    "field", [{"called_shot": "head"}, {"defensive": 2}, {"mounted": True}, {"direction": "rear"}]
)
def test_attack_situations_on_a_non_attack_are_refused(field: dict) -> None:
    t = pair()
    t.declare("B")
    with pytest.raises(RuleViolation):
        t.declare("A", {"kind": "perception", **field})


def test_a_share_of_ab_on_a_single_attack_is_refused() -> None:
    t = pair()  # NOV-MAS-3
    t.declare("B")
    with pytest.raises(RuleViolation) as e:
        t.declare("A", {"kind": "melee_attack", "target": "B", "weapon": "sword", "ab_share": 3})
    assert e.value.rule == "NOV-MAS-3"


def test_nov_atk_6_a_spell_vs_def_uses_one_casting_roll_twice() -> None:
    t = pair()  # NOV-ATK-6
    t.declare("B")
    t.declare(
        "A",
        {
            "kind": "cast_spell",
            "target": "B",
            "casting_tn": 18,
            "spell_bonus": 6,
            "spell_damage": 7,
        },
    )
    attack = of_type(events := t.resolve(dice={"casting": [7, 7]}), "AttackRolled")[0]
    assert attack.defense["cast"] and attack.total == 20 and attack.margin == 10
    assert of_type(events, "DamageApplied")[0].amount == 7 + 10
    t.run(c.EndRound())
    (
        t.declare("B"),
        t.declare("A", {"kind": "cast_spell", "target": "B", "casting_tn": 25, "spell_bonus": 6}),
    )
    fizzled = of_type(t.resolve(dice={"casting": [7, 7]}), "AttackRolled")[0]
    assert not fizzled.defense["cast"] and not fizzled.hit


def test_nov_call_2_6_called_shot_ar_and_head_boons_only() -> None:
    """NOV-CALL-2 (the location's Called Shot AR) and NOV-CALL-6 are shown in
    test_novus_special.py's arm and head tests; this names them for the rule map."""
    t = pair()
    t.declare("B")
    t.declare(
        "A", {"kind": "melee_attack", "target": "B", "weapon": "sword", "called_shot": "head"}
    )
    attack = of_type(t.resolve([9, 9]), "AttackRolled")[0]  # 18 + 9 − 8 = 19 vs 10: M 9
    assert attack.attack_bonus["called shot: head"] == -8
    assert attack.head_points == (8 + 9 - 1) // 5  # K = Con bonus 0 + 5; AR 0 at the head


def test_nov_cz_1_the_attack_direction_is_the_gms_call() -> None:
    t = pair()  # NOV-CZ-1, NOV-CZ-2
    t.declare("B")
    t.declare("A", {"kind": "melee_attack", "target": "B", "weapon": "sword", "direction": "flank"})
    assert of_type(t.resolve([5, 5]), "AttackRolled")[0].attack_bonus["flank"] == 2


def test_nov_res_3_hold_and_cancel_resolve_out_of_ip_order() -> None:
    t = pair()  # NOV-RES-3
    t.declare("B", {"kind": "perception"})
    t.declare("A", {"kind": "perception"}, hold_ip=5)
    assert [t.state.combatants[a["combatant"]].name for a in t.view["actions"]] == ["B", "A"]


def test_given_a_hasted_blocker_fighting_defensively_when_his_block_resolves_then_the_ab_is_off():
    t = Table()  # NOV-FDEF-3, NOV-CMV-2
    t.add("A", novus_stats(), side="h")  # block skill 9
    t.add("B", novus_stats(), side="f")
    t.ip("A", 19), t.ip("B", 12)
    t.run(c.SetCondition(combatant=t.ids["A"], condition="hasted", count=1))
    t.declare("B", {"kind": "melee_attack", "target": "A", "weapon": "sword"})
    t.declare(
        "A",
        {"kind": "block", "target": "B"},
        {"kind": "melee_attack", "target": "B", "weapon": "sword", "defensive": 4},
    )
    block = of_type(t.resolve(dice={"block": [5, 5]}), "BlockRolled")[0]
    assert block.rolls["block"]["modifiers"]["fighting defensively"] == -4
    assert block.total == 5 + 5 + 9 - 4  # off the Block roll (docs/rules/novus.md, Block)


def test_given_a_disarmed_blocker_when_his_block_resolves_then_it_has_no_skill() -> None:
    t = pair()  # NOV-CMV-2, Disarm Foe
    t.run(c.SetCondition(combatant=t.ids["A"], condition="disarmed"))
    t.declare("B", {"kind": "melee_attack", "target": "A", "weapon": "club"})
    t.declare("A", {"kind": "block", "target": "B"})
    block = of_type(t.resolve(dice={"block": [5, 5]}), "BlockRolled")[0]
    assert block.rolls["block"]["modifiers"]["block skill"] == 0


def test_fighting_defensively_after_a_dodge_is_refused_through_a_cancel_too() -> None:
    t = pair()  # NOV-FDEF-2
    t.declare("B")
    t.declare("A", {"kind": "dodge"}, {"kind": "perception"})
    t.resolve()
    with pytest.raises(RuleViolation) as e:
        t.run(
            nc.Cancel(
                combatant=t.ids["A"],
                replacement=nc.ActionSpec(
                    kind="melee_attack", target=t.ids["B"], weapon="sword", defensive=2
                ),
            )
        )
    assert e.value.rule == "NOV-FDEF-2"


def test_a_cancelled_power_attack_owes_no_ap_next_round() -> None:
    t = pair()  # NOV-DECL-4, NOV-CANCEL-1
    t.declare("B", {"kind": "perception"})
    t.declare("A", {"kind": "power_attack", "target": "B", "weapon": "sword"})
    t.run(nc.Cancel(combatant=t.ids["A"]))
    t.resolve()
    t.run(c.EndRound())
    assert t.who("A")["ap_budget"] == 5


def test_a_replacement_attack_with_a_bow_and_an_opportunity_on_himself_are_refused() -> None:
    t = pair()
    t.declare("B", {"kind": "move", "ap": 1})
    t.declare("A", {"kind": "perception"})
    with pytest.raises(RuleViolation) as e:
        t.run(
            nc.Cancel(
                combatant=t.ids["A"],
                replacement=nc.ActionSpec(kind="melee_attack", target=t.ids["B"], weapon="bow"),
            )
        )
    assert e.value.rule == "NOV-AP-1"
    with pytest.raises(RuleViolation) as e:
        t.run(nc.OpportunityAttack(combatant=t.ids["A"], target=t.ids["A"], weapon="sword"))
    assert e.value.rule == "NOV-ATK-1"


def test_a_spell_vs_def_needs_a_living_foe_and_its_fields_together() -> None:
    t = pair()  # NOV-ATK-6
    t.declare("B")
    for bad in (
        {"kind": "cast_spell", "target": "A", "casting_tn": 18, "spell_bonus": 6},
        {"kind": "cast_spell", "spell_bonus": 6},
    ):
        with pytest.raises(RuleViolation) as e:
            t.declare("A", bad)
        assert e.value.rule == "NOV-ATK-6"


@pytest.mark.over_http
def test_voiding_a_riding_roll_voids_the_attack_it_carried() -> None:
    sword = {"name": "sword", "dr": 6, "stat": "str", "ranks": 7, "size": "small"}
    t = duel(
        novus_stats(riding=10, weapons=[sword], bonuses={"str": 2}),
        target_stats(def_=10, ar=0, hits=80),
        {"kind": "melee_attack", "target": "T", "weapon": "sword", "mounted": True},
    )
    events = t.resolve([5, 5], dice={"riding": [9, 9]}, boons=[])
    ride = of_type(events, "RidingRolled")[0]
    assert of_type(events, "AttackRolled")[0].cause == ride.originator_version
    voided = t.run(c.Void(target=ride.originator_version, reason="the horse shied"))[0]
    assert of_type(events, "AttackRolled")[0].originator_version in voided.cascade


def test_a_share_of_ab_when_hasted_is_refused() -> None:
    t = pair()  # NOV-MAS-3 applies to high skill only
    t.run(c.SetCondition(combatant=t.ids["A"], condition="hasted", count=1))
    t.declare("B")
    swing = {"kind": "melee_attack", "target": "B", "weapon": "sword", "ab_share": 4}
    with pytest.raises(RuleViolation) as e:
        t.declare("A", swing, swing)
    assert e.value.rule == "NOV-MAS-3"
