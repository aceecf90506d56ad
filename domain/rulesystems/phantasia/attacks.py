"""Attacks and powers: the attack check (PHA-ACT-10, -11, PHA-ATK, PHA-MAG), whether a
power may be used (PHA-FOE-5, PHA-CHAR-6, PHA-PM-5) and PM (PHA-PM). Each target's check
is in `hits`, the figures in `figures`, the damage in `damage_rolls`, the fumble table in
`fumbles`, a PHANTÄSIA point's re-roll in `rerolls`."""

from __future__ import annotations

from typing import Any

from domain.rulesystems.base import Context, with_situational
from domain.rulesystems.phantasia import commands as ph
from domain.rulesystems.phantasia import events as pe
from domain.rulesystems.phantasia import statuses
from domain.rulesystems.phantasia.attack_state import AttackResult, PhantasiaAttack
from domain.rulesystems.phantasia.checks import rolls_of
from domain.rulesystems.phantasia.figures import attack_bonus
from domain.rulesystems.phantasia.hits import (
    Attack,
    check_targets,
    critical_area,
    who_rolls,
)
from domain.rulesystems.phantasia.reasons import Said, reason_of, said
from domain.rulesystems.phantasia.record import offensive_action_taken
from domain.rulesystems.phantasia.refusals import refused
from domain.rulesystems.phantasia.stats import PhantasiaStats, Power, Weapon, extra_uses, max_pm
from domain.rulesystems.phantasia.turns import (
    check_action,
    moment,
    pm_of,
    repeat_penalty,
    stats_of,
)
from domain.state import ActionState, CombatantState, EncounterState


def pending_attack(state: EncounterState) -> ActionState | None:
    """An attack that hit (damage to roll) or fumbled (the d6 to roll)."""
    return next((a for a in state.actions if a.kind == "attack" and a.status == "pending"), None)


def last_attack(state: EncounterState) -> ActionState | None:
    return next((a for a in reversed(state.actions) if a.kind == "attack"), None)


# -- the attack check --------------------------------------------------------------------


def attack_check(ctx: Context, cmd: ph.AttackCheck) -> None:
    """PHA-ACT-10, -11: an AT (or AM) check against one or more targets; what follows it
    (damage, a fumble) is another command."""
    state = ctx.state
    who = state.combatant(cmd.combatant)
    targets = _targets(state, who, cmd)
    weapon, power = _means(who, stats_of(who), cmd)
    if len(targets) > 1 and power is None:
        raise refused("PHA-CRIT-2.only-power-affects", field="targets")
    if cmd.free and (who.marks.free_attack != targets[0].id or len(targets) > 1):
        raise refused(
            "PHA-CRIT-5.no-free-attack", field="free", who=who.name, target=targets[0].name
        )
    spent = check_action(
        state,
        who,
        offensive=cmd.offensive,
        reaction=cmd.reaction,
        out_of_order=cmd.out_of_order,
        free=cmd.free,
    )
    _check_defenses(state, who, targets, cmd)
    attack = _attack(who, weapon, power, cmd, spent)
    results = check_targets(ctx, attack, targets)
    critical_area(results, cmd.critical_target)
    action = _attack_action(state, attack, targets, weapon, power, results, spent)
    checked = ctx.emit(
        pe.AttackChecked,
        combatant=who.id,
        action=action.model_dump(),
        results=results,
        rolls=rolls_of(*results),
        spent=spent,
    )
    _pm_after_check(ctx, who, power, results, checked)
    if cmd.offensive:
        offensive_action_taken(ctx, who.id, checked)


def _targets(
    state: EncounterState, who: CombatantState, cmd: ph.AttackCheck
) -> list[CombatantState]:
    """His targets, each named once and none himself, with no other attack open
    (PHA-DMG-1: its damage or fumble first)."""
    waiting = pending_attack(state)
    if waiting is not None:
        raise refused("PHA-DMG-1.attack-still-open", waiting_id=waiting.id)
    targets = [state.combatant(t) for t in cmd.targets]
    if len({t.id for t in targets}) != len(targets) or who in targets:
        raise refused("PHA-ATK-1.name-each-target", field="targets")
    return targets


def _check_defenses(
    state: EncounterState, who: CombatantState, targets: list[CombatantState], cmd: ph.AttackCheck
) -> None:
    """What the command says of its targets: the one an area critical doubles (PHA-CRIT-2),
    blocks and cover (PHA-DEF-2, -5), a hit the GM enters (Default PHA-AMB-50)."""
    if cmd.critical_target is not None and cmd.critical_target not in {t.id for t in targets}:
        raise refused("PHA-CRIT-2.critical-target-is-a-target", field="critical_target")
    bad = sorted(set(cmd.block) - {t.id for t in targets}) + sorted(
        set(cmd.cover) - {t.id for t in targets}
    )
    if bad:
        raise refused("PHA-DEF-2.not-a-target", field="block", bad=bad[0])
    if cmd.hit is not None and any(who_rolls(state, who, t, cmd) != "gm" for t in targets):
        raise refused("PHA-AMB-50.hit-entered-only", field="hit")
    for t in targets:
        if t.id in cmd.block and (stats_of(t).shield is None or t.marks.shield_broken):
            raise refused("PHA-DEF-2.no-shield", field="block", t=t.name)


def _attack(
    who: CombatantState,
    weapon: Weapon | None,
    power: Power | None,
    cmd: ph.AttackCheck,
    spent: dict[str, Any],
) -> Attack:
    """His AT or AM bonus and modifiers, the same against every target."""
    magic = power is not None and not power.physical
    ranged = power is not None or (weapon is not None and weapon.is_ranged)
    at, df = ("am", "dm") if magic else ("at", "df")
    # the attacker's modifiers (statuses after PHA-STK, the repeat penalty, prone)
    mods = dict(statuses.modifiers(who, at))
    mods.update(repeat_penalty(who, spent))
    crossbow = weapon is not None and weapon.crossbow_or_firearm
    if who.has("prone") and not crossbow:  # PHA-STS-19: attacking from the ground
        mods["attacking from the ground"] = -3
    return Attack(
        cmd=cmd,
        who=who,
        bonus=attack_bonus(who, weapon, power, cmd.characteristic),
        mods=with_situational(mods, cmd.modifiers),
        at=at,
        df=df,
        adjacent=cmd.adjacent if cmd.adjacent is not None else not ranged,
        ranged=ranged,
    )


def _attack_action(
    state: EncounterState,
    attack: Attack,
    targets: list[CombatantState],
    weapon: Weapon | None,
    power: Power | None,
    results: list[dict[str, Any]],
    spent: dict[str, Any],
) -> ActionState:
    """The attack as an action: resolved, or pending while its damage or fumble is due."""
    who = attack.who
    facts = PhantasiaAttack(
        targets=[t.id for t in targets],
        weapon=weapon.name if weapon else None,
        power=power.name if power else None,
        magic=attack.at == "am",
        ranged=attack.ranged,
        doublings=attack.cmd.doublings,
        results=[AttackResult.model_validate(r) for r in results],
        moment=list(moment(state)),  # the turn it was rolled in (PHA-PP-2 a)
    )
    if power is not None:  # PHA-FOE-5: a cooldown counts his own turns
        facts.available_from = who.marks.turn + power.cooldown + 1 if power.cooldown else None
    return ActionState(
        id=f"a{state.version + 1}",
        combatant=who.id,
        kind="attack",
        round=state.round,
        declared_round=state.round,
        cost=0 if spent.get("free") or spent.get("reaction") else 1,
        order=0,
        target=targets[0].id,
        weapon=weapon.name if weapon else None,
        params=facts.as_params(),
        status="pending" if any(r.follows for r in facts.results) else "resolved",
        origin=state.version + 1,
    )


def _pm_after_check(
    ctx: Context,
    who: CombatantState,
    power: Power | None,
    results: list[dict[str, Any]],
    checked: int,
) -> None:
    """The power's PM cost (PHA-PM-5), then a PM for each natural 1 rolled (PHA-CRIT-3)."""
    if power is not None and power.pm_cost:  # PHA-PM-5: the power's cost, entered
        pm_change(
            ctx,
            who.id,
            -power.pm_cost,
            said("power_cost", power=power.name, pm=power.pm_cost),
            checked,
        )
    lucky = {
        r["roller"] for r in results if r["critical"] and r["check"] in ("AT", "AM", "DF", "DM")
    }
    for roller in sorted(lucky):  # PHA-CRIT-3, PHA-PM-2: one PM per natural 1 rolled
        pm_change(ctx, roller, 1, said("natural_1"), checked)


def _means(
    who: CombatantState, stats: PhantasiaStats, cmd: ph.AttackCheck
) -> tuple[Weapon | None, Power | None]:
    if cmd.weapon is not None and cmd.power is not None:
        raise refused("PHA-ACT-10.weapon-power-both", field="power")
    if cmd.power is not None:
        power = stats.power(cmd.power)
        if power is None:
            raise refused("PHA-MAG-1.no-power", field="power", who=who.name, power=cmd.power)
        check_power(who, power)
        return None, power
    if cmd.weapon is None:
        return None, None
    weapon = stats.weapon(cmd.weapon)
    if weapon is None:
        raise refused("PHA-ATK-1.no-weapon", field="weapon", who=who.name, weapon=cmd.weapon)
    if weapon.two_handed and who.has("grabbed"):
        raise refused("PHA-STS-1.grabbed-two-handed", field="weapon", who=who.name)
    if who.marks.dropped == weapon.name:
        raise refused(
            "PHA-CRIT-5.dropped-picking-up", field="weapon", who=who.name, weapon=weapon.name
        )
    return weapon, None


def check_power(who: CombatantState, power: Power) -> None:
    """Mute blocks magic (PHA-STS-12, Default PHA-AMB-38); Blind blocks powers aimed at
    creatures (PHA-STS-4); a cooldown (PHA-FOE-5, Default PHA-AMB-49) or a power locked
    by a fumble (PHA-CRIT-5); uses per day with the VIT extra uses (PHA-CHAR-6); PM."""
    if who.has("mute") and power.magic:
        raise refused("PHA-STS-12.mute-magic", field="power", who=who.name)
    if who.has("blind") and power.targeted:
        raise refused("PHA-STS-4.blind-power-aimed", field="power", who=who.name)
    ready = who.marks.cooldowns.get(power.name)
    if ready is not None and who.marks.turn < ready:
        raise refused(
            "PHA-FOE-5.can-used-again", field="power", power=power.name, who=who.name, ready=ready
        )
    if power.uses_per_day is not None:
        stats = stats_of(who)
        allowed = power.uses_per_day + extra_uses(stats, power.uses_per_day)
        if who.marks.uses.get(power.name, 0) >= allowed:
            raise refused(
                "PHA-CHAR-6.use-left-today", field="power", power=power.name, allowed=allowed
            )
    if power.pm_cost > pm_of(who):
        raise refused(
            "PHA-PM-5.not-enough-pm",
            field="power",
            power=power.name,
            pm=power.pm_cost,
            who=who.name,
            has=pm_of(who),
        )


def pm_change(
    ctx: Context, combatant: str, delta: int, reason: str | Said, cause: int | None
) -> None:
    """PM change, never above the maximum (PHA-PM-1, -2) nor below 0."""
    who = ctx.state.combatants[combatant]
    before = pm_of(who)
    after = max(0, min(max_pm(stats_of(who)), before + delta))
    if after != before:
        ctx.emit(
            pe.PmChanged,
            cause=cause,
            combatant=who.id,
            pm_before=before,
            pm_after=after,
            **reason_of(reason),
        )
