"""GET /encounters/{id}/statistics on SQLite and PostgreSQL: fights played with faces chosen
so each count is known (Novus, Wits, PHANTÄSIA), read after the read models caught up; a void
changes them; before the catch-up the lag says so; only the encounter's GM may read them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from domain import commands as c
from domain.rulesystems.phantasia import commands as ph
from domain.rulesystems.wits import commands as wc
from infra.app import Fraylog
from infra.read_models import catch_up
from infra.settings import Settings
from tests.builders import HttpTable, of_type
from tests.builders.novus import novus_stats, target_stats
from tests.builders.wits import fighter
from tests.tokens import TokenJar


@pytest.fixture
def api(own_settings: Settings) -> Iterator[TestClient]:
    app = Fraylog(own_settings)
    try:
        with TestClient(create_app(fraylog=app)) as client:
            client.auth = TokenJar()
            yield client
    finally:
        app.close()


def statistics(client: TestClient, eid: str) -> dict[str, Any]:
    r = client.get(f"/encounters/{eid}/statistics")
    assert r.status_code == 200, r.text
    return r.json()


def by_name(answer: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["name"]: row for row in answer["combatants"]}


def attack_round(t: HttpTable, faces: list[int]) -> list[Any]:
    """A Novus round: T declares nothing, A attacks T with these faces; the round ends."""
    t.declare("T")
    t.declare("A", {"kind": "melee_attack", "target": "T", "weapon": "sword"})
    events = t.resolve(faces, boons=[], snags=[])
    t.run(c.EndRound())
    return events


def test_given_a_novus_fight_with_chosen_faces_when_caught_up_and_voided_then_the_statistics_follow(
    api: TestClient, own_settings: Settings
) -> None:
    t = HttpTable(api)
    t.add("A", novus_stats(), side="heroes")  # attack bonus 9 against DEF 20
    t.add("T", target_stats(hits=60), side="foes")
    t.ip("A", 19)
    t.ip("T", 12)
    # 2d10 open-ended, both dice first then the chains (NOV-CORE-2, -3)
    attack_round(t, [10, 3, 9])  # 10 + 9 + 3 = 22: 31, 11 over DEF, a Boon Point: critical
    attack_round(t, [1, 2, 9])  # 1 − 9 + 2 = −6: 3, 17 short, a Snag Point: fumble
    last = attack_round(t, [9, 8])  # 17: 26, a hit
    dealt = [e.amount for e in of_type(t.history(), "DamageApplied")]
    assert dealt == [15, 10]

    before = statistics(api, t.eid)
    assert before["lag"]["projected"] == 0 and before["lag"]["behind"] == len(t.history())
    assert before["lag"]["caught_up"] is False and before["combatants"] == []

    catch_up(own_settings)
    answer = statistics(api, t.eid)
    assert answer["lag"] == {
        "projected": len(t.history()),
        "recorded": len(t.history()),
        "behind": 0,
        "caught_up": True,
    }
    assert answer["position"] is not None and answer["position"] >= len(t.history())
    a, target = by_name(answer)["A"], by_name(answer)["T"]
    assert (a["hits"], a["misses"], a["criticals"], a["fumbles"]) == (2, 1, 1, 1)
    assert a["attack_rolls"] == {"count": 3, "dice_sum": 33, "average": 11.0}
    assert a["damage_rolls"] == {"count": 0, "dice_sum": 0, "average": None}  # no Novus dice
    assert a["rolls"] == {"server": 0, "seeded": 0, "manual": 3, "total": 3}
    assert (a["damage_dealt"], target["damage_taken"]) == (25, 25)
    assert (target["attack_rolls"]["count"], target["criticals"], target["voided"]) == (0, 0, 0)
    totals = answer["encounter"]
    assert (totals["damage_dealt"], totals["hits"], totals["criticals"]) == (25, 2, 1)
    assert (totals["voided"], totals["corrections"], totals["events"]) == (0, 0, len(t.history()))

    # the last hit voided: its roll (A's) and its damage (T's) leave the counts
    t.run(c.Void(target=last[0].originator_version, reason="disputed"))
    stale = statistics(api, t.eid)
    assert stale["lag"]["behind"] == 1 and stale["lag"]["caught_up"] is False
    assert by_name(stale)["A"] == a  # not projected yet
    catch_up(own_settings)
    voided = statistics(api, t.eid)
    a, target = by_name(voided)["A"], by_name(voided)["T"]
    assert (a["hits"], a["damage_dealt"], target["damage_taken"]) == (1, 15, 15)
    assert a["attack_rolls"] == {"count": 2, "dice_sum": 16, "average": 8.0}
    assert (a["voided"], target["voided"]) == (1, 1)
    assert (voided["encounter"]["voided"], voided["encounter"]["corrections"]) == (2, 1)
    assert voided["lag"]["caught_up"] is True


def test_given_a_wits_fight_then_a_critical_by_its_degree_and_the_damage_dice_average(
    api: TestClient, own_settings: Settings
) -> None:
    t = HttpTable(api, "wits")
    t.add("A", fighter(), side="heroes")  # short sword at 13, 1d8 + Base Damage 1d6
    t.add("B", fighter(wits=10), side="foes")
    t.run(c.RollInitiative())

    def attack(dice: dict[str, list[int]], **kw: Any) -> list[Any]:
        body = wc.Attack(combatant=t.ids["A"], target=t.ids["B"], weapon="short sword", **kw)
        return t.run(body, **dice)

    # a Critical Success entered by the GM (WIT-TEST-3), d8 8 rolls up 5, d6 1: 14
    attack({"attack": [5], "damage": [8, 5, 1]}, degree="critical")
    attack({"attack": [18]})  # over 13: a miss
    catch_up(own_settings)
    a, b = by_name(statistics(api, t.eid))["A"], by_name(statistics(api, t.eid))["B"]
    assert (a["hits"], a["misses"], a["criticals"], a["fumbles"]) == (1, 1, 1, 0)
    assert a["attack_rolls"] == {"count": 2, "dice_sum": 23, "average": 11.5}
    assert a["damage_rolls"] == {"count": 1, "dice_sum": 14, "average": 14.0}
    assert (a["damage_dealt"], b["damage_taken"], b["rolls"]["total"]) == (14, 14, 0)


def test_given_a_phantasia_fight_then_criticals_and_fumbles_are_whoever_rolled_them(
    api: TestClient, own_settings: Settings
) -> None:
    t = HttpTable(api, "phantasia")
    pc = {
        "controller": "player",
        "fue": 7,
        "agi": 8,
        "int": 9,
        "vit": 6,
        "sue": 6,
        "level": 5,
        "pv": 60,
        "weapons": [{"name": "sword", "code": "AMM", "damage": "1d8"}],
    }
    orc = {
        "fue": 6,
        "agi": 6,
        "int": 6,
        "vit": 6,
        "sue": 6,
        "level": 1,
        "pv": 30,
        "weapons": [{"name": "axe", "code": "AMM", "damage": "1d8"}],
    }
    t.add("Endimion", pc, side="heroes")
    t.add("Orc", orc, side="foes")
    t.run(c.RollInitiative(combatant=t.ids["Endimion"], ip=30))
    t.run(c.RollInitiative(combatant=t.ids["Orc"], ip=29))
    t.run(ph.StartTurn())

    def attack(who: str, target: str, weapon: str, **dice: list[int]) -> None:
        t.run(ph.AttackCheck(combatant=t.ids[who], targets=[t.ids[target]], weapon=weapon), **dice)

    attack("Endimion", "Orc", "sword", attack=[1])  # a natural 1: critical (PHA-CRIT-1)
    t.run(ph.RollDamage(), damage=[5])
    attack("Endimion", "Orc", "sword", attack=[12])  # a 12: fumble (PHA-CRIT-4)
    t.run(ph.RollFumble(), fumble=[2])
    t.run(c.EndTurn(combatant=t.ids["Endimion"]))
    t.run(ph.StartTurn())
    attack("Orc", "Endimion", "axe", defense=[12])  # the player's DF fumbles (PHA-CRIT-7)
    t.run(ph.RollDamage(), damage=[5])  # the narrator rolls his creature's damage
    catch_up(own_settings)
    answer = statistics(api, t.eid)
    pc_row, orc_row = by_name(answer)["Endimion"], by_name(answer)["Orc"]
    assert (pc_row["criticals"], pc_row["fumbles"], pc_row["hits"], pc_row["misses"]) == (
        1,
        2,
        1,
        1,
    )
    assert pc_row["attack_rolls"] == {"count": 2, "dice_sum": 13, "average": 6.5}  # not his DF
    assert pc_row["damage_rolls"] == {"count": 1, "dice_sum": 5, "average": 5.0}
    assert pc_row["rolls"]["manual"] == 5  # AT, damage, AT, fumble d6, DF
    assert (orc_row["criticals"], orc_row["fumbles"], orc_row["hits"]) == (0, 0, 1)
    assert (orc_row["attack_rolls"]["count"], orc_row["damage_rolls"]["count"]) == (0, 1)
    assert (answer["encounter"]["criticals"], answer["encounter"]["fumbles"]) == (1, 2)
    assert orc_row["damage_dealt"] == pc_row["damage_taken"] > 0


def test_given_a_player_or_another_gm_then_the_statistics_are_refused(api: TestClient) -> None:
    t = HttpTable(api)
    a = t.add("A", novus_stats())
    r = api.post(f"/encounters/{t.eid}/tokens", json={"combatants": [a], "label": "Anna"})
    assert r.status_code == 201, r.text
    player = r.json()["token"]
    other = HttpTable(api).eid
    url = f"/encounters/{t.eid}/statistics"

    def get(token: str | None) -> Any:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return api.get(url, headers=headers, auth=None)

    refused = get(player)
    assert refused.status_code == 403 and refused.json()["rule"] == "ROLE"
    assert get(api.auth.tokens[other]).status_code == 404  # ids cannot be probed
    assert get(None).status_code == 404
    assert get(api.auth.tokens[t.eid]).status_code == 200
