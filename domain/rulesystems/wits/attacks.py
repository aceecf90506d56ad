"""Attacks, defenses and damage (WIT-ATK, WIT-DEF, WIT-DMG, WIT-CALL, WIT-CHG, WIT-CRIT)."""

from __future__ import annotations

from typing import Any

from domain import commands as c
from domain import events as ev
from domain.dice import Ask
from domain.errors import RuleViolation
from domain.rulesystems.base import Context, with_situational
from domain.rulesystems.wits import turns
from domain.rulesystems.wits.dice import damage_roll, test_roll, under
from domain.rulesystems.wits.stats import Weapon, WitsStats
from domain.state import ActionState, CombatantState, EncounterState

# WIT-CALL-1: the Called Shot table, a modifier to the Attack Skill
CALLED_SHOT = {
    "arm": -2,
    "leg": -2,
    "vitals": -3,
    "groin": -4,
    "head": -5,
    "hand": -6,
    "foot": -6,
    "neck": -8,
    "heart": -10,
}
CHARGE_FROM_M = 5  # WIT-CHG-1
CHARGE_MODIFIER = -2  # WIT-CHG-2
TOTAL_SINGLE_BONUS = 3  # WIT-DEF-4
TOTAL_BLOWS = 3  # WIT-DEF-3
TOP_HEAVY_PARRY = -2  # WIT-DEF-8
DEFENSE_NAMES = {"parry": "Parry", "block": "Block", "dodge": "Dodge"}
MODE_NAMES = {
    "basic": "Basic Defense",
    "total": "Total Defense",
    "total_single": "Total Defense against this one attack",
}
CRITICAL = ("critical", "extraordinary")  # Default WIT-AMB-3: extraordinary is critical too


def metres(distance_m: float | None, distance_ft: float | None) -> float | None:
    """WIT-MOV-3 (Default WIT-AMB-22): metres; feet convert at 3 ft = 1 m."""
    if distance_m is not None and distance_ft is not None:
        raise RuleViolation(
            "WIT-MOV-3", "give the distance in metres or in feet, not both", field="distance_ft"
        )
    return distance_ft / 3 if distance_ft is not None else distance_m


def weapon_of(
    stats: WitsStats, name: str | None, who: CombatantState, field: str = "weapon"
) -> Weapon:
    for w in stats.weapons:
        if w.name == name:
            return w
    raise RuleViolation(
        "WIT-ATK-3",
        f"{who.name} has no weapon {name!r}; his weapons: "
        f"{', '.join(w.name for w in stats.weapons) or 'none'}",
        field=field,
    )


def gm_modifiers(state: EncounterState, who: CombatantState, *targets: str) -> dict[str, int]:
    """The GM's named modifiers in force (set_modifier), marked so none replaces a
    computed one of the same name."""
    return {f"{e.name} (GM)": e.value for t in targets for e in who.effects_for(t, state.round)}


def skill_of(base: int, base_from: str, parts: dict[str, int]) -> dict[str, Any]:
    """An effective skill: the rating plus its named modifiers (WIT-TEST-2)."""
    return {
        "base": base,
        "base_from": base_from,
        "parts": parts,
        "effective": base + sum(parts.values()),
    }


# -- announcing -------------------------------------------------------------------------


def announce(ctx: Context, cmd: c.Attack) -> None:
    """WIT-ATK-1: the attacker states his target and what he does; one action (WIT-ACT-3),
    and a Charge that still has ground to cover moves first with the other (WIT-CHG-5)."""
    state = ctx.state
    who = state.combatant(cmd.combatant)
    target = state.combatant(cmd.target)
    if target.id == who.id:
        raise RuleViolation("WIT-ATK-1", "a combatant does not attack himself", field="target")
    turns.check_turn(state, who, cmd.out_of_order)
    stats = turns.stats_of(who)
    weapon = weapon_of(stats, cmd.weapon, who)
    if who.round_marks.get("defense") in ("total", "total_single"):
        raise RuleViolation(
            "WIT-DEF-3", f"{who.name} took Total Defense: no attack this round", field="combatant"
        )
    if not weapon.ranged and stats.base_damage is None:
        raise RuleViolation(
            "WIT-DMG-6",
            f"{who.name} needs a Base Damage die (stats.base_damage) for {weapon.name}",
            field="weapon",
        )
    distance = metres(cmd.distance_m, cmd.distance_ft)
    ground, charge_from = _charge(who, target, weapon, stats, cmd.charge, distance)
    turns.check_actions(
        who, 1 + (ground > 0), "a Charge that still has to close" if ground else "an attack"
    )
    if ground > 0:  # WIT-CHG-5, WIT-MOV-1: the ground is covered with one action
        moved = ctx.emit(
            ev.Moved,
            combatant=who.id,
            metres=ground,
            actions=1,
            charge_at=target.id,
            charge_from_m=charge_from,
        )
        turns.lose_aim(ctx, who, "he moved (WIT-AIM-5)", moved)
        who = ctx.state.combatants[who.id]
    state = ctx.state
    position = state.version + 1
    action = ActionState(
        id=f"{position}.attack",
        combatant=who.id,
        kind="attack",
        round=state.round,
        declared_round=state.round,
        cost=1,
        order=len([a for a in state.actions if a.combatant == who.id]),
        target=target.id,
        weapon=weapon.name,
        params={
            "called_shot": cmd.called_shot,
            "charge": cmd.charge,
            "charge_from_m": charge_from,
            "visible": cmd.visible,
            "physical": cmd.physical,
            "modifiers": dict(cmd.modifiers),
            "ranged": weapon.ranged,
        },
        origin=position,
    )
    attack_skill(state, who, action)  # its modifiers are checked now, not at the roll
    ctx.emit(
        ev.AttackAnnounced,
        combatant=who.id,
        target=target.id,
        action=action.model_dump(),
        actions=1,
    )
    if cmd.defense is not None:
        declare_defense(ctx, ctx.state.combatants[target.id], cmd.defense, position)
    if cmd.roll:
        roll_attack(ctx, cmd.degree, cmd.hit)
    elif cmd.degree is not None or cmd.hit is not None:
        raise RuleViolation(
            "WIT-TEST-3", "degree and hit go with the roll (roll_attack)", field="degree"
        )


def _charge(
    who: CombatantState,
    target: CombatantState,
    weapon: Weapon,
    stats: WitsStats,
    charge: bool,
    distance: float | None,
) -> tuple[float, float | None]:
    """The ground a Charge still has to cover, and the distance it started from."""
    if not charge:
        return 0, None
    if weapon.ranged:  # Default WIT-AMB-18: melee and unarmed attacks only
        raise RuleViolation("WIT-AMB-18", "a Charge is a melee or unarmed attack", field="charge")
    under_way = who.marks.get("charging")
    if under_way and under_way["target"] == target.id:  # WIT-CHG-5: begun in earlier moves
        start, ground = under_way["from_m"], distance or 0
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


# -- defending --------------------------------------------------------------------------


def defend(ctx: Context, cmd: c.Defend) -> None:
    action = turns.pending_attack(ctx.state)
    if action is None:  # WIT-DEF-5: a defense is declared before the attack die is rolled
        raise RuleViolation(
            "WIT-DEF-5",
            "no attack is waiting for its roll: a defense is declared while the blow is "
            "announced, before the attack die is rolled",
        )
    who = ctx.state.combatant(cmd.combatant)
    declare_defense(ctx, who, cmd.defense, action.origin or 0)


def declare_defense(ctx: Context, who: CombatantState, spec: c.DefenseSpec, cause: int) -> None:
    state = ctx.state
    action = turns.pending_attack(state)
    assert action is not None
    if action.target != who.id:
        raise RuleViolation(
            "WIT-ATK-2",
            f"only the target of attack {action.id} defends against it",
            field="combatant",
        )
    if turns.is_down(state, who):
        raise RuleViolation("WIT-AMB-11", f"{who.name} is down", field="combatant")
    if not action.params["visible"]:  # WIT-ATK-2, WIT-DEF-2 (Default WIT-AMB-21)
        raise RuleViolation(
            "WIT-ATK-2", f"{who.name} cannot see this attack: no defense", field="defense"
        )
    if "defense" in action.params:
        raise RuleViolation(
            "WIT-DEF-3",
            "this attack already has its defense (each attack at most once)",
            field="defense",
        )
    cost = _defense_cost(who, spec)
    skill = defense_skill(state, who, spec)
    position = ctx.emit(
        ev.DefenseDeclared,
        cause=cause,
        combatant=who.id,
        action=action.id,
        kind=spec.kind,
        mode=spec.mode,
        actions=cost,
        skill=skill,
        magical=spec.magical,
    )
    turns.lose_aim(ctx, who, "he defended (WIT-AIM-5)", position)


def _defense_cost(who: CombatantState, spec: c.DefenseSpec) -> int:
    """Actions a defense uses (WIT-ORD-5; Default WIT-AMB-6, WIT-AMB-7)."""
    taken = who.round_marks.get("defense")
    if taken == "total":  # WIT-DEF-3: up to three blows, no further action
        if spec.mode != "total":
            raise RuleViolation(
                "WIT-DEF-3",
                f"{who.name} is in Total Defense: defend with mode total",
                field="defense.mode",
            )
        if who.round_marks.get("blows", 0) >= TOTAL_BLOWS:
            raise RuleViolation(
                "WIT-DEF-3",
                f"Total Defense stops at most {TOTAL_BLOWS} blows a round",
                field="defense",
            )
        return 0
    if taken == "total_single":
        raise RuleViolation(
            "WIT-DEF-4",
            f"{who.name}'s Total Defense was against one attack only (at +3)",
            field="defense",
        )
    if spec.mode == "basic":  # WIT-DEF-2: one blow, one action
        turns.check_actions(who, 1, "a Basic Defense")
        return 1
    if who.round_marks.get("attacked_with"):  # WIT-DEF-1, WIT-DEF-3
        raise RuleViolation(
            "WIT-DEF-1",
            f"{who.name} has attacked this round: only a Basic Defense",
            field="defense.mode",
        )
    if turns.actions_used(who):  # Default WIT-AMB-7: it uses both actions
        raise RuleViolation(
            "WIT-AMB-7",
            f"Total Defense uses both actions; {who.name} has used "
            f"{turns.actions_used(who)} this round",
            field="defense.mode",
        )
    return 2


def defense_skill(
    state: EncounterState, who: CombatantState, spec: c.DefenseSpec
) -> dict[str, Any]:
    """WIT-DEF-6: half the skill (rounded down) of the defense's kind; WIT-DEF-7: plus the
    armour's Defense (and the shield's when Blocking, Default WIT-AMB-8)."""
    stats = turns.stats_of(who)
    options = turns.options_of(state)
    parts: dict[str, int] = {}
    if spec.kind == "parry":
        weapon = (
            weapon_of(stats, spec.weapon, who, "defense.weapon")
            if spec.weapon is not None
            else next((w for w in stats.weapons if not w.ranged), None)
        )
        if weapon is None or weapon.ranged:
            raise RuleViolation(
                "WIT-DEF-6", f"{who.name} has no melee weapon to parry with", field="defense.weapon"
            )
        rating, base_from = stats.skills[weapon.skill], f"half {weapon.skill}"
        if weapon.top_heavy and weapon.name in who.round_marks.get("attacked_with", []):
            if weapon.parry_after_attack == "none":  # WIT-DEF-8
                raise RuleViolation(
                    "WIT-DEF-8",
                    f"{weapon.name} is top-heavy and attacked this round: it cannot parry",
                    field="defense.kind",
                )
            parts["top-heavy after attacking"] = TOP_HEAVY_PARRY  # WIT-DEF-8
    elif spec.kind == "block":
        if stats.shield is None:
            raise RuleViolation("WIT-DEF-6", f"{who.name} has no shield", field="defense.kind")
        rating, base_from = stats.skills.get("shield", 0), "half shield"
    else:
        dodge_with = spec.dodge_with or (
            "acrobatics" if stats.skills.get("acrobatics", 0) > stats.move else "move"
        )
        rating = stats.move if dodge_with == "move" else stats.skills.get("acrobatics", 0)
        base_from = f"half {dodge_with}"
    if stats.shield is not None and (spec.kind == "block" or options.shield_defense == "all"):
        parts["shield defense"] = stats.shield.defense
    if stats.armour.defense:
        parts["armour defense"] = stats.armour.defense
    if spec.mode == "total_single":
        parts["total defense, one attack"] = TOTAL_SINGLE_BONUS  # WIT-DEF-4
    parts |= gm_modifiers(state, who, "def", "act")
    return skill_of(rating // 2, base_from, with_situational(parts, spec.modifiers))


# -- rolling ----------------------------------------------------------------------------


def attack_skill(state: EncounterState, who: CombatantState, action: ActionState) -> dict[str, Any]:
    """WIT-ATK-3, WIT-TEST-2: the weapon's skill and the situation's modifiers."""
    stats = turns.stats_of(who)
    weapon = weapon_of(stats, action.weapon, who)
    parts: dict[str, int] = {}
    aim = turns.aim_of(who)
    if aim:
        parts["aiming"] = aim  # WIT-AIM-1, WIT-AIM-3
    if action.params["charge"]:
        parts["charge"] = CHARGE_MODIFIER  # WIT-CHG-2
    if action.params["called_shot"]:
        called = action.params["called_shot"]
        parts[f"called shot: {called}"] = CALLED_SHOT[called]  # WIT-CALL-1
    parts |= gm_modifiers(state, who, "ab", "act")
    parts = with_situational(parts, action.params["modifiers"])
    return skill_of(stats.skills[weapon.skill], weapon.skill, parts)


def _degree(
    entered: str | None, success: bool, face: int, state: EncounterState
) -> tuple[str, str]:
    """WIT-TEST-3 (Default WIT-AMB-3): higher degrees are entered, unless the encounter's
    options set the die results that reach them."""
    if entered is not None:
        return entered, "entered"
    options = turns.options_of(state)
    if success:
        if options.extraordinary_at is not None and face <= options.extraordinary_at:
            return "extraordinary", "option"
        if options.critical_at is not None and face <= options.critical_at:
            return "critical", "option"
    return ("success" if success else "failure"), "rolled"


def roll_attack(ctx: Context, degree: str | None = None, hit: bool | None = None) -> None:
    state = ctx.state
    action = turns.pending_attack(state)
    if action is None:
        raise RuleViolation("WIT-ATK-1", "no attack is announced")
    who = state.combatants[action.combatant]
    target = state.combatants[action.target or ""]
    options = turns.options_of(state)
    skill = attack_skill(state, who, action)
    roll = test_roll(
        ctx.dice,
        "attack",
        options.test_die,
        Ask(
            who.id,
            f"{who.name}'s {action.weapon} attack on {target.name}"
            f"{' (a Charge)' if action.params['charge'] else ''}: "
            f"{under(options.test_die, skill['effective'])}",
        ),
    )
    success = roll.total <= skill["effective"]  # WIT-TEST-1
    degree, source = _degree(degree, success, roll.total, state)
    success = degree != "failure"
    critical = degree in CRITICAL
    rolls = {"attack": roll.to_dict()}
    defense = action.params.get("defense")
    outcome: dict[str, Any] | None = None
    if defense is not None:
        outcome = {"kind": defense["kind"], "mode": defense["mode"], **defense["skill"]}
        if critical and not defense["magical"]:  # WIT-CRIT-2 (Default WIT-AMB-20)
            outcome |= {"rolled": False, "success": False, "why": "WIT-CRIT-2"}
        else:
            d = test_roll(
                ctx.dice,
                "defense",
                options.test_die,
                Ask(
                    target.id,
                    f"{target.name}'s {DEFENSE_NAMES[defense['kind']]} "
                    f"({MODE_NAMES[defense['mode']]}) against {who.name}: "
                    f"{under(options.test_die, outcome['effective'])}",
                ),
            )
            rolls["defense"] = d.to_dict()
            outcome |= {
                "rolled": True,
                "total": d.total,
                "success": d.total <= outcome["effective"],
            }
    # WIT-ATK-4: the test succeeds and the defense, if any, fails
    computed = success and not (outcome is not None and outcome["success"])
    landed = computed if hit is None else hit
    position = ctx.emit(
        ev.AttackTestRolled,
        cause=action.origin,
        combatant=who.id,
        action=action.id,
        target=target.id,
        rolls=rolls,
        skill=skill,
        success=success,
        degree=degree,
        degree_source=source,
        defense=outcome,
        hit=landed,
        overridden=landed != computed,
    )
    if landed:
        _damage(ctx, who, target, action, degree, position)


def _damage(
    ctx: Context,
    who: CombatantState,
    target: CombatantState,
    action: ActionState,
    degree: str,
    cause: int,
) -> None:
    """WIT-DMG-1..5, WIT-DMG-7, WIT-CHG-3, WIT-CRIT-1, -3, -4."""
    stats = turns.stats_of(who)
    weapon = weapon_of(stats, action.weapon, who)
    groups = [(weapon.name, weapon.damage)]  # WIT-DMG-1
    if weapon.ranged:  # WIT-DMG-4: no Base Damage die
        if degree == "extraordinary":  # WIT-DMG-5, WIT-CRIT-4: the weapon's dice twice
            groups.append((f"{weapon.name}, extraordinary", weapon.damage))
    else:
        assert stats.base_damage is not None  # checked when announced
        groups.append(("base damage", stats.base_damage))  # WIT-DMG-1
        if action.params["charge"]:
            groups.append(("charge", stats.base_damage))  # WIT-CHG-3
        if degree == "extraordinary":
            groups.append(("extraordinary", stats.base_damage))  # WIT-CRIT-3
    options = turns.options_of(ctx.state)
    roll = damage_roll(
        ctx.dice,
        "damage",
        groups,
        roll_up=action.params["physical"],  # WIT-DMG-3, WIT-DMG-7
        open_ended=options.roll_up == "open",  # Default WIT-AMB-4
        by=who.id,
        whose=f"{who.name}'s {weapon.name} damage on {target.name}",
    )
    protection = turns.stats_of(target).armour.protection
    ignored = degree in CRITICAL  # WIT-CRIT-1
    bonus = sum(gm_modifiers(ctx.state, who, "damage").values())
    after = roll.total + bonus - (0 if ignored else protection)
    breakdown = {
        "dice": roll.total,
        "modifiers": bonus,
        "protection": protection,
        "protection_ignored": ignored,
        "total": max(0, after),  # WIT-DMG-2 (Default WIT-AMB-12): never below 0
    }
    ctx.apply_damage(target.id, breakdown, cause=cause, rolls={"damage": roll.to_dict()})
