"""Resolving one attack: roll, hit, Boon Points, damage and what the Boons do
(novus-core.md §13: NOV-ATK-1..5, NOV-BOON-1..4, NOV-DMG-1..4, NOV-COND-1..4)."""

from __future__ import annotations

from typing import Any

from domain import commands as c
from domain import events as ev
from domain.errors import RuleViolation
from domain.rulesystems.base import Context
from domain.rulesystems.novus import combat, snags
from domain.rulesystems.novus.boons import Purchase, check_purchase
from domain.rulesystems.novus.dice import boon_points, open_2d10, snag_points
from domain.rulesystems.novus.initiative import gain_fate_point
from domain.rulesystems.novus.saves import roll_save
from domain.state import ActionState, PendingPoints

DISARM_TN = 15  # NOV-BOON table: Save vs. Str, TN 15 + the attacker's ranks
INTO_MELEE = -2  # NOV-FIM-1


def roll_attack(
    ctx: Context,
    action: ActionState,
    target_id: str,
    modifiers: dict[str, int],
    gm_hit: bool | None,
    roll_name: str = "attack",
    cause: int | None = None,
) -> int:
    """Roll one attack and record it (NOV-ATK-1, -2, -5, NOV-CORE-5..7); its position."""
    state = ctx.state
    attacker = state.combatants[action.combatant]
    target = state.combatant(target_id)
    weapon = combat.stats_of(attacker).weapon(action.weapon)
    assert weapon is not None
    situational = dict(modifiers)
    if action.params.get("into_melee"):
        situational["firing into melee"] = INTO_MELEE
    ab = combat.attack_bonus(state, attacker, action, weapon, situational)
    roll = open_2d10(ctx.dice, roll_name, ab)
    defence = combat.defence(state, target)
    margin = roll.total - defence["def"]
    hit = margin >= 0 if gm_hit is None else gm_hit  # the GM may override
    if gm_hit is not None:
        defence = {**defence, "gm_override": gm_hit}
    pos = ctx.emit(
        ev.AttackRolled,
        cause=action.origin if cause is None else cause,
        combatant=attacker.id,
        action=action.id,
        target=target.id,
        rolls={roll_name: roll.to_dict()},
        attack_bonus=ab,
        defence=defence,
        total=roll.total,
        hit=hit,
        margin=margin,
        boon_points=boon_points(margin) if hit else 0,
        snag_points=0 if hit else snag_points(margin),  # Default NOV-AMB-40
        nova="nova" in roll.flags,
    )
    gain_fate_point(ctx, attacker, roll, pos)
    return pos


def resolve_attack(ctx: Context, action: ActionState, cmd: c.Resolve) -> None:
    pos = roll_attack(ctx, action, action.target or "", cmd.modifiers, cmd.hit)
    if not ctx.last(pos).hit and action.params.get("into_melee"):
        bystanders_save(ctx, action, pos)
    settle(ctx, pos, cmd.boons, cmd.snags)


def settle(
    ctx: Context, pos: int, boons: list[c.BoonSpec] | None, snags: list[c.SnagSpec] | None
) -> None:
    """After an attack roll: damage at once, or its Boon or Snag Points spent now
    (NOV-BOON-1, NOV-SNAG-1) or left waiting for spend_boons / spend_snags."""
    state = ctx.state  # the fold holds this attack's points as pending, if it earned any
    if ctx.last(pos).hit:
        if snags:
            raise RuleViolation("NOV-SNAG-1", "a hit earns no Snag Points", field="snags")
        if state.pending_boons is None:
            if boons:
                raise RuleViolation("NOV-BOON-2", "this hit earned no Boon Points", field="boons")
            apply_hit(ctx, pending_of(ctx, pos), [], None)
        elif boons is not None:
            spend_boons(ctx, state.pending_boons, boons)
        return
    if boons:
        raise RuleViolation("NOV-BOON-1", "a miss earns no Boon Points", field="boons")
    if state.pending_snags is not None and snags is not None:
        spend_snags(ctx, state.pending_snags, snags)
    elif snags:
        raise RuleViolation("NOV-SNAG-1", "this roll earned no Snag Points", field="snags")


def spend_snags(ctx: Context, pending: PendingPoints, specs: list[c.SnagSpec]) -> None:
    """NOV-SNAG-2: hitting the nearest friend is a new attack roll against him."""
    at, chosen = snags.record(ctx, pending, specs)
    for snag, spec in chosen:
        if snag.name == "hit_friend":
            action = ctx.state.action(pending.action)
            pos = roll_attack(
                ctx, action, spec.target or "", spec.modifiers, spec.hit, "friend_attack", at
            )
            settle(ctx, pos, None, None)


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
        params=action.params,
    )


def bystanders_save(ctx: Context, action: ActionState, attack_at: int) -> None:
    """NOV-FIM-3..6: after a miss into melee, bystanders save vs. Spd, nearest first, TN the
    attack total; the first to fail takes Base Damage + 1 per point failed − AR and the chain
    stops (Default NOV-AMB-19)."""
    attack = ctx.last(attack_at)
    attacker = ctx.state.combatants[action.combatant]
    weapon = combat.stats_of(attacker).weapon(action.weapon)
    assert weapon is not None
    for bystander_id in action.params.get("bystanders", []):
        bystander = ctx.state.combatants[bystander_id]
        stats = combat.stats_of(bystander)
        tn = attack.total  # NOV-FIM-4
        pos, saved = roll_save(  # NOV-FIM-3, NOV-SAVE-4; DEF modifiers: NOV-FIM-7, -AMB-35
            ctx,
            bystander.id,
            "spd",
            tn,
            "firing into melee",
            roll_name=f"bystander_save:{bystander.name}",
            cause=attack_at,
            modifiers=combat.save_def_modifiers(ctx.state, bystander),
        )
        if saved:
            continue
        margin = tn - ctx.last(pos).total
        base = combat.base_damage(attacker, weapon, {})
        dmg = combat.damage(base, margin, {}, stats.ar)  # NOV-FIM-5, -6
        ctx.emit(
            ev.DamageApplied,
            cause=pos,
            combatant=bystander.id,
            amount=dmg["total"],
            hits_before=bystander.hits,
            hits_after=bystander.hits - dmg["total"],
            breakdown=dmg,
            rolls={},
        )
        return


def spend_boons(ctx: Context, pending: PendingPoints, specs: list[c.BoonSpec]) -> None:
    """NOV-BOON-1..3: spend at once; next-round Boons lapse after that round."""
    state = ctx.state
    attacker = state.combatants[pending.combatant]
    stats = combat.stats_of(attacker)
    weapon = stats.weapon(pending.weapon)
    bought = check_purchase(specs, pending.points, weapon, stats)
    nxt = state.round + 1
    effects: list[dict[str, Any]] = []
    granted: list[dict[str, Any]] = []

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

    position = state.version + 1
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
        elif name == "lightning_attack":  # Default NOV-AMB-42: at once, 0 AP, AB −4
            action = state.action(pending.action)
            params = {
                **action.params,
                "ab_mod": -4,
                "ab_mod_name": "lightning attack",
                "primary": False,
                "def_mod": 0,
            }
            granted.append(
                ActionState(
                    id=f"{position}.lightning",
                    combatant=attacker.id,
                    kind=action.kind,
                    round=state.round,
                    declared_round=state.round,
                    cost=0,
                    order=0,
                    immediate=True,
                    target=pending.target,
                    weapon=pending.weapon,
                    params=params,
                    origin=position,
                ).model_dump()
            )
    bpos = ctx.emit(
        ev.BoonsSpent,
        cause=pending.attack,
        combatant=attacker.id,
        target=pending.target,
        points=pending.points,
        boons=[_described(p) for p in bought],
        effects=effects,
        actions=granted,
    )
    apply_hit(ctx, pending, bought, bpos)


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
    """NOV-DMG-1..3 then the conditions the Boons bought (NOV-COND-1..4)."""
    state = ctx.state
    attacker = state.combatants[pending.combatant]
    target = state.combatants[pending.target]
    stats = combat.stats_of(attacker)
    weapon = stats.weapon(pending.weapon)
    assert weapon is not None
    params = pending.params
    names = {p.boon.name: p for p in bought}
    bd_extra: dict[str, int] = {}
    if params.get("bd"):
        bd_extra[params.get("move", "move")] = int(params["bd"])
    if "strong_attack" in names:
        bd_extra["Strong Attack"] = stats.bonuses.str_
    if "adrenal_surge" in names:
        bd_extra["Adrenal Surge"] = stats.bonuses.wil
    extra: dict[str, int] = {}
    if "skilled_attack" in names:  # not Base Damage (NOV-DMG-4)
        extra["Skilled Attack"] = weapon.ranks // 2
    for e in attacker.effects_for("damage", state.round):
        extra[e.name] = e.value
    base = combat.base_damage(attacker, weapon, bd_extra)
    scaled = pending.margin if params.get("scaled", True) else 0  # NOV-ATK-5; Cut: none
    armour = combat.stats_of(target).ar if params.get("armour", True) else 0
    dmg = combat.damage(base, scaled, extra, armour)
    ctx.emit(
        ev.DamageApplied,
        cause=pending.attack,
        combatant=target.id,
        amount=dmg["total"],
        hits_before=target.hits,
        hits_after=target.hits - dmg["total"],
        breakdown=dmg,
        rolls={},
    )
    cause = boons_at if boons_at is not None else pending.attack
    if "bleeder" in names:  # NOV-COND-1: a wound of 1 per round per point
        ctx.apply_condition(
            target.id, "bleeding", "Bleeder", cause=cause, rate=names["bleeder"].points
        )
    # NOV-COND-2: Daze Foe lasts 1 round; dazes do not stack, the longest count stays
    dazed = target.conditions.get("dazed")
    if "daze_foe" in names and dazed is None:
        ctx.apply_condition(target.id, "dazed", "Daze Foe", cause=cause, count=1)
    if "knock_prone" in names:  # NOV-COND-4
        ctx.apply_condition(target.id, "prone", "Knock Prone", cause=cause)
    if "disarm_foe" in names:
        _disarm(ctx, target.id, weapon.ranks, cause)


def _disarm(ctx: Context, target: str, ranks: int, cause: int) -> None:
    """Disarm Foe: Save vs. Str (NOV-SAVE-1..3), TN 15 + the attacker's ranks."""
    pos, saved = roll_save(
        ctx, target, "str", DISARM_TN + ranks, "Disarm Foe", roll_name="disarm_save", cause=cause
    )
    if not saved:
        ctx.apply_condition(target, "disarmed", "weapon flies 1–10 ft (GM places it)", cause=pos)
