"""What a hit does: its damage (NOV-DMG-1..4), the Boon Points spent on it (NOV-BOON-1..4),
a limb's Called Shot toll (NOV-CALL-3, -4) and the conditions the Boons buy
(NOV-COND-1..4)."""

from __future__ import annotations

from typing import Any

from domain.rulesystems.base import Context
from domain.rulesystems.novus import combat
from domain.rulesystems.novus import commands as nc
from domain.rulesystems.novus import events as ne
from domain.rulesystems.novus.boons import Purchase, check_purchase
from domain.rulesystems.novus.saves import roll_save
from domain.rulesystems.novus.state import NovusAction, PendingPoints, marks_of
from domain.state import ActionState, CombatantState, EncounterState

DISARM_TN = 15  # NOV-BOON table: Save vs. Str, TN 15 + the attacker's ranks


def hit_damage(
    state: EncounterState, action: ActionState, target_id: str, margin: int, bought: list[Purchase]
) -> dict[str, Any]:
    """NOV-DMG-1..4 with what the attack's situations and Boons add."""
    attacker = state.combatants[action.combatant]
    target = state.combatants[target_id]
    stats = combat.stats_of(attacker)
    weapon = stats.weapon(action.weapon)
    facts = NovusAction.of(action)
    names = {p.boon.name for p in bought}
    if action.kind == "brawl":  # NOV-BRAWL-3, -4: Str bonus; DR 0 without unarmed training
        trained = stats.unarmed_training and weapon is not None
        base = {
            "damage rating": weapon.dr if trained and weapon else 0,
            "str bonus": stats.bonuses.str_,
        }
    elif weapon is None:  # an improvised object resembling nothing: Brawling damage
        base = {"str bonus": stats.bonuses.str_}
    else:
        base = combat.base_damage(attacker, weapon, {})
    if facts.improvised:  # NOV-IMP-3 (Default NOV-AMB-22): the weapon's BD halved
        whole = sum(base.values())
        base["improvised: half"] = whole // 2 - whole
    base.update(facts.bd_mods)  # Base Damage extras come in full
    if facts.bd:
        base[facts.move or "move"] = facts.bd
    if "strong_attack" in names:
        base["Strong Attack"] = stats.bonuses.str_
    if "adrenal_surge" in names:
        base["Adrenal Surge"] = stats.bonuses.wil
    extra: dict[str, int] = {}
    if "skilled_attack" in names and weapon is not None:  # not Base Damage (NOV-DMG-4)
        extra["Skilled Attack"] = weapon.ranks // 2
    if facts.charge_damage:  # NOV-MCH-3: 15 × pace
        extra["mounted charge"] = facts.charge_damage
    for e in attacker.effects_for("damage", state.round):
        extra[e.name] = e.value
    scaled = margin if facts.scaled else 0  # NOV-ATK-5; Cut: none
    target_stats = combat.stats_of(target)
    if not facts.armour:
        armour = 0
    elif facts.called_shot:  # NOV-CALL-2: the location's Called Shot AR
        armour = target_stats.called_shot_ar.get(facts.called_shot, 0)
    else:
        armour = target_stats.ar
    return combat.damage(base, scaled, extra, armour)


def pending_of(ctx: Context, pos: int) -> PendingPoints:
    """A hit recorded at `pos` as the fold would hold it (with no points to spend)."""
    e = ctx.last(pos)
    action = ctx.state.action(e.action)
    return PendingPoints(
        attack=pos,
        action=e.action,
        combatant=e.combatant,
        target=e.target,
        points=0,
        margin=max(e.margin, 0),
        weapon=action.weapon,
        params=NovusAction.of(action),
    )


def spend_boons(ctx: Context, pending: PendingPoints, specs: list[nc.BoonSpec]) -> None:
    """NOV-BOON-1..3: spend at once; next-round Boons lapse after that round."""
    state = ctx.state
    attacker = state.combatants[pending.combatant]
    stats = combat.stats_of(attacker)
    weapon = stats.weapon(pending.weapon)
    bought = check_purchase(specs, pending.points, weapon, stats, pending.head_points)
    lightning = any(p.boon.name == "lightning_attack" for p in bought)
    bpos = ctx.emit(
        ne.BoonsSpent,
        cause=pending.attack,
        combatant=attacker.id,
        target=pending.target,
        points=pending.points,
        boons=[_described(p) for p in bought],
        effects=_next_round_boons(state, attacker, bought),
        actions=[_lightning_attack(state, pending)] if lightning else [],
    )
    apply_hit(ctx, pending, bought, bpos)


def _next_round_boons(
    state: EncounterState, attacker: CombatantState, bought: list[Purchase]
) -> list[dict[str, Any]]:
    """The modifiers the Boons bought give for the next round only (NOV-BOON-3)."""
    nxt = state.round + 1
    effects: list[dict[str, Any]] = []

    def next_round(who: str, name: str, applies_to: str, value: int) -> None:
        effects.append(
            {
                "combatant": who,
                "name": name,
                "applies_to": applies_to,
                "value": value,
                "first_round": nxt,
                "last_round": nxt,
            }
        )

    for p in bought:
        name = p.boon.name
        if name == "defensive_posture":
            next_round(attacker.id, "Defensive Posture", "def", 2)
        elif name == "initiative_boost":
            next_round(attacker.id, "Initiative Boost", "ip", 2 * p.points)
        elif name == "attack_boost":
            next_round(attacker.id, "Attack Boost", "primary_attack", p.points)
        elif name == "inspiring_attack":
            for ally in state.combatants.values():
                if ally.side == attacker.side and ally.id != attacker.id:
                    next_round(ally.id, "Inspiring Attack", "ip", p.points)
    return effects


def _lightning_attack(state: EncounterState, pending: PendingPoints) -> dict[str, Any]:
    """Default NOV-AMB-42: the same attack again, at once, 0 AP, AB −4."""
    position = state.version + 1  # the BoonsSpent that grants it
    action = state.action(pending.action)
    facts = NovusAction.of(action)  # the same attack again, its Riding roll already made
    again = NovusAction.model_validate(facts.model_dump(exclude_unset=True, exclude={"riding_tn"}))
    again.ab_mods = {**facts.ab_mods, "lightning attack": -4}
    again.primary = False
    again.def_mods = {}  # and its DEF changes
    return ActionState(
        id=f"{position}.lightning",
        combatant=pending.combatant,
        kind=action.kind,
        round=state.round,
        declared_round=state.round,
        cost=0,
        order=0,
        immediate=True,
        target=pending.target,
        weapon=pending.weapon,
        params=again.as_params(),
        origin=position,
    ).model_dump()


def _described(p: Purchase) -> dict[str, Any]:
    return {
        "name": p.boon.name,
        "label": p.boon.label,
        "points": p.points,
        "effect": p.effect_text or p.boon.effect,
        "recorded": p.boon.recorded,
    }


def apply_hit(
    ctx: Context, pending: PendingPoints, bought: list[Purchase], boons_at: int | None
) -> None:
    """Damage (NOV-DMG-1..3), a limb's Called Shot toll (NOV-CALL-3, -4), then the conditions
    the Boons bought (NOV-COND-1..4)."""
    state = ctx.state
    action = state.action(pending.action)
    target = state.combatants[pending.target]
    dmg = hit_damage(state, action, target.id, pending.margin, bought)
    hit_at = ctx.apply_damage(target.id, dmg, cause=pending.attack)
    facts = NovusAction.of(action)
    if facts.called_shot in ("arm", "leg") and facts.location is not None:
        _limb(ctx, target.id, facts.location, dmg["total"], hit_at)
    names = {p.boon.name: p for p in bought}
    cause = boons_at if boons_at is not None else pending.attack
    if "bleeder" in names:  # NOV-COND-1: a wound of 1 per round per point
        ctx.apply_condition(
            target.id, "bleeding", "Bleeder", cause=cause, rate=names["bleeder"].points
        )
    # NOV-COND-2: Daze Foe lasts 1 round; dazes do not stack, the longest count stays
    if "daze_foe" in names and target.conditions.get("dazed") is None:
        ctx.apply_condition(target.id, "dazed", "Daze Foe", cause=cause, count=1)
    if "knock_prone" in names:  # NOV-COND-4
        ctx.apply_condition(target.id, "prone", "Knock Prone", cause=cause)
    weapon = combat.stats_of(state.combatants[pending.combatant]).weapon(action.weapon)
    if "disarm_foe" in names:
        _disarm(ctx, target.id, weapon.ranks if weapon else 0, cause)


def _limb(ctx: Context, target: str, location: str, damage: int, cause: int) -> None:
    """NOV-CALL-3, -4 (Default NOV-AMB-16): −2 per successful Called Shot on the limb,
    cumulative; useless once the damage it took passes the Constitution Stat Value."""
    who = ctx.state.combatants[target]
    limb = marks_of(who).limbs.get(location)
    total = (limb.damage if limb else 0) + damage
    con = combat.stats_of(who).values.con
    ctx.emit(
        ne.LimbWounded,
        cause=cause,
        combatant=target,
        location=location,
        damage=damage,
        penalty=(limb.penalty if limb else 0) - 2,
        total_damage=total,
        useless=con is not None and total > con,
    )


def _disarm(ctx: Context, target: str, ranks: int, cause: int) -> None:
    """Disarm Foe: Save vs. Str (NOV-SAVE-1..3), TN 15 + the attacker's ranks."""
    pos, saved = roll_save(
        ctx, target, "str", DISARM_TN + ranks, "Disarm Foe", roll_name="disarm_save", cause=cause
    )
    if not saved:
        ctx.apply_condition(target, "disarmed", "weapon flies 1–10 ft (GM places it)", cause=pos)
