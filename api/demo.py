"""A scripted Novus fight for `fraylog demo`, played through the application with seeded
dice: a mounted charge met by a last-moment dodge, a called shot, a hold, Boons, Snags,
bleeding and a stun ticking down at upkeep."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from domain import commands as c
from domain.rulesystems.novus import commands as nc
from infra.app import Fraylog
from infra.settings import Settings
from projections.narrative import narrative
from projections.view import encounter_view


def _fighter(hits: int, bonuses: dict[str, int], weapon: dict[str, Any], **more: Any) -> dict:
    return {"hits": hits, "bonuses": bonuses, "weapons": [weapon], **more}


PARTY = [
    (
        "Brakka",
        "heroes",
        _fighter(
            42,
            {"str": 2, "dex": 1, "spd": 1, "con": 2, "wil": 1},
            {"name": "longsword", "dr": 6, "stat": "str", "ranks": 8, "damage_type": "slashing"},
            melee_ranks=8,
            shield="normal",
            ar=6,
            first_aid=3,
            values={"con": 14},
        ),
    ),
    (
        "Sela",
        "heroes",
        _fighter(
            34,
            {"dex": 3, "spd": 2, "con": 1, "wis": 2},
            {
                "name": "shortbow",
                "kind": "missile",
                "dr": 5,
                "stat": "dex",
                "ranks": 7,
                "damage_type": "piercing",
                "family": "bow",
            },
            melee_ranks=3,
            ar=4,
            first_aid=6,
        ),
    ),
    (
        "Grukk",
        "raiders",
        _fighter(
            48,
            {"str": 3, "con": 3},
            {
                "name": "lance",
                "dr": 8,
                "stat": "str",
                "ranks": 7,
                "size": "large",
                "damage_type": "piercing",
                "family": "pole arm",
            },
            melee_ranks=6,
            ar=4,
            mounted_combat=1,
            riding=8,
            mount_trained=True,
        ),
    ),
    (
        "Snikt",
        "raiders",
        _fighter(
            24,
            {"dex": 2, "spd": 3, "wis": 1},
            {"name": "spear", "dr": 5, "stat": "dex", "ranks": 5, "damage_type": "piercing"},
            melee_ranks=5,
            ar=2,
            minor_foe=True,
            called_shot_ar={"head": 1},
        ),
    ),
]
RULESET = "novus"  # the rule book it plays (`fraylog demo --ruleset`)
SEED = "s62"
BOON_TASTE = ["bleeder", "daze_foe", "strong_attack", "defensive_posture"]


def play(settings: Settings, seed: str, rounds: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Play `rounds` rounds; return the final view and the narrative log."""
    with Fraylog(settings) as fraylog:
        eid = UUID(fraylog.create_encounter("Raid on the mill", RULESET, "seeded", seed).state.id)
        ids = {
            name: fraylog.add_combatant(eid, name, side, stats)[0] for name, side, stats in PARTY
        }
        fraylog.execute(eid, c.RollInitiative())
        for _ in range(rounds):
            _play_round(fraylog, eid, ids)
        view = encounter_view(fraylog.state(eid))
        return view, list(narrative(fraylog.event_log(eid)))


def _view(fraylog: Fraylog, eid: UUID) -> dict[str, Any]:
    return encounter_view(fraylog.state(eid))


def _play_round(fraylog: Fraylog, eid: UUID, ids: dict[str, str]) -> None:
    view = _view(fraylog, eid)
    while view["step"] == "declaration":
        who = next(x for x in view["combatants"] if x["id"] == view["next_to_declare"])
        fraylog.execute(eid, nc.Declare(combatant=who["id"], actions=_intent(view, who, ids)))
        view = _view(fraylog, eid)
    _maybe_hold(fraylog, eid, view, ids)
    while (view := _view(fraylog, eid))["step"] in ("resolution", "boons", "snags"):
        if view["step"] == "boons":
            fraylog.execute(eid, nc.SpendBoons(boons=_boons(view)))
        elif view["step"] == "snags":
            fraylog.execute(eid, nc.SpendSnags(snags=_snags(view)))
        elif not _dodge_the_charge(fraylog, eid, view, ids):
            events = fraylog.execute(eid, nc.Resolve()).events
            _stunned_by_the_charge(fraylog, eid, events, ids)
    fraylog.execute(eid, c.EndRound())


def _intent(view: dict[str, Any], who: dict[str, Any], ids: dict[str, str]) -> list[nc.ActionSpec]:
    if who["helpless"]:
        return [nc.ActionSpec(kind="first_aid", ap=2)]
    foes = [x for x in view["combatants"] if x["side"] != who["side"] and not x["down"]]
    if not foes:
        return []
    foe = min(foes, key=lambda x: x["hits"])
    if who["name"] == "Grukk":  # charges once; the charge takes this round and the next
        if view["round"] == 1:
            return [nc.ActionSpec(kind="mounted_charge", target=ids["Brakka"], pace=2)]
        return (
            []
            if who["action_points_left"] < 5
            else [nc.ActionSpec(kind="melee_attack", target=foe["id"], mounted=True)]
        )
    if who["name"] == "Sela":  # aims at the head of the weakest raider
        return [nc.ActionSpec(kind="missile_attack", target=foe["id"], called_shot="head")]
    return [nc.ActionSpec(kind="melee_attack", target=foe["id"])]


def _maybe_hold(fraylog: Fraylog, eid: UUID, view: dict[str, Any], ids: dict[str, str]) -> None:
    """Sela waits to see what the spearman does: she holds to just below his IP."""
    sela = next(x for x in view["combatants"] if x["id"] == ids["Sela"])
    snikt = next(x for x in view["combatants"] if x["id"] == ids["Snikt"])
    if (
        sela["declared"]
        and snikt["declared"]
        and sela["hold_ip"] is None
        and (snikt["effective_ip"] or 0) < (sela["effective_ip"] or 0)
        and sela["action_points_left"] >= 1
    ):
        fraylog.execute(eid, c.Hold(combatant=ids["Sela"], ip=snikt["effective_ip"]))


def _dodge_the_charge(
    fraylog: Fraylog, eid: UUID, view: dict[str, Any], ids: dict[str, str]
) -> bool:
    """Brakka drops his attack and dodges at the last moment (NOV-MCH-8)."""
    nxt = view["actions"][0] if view["actions"] else None
    brakka_pending = [a for a in view["actions"] if a["combatant"] == ids["Brakka"]]
    if (
        nxt
        and nxt["kind"] == "mounted_charge"
        and nxt["target"] == ids["Brakka"]
        and brakka_pending
        and brakka_pending[0]["kind"] != "dodge"
    ):
        fraylog.execute(
            eid, nc.Cancel(combatant=ids["Brakka"], replacement=nc.ActionSpec(kind="dodge"))
        )
        return True
    return False


def _stunned_by_the_charge(
    fraylog: Fraylog, eid: UUID, events: list[Any], ids: dict[str, str]
) -> None:
    """The GM rules that a lance hit may knock a man senseless: a Save vs. Con, TN 15 + the
    rider's ranks, or stunned for a round (the beta Stunning Blow, entered by the GM)."""
    hit = next(
        (e for e in events if type(e).__name__ == "DamageApplied" and e.combatant == ids["Brakka"]),
        None,
    )
    if hit is None or not any(type(e).__name__ == "RidingRolled" for e in events):
        return
    save = fraylog.execute(
        eid, nc.Save(combatant=ids["Brakka"], stat="con", tn=22, purpose="the lance's impact")
    ).events[0]
    if not save.saved:
        fraylog.execute(
            eid,
            c.SetCondition(
                combatant=ids["Brakka"],
                condition="stunned",
                count=1,
                reason="knocked senseless by the lance",
            ),
        )


def _boons(view: dict[str, Any]) -> list[nc.BoonSpec]:
    pending = view["pending_boons"]
    points, head = pending["points"], pending["head_points"]
    buys = [nc.BoonSpec(name="daze_foe")] if head else []
    for name in BOON_TASTE:
        if points < 1 or (name == "daze_foe" and head):
            continue
        if name == "bleeder" and pending["params"].get("move") == "cut":
            continue
        buys.append(nc.BoonSpec(name=name, points=points if name == "bleeder" else None))
        points -= points if name == "bleeder" else 1
    return buys


def _snags(view: dict[str, Any]) -> list[nc.SnagSpec]:
    """The player picks (NOV-AMB-40): the cheapest harm that uses the points."""
    points = view["pending_snags"]["points"]
    return [nc.SnagSpec(name="hurt_yourself" if points >= 2 else "strained_muscle")]
