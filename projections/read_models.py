"""Rows of the read models that span encounters: the encounter list and each combatant's
statistics. Pure: a folded state, or a run of events, in; rows out. infra.read_models keeps
them in tables, event by event, with exactly-once tracking (docs/read-models.md).

Statistics count what is not voided. An event's attacker is found through its cause chain:
AttackRolled (Novus), AttackTestRolled (Wits) and AttackChecked (PHANTÄSIA) name the attacker,
and everything caused by
one (a DamageApplied, a bystander's save and the damage after it, a Snag and the harm it does)
follows from that attack.

Rolls to hit and damage dice are counted with the sum of their dice (an average is the sum
over the count), and criticals and fumbles as each rule book defines them: the book says
which (its `statistics`, domain/rulesystems/<book>/statistics.py). A combatant's voided
events are counted, and an encounter's voided events and corrections.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from domain.corrections import is_correction, voided_by
from domain.rulesystems import get_rule_system
from domain.rulesystems.base import Statistics
from domain.state import EncounterState

ATTACKS = frozenset({"AttackRolled", "AttackTestRolled", "AttackChecked"})
SOURCES = ("server", "seeded", "manual")
COUNTERS = (
    "damage_dealt",
    "damage_taken",
    "hits",
    "misses",
    "rolls_server",
    "rolls_seeded",
    "rolls_manual",
    "attack_rolls",  # rolls to hit, and the sum of their dice (modifiers left out)
    "attack_dice_sum",
    "damage_rolls",  # damage dice, and their sum
    "damage_dice_sum",
    "criticals",  # as the rule book defines them (its statistics.py)
    "fumbles",
    "voided",  # his events a correction voided
)
ROLL_KINDS = ("attack", "damage")
ENCOUNTER_COLUMNS = (
    "encounter_id",
    "name",
    "ruleset",
    "status",
    "round",
    "created_at",
    "last_activity",
    "events",
    "combatants_up",
    "combatants_down",
)
STATS_COLUMNS = ("encounter_id", "combatant_id", "name", "side", *COUNTERS)
# the encounter list's counts that only a correction changes (encounter_corrections)
CORRECTION_COLUMNS = ("voided", "corrections")

Tally = dict[str, dict[str, int]]  # combatant id -> counter -> amount added


def encounter_row(state: EncounterState, last_activity: str) -> dict[str, Any]:
    """The encounter list's row after the event at `state.version` (recorded at
    `last_activity`): who is down is the rule system's view's `down`, as on every screen."""
    combatants = get_rule_system(state.ruleset).view(state)["combatants"]
    down = sum(1 for c in combatants if c["down"])
    return {
        "encounter_id": state.id,
        "name": state.name,
        "ruleset": state.ruleset,
        "status": "ended" if state.ended else "active",
        "round": state.round,
        "created_at": state.created_at,
        "last_activity": last_activity,
        "events": state.version,  # positions start at 1: every event recorded, voided or not
        "combatants_up": len(combatants) - down,
        "combatants_down": down,
    }


def attacker_of(event: Any, attackers: Mapping[int, str | None]) -> str | None:
    """Who made the attack an event follows from, if any: an attack roll's roller, else the
    attacker of its cause (`attackers` maps earlier positions to theirs)."""
    if type(event).__name__ in ATTACKS:
        return event.combatant
    if event.cause is None:
        return None
    return attackers[event.cause]


def roller(event: Any, roll_name: str, attacker: str | None) -> str:
    """Who a roll is counted for: damage dice for the attacker who rolled them, a Wits
    defense roll for the defender, any other roll for the event's combatant."""
    kind = type(event).__name__
    if kind == "DamageApplied" or (kind == "Healed" and roll_name == "damage"):
        return attacker or event.combatant  # a PHANTÄSIA affinity heals with his damage dice
    if kind == "AttackTestRolled" and roll_name == "defense":
        return event.target
    if kind == "AttackChecked":  # PHANTÄSIA: a player defending rolls his DF or DM
        return next(
            (r["roller"] for r in event.results if r.get("roll_name") == roll_name),
            event.combatant,
        )
    if kind == "ContestRolled" and roll_name == "defender":
        return event.target
    return event.combatant


def tally(event: Any, attacker: str | None, book: Statistics) -> Tally:
    """What one event (not voided, not a correction) adds to each combatant's statistics.
    Damage a combatant does to himself (a Snag's harm) is taken, not dealt. `book`: the
    encounter's rule book's statistics (which rolls are to hit or damage, criticals)."""
    out: Tally = {}

    def add(who: str, counter: str, amount: int = 1) -> None:
        counts = out.setdefault(who, dict.fromkeys(COUNTERS, 0))
        counts[counter] += amount

    kind = type(event).__name__
    if kind == "DamageApplied":
        add(event.combatant, "damage_taken", event.amount)
        if attacker is not None and attacker != event.combatant:
            add(attacker, "damage_dealt", event.amount)
    elif kind == "AttackChecked":  # one per target of a power
        for result in event.results:
            add(event.combatant, "hits" if result["hit"] else "misses")
    elif kind == "CheckRerolled" and attacker is not None:  # the second result stands
        for before, after in zip(event.replaced, event.results, strict=True):
            if before["hit"] != after["hit"]:
                add(attacker, "hits" if after["hit"] else "misses")
                add(attacker, "hits" if before["hit"] else "misses", -1)
    elif kind in ATTACKS:
        add(event.combatant, "hits" if event.hit else "misses")
    for name, roll in (getattr(event, "rolls", None) or {}).items():
        source = roll["source"]
        if source not in SOURCES:  # a new dice source needs its own column
            raise ValueError(f"roll {name!r} at {event.originator_version}: source {source!r}")
        who = roller(event, name, attacker)
        add(who, f"rolls_{source}")
        kind = book.roll_kind(event, name)
        if kind is not None:
            if kind not in ROLL_KINDS:
                raise ValueError(f"roll {name!r} at {event.originator_version}: kind {kind!r}")
            add(who, f"{kind}_rolls")
            add(who, f"{kind}_dice_sum", dice_of(roll))
    for who, counter, amount in book.criticals(event):
        add(who, counter, amount)
    return out


def dice_of(roll: Mapping[str, Any]) -> int:
    """What a roll's dice showed, its modifiers left out."""
    if "dice_total" in roll:
        return int(roll["dice_total"])
    return sum(int(d["value"]) for d in roll.get("dice", ()))


def book_of(ruleset: str) -> Statistics:
    """The statistics of a rule book (its criticals, fumbles, rolls to hit)."""
    return get_rule_system(ruleset).statistics


def new_stats(combatant: str, name: str, side: str) -> dict[str, Any]:
    return {"combatant_id": combatant, "name": name, "side": side, **dict.fromkeys(COUNTERS, 0)}


def add_tally(rows: dict[str, dict[str, Any]], counts: Tally, state: EncounterState) -> None:
    """Add a tally to rows by combatant (rows missing are made with the state's names)."""
    for who, counters in counts.items():
        row = rows.get(who)
        if row is None:
            known = state.combatants.get(who)
            row = rows[who] = new_stats(
                who, known.name if known else "", known.side if known else ""
            )
        for counter, amount in counters.items():
            row[counter] += amount


def combatant_stats(events: Iterable[Any]) -> dict[str, dict[str, Any]]:
    """Each combatant's statistics after a run of one encounter's events (from its first,
    EncounterCreated, which names the rule book), voided events and corrections left out
    but a combatant's voided events counted."""
    history = list(events)
    voided = voided_by(history)
    book = book_of(history[0].ruleset) if history else Statistics()
    attackers: dict[int, str | None] = {}
    rows: dict[str, dict[str, Any]] = {}
    for event in history:
        position = event.originator_version
        attackers[position] = attacker_of(event, attackers)
        if position in voided:
            who = getattr(event, "combatant", None)
            if who in rows:  # a combatant whose adding was voided has no row
                rows[who]["voided"] += 1
            continue
        if is_correction(event):
            continue
        if type(event).__name__ == "CombatantAdded":
            rows[event.combatant] = new_stats(event.combatant, event.name, event.side)
        for who, counters in tally(event, attackers[position], book).items():
            row = rows.setdefault(who, new_stats(who, "", ""))
            for counter, amount in counters.items():
                row[counter] += amount
    return rows


def encounter_corrections(events: Iterable[Any]) -> dict[str, int]:
    """An encounter's events voided now, and the corrections recorded (voided or not: a void
    of a void is two), after a run of its events from its first."""
    history = list(events)
    return {
        "voided": len(voided_by(history)),
        "corrections": sum(1 for e in history if is_correction(e)),
    }
