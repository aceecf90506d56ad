"""Resolving one attack: its roll, hit or miss, and its Boon or Snag Points spent at once or
left waiting (novus-core.md §13: NOV-ATK-1..6, NOV-BOON-1, NOV-SNAG-1, -2, NOV-FIM-1..6);
what the hit then does is in hits.py."""

from __future__ import annotations

from domain.errors import RuleViolation
from domain.rulesystems.base import Context, with_situational
from domain.rulesystems.novus import combat, snags
from domain.rulesystems.novus import commands as nc
from domain.rulesystems.novus import events as ne
from domain.rulesystems.novus.dice import Asking, boon_points, open_2d10, snag_points
from domain.rulesystems.novus.hits import apply_hit, hit_damage, pending_of, spend_boons
from domain.rulesystems.novus.initiative import gain_fate_point
from domain.rulesystems.novus.saves import roll_save
from domain.rulesystems.novus.state import NovusAction, PendingPoints, encounter_marks_of
from domain.state import ActionState, EncounterState

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
    facts = NovusAction.of(action)
    situational = dict(modifiers)
    if facts.into_melee:
        situational["firing into melee"] = INTO_MELEE
    if ride and facts.riding_tn is not None:
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
    if hit and facts.called_shot == "head":  # NOV-CALL-5 (NOV-AMB-17, -42)
        before_boons = hit_damage(state, action, target.id, max(margin, 0), [])["total"]
        k = max(1, combat.stats_of(target).bonuses.con + 5)
        head = (before_boons - 1) // k if before_boons >= 1 else 0
    pos = ctx.emit(
        ne.AttackRolled,
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
    label = NovusAction.of(action).named(action.kind)
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
    facts = NovusAction.of(action)
    assert facts.riding_tn is not None  # roll_attack rolls it only then
    tn = facts.riding_tn
    mods = {"riding": combat.stats_of(rider).riding, **combat.action_penalties(ctx.state, rider)}
    label = facts.named(action.kind)
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
        ne.RidingRolled,
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


def resolve_attack(ctx: Context, action: ActionState, cmd: nc.Resolve) -> None:
    pos = roll_attack(ctx, action, action.target or "", cmd.modifiers, cmd.hit)
    # NOV-FIM-2: a shot into melee that hits its target resolves like any other
    if not ctx.last(pos).hit and NovusAction.of(action).into_melee:
        bystanders_save(ctx, action, pos)
    settle(ctx, pos, cmd.boons, cmd.snags)


def spell_attack(ctx: Context, action: ActionState, cmd: nc.Resolve) -> None:
    """NOV-ATK-6: one casting roll serves twice, first against the casting TN, then, if the
    spell is cast, as the attack total against DEF; damage as NOV-DMG-2 from the spell's
    Base Damage (GM-entered), less AR. Magic Boons and Snags are outside the combat log."""
    state = ctx.state
    caster = state.combatants[action.combatant]
    target = state.combatant(action.target or "")
    spell = NovusAction.of(action)
    assert spell.casting_tn is not None and spell.spell_bonus is not None  # vs_def (NOV-ATK-6)
    mods = with_situational(
        {
            "spell bonus": spell.spell_bonus,
            **spell.ab_mods,
            **combat.action_penalties(state, caster, action),
        },
        cmd.modifiers,
    )
    asking = Asking(
        caster.id,
        f"{caster.name} casts at {target.name} (casting TN {spell.casting_tn}, then "
        f"against DEF {combat.defense(state, target)['def']})",
        f"{caster.name}'s casting roll",
    )
    roll = open_2d10(ctx.dice, "casting", mods, asking)
    cast = roll.total >= spell.casting_tn
    defense = {**combat.defense(state, target), "casting_tn": spell.casting_tn, "cast": cast}
    margin = roll.total - defense["def"]
    hit = (cast and margin >= 0) if cmd.hit is None else cmd.hit
    pos = ctx.emit(
        ne.AttackRolled,
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
            {"spell": spell.spell_damage}, max(margin, 0), {}, combat.stats_of(target).ar
        )
        ctx.apply_damage(target.id, dmg, cause=pos)


def settle(
    ctx: Context, pos: int, boons: list[nc.BoonSpec] | None, snags: list[nc.SnagSpec] | None
) -> None:
    """After an attack roll: damage at once, or its Boon or Snag Points spent now
    (NOV-BOON-1, NOV-SNAG-1) or left waiting for spend_boons / spend_snags."""
    marks = encounter_marks_of(ctx.state)  # the fold holds the points pending, if any
    if ctx.last(pos).hit:
        if snags:
            raise RuleViolation("NOV-SNAG-1", "a hit earns no Snag Points", field="snags")
        if marks.pending_boons is None:
            if boons:
                raise RuleViolation("NOV-BOON-2", "this hit earned no Boon Points", field="boons")
            apply_hit(ctx, pending_of(ctx, pos), [], None)
        elif boons is not None:
            spend_boons(ctx, marks.pending_boons, boons)
        return
    if boons:
        raise RuleViolation("NOV-BOON-1", "a miss earns no Boon Points", field="boons")
    if marks.pending_snags is not None and snags is not None:
        spend_snags(ctx, marks.pending_snags, snags)
    elif snags:
        raise RuleViolation("NOV-SNAG-1", "this roll earned no Snag Points", field="snags")


def spend_snags(ctx: Context, pending: PendingPoints, specs: list[nc.SnagSpec]) -> None:
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


def bystanders_save(ctx: Context, action: ActionState, attack_at: int) -> None:
    """NOV-FIM-3..6: after a miss into melee, bystanders save vs. Spd, nearest first, TN the
    attack total; the first to fail takes Base Damage + 1 per point failed − AR and the chain
    stops (Default NOV-AMB-19)."""
    attack = ctx.last(attack_at)
    attacker = ctx.state.combatants[action.combatant]
    weapon = combat.stats_of(attacker).weapon(action.weapon)
    assert weapon is not None
    for bystander_id in NovusAction.of(action).bystanders:
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
