"""Resolving one attack: roll, hit, Boon Points, damage and what the Boons do
(novus-core.md §13: NOV-ATK-1..5, NOV-BOON-1..4, NOV-DMG-1..4, NOV-COND-1..4)."""

from __future__ import annotations

from typing import Any

from domain import commands as c
from domain import events as ev
from domain.errors import RuleViolation
from domain.rulesystems.base import Context, with_situational
from domain.rulesystems.novus import combat, snags
from domain.rulesystems.novus.boons import Purchase, check_purchase
from domain.rulesystems.novus.dice import Asking, boon_points, open_2d10, snag_points
from domain.rulesystems.novus.initiative import gain_fate_point
from domain.rulesystems.novus.saves import roll_save
from domain.state import ActionState, EncounterState, PendingPoints

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
    ride: bool = True,
) -> int:
    """Roll one attack and record it (NOV-ATK-1, -2, -5, NOV-CORE-5..7); its position."""
    state = ctx.state
    attacker = state.combatants[action.combatant]
    target = state.combatant(target_id)
    weapon = combat.stats_of(attacker).weapon(action.weapon)
    situational = dict(modifiers)
    if action.params.get("into_melee"):
        situational["firing into melee"] = INTO_MELEE
    if ride and "riding_tn" in action.params:
        success, rode_at = riding_roll(ctx, action)
        cause = rode_at if cause is None else cause  # the attack follows from the ride
        if not success:
            situational["failed Riding roll"] = -1  # NOV-MNT-2, NOV-MCH-5
    ab = combat.attack_bonus(state, attacker, action, weapon, situational)
    defense = combat.defense(state, target)
    roll = open_2d10(ctx.dice, roll_name, ab, attack_asking(state, action, target.id, roll_name))
    margin = roll.total - defense["def"]
    hit = margin >= 0 if gm_hit is None else gm_hit  # the GM may override
    if gm_hit is not None:
        defense = {**defense, "gm_override": gm_hit}
    head = 0
    if hit and action.params.get("called_shot") == "head":  # NOV-CALL-5 (NOV-AMB-17, -42)
        before_boons = hit_damage(state, action, target.id, max(margin, 0), [])["total"]
        k = max(1, combat.stats_of(target).bonuses.con + 5)
        head = (before_boons - 1) // k if before_boons >= 1 else 0
    pos = ctx.emit(
        ev.AttackRolled,
        cause=action.origin if cause is None else cause,
        combatant=attacker.id,
        action=action.id,
        target=target.id,
        rolls={roll_name: roll.to_dict()},
        attack_bonus=ab,
        defense=defense,
        total=roll.total,
        hit=hit,
        margin=margin,
        boon_points=boon_points(margin) if hit else 0,
        snag_points=0 if hit else snag_points(margin),  # Default NOV-AMB-40
        nova="nova" in roll.flags,
        head_points=head,
    )
    gain_fate_point(ctx, attacker, roll, pos)
    return pos


def attack_asking(
    state: EncounterState, action: ActionState, target_id: str, roll_name: str
) -> Asking:
    """Who rolls an attack and what for, in the table's words: the attacker, the attack as
    declared (an Opportunity Attack, a Lightning Attack, a stray blow at a friend), the
    weapon and the DEF it is rolled against (NOV-ATK-1..3)."""
    attacker = state.combatants[action.combatant]
    target = state.combatants[target_id]
    against = f"DEF {combat.defense(state, target)['def']}"
    if roll_name == "friend_attack":  # NOV-SNAG-2
        return Asking(
            attacker.id,
            f"{attacker.name}'s blow goes astray at {target.name} "
            f"(Snag: hit the nearest friend; {against})",
            f"{attacker.name}'s stray blow",
        )
    label = action.params.get("label", action.kind)
    if action.id.endswith(".lightning"):  # Default NOV-AMB-42
        label = "Lightning Attack"
    with_ = f"the {action.weapon}" if action.weapon else "bare hands"
    return Asking(
        attacker.id,
        f"{attacker.name} attacks {target.name} with {with_} ({label}; {against})",
        f"{attacker.name}'s attack",
    )


def riding_roll(ctx: Context, action: ActionState) -> tuple[bool, int]:
    """The mandatory Riding roll, no AP (NOV-MNT-1, NOV-MCH-4, -5): a failure costs −1 AB
    and −1 DEF, at most once a round (Default NOV-AMB-23)."""
    rider = ctx.state.combatants[action.combatant]
    tn = int(action.params["riding_tn"])
    mods = {"riding": combat.stats_of(rider).riding, **combat.action_penalties(ctx.state, rider)}
    label = action.params.get("label", action.kind)
    asking = Asking(
        rider.id, f"{rider.name}'s Riding roll for the {label} (TN {tn})", f"{rider.name}'s Riding"
    )
    roll = open_2d10(ctx.dice, "riding", mods, asking)
    success = roll.total >= tn
    effects = []
    already = any(e.name == "failed Riding roll" for e in rider.effects_for("def", ctx.state.round))
    if not success and not already:
        effects.append(
            {
                "combatant": rider.id,
                "name": "failed Riding roll",
                "applies_to": "def",
                "value": -1,
                "first_round": ctx.state.round,
                "last_round": ctx.state.round,
            }
        )
    pos = ctx.emit(
        ev.RidingRolled,
        cause=action.origin,
        combatant=rider.id,
        action=action.id,
        rolls={"riding": roll.to_dict()},
        tn=tn,
        total=roll.total,
        success=success,
        effects=effects,
    )
    gain_fate_point(ctx, rider, roll, pos)
    return success, pos


def hit_damage(
    state: EncounterState, action: ActionState, target_id: str, margin: int, bought: list[Purchase]
) -> dict[str, Any]:
    """NOV-DMG-1..4 with what the attack's situations and Boons add."""
    attacker = state.combatants[action.combatant]
    target = state.combatants[target_id]
    stats = combat.stats_of(attacker)
    weapon = stats.weapon(action.weapon)
    params = action.params
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
    if params.get("improvised"):  # NOV-IMP-3 (Default NOV-AMB-22): the weapon's BD halved
        whole = sum(base.values())
        base["improvised: half"] = whole // 2 - whole
    base.update(params.get("bd_mods", {}))  # Base Damage extras come in full
    if params.get("bd"):
        base[params.get("move", "move")] = int(params["bd"])
    if "strong_attack" in names:
        base["Strong Attack"] = stats.bonuses.str_
    if "adrenal_surge" in names:
        base["Adrenal Surge"] = stats.bonuses.wil
    extra: dict[str, int] = {}
    if "skilled_attack" in names and weapon is not None:  # not Base Damage (NOV-DMG-4)
        extra["Skilled Attack"] = weapon.ranks // 2
    if params.get("charge_damage"):  # NOV-MCH-3: 15 × pace
        extra["mounted charge"] = int(params["charge_damage"])
    for e in attacker.effects_for("damage", state.round):
        extra[e.name] = e.value
    scaled = margin if params.get("scaled", True) else 0  # NOV-ATK-5; Cut: none
    target_stats = combat.stats_of(target)
    if not params.get("armour", True):
        armour = 0
    elif params.get("called_shot"):  # NOV-CALL-2: the location's Called Shot AR
        armour = target_stats.called_shot_ar.get(params["called_shot"], 0)
    else:
        armour = target_stats.ar
    return combat.damage(base, scaled, extra, armour)


def resolve_attack(ctx: Context, action: ActionState, cmd: c.Resolve) -> None:
    pos = roll_attack(ctx, action, action.target or "", cmd.modifiers, cmd.hit)
    # NOV-FIM-2: a shot into melee that hits its target resolves like any other
    if not ctx.last(pos).hit and action.params.get("into_melee"):
        bystanders_save(ctx, action, pos)
    settle(ctx, pos, cmd.boons, cmd.snags)


def spell_attack(ctx: Context, action: ActionState, cmd: c.Resolve) -> None:
    """NOV-ATK-6: one casting roll serves twice, first against the casting TN, then, if the
    spell is cast, as the attack total against DEF; damage as NOV-DMG-2 from the spell's
    Base Damage (GM-entered), less AR. Magic Boons and Snags are outside the combat log."""
    state = ctx.state
    caster = state.combatants[action.combatant]
    target = state.combatant(action.target or "")
    params = action.params
    mods = with_situational(
        {
            "spell bonus": int(params["spell_bonus"]),
            **params.get("ab_mods", {}),
            **combat.action_penalties(state, caster, action),
        },
        cmd.modifiers,
    )
    asking = Asking(
        caster.id,
        f"{caster.name} casts at {target.name} (casting TN {params['casting_tn']}, then "
        f"against DEF {combat.defense(state, target)['def']})",
        f"{caster.name}'s casting roll",
    )
    roll = open_2d10(ctx.dice, "casting", mods, asking)
    cast = roll.total >= int(params["casting_tn"])
    defense = {**combat.defense(state, target), "casting_tn": params["casting_tn"], "cast": cast}
    margin = roll.total - defense["def"]
    hit = (cast and margin >= 0) if cmd.hit is None else cmd.hit
    pos = ctx.emit(
        ev.AttackRolled,
        cause=action.origin,
        combatant=caster.id,
        action=action.id,
        target=target.id,
        rolls={"casting": roll.to_dict()},
        attack_bonus=mods,
        defense=defense,
        total=roll.total,
        hit=hit,
        margin=margin,
        boon_points=0,
        snag_points=0,
        nova="nova" in roll.flags,
        head_points=0,
    )
    gain_fate_point(ctx, caster, roll, pos)
    if hit:
        dmg = combat.damage(
            {"spell": int(params["spell_damage"])}, max(margin, 0), {}, combat.stats_of(target).ar
        )
        ctx.apply_damage(target.id, dmg, cause=pos)


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
            pos = roll_attack(  # the same attack: no second Riding roll
                ctx,
                action,
                spec.target or "",
                spec.modifiers,
                spec.hit,
                "friend_attack",
                at,
                ride=False,
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
        ctx.apply_damage(bystander.id, dmg, cause=pos)
        return


def spend_boons(ctx: Context, pending: PendingPoints, specs: list[c.BoonSpec]) -> None:
    """NOV-BOON-1..3: spend at once; next-round Boons lapse after that round."""
    state = ctx.state
    attacker = state.combatants[pending.combatant]
    stats = combat.stats_of(attacker)
    weapon = stats.weapon(pending.weapon)
    bought = check_purchase(specs, pending.points, weapon, stats, pending.head_points)
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
            params = {  # the same attack again, its DEF changes and Riding roll already made
                **{k: v for k, v in action.params.items() if k != "riding_tn"},
                "ab_mods": {**action.params.get("ab_mods", {}), "lightning attack": -4},
                "primary": False,
                "def_mods": {},
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
    """Damage (NOV-DMG-1..3), a limb's Called Shot toll (NOV-CALL-3, -4), then the conditions
    the Boons bought (NOV-COND-1..4)."""
    state = ctx.state
    action = state.action(pending.action)
    target = state.combatants[pending.target]
    dmg = hit_damage(state, action, target.id, pending.margin, bought)
    hit_at = ctx.apply_damage(target.id, dmg, cause=pending.attack)
    if action.params.get("called_shot") in ("arm", "leg"):
        _limb(ctx, target.id, action.params["location"], dmg["total"], hit_at)
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
    limb = who.limbs.get(location)
    total = (limb.damage if limb else 0) + damage
    con = combat.stats_of(who).values.con
    ctx.emit(
        ev.LimbWounded,
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
