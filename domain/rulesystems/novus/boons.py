"""The Combat Boons table and the purchase check (NOV-BOON-1..5, novus-core.md §5.1)."""

from __future__ import annotations

from dataclasses import dataclass

from domain.errors import RuleViolation
from domain.rulesystems.novus.commands import BoonSpec
from domain.rulesystems.novus.stats import NovusStats, Weapon


@dataclass(frozen=True)
class Boon:
    name: str
    label: str
    cost: int
    plus: bool = False  # may take more points for a bigger effect
    effect: str = ""
    recorded: bool = False  # RECORD: logged, not computed


TABLE: dict[str, Boon] = {
    b.name: b
    for b in [
        Boon("adrenal_surge", "Adrenal Surge", 1, effect="+ Base Damage = Wil bonus"),
        Boon("bleeder", "Bleeder", 1, plus=True, effect="target bleeds 1 per round per point"),
        Boon(
            "combat_shuffle",
            "Combat Shuffle",
            1,
            plus=True,
            effect="move both 5 ft per point",
            recorded=True,
        ),
        Boon("daze_foe", "Daze Foe", 1, effect="target Dazed for 1 round"),
        Boon("defensive_posture", "Defensive Posture", 1, effect="+2 DEF next round"),
        Boon("disarm_foe", "Disarm Foe", 1, effect="target saves vs. Str or is disarmed"),
        Boon(
            "initiative_boost",
            "Initiative Boost",
            1,
            plus=True,
            effect="+2 IP next round per point",
        ),
        Boon("knock_prone", "Knock Prone", 1, effect="target prone"),
        Boon(
            "rapid_reload", "Rapid Reload", 1, effect="bow reloaded at once for 0 AP", recorded=True
        ),
        Boon("skilled_attack", "Skilled Attack", 1, effect="+ half the skill ranks in damage"),
        Boon("strong_attack", "Strong Attack", 1, effect="+ Base Damage = Str bonus"),
        Boon(
            "attack_boost",
            "Attack Boost",
            2,
            plus=True,
            effect="+1 AB per point on the primary attack next round",
        ),
        Boon(
            "inspiring_attack",
            "Inspiring Attack",
            2,
            plus=True,
            effect="allies +1 IP per point next round",
        ),
        Boon(
            "lightning_attack",
            "Lightning Attack",
            2,
            effect="one more attack at once, 0 AP, AB −4 (Default NOV-AMB-42)",
        ),
    ]
}
# NOV-BOON-4, NOV-CALL-6: what a head shot's extra points may buy (the last two GM-entered)
HEAD_BOONS = {"daze_foe", "stunning_blow", "death_strike"}


@dataclass(frozen=True)
class Purchase:
    boon: Boon
    points: int
    effect_text: str | None = None


def check_purchase(
    specs: list[BoonSpec],
    available: int,
    weapon: Weapon | None,
    stats: NovusStats,
    head_points: int = 0,
) -> list[Purchase]:
    """NOV-BOON-2: cost within the points, minimums, exclusions, weapon limits."""
    bought: list[Purchase] = []
    for spec in specs:
        bought.append(_purchase(spec, bought))
    names = {p.boon.name for p in bought}
    if {"adrenal_surge", "strong_attack"} <= names:
        raise RuleViolation(
            "NOV-BOON-2", "Adrenal Surge and Strong Attack exclude each other", field="boons"
        )
    if "bleeder" in names and (weapon is None or weapon.damage_type == "bludgeoning"):
        raise RuleViolation(
            "NOV-BOON-2", "Bleeder needs a slashing or piercing weapon", field="boons"
        )
    if "rapid_reload" in names and (weapon is None or weapon.family != "bow"):
        raise RuleViolation("NOV-BOON-2", "Rapid Reload is for bows only", field="boons")
    total = sum(p.points for p in bought)
    if total > available + head_points:
        raise RuleViolation(
            "NOV-BOON-2",
            f"the Boons cost {total} points but the attack earned {available + head_points}",
            field="boons",
        )
    others = sum(p.points for p in bought if p.boon.name not in HEAD_BOONS)
    if others > available:  # NOV-BOON-4: the head shot's extra points buy head Boons only
        raise RuleViolation(
            "NOV-BOON-4",
            f"{head_points} of the points came from the head shot and buy only Daze Foe, "
            "Stunning Blow or Death Strike",
            field="boons",
        )
    return bought


def _purchase(spec: BoonSpec, bought: list[Purchase]) -> Purchase:
    """One Boon asked for: from the table at its cost (NOV-BOON-2), once per attack, or one
    the table does not list, at the cost and with the effect the GM gives (NOV-BOON-5)."""
    boon = TABLE.get(spec.name)
    if boon is None:
        if spec.effect is None or spec.points is None:
            raise RuleViolation(
                "NOV-BOON-5",
                f"{spec.name!r} is not in the Combat Boons table; a Boon the table does not "
                "list needs `points` (its cost) and `effect` (its text)",
                field="boons",
            )
        return Purchase(
            Boon(spec.name, spec.name, spec.points, recorded=True), spec.points, spec.effect
        )
    points = spec.points if spec.points is not None else boon.cost
    if points < boon.cost:
        raise RuleViolation(
            "NOV-BOON-2", f"{boon.label} needs at least {boon.cost} points", field="boons"
        )
    if points != boon.cost and not boon.plus:
        raise RuleViolation("NOV-BOON-2", f"{boon.label} costs exactly {boon.cost}", field="boons")
    if any(p.boon.name == boon.name for p in bought):
        raise RuleViolation(
            "NOV-BOON-2",
            f"{boon.label} can be bought once per attack (Default NOV-AMB-42)",
            field="boons",
        )
    return Purchase(boon, points)
