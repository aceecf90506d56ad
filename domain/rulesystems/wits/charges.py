"""Distances and Charges: where a Charge starts and the ground it covers over moves and its
attack (WIT-MOV-3, WIT-CHG-1, -2, -5; Default WIT-AMB-18, -22)."""

from __future__ import annotations

from domain.errors import RuleViolation
from domain.rulesystems.wits.state import marks_of
from domain.rulesystems.wits.stats import Weapon, WitsStats
from domain.state import CombatantState, EncounterState

CHARGE_FROM_M = 5  # WIT-CHG-1
CHARGE_MODIFIER = -2  # WIT-CHG-2


def metres(distance_m: float | None, distance_ft: float | None) -> float | None:
    """WIT-MOV-3 (Default WIT-AMB-22): metres; feet convert at 3 ft = 1 m."""
    if distance_m is not None and distance_ft is not None:
        raise RuleViolation(
            "WIT-MOV-3", "give the distance in metres or in feet, not both", field="distance_ft"
        )
    return distance_ft / 3 if distance_ft is not None else distance_m


def charge_start(
    state: EncounterState, who: CombatantState, at: str | None, from_m: float | None
) -> float | None:
    """A move toward a Charge's target (WIT-CHG-5): where the Charge started, the one under
    way at him or a new one `from_m` metres away (WIT-CHG-1); None for a plain move."""
    if at is None and from_m is not None:
        raise RuleViolation(
            "WIT-CHG-1", "charge_from_m goes with charge_at, the target", field="charge_at"
        )
    if at is None:
        return None
    target = state.combatant(at)
    if target.id == who.id:
        raise RuleViolation("WIT-CHG-1", "a Charge is at someone else", field="charge_at")
    under_way = marks_of(who).charging
    if under_way is not None and under_way.target == target.id:
        return under_way.from_m
    if from_m is None or from_m < CHARGE_FROM_M:  # WIT-CHG-1
        raise RuleViolation(
            "WIT-CHG-1",
            f"a Charge starts {CHARGE_FROM_M} m or more from its target (charge_from_m)",
            field="charge_from_m",
        )
    return from_m


def charge_ground(
    who: CombatantState,
    target: CombatantState,
    weapon: Weapon,
    stats: WitsStats,
    charge: bool,
    distance: float | None,
) -> tuple[float, float | None]:
    """The ground an attack's Charge still has to cover, and the distance it started from."""
    if not charge:
        return 0, None
    if weapon.ranged:  # Default WIT-AMB-18: melee and unarmed attacks only
        raise RuleViolation("WIT-AMB-18", "a Charge is a melee or unarmed attack", field="charge")
    under_way = marks_of(who).charging
    if under_way is not None and under_way.target == target.id:  # WIT-CHG-5: begun in moves
        start, ground = under_way.from_m, distance or 0
    else:
        if distance is None:
            raise RuleViolation(
                "WIT-CHG-1", "a Charge needs the distance to its target", field="distance_m"
            )
        start, ground = distance, distance
    if start < CHARGE_FROM_M:  # WIT-CHG-1
        raise RuleViolation(
            "WIT-CHG-1",
            f"a Charge starts {CHARGE_FROM_M} m (15 ft) or more from its target; "
            f"{target.name} is {start:g} m away",
            field="distance_m",
        )
    half = stats.move // 2
    if ground > half:  # WIT-CHG-5, WIT-MOV-1
        raise RuleViolation(
            "WIT-CHG-5",
            f"{ground:g} m is more than one action covers (half Move: {half} m); "
            f"move first with charge_at, then attack",
            field="distance_m",
        )
    return ground, start
