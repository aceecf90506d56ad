"""PHANTÄSIA through the HTTP API: who may send what (players roll for their own
characters, the narrator decides the rest), the view's schema, the statistics of its
attacks, on SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from fastapi.testclient import TestClient

from projections.read_models import combatant_stats
from tests.builders import add_combatant, command, new_encounter
from tests.builders.phantasia import ORC, PC


def fight(client: TestClient) -> tuple[str, str, str, str]:
    """Endimion (a player's) and an orc; initiative rolled, Endimion's turn begun."""
    eid = new_encounter(client, ruleset="phantasia")
    pc = add_combatant(client, eid, "Endimion", PC, side="héroes")
    orc = add_combatant(client, eid, "Orco", ORC, side="orcos")
    r = client.post(f"/encounters/{eid}/tokens", json={"combatants": [pc], "label": "Ana"})
    assert r.status_code == 201, r.text
    command(
        client,
        eid,
        {"type": "roll_initiative", "dice": {"initiative:Endimion": [9], "initiative:Orco": [2]}},
    )
    return eid, pc, orc, r.json()["token"]


def as_player(client: TestClient, token: str, eid: str, body: dict[str, Any]) -> Any:
    return client.post(
        f"/encounters/{eid}/commands", json=body, headers={"Authorization": f"Bearer {token}"}
    )


def test_given_a_players_token_when_he_starts_his_turn_attacks_and_rolls_damage_then_recorded(
    client: TestClient,
) -> None:
    eid, pc, orc, token = fight(client)
    r = as_player(client, token, eid, {"type": "start_turn"})
    assert r.status_code == 200, r.text
    attack = {"type": "attack_check", "combatant": pc, "targets": [orc], "weapon": "espada"}
    r = as_player(client, token, eid, {**attack, "dice": {"attack": [3]}})
    assert r.status_code == 200, r.text
    (checked,) = [e for e in r.json()["events"] if e["type"] == "AttackChecked"]
    assert checked["actor"] == "player:Ana" and checked["data"]["results"][0]["hit"]
    r = as_player(client, token, eid, {"type": "roll_damage", "dice": {"damage": [5]}})
    assert r.status_code == 200, r.text
    orc_view = next(c for c in r.json()["encounter"]["combatants"] if c["id"] == orc)
    # the narrator's orc: the player reads his health in words (docs/visibility.md)
    assert (orc_view["pv"], orc_view["health_state"]) == (None, "badly_hurt")
    gm = client.get(f"/encounters/{eid}").json()
    assert next(c for c in gm["combatants"] if c["id"] == orc)["pv"] == 20 - (5 + 2 + 3)


def test_given_a_player_when_he_sets_the_narrators_judgements_then_403_and_nothing_recorded(
    client: TestClient,
) -> None:
    eid, pc, orc, token = fight(client)
    as_player(client, token, eid, {"type": "start_turn"})
    version = client.get(f"/encounters/{eid}").json()["version"]
    attack = {"type": "attack_check", "combatant": pc, "targets": [orc], "weapon": "espada"}
    for body, field in (
        ({**attack, "cover": {orc: 5}}, "cover"),
        ({**attack, "offensive": False}, "offensive"),
        ({**attack, "doublings": 1}, "doublings"),
        ({"type": "apply_status", "combatant": pc, "status": "haste", "turns": 3}, "type"),
        ({"type": "award_phantasia_point", "combatant": pc}, "type"),
        ({"type": "attack_check", "combatant": orc, "targets": [pc], "weapon": "hacha"}, None),
    ):
        r = as_player(client, token, eid, {**body, "dice": {"attack": [3]}})
        assert r.status_code == 403, (body, r.text)
        assert r.json()["rule"] == "ROLE"
        if field:
            assert r.json()["field"] == field
    assert client.get(f"/encounters/{eid}").json()["version"] == version


def test_given_the_orcs_turn_when_the_narrator_attacks_then_the_player_rolls_df_and_stats_count(
    client: TestClient,
) -> None:
    """PHA-CORE-1, PHA-CORE-2: the orc rolls nothing; the defense roll is the player's."""
    eid, pc, orc, _ = fight(client)
    command(client, eid, {"type": "start_turn"})
    command(client, eid, {"type": "end_turn", "combatant": pc})
    command(client, eid, {"type": "start_turn"})
    body = {
        "type": "attack_check",
        "combatant": orc,
        "targets": [pc],
        "weapon": "hacha",
        "block": [pc],
        "dice": {"defense": [10]},
    }
    result = command(client, eid, body)
    (checked,) = [e for e in result["events"] if e["type"] == "AttackChecked"]
    r = checked["data"]["results"][0]
    # 6 + DF (AGI adj 1) + shield 1 − (FUE adj 2 + level increments 1) = 5: 10 fails
    assert (r["rolled_by"], r["check"], r["target_number"], r["hit"]) == ("defender", "DF", 5, True)
    assert checked["data"]["rolls"]["defense"]["faces"] == [10]
    command(client, eid, {"type": "roll_damage", "dice": {"damage": [7]}})
    view = client.get(f"/encounters/{eid}").json()
    assert view["ruleset"] == "phantasia" and view["step"] == "turn"
    assert next(c for c in view["combatants"] if c["id"] == pc)["pv"] == 30 - (7 + 2 + 2)
    events = client.get(f"/encounters/{eid}/events").json()["events"]
    assert {e["type"] for e in events} >= {"TurnStarted", "TurnEnded", "AttackChecked"}


def test_given_a_phantasia_fight_then_statistics_count_hits_damage_and_whose_dice(
    client: TestClient,
) -> None:
    eid, pc, orc, _ = fight(client)
    command(client, eid, {"type": "start_turn"})
    attack = {"type": "attack_check", "combatant": pc, "targets": [orc], "weapon": "espada"}
    command(client, eid, {**attack, "dice": {"attack": [3]}})
    command(client, eid, {"type": "roll_damage", "dice": {"damage": [5]}})
    command(client, eid, {**attack, "dice": {"attack": [11]}})
    command(client, eid, {"type": "end_turn", "combatant": pc})
    command(client, eid, {"type": "start_turn"})
    body = {
        "type": "attack_check",
        "combatant": orc,
        "targets": [pc],
        "weapon": "hacha",
        "dice": {"defense": [2]},
    }
    command(client, eid, body)
    fraylog = client.app.state.fraylog
    stats = combatant_stats(fraylog.event_log(UUID(eid)))
    assert (stats[pc]["hits"], stats[pc]["misses"], stats[pc]["damage_dealt"]) == (1, 1, 10)
    assert (stats[orc]["hits"], stats[orc]["misses"], stats[orc]["damage_taken"]) == (0, 1, 10)
    # the player rolled his two attacks, the damage and his own DF: 4 manual rolls, plus
    # his initiative; the orc only its initiative
    assert stats[pc]["rolls_manual"] == 5 and stats[orc]["rolls_manual"] == 1


def test_given_a_novus_encounter_when_a_player_starts_a_turn_or_rolls_damage_then_no_500(
    client: TestClient,
) -> None:
    """PHANTÄSIA's commands ask nothing of another rule system's state: a Novus player's
    `start_turn` or `roll_damage` is refused (403 or 422), never a crash."""
    from tests.builders.novus import novus_stats

    eid = new_encounter(client)
    a = add_combatant(client, eid, "A", novus_stats())
    add_combatant(client, eid, "B", novus_stats())
    dice = {"initiative:A": [5, 5], "initiative:B": [6, 6]}
    command(client, eid, {"type": "roll_initiative", "dice": dice})
    r = client.post(f"/encounters/{eid}/tokens", json={"combatants": [a], "label": "Ana"})
    token = r.json()["token"]
    for body in ({"type": "start_turn"}, {"type": "roll_damage"}, {"type": "roll_fumble"}):
        r = as_player(client, token, eid, body)
        assert r.status_code in (403, 422), r.text


def test_given_a_player_when_he_chooses_simultaneous_turns_or_a_group_then_403(
    client: TestClient,
) -> None:
    """PHA-INIT-1, -3: a group's shared roll and simultaneous turns are the narrator's."""
    eid = new_encounter(client, ruleset="phantasia")
    pc = add_combatant(client, eid, "Endimion", PC)
    r = client.post(f"/encounters/{eid}/tokens", json={"combatants": [pc], "label": "Ana"})
    token = r.json()["token"]
    body = {"type": "roll_initiative", "combatant": pc, "simultaneous": True}
    r = as_player(client, token, eid, {**body, "dice": {"initiative": [3]}})
    assert r.status_code == 403 and r.json()["field"] == "simultaneous"


def test_given_a_miss_rerolled_into_a_hit_then_statistics_count_the_hit(
    client: TestClient,
) -> None:
    """PHA-PP-2 a: the second result stands, in the statistics too."""
    eid, pc, orc, _ = fight(client)
    command(client, eid, {"type": "award_phantasia_point", "combatant": pc})
    command(client, eid, {"type": "start_turn"})
    attack = {"type": "attack_check", "combatant": pc, "targets": [orc], "weapon": "espada"}
    command(client, eid, {**attack, "dice": {"attack": [11]}})
    body = {"type": "spend_phantasia_point", "combatant": pc, "use": "reroll"}
    command(client, eid, {**body, "dice": {"reroll": [2]}})
    command(client, eid, {"type": "roll_damage", "dice": {"damage": [5]}})
    stats = combatant_stats(client.app.state.fraylog.event_log(UUID(eid)))
    assert (stats[pc]["hits"], stats[pc]["misses"]) == (1, 0)
    assert stats[pc]["rolls_manual"] == 4  # initiative, attack, re-roll, damage


def test_given_a_phantasia_point_then_a_contest_a_jump_or_a_resist_succeeds_at_once(
    client: TestClient,
) -> None:
    """PHA-PP-2 b: a point makes a FUE, AGI, INT, VIT, SUE or CA check succeed."""
    eid, pc, orc, _ = fight(client)
    command(client, eid, {"type": "award_phantasia_point", "combatant": pc})
    command(client, eid, {"type": "start_turn"})
    body = {
        "type": "contest",
        "combatant": pc,
        "kind": "grab",
        "target": orc,
        "phantasia_point": True,
        "dice": {"defender": [2]},
    }
    (rolled,) = [e for e in command(client, eid, body)["events"] if e["type"] == "ContestRolled"]
    assert rolled["data"]["attacker_check"]["automatic"] and rolled["data"]["attacker_wins"]
    body = {"type": "jump", "combatant": pc, "kind": "long", "metres": 9, "phantasia_point": True}
    r = client.post(f"/encounters/{eid}/commands", json=body)
    assert r.status_code == 422 and r.json()["rule"] == "PHA-PP-2"  # no point left


def test_given_an_entered_ip_with_a_tie_order_when_it_ties_then_both_are_recorded_over_http(
    client: TestClient,
):
    """PHA-INIT-3: the narrator enters a creature's initiative and orders the tie it makes in
    one command; a tie order that is not the tie made is a 422 naming tie_order."""
    eid = new_encounter(client, ruleset="phantasia")
    orc = add_combatant(client, eid, "Orco", ORC, side="orcos")
    other = add_combatant(client, eid, "Orca", ORC, side="orcos")
    command(client, eid, {"type": "roll_initiative", "combatant": orc, "ip": 10})
    wrong = {"type": "roll_initiative", "combatant": other, "ip": 11, "tie_order": [other, orc]}
    r = client.post(f"/encounters/{eid}/commands", json=wrong)
    assert r.status_code == 422 and r.json()["field"] == "tie_order", r.text
    before = len(client.get(f"/encounters/{eid}/events").json()["events"])
    body = {"type": "roll_initiative", "combatant": other, "ip": 10, "tie_order": [other, orc]}
    kinds = [e["type"] for e in command(client, eid, body)["events"]]
    assert kinds == ["InitiativeRolled", "TieBroken"]
    assert len(client.get(f"/encounters/{eid}/events").json()["events"]) == before + 2


def test_given_a_group_roll_and_a_tie_order_over_http_then_the_tie_it_makes_is_ordered(
    client: TestClient,
):
    eid = new_encounter(client, ruleset="phantasia")
    orc = add_combatant(client, eid, "Orco", ORC, side="orcos")
    other = add_combatant(client, eid, "Orca", ORC, side="orcos")
    body = {
        "type": "roll_initiative",
        "group": [orc, other],
        "tie_order": [other, orc],
        "dice": {"initiative": [5]},
    }
    events = command(client, eid, body)["events"]
    assert [e["type"] for e in events] == ["InitiativeRolled"] * 2 + ["TieBroken"]
    assert events[-1]["data"]["order"] == [other, orc]
