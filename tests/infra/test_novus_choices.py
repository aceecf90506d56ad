"""Novus `choices` at each step of the round (NOV-SEQ-1), on the application (SQLite,
manual dice): what is offered and what is not, for the GM and for a player's token; and the
table's words of a roll asked for one face at a time."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from uuid import UUID

import pytest

from domain.errors import DiceNeeded
from domain.rulesystems.novus.system import NovusRules
from infra.access import Grant
from infra.app import Fraylog
from infra.settings import Settings
from tests.builders.novus import novus_stats, target_stats

COMMAND = NovusRules.command_adapter()


@pytest.fixture
def fraylog(tmp_path) -> Iterator[Fraylog]:
    app = Fraylog(Settings(sqlite_path=str(tmp_path / "choices.db")))
    yield app
    app.close()


class Fight:
    """A Novus encounter on the application, driven by commands with manual dice."""

    def __init__(self, fraylog: Fraylog) -> None:
        self.fraylog = fraylog
        self.eid = fraylog.create_encounter("Choices", "novus", "manual").state.id
        self.ids: dict[str, str] = {}

    def add(self, name: str, stats: dict[str, Any], side: str) -> str:
        self.ids[name], _ = self.fraylog.add_combatant(UUID(self.eid), name, side, stats)
        return self.ids[name]

    def run(self, body: dict[str, Any], **dice: list[int]) -> list[Any]:
        command = COMMAND.validate_python({**body, "dice": dice} if dice else body)
        return self.fraylog.execute(UUID(self.eid), command).events

    def ip(self, name: str, ip: int) -> None:
        self.run({"type": "roll_initiative", "combatant": self.ids[name], "ip": ip})

    def declare(self, name: str, *actions: dict[str, Any]) -> None:
        specs = [{**a, "target": self.ids[a["target"]]} if "target" in a else a for a in actions]
        self.run({"type": "declare", "combatant": self.ids[name], "actions": specs})

    def choices(self, grant: Grant | None = None) -> dict[str, Any]:
        return self.fraylog.choices(UUID(self.eid), grant)

    def offered(self, kind: str, name: str | None = None, grant: Grant | None = None) -> list:
        who = self.ids[name] if name else None
        return [
            c
            for c in self.choices(grant)["choices"]
            if c["type"] == kind and (name is None or c["combatant"] == who)
        ]

    def player(self, *names: str) -> Grant:
        return Grant(self.eid, "player", frozenset(self.ids[n] for n in names), "p")


def brawl(fraylog: Fraylog) -> Fight:
    """Brakka (IP 19) and Lief (IP 15), heroes, against a Goblin (IP 12) and an Orc (IP 8)."""
    f = Fight(fraylog)
    f.add("Brakka", novus_stats(), "heroes")
    f.add("Lief", novus_stats(), "heroes")
    f.add("Goblin", target_stats(def_=18, weapons=[{"name": "club", "dr": 4}]), "foes")
    f.add("Orc", target_stats(weapons=[{"name": "axe", "dr": 7, "size": "large"}]), "foes")
    for name, ip in (("Brakka", 19), ("Lief", 15), ("Goblin", 12), ("Orc", 8)):
        f.ip(name, ip)
    return f


def brakka_swings(f: Fight, weapon: str) -> Fight:
    """The others declare nothing, Brakka a Basic Melee Attack on the Goblin with `weapon`."""
    for name in ("Orc", "Goblin", "Lief"):
        f.declare(name)
    f.declare("Brakka", {"kind": "melee_attack", "target": "Goblin", "weapon": weapon})
    return f


def attacked(choices: list[dict[str, Any]]) -> set[str]:
    """Whom the declarations offered attack."""
    kinds = ("melee_attack", "power_attack", "missile_attack", "brawl", "mounted_charge")
    return {
        a["target"] for c in choices for a in c["command"].get("actions", []) if a["kind"] in kinds
    }


def test_given_no_combatant_when_asking_then_nothing_is_offered(fraylog: Fraylog) -> None:
    f = Fight(fraylog)
    answer = f.choices()
    assert (answer["step"], answer["choices"], answer["by_combatant"]) == ("setup", [], {})


def test_given_step_1_when_asking_then_each_rolls_initiative_or_all_at_once(
    fraylog: Fraylog,
) -> None:
    f = Fight(fraylog)
    brakka = f.add("Brakka", novus_stats(), "heroes")
    goblin = f.add("Goblin", target_stats(), "foes")
    answer = f.choices()
    assert answer["step"] == "initiative"
    rolls = {c["combatant"]: c for c in f.offered("roll_initiative")}
    assert set(rolls) == {brakka, goblin, None}
    assert rolls[brakka]["rolls"] == ["initiative"]
    assert rolls[None]["rolls"] == ["initiative:Brakka", "initiative:Goblin"]
    first = rolls[brakka]["first_roll"]
    assert (first["roll"], first["for"], first["count"]) == ("initiative", brakka, 2)
    assert first["label"].startswith("Brakka's initiative: open-ended 2d10 (a 10 explodes")
    assert set(answer["by_combatant"]) == {brakka, goblin, ""}
    assert "declare" not in answer["by_combatant"][brakka]  # NOV-SEQ-2
    entered = [o for o in answer["overrides"] if o["type"] == "roll_initiative"]
    assert {o["combatant"] for o in entered} == {brakka, goblin}  # NOV-INIT-5: an IP entered


def test_given_one_ip_rolled_when_asking_then_only_the_others_roll(fraylog: Fraylog) -> None:
    f = Fight(fraylog)
    f.add("Brakka", novus_stats(), "heroes")
    goblin = f.add("Goblin", target_stats(), "foes")
    f.ip("Brakka", 14)
    assert {c["combatant"] for c in f.offered("roll_initiative")} == {goblin, None}  # NOV-INIT-3


def test_given_step_2_when_asking_then_the_lowest_ip_declares_and_the_others_only_out_of_order(
    fraylog: Fraylog,
) -> None:
    f = brawl(fraylog)
    answer = f.choices()
    assert answer["step"] == "declaration"
    orc = f.offered("declare", "Orc")
    assert all(not c["command"].get("out_of_order") for c in orc)  # NOV-DECL-1
    assert {"Orc declares no action"} <= {c["label"] for c in orc}
    assert attacked(orc) == {f.ids["Brakka"], f.ids["Lief"]}  # his foes
    axe = [
        c
        for c in orc
        if c["command"]["actions"][:1]
        == [{"kind": "melee_attack", "target": f.ids["Lief"], "weapon": "axe"}]
    ]
    assert [c["label"] for c in axe] == [
        "Orc declares Basic Melee Attack on Lief with the axe (5 AP of 5)"
    ]
    for name in ("Brakka", "Lief", "Goblin"):  # the GM's override only, with nothing chosen
        (only,) = f.offered("declare", name)
        assert only["command"] == {
            "type": "declare",
            "combatant": f.ids[name],
            "actions": [],
            "out_of_order": True,
        }
    assert not f.offered("resolve") and not f.offered("end_round")


def test_given_a_dead_foe_when_declaring_then_he_is_no_target(fraylog: Fraylog) -> None:
    f = brawl(fraylog)
    f.run({"type": "adjust_hits", "combatant": f.ids["Lief"], "amount": -45})  # below −10
    orc = f.offered("declare", "Orc")
    assert attacked(orc) == {f.ids["Brakka"]}  # NOV-HITS-5
    assert f.ids["Lief"] not in {
        c["combatant"] for c in f.choices()["choices"] if c["type"] in ("declare", "hold")
    }


def test_given_a_stunned_or_helpless_combatant_when_declaring_then_he_is_offered_what_he_may(
    fraylog: Fraylog,
) -> None:
    f = brawl(fraylog)
    f.run({"type": "set_condition", "combatant": f.ids["Orc"], "condition": "stunned", "count": 1})
    f.run({"type": "adjust_hits", "combatant": f.ids["Goblin"], "amount": -32})  # −2: dying
    assert not f.offered("declare", "Orc")  # NOV-COND-3: he does not declare
    goblin = f.offered("declare", "Goblin")  # now the lowest IP to declare
    assert [c["command"]["actions"] for c in goblin] == [[], [{"kind": "first_aid"}]]  # NOV-HITS-3


def test_given_a_player_token_when_asking_then_he_sees_only_his_combatants_moves(
    fraylog: Fraylog,
) -> None:
    f = brawl(fraylog)
    f.declare("Orc", {"kind": "dodge"})
    f.declare("Goblin", {"kind": "melee_attack", "target": "Lief", "weapon": "club"})
    lief = f.player("Lief")
    answer = f.choices(lief)
    assert answer["role"] == "player" and answer["combatants"] == [f.ids["Lief"]]
    assert set(answer["by_combatant"]) == {f.ids["Lief"]}
    assert set(answer["by_combatant"][f.ids["Lief"]]) == {"declare", "save"}
    assert answer["overrides"] == [] and answer["corrections"] == []
    assert not [c for c in answer["choices"] if c["command"].get("out_of_order")]
    brakka = f.choices(f.player("Brakka"))  # Lief declares before him: nothing but a save
    assert brakka["by_combatant"] == {f.ids["Brakka"]: ["save"]}


def test_given_a_budget_spent_when_asking_then_no_action_it_cannot_pay_is_offered(
    fraylog: Fraylog,
) -> None:
    f = brawl(fraylog)
    f.declare("Orc", {"kind": "complex", "ap": 5})  # all his AP
    f.declare("Goblin", {"kind": "dodge"})  # 3 AP left: the club (medium) costs 4
    f.declare("Lief", {"kind": "perception"})  # 4 AP left: the sword's
    f.declare("Brakka", {"kind": "reload_heavy_crossbow"})  # 10 AP: 5 carried
    assert f.choices()["step"] == "resolution"
    assert not f.offered("opportunity_attack", "Orc")  # NOV-OA-3
    assert not f.offered("opportunity_attack", "Goblin")
    assert not f.offered("hold", "Orc")  # NOV-HOLD-1: its 1 AP does not fit
    assert f.offered("hold", "Goblin")
    assert {c["command"]["weapon"] for c in f.offered("opportunity_attack", "Lief")} == {
        "sword",
        "mace",
    }
    f.run({"type": "set_condition", "combatant": f.ids["Lief"], "condition": "disarmed"})
    assert not f.offered("opportunity_attack", "Lief")  # NOV-BOON-2: his weapon is gone
    for _ in range(3):
        f.run({"type": "resolve"})
    f.run({"type": "end_round"})  # round 2: Brakka's reload owes his 5 AP
    f.declare("Orc")
    f.declare("Goblin")
    f.declare("Lief")
    brakka = {c["label"] for c in f.offered("declare", "Brakka")}
    assert brakka == {"Brakka declares no action"}  # NOV-DECL-3, Default NOV-AMB-10: budget 0


def test_given_step_3_when_asking_then_the_next_action_resolves_with_its_rolls(
    fraylog: Fraylog,
) -> None:
    f = brawl(fraylog)
    f.declare("Orc", {"kind": "dodge"})
    f.declare("Goblin", {"kind": "melee_attack", "target": "Lief", "weapon": "club"})
    f.declare("Lief", {"kind": "block", "target": "Goblin"})
    f.declare("Brakka", {"kind": "melee_attack", "target": "Goblin", "weapon": "sword"})
    answer = f.choices()
    assert answer["step"] == "resolution"
    (resolve,) = f.offered("resolve")
    assert resolve["combatant"] == f.ids["Brakka"]
    assert resolve["label"] == "Resolve Brakka's Basic Melee Attack on Goblin with the sword"
    assert resolve["rolls"] == ["attack"] and resolve["command"]["action"]
    assert resolve["first_roll"]["label"].startswith(
        "Brakka attacks Goblin with the sword (Basic Melee Attack; DEF 18): open-ended 2d10"
    )
    assert not f.offered("end_round") and not f.offered("declare")
    lief = {c["label"] for c in f.offered("cancel", "Lief")}
    assert "Lief cancels Basic Block (Combat Move) on Goblin" in lief
    assert (
        "Lief cancels Basic Block (Combat Move) on Goblin for Basic Dodge (Combat Move), "
        "at once" in lief
    )
    # NOV-CANCEL-4: Brakka's replacement attack may not be on the Goblin he attacked
    brakka = [c["command"].get("replacement") or {} for c in f.offered("cancel", "Brakka")]
    assert {r.get("target") for r in brakka if r.get("kind") == "melee_attack"} == {f.ids["Orc"]}
    oa = {c["label"] for c in f.offered("opportunity_attack", "Goblin")}
    assert oa == {
        "Goblin's Opportunity Attack on Brakka: the Basic Melee Attack with the club he declared",
        "Goblin's Opportunity Attack on Lief: the Basic Melee Attack with the club he declared",
    }
    f.run({"type": "resolve"}, attack=[3, 4])  # Brakka misses
    (block,) = f.offered("resolve")  # NOV-RES-1: Lief (IP 15) before the Goblin (IP 12)
    assert (block["combatant"], block["rolls"]) == (f.ids["Lief"], ["block"])
    assert block["first_roll"]["label"].startswith("Lief's Block against Goblin's attack (TN ")


def test_given_a_hit_with_boon_points_when_asking_then_each_boon_they_buy_or_none(
    fraylog: Fraylog,
) -> None:
    f = brakka_swings(brawl(fraylog), "mace")
    f.run({"type": "resolve"}, attack=[10, 9, 1])  # 20 + 9 = 29 against DEF 18: 1 Boon Point
    answer = f.choices()
    assert answer["step"] == "boons"
    boons = {
        c["command"]["boons"][0]["name"] if c["command"]["boons"] else None: c
        for c in f.offered("spend_boons", "Brakka")
    }
    assert None in boons and "daze_foe" in boons and "strong_attack" in boons
    assert "bleeder" not in boons  # NOV-BOON-2: a mace does not bleed
    assert "attack_boost" not in boons and "lightning_attack" not in boons  # 2 points each
    assert boons["disarm_foe"]["rolls"] == ["disarm_save"]
    assert boons[None]["label"] == "Brakka forgoes the 1 Boon Point"
    assert not f.offered("resolve") and not f.offered("end_round")  # NOV-BOON-1: at once
    assert f.offered("cancel", "Lief") == []  # he declared nothing
    f.run({"type": "spend_boons", "boons": [{"name": "disarm_foe"}]}, disarm_save=[2, 3])
    assert f.choices()["step"] == "end_round"
    (end,) = f.offered("end_round")
    assert end["combatant"] is None and not f.offered("resolve")


def test_given_a_bad_miss_when_asking_then_each_snag_its_points_buy_or_none(
    fraylog: Fraylog,
) -> None:
    f = brakka_swings(brawl(fraylog), "sword")
    f.run({"type": "resolve"}, attack=[1, 2, 5])  # 1 − 5 + 2 + 9 = 7 against 18: 1 Snag Point
    assert f.choices()["step"] == "snags"
    snags = [c["command"]["snags"] for c in f.offered("spend_snags", "Brakka")]
    assert [] in snags and [{"name": "strained_muscle"}] in snags
    assert not [s for s in snags if s and s[0]["name"] in ("hit_friend", "hurt_yourself")]
    assert not f.offered("resolve") and not f.offered("end_round")  # NOV-SNAG-1: at once
    f.run({"type": "spend_snags", "snags": []})
    assert f.choices()["step"] == "end_round"


def test_given_two_snag_points_when_asking_then_the_friend_to_hit_is_a_living_friend(
    fraylog: Fraylog,
) -> None:
    f = brawl(fraylog)
    f.add("Farthan", novus_stats(current_hits=-20), "heroes")  # dead
    brakka_swings(f, "sword")
    f.run({"type": "resolve"}, attack=[1, 1, 10, 10])  # 1 − 10 + 1 − 10 + 9: 2 Snag Points
    friends = [
        c
        for c in f.offered("spend_snags")
        if c["command"]["snags"][:1] == [{"name": "hit_friend", "target": f.ids["Lief"]}]
    ]
    assert [c["rolls"] for c in friends] == [["friend_attack"]]  # NOV-SNAG-2
    named = {
        s["target"]
        for c in f.offered("spend_snags")
        for s in c["command"]["snags"]
        if "target" in s
    }
    assert named == {f.ids["Lief"]}
    hurt = [
        c for c in f.offered("spend_snags") if c["command"]["snags"] == [{"name": "hurt_yourself"}]
    ]
    assert hurt[0]["first_roll"]["label"] == (
        "Brakka's Snag, hurt yourself: 1d10 hits (armour applies)"
    )


def test_given_a_roll_up_chain_when_sent_one_face_at_a_time_then_each_face_says_why(
    fraylog: Fraylog,
) -> None:
    f = brakka_swings(brawl(fraylog), "sword")
    asked = []
    faces: list[int] = []
    for face in (10, 10, 10, 4, 1, 7, 99):
        try:
            f.run({"type": "resolve"}, attack=faces)
            break
        except DiceNeeded as e:
            asked.append((e.needed["die"], e.needed["count"], e.needed["label"]))
            assert e.needed["for"] == f.ids["Brakka"]
            faces.append(face)
    opening = "Brakka attacks Goblin with the sword (Basic Melee Attack; DEF 18): open-ended 2d10"
    assert asked[0][:2] == (1, 2) and asked[0][2].startswith(opening)
    assert asked[1][:2] == (2, 1) and asked[1][2] == asked[0][2]
    assert asked[2:] == [  # NOV-CORE-2: die A, then die B, each rolled again while it shows 10
        (3, 2, "Brakka's attack: die A showed 10 — roll it again and add (another 10 goes on)"),
        (
            4,
            2,
            "Brakka's attack: die A showed 10 again — roll it again and add (another 10 goes on)",
        ),
        (5, 1, "Brakka's attack: die B showed 10 — roll it again and add (another 10 goes on)"),
    ]
    assert faces == [10, 10, 10, 4, 1]


def test_given_an_implosion_when_sent_one_face_at_a_time_then_it_asks_to_subtract(
    fraylog: Fraylog,
) -> None:
    f = Fight(fraylog)
    brakka = f.add("Brakka", novus_stats(), "heroes")
    save = {"type": "save", "combatant": brakka, "stat": "con", "tn": 20, "purpose": "poison"}
    with pytest.raises(DiceNeeded) as e:
        f.run(save, save=[1, 6])
    assert e.value.needed["label"] == (  # NOV-CORE-3, -4
        "Brakka's Save: die A showed 1 — roll it again and subtract (another 1 goes on; "
        "a 10 is just −10)"
    )
    with pytest.raises(DiceNeeded) as e:
        f.run(save)
    assert e.value.needed["label"].startswith("Brakka's Save vs. Con (poison): open-ended")


def test_given_the_gm_when_asking_then_the_overrides_name_what_a_modifier_applies_to(
    fraylog: Fraylog,
) -> None:
    f = brawl(fraylog)
    forms = f.choices()["overrides"]
    modifiers = [o for o in forms if o["type"] == "set_modifier"]
    assert len(modifiers) == 4
    assert modifiers[0]["fields"]["applies_to"] == {"enum": ["ab", "act", "def", "ip", "damage"]}
    assert not [o for o in forms if o["type"] == "roll_initiative"]  # everyone has an IP
