"""The special situations of an attack, worked out when it is declared: its AB modifiers,
its DEF modifiers for the round (NOV-DECL-2), its extra AP and damage. (NOV-CALL-1, NOV-CZ-2,
NOV-FDEF-1..4, NOV-OFF-1, NOV-TWO-1, NOV-IMP-2, NOV-BRAWL-2..4, NOV-MNT-3..5, NOV-MCH-1..4)"""

from __future__ import annotations

from dataclasses import dataclass, field

from domain.errors import RuleViolation
from domain.rulesystems.novus.commands import ActionSpec
from domain.rulesystems.novus.state import NovusAction
from domain.rulesystems.novus.stats import NovusStats, Weapon

CALLED_SHOT_AB = {"arm": -4, "leg": -4, "head": -8}  # NOV-CALL-1
# NOV-CZ-1: the Control Zone's front arc, the flanks and the rear, by the GM's call;
# NOV-CZ-2 (Default NOV-AMB-18): +2 from a flank, +4 from the rear, to the attack roll
DIRECTION_AB = {"front": 0, "flank": 2, "rear": 4}
OFF_HAND = -4  # NOV-OFF-1
IMPROVISED = -4  # NOV-IMP-2
TWO_HANDS_AP, TWO_HANDS_BD = 1, 2  # NOV-TWO-1
# NOV-MNT-3, -4: (AB, DEF) by Mounted Combat I, against a mounted foe or one on foot
MOUNTED = {
    (True, True): (0, 0),
    (False, True): (-5, -5),
    (True, False): (-2, -3),
    (False, False): (-7, -8),
}
MOUNTED_AP = {0: 2, 1: 2, 2: 1}  # NOV-MNT-5: +2 AP, +1 with Mounted Combat II
CHARGE = {True: (4, -4), False: (-1, -9)}  # NOV-MCH-2: (AB, DEF) with / without MC I
CHARGE_AP = {0: 8, 1: 8, 2: 6}  # NOV-MCH-1
CHARGE_TN = {2: 20, 3: 25, 4: 30}  # NOV-MCH-4
CHARGE_DAMAGE = 15  # NOV-MCH-3: × the pace multiple
MOUNT_TN = {True: 18, False: 23}  # NOV-MNT-1: trained mount / not


@dataclass
class Situation:
    """What the situations of one declared attack add up to."""

    ab: dict[str, int] = field(default_factory=dict)
    def_: dict[str, int] = field(default_factory=dict)  # for the whole round
    ap: int = 0
    bd: dict[str, int] = field(default_factory=dict)
    facts: NovusAction = field(default_factory=NovusAction)  # the action's, those it sets


def brawling_ab(stats: NovusStats) -> int:
    """NOV-BRAWL-2: Strength bonus + Dexterity bonus."""
    return stats.bonuses.str_ + stats.bonuses.dex


def weapon_ab(stats: NovusStats, weapon: Weapon) -> int:
    return weapon.skill_bonus + stats.bonuses.of(weapon.stat)


def situation(spec: ActionSpec, stats: NovusStats, weapon: Weapon | None) -> Situation:
    s = Situation()
    if spec.called_shot:  # NOV-CALL-1
        s.ab[f"called shot: {spec.called_shot}"] = CALLED_SHOT_AB[spec.called_shot]
        s.facts.called_shot = spec.called_shot
        s.facts.location = spec.location or spec.called_shot
    if spec.direction != "front":  # NOV-CZ-2
        s.ab[spec.direction] = DIRECTION_AB[spec.direction]
    if spec.defensive:
        _fighting_defensively(spec, stats, weapon, s)
    if spec.off_hand and not stats.ambidextrous:  # NOV-OFF-1 (Default NOV-AMB-38)
        s.ab["off hand"] = OFF_HAND
    if spec.two_handed:  # NOV-TWO-1
        if weapon is None or weapon.hands != 1 or weapon.kind != "melee":
            raise RuleViolation(
                "NOV-TWO-1",
                "only a one-handed melee weapon can be taken in both hands",
                field="actions.two_handed",
            )
        s.ap += TWO_HANDS_AP
        s.bd["two hands"] = TWO_HANDS_BD
    if spec.improvised:  # NOV-IMP-2 (Default NOV-AMB-36 without a resembled weapon)
        skill = max(brawling_ab(stats), weapon_ab(stats, weapon) if weapon else -99)
        s.facts.improvised_ab = skill
        s.ab["improvised"] = IMPROVISED
        s.facts.improvised = True
    if spec.mounted and spec.kind != "mounted_charge":  # NOV-MNT-3..5
        ab, def_ = MOUNTED[(stats.mounted_combat >= 1, spec.foe_mounted)]
        s.ab["mounted"] = ab
        s.def_["mounted"] = def_
        s.ap += MOUNTED_AP[stats.mounted_combat]
        s.facts.riding_tn = MOUNT_TN[stats.mount_trained]
    if spec.kind == "mounted_charge":
        _charge(spec, stats, s)
    return s


def _fighting_defensively(
    spec: ActionSpec, stats: NovusStats, weapon: Weapon | None, s: Situation
) -> None:
    """NOV-FDEF-1, -4 (Default NOV-AMB-29): an even amount, at most the skill's bonus."""
    if weapon is None or weapon.kind != "melee":
        raise RuleViolation(
            "NOV-FDEF-4",
            "fighting defensively needs a melee weapon in hand",
            field="actions.defensive",
        )
    if spec.defensive % 2:
        raise RuleViolation(
            "NOV-FDEF-1",
            "move an even number of points (2 AB for 1 DEF)",
            field="actions.defensive",
        )
    if spec.defensive > weapon_ab(stats, weapon):
        raise RuleViolation(
            "NOV-FDEF-1",
            f"at most the skill's bonus ({weapon_ab(stats, weapon)}) can be moved",
            field="actions.defensive",
        )
    s.ab["fighting defensively"] = -spec.defensive
    s.def_["fighting defensively"] = spec.defensive // 2
    s.facts.defensive = spec.defensive


def _charge(spec: ActionSpec, stats: NovusStats, s: Situation) -> None:
    """NOV-MCH-1..4 (Default NOV-AMB-23, -37)."""
    ab, def_ = CHARGE[stats.mounted_combat >= 1]
    s.ab["mounted charge"] = ab
    s.def_["mounted charge"] = def_
    pace = spec.pace or 1
    if pace > 4 and spec.riding_tn is None:
        raise RuleViolation(
            "NOV-MCH-4",
            "a pace above 4× needs the GM's Riding TN (riding_tn)",
            field="actions.pace",
        )
    if pace >= 2:
        s.facts.riding_tn = spec.riding_tn or CHARGE_TN[pace]
        if spec.mount_fast:  # NOV-MCH-3: only faster than a human, and at 2× or more
            s.facts.charge_damage = CHARGE_DAMAGE * pace
    else:  # Default NOV-AMB-23: below 2× the Mounted Combat roll stands in
        s.facts.riding_tn = MOUNT_TN[stats.mount_trained]
    s.facts.pace = pace


MULTI_ATTACK_AP = 5  # NOV-AP-1 "Multiple Weapon Attacks in 1 round" (Default NOV-AMB-13)


def multiple_attacks(
    specs: list[ActionSpec], attack: list[bool], stats: NovusStats, weapons: list[Weapon | None]
) -> dict[int, int]:
    """NOV-MAS-1..3, -5: several attacks without Haste come from high skill: one extra per
    full 10 points of the melee skill's total bonus, −4 per extra attack and −2 per extra foe
    off AB (after any Fighting Defensively), the rest split between them as the player says
    (an even split if he says nothing). Returns each attack's share by its index."""
    index = [i for i, a in enumerate(attack) if a]
    used = {weapons[i].name if weapons[i] else None for i in index}
    weapon = weapons[index[0]]
    if len(used) != 1 or weapon is None or weapon.kind != "melee":
        raise RuleViolation(
            "NOV-MAS-5",
            "multiple attacks from high skill are made with one "
            "melee weapon (styles that give several attacks are not combined)",
            field="actions",
        )
    total_bonus = weapon_ab(stats, weapon)
    allowed = 1 + total_bonus // 10  # NOV-MAS-1
    if len(index) > allowed:
        raise RuleViolation(
            "NOV-MAS-1",
            f"a skill bonus of {total_bonus} allows {allowed} "
            f"attack(s) a round, not {len(index)} (Haste would give more AP)",
            field="actions",
        )
    foes = len({specs[i].target for i in index})
    penalty = -4 * (len(index) - 1) - 2 * (foes - 1)  # NOV-MAS-2
    defensive = max(specs[i].defensive for i in index)  # NOV-FDEF-5: off AB before the split
    remainder = total_bonus + penalty - defensive
    shares = [specs[i].ab_share for i in index]
    if all(s is None for s in shares):
        base, extra = divmod(remainder, len(index))
        shares = [base + (1 if n < extra else 0) for n in range(len(index))]
    elif any(s is None for s in shares) or sum(shares) != remainder:  # type: ignore[arg-type]
        raise RuleViolation(
            "NOV-MAS-3",
            f"the shares of AB must add up to {remainder} "
            f"({total_bonus} {penalty:+d}"
            + (f" −{defensive} fighting defensively" if defensive else "")
            + ")",
            field="actions.ab_share",
        )
    return dict(zip(index, shares, strict=True))  # type: ignore[arg-type]
