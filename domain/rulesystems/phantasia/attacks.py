"""Attacks and powers: who rolls (PHA-CORE-1, -2, PHA-DEF-6), the AT, AM, DF and DM
targets (PHA-ATK, PHA-MAG, PHA-DEF, PHA-CHAR-4), criticals and fumbles (PHA-CRIT),
damage (PHA-DMG) and the fumble table."""

from __future__ import annotations

from typing import Any

from domain import commands as c
from domain import events as ev
from domain.dice import Ask, dice_of, roll_plain
from domain.rulesystems.base import Context, with_situational
from domain.rulesystems.phantasia import damage, statuses
from domain.rulesystems.phantasia.asks import means_en, means_es, names
from domain.rulesystems.phantasia.checks import roll_check, rolls_of
from domain.rulesystems.phantasia.record import offensive_action_taken, record_status
from domain.rulesystems.phantasia.stats import (
    WEAPON_CODES,
    PhantasiaStats,
    Power,
    Weapon,
    adj,
    foe_increment,
    max_pm,
)
from domain.rulesystems.phantasia.turns import (
    check_action,
    is_player,
    moment,
    options_of,
    pm_of,
    refuse,
    repeat_penalty,
    stats_of,
)
from domain.state import ActionState, CombatantState, EncounterState

BASE = 6  # PHA-ATK-1, PHA-MAG-1: 6 + adjustment + item bonus − DF (or DM)
UNARMED_DIE = 4  # PHA-DMG-5
FUMBLE_DIE = 6  # PHA-CRIT-5
POWER_LOCK_DIE = 4  # PHA-CRIT-5 result 1: a power unusable 1d4 turns


def pending_attack(state: EncounterState) -> ActionState | None:
    """An attack that hit (damage to roll) or fumbled (the d6 to roll)."""
    return next((a for a in state.actions if a.kind == "attack" and a.status == "pending"), None)


def fumble_due(action: ActionState) -> bool:
    """The attacker's (or the program's) roll fumbled and its d6 is not rolled yet."""
    return not action.params.get("fumble_rolled") and any(
        r["fumble"] and r["rolled_by"] in ("attacker", "program") for r in action.params["results"]
    )


def last_attack(state: EncounterState) -> ActionState | None:
    return next((a for a in reversed(state.actions) if a.kind == "attack"), None)


# -- the figures (PHA-CHAR-4, Default PHA-AMB-46) ------------------------------------------


def attack_bonus(
    who: CombatantState,
    weapon: Weapon | None,
    power: Power | None,
    characteristic: str | None,
) -> dict[str, int]:
    """The attacker's AT or AM figure − 6, by named parts."""
    stats = stats_of(who)
    if power is not None:
        figure = power.am if power.am is not None else stats.figures.am
        if figure is not None:  # PHA-CHAR-4: the entered figure wins (it holds any increments)
            return {"AM figure": figure - BASE}
        else:  # PHA-MAG-1, Default PHA-AMB-3: INT adjustment (or the power's own)
            ch = power.characteristic
            parts = {f"{ch.upper()} adj": adj(stats, ch, score_change(who, ch))}
        parts["level increments"] = foe_increment(stats, "magical")  # PHA-FOE-4
        return {k: v for k, v in parts.items() if v or k.endswith("adj")}
    if weapon is None:  # PHA-ATK-3, PHA-WPN-5, Default PHA-AMB-21: unarmed, only gauntlets
        parts = {"FUE adj": adj(stats, "fue", score_change(who, "fue"))}
        parts["gauntlets"] = stats.gauntlet_bonus
    else:  # PHA-ATK-1: the characteristic the weapon's code names
        allowed = WEAPON_CODES[weapon.code]["at"]
        assert isinstance(allowed, tuple)
        ch = characteristic or allowed[0]
        if ch not in allowed:
            raise refuse(
                "PHA-ATK-1",
                f"a {weapon.code} weapon attacks with {' or '.join(a.upper() for a in allowed)}",
                f"un arma {weapon.code} ataca con {' o '.join(a.upper() for a in allowed)}",
                "characteristic",
            )
        parts = {f"{ch.upper()} adj": adj(stats, ch, score_change(who, ch))}
        parts["item bonus"] = weapon.item_bonus
    parts["level increments"] = foe_increment(stats, "martial")
    if stats.figures.at_bonus is not None:
        parts["other AT adjustments"] = stats.figures.at_bonus
    return {k: v for k, v in parts.items() if v or k.endswith("adj")}


def score_change(who: CombatantState, characteristic: str) -> int:
    """A magic changing a score changes its adjustment (Default PHA-AMB-51), after the
    stacking rules (PHA-STK-1, -2)."""
    return sum(statuses.modifiers(who, characteristic).values())


def defense(who: CombatantState, figure: str, *, block: bool) -> dict[str, int]:
    """DF = AGI adj + protection + other; DM = INT adj + protection DM + other (Default
    PHA-CHAR-4); a shield only on a declared block (PHA-DEF-2, PHA-WPN-4)."""
    stats = stats_of(who)
    if figure == "df":
        entered = stats.figures.df
        parts = (
            {"DF": entered}
            if entered is not None
            else {
                "AGI adj": adj(stats, "agi", score_change(who, "agi")),
                "protection": stats.protection_df,
                "level increments": foe_increment(stats, "martial"),
            }
        )
    else:
        entered = stats.figures.dm
        parts = (
            {"DM": entered}
            if entered is not None
            else {
                "INT adj": adj(stats, "int", score_change(who, "int")),
                "protection DM": stats.protection_dm,
                "level increments": foe_increment(stats, "magical"),
            }
        )
    if block and stats.shield is not None:
        parts["shield (block)"] = stats.shield.df if figure == "df" else stats.shield.dm
    return {k: v for k, v in parts.items() if v or k in ("DF", "DM")}


# -- the attack check --------------------------------------------------------------------


def attack_check(ctx: Context, cmd: c.AttackCheck) -> None:
    state = ctx.state
    who = state.combatant(cmd.combatant)
    stats = stats_of(who)
    waiting = pending_attack(state)
    if waiting is not None:
        raise refuse(
            "PHA-DMG-1",
            f"attack {waiting.id} is still open: roll_damage or roll_fumble first",
            f"el ataque {waiting.id} sigue abierto: roll_damage o roll_fumble primero",
        )
    targets = [state.combatant(t) for t in cmd.targets]
    if len({t.id for t in targets}) != len(targets) or who in targets:
        raise refuse(
            "PHA-ATK-1",
            "name each target once, and not the attacker",
            "nombra cada objetivo una vez, y no al atacante",
            "targets",
        )
    weapon, power = _means(who, stats, cmd)
    if len(targets) > 1 and power is None:
        raise refuse(
            "PHA-CRIT-2",
            "only a power affects several targets",
            "solo un poder afecta a varios objetivos",
            "targets",
        )
    if cmd.free and (who.marks.get("free_attack") != targets[0].id or len(targets) > 1):
        raise refuse(
            "PHA-CRIT-5",
            f"{who.name} has no free attack on {targets[0].name}",
            f"{who.name} no tiene un ataque gratuito contra {targets[0].name}",
            "free",
        )
    spent = check_action(
        state,
        who,
        offensive=cmd.offensive,
        reaction=cmd.reaction,
        out_of_order=cmd.out_of_order,
        free=cmd.free,
    )
    if cmd.critical_target is not None and cmd.critical_target not in {t.id for t in targets}:
        raise refuse(
            "PHA-CRIT-2",
            "critical_target is one of the targets",
            "critical_target es uno de los objetivos",
            "critical_target",
        )
    bad = sorted(set(cmd.block) - {t.id for t in targets}) + sorted(
        set(cmd.cover) - {t.id for t in targets}
    )
    if bad:
        raise refuse(
            "PHA-DEF-2", f"{bad[0]} is not a target", f"{bad[0]} no es un objetivo", "block"
        )
    if cmd.hit is not None and any(_who_rolls(state, who, t, cmd) != "gm" for t in targets):
        raise refuse(
            "PHA-AMB-50",
            "hit is entered only for a creature attacking a creature, both the narrator's",
            "hit solo se introduce cuando una criatura del narrador ataca a otra",
            "hit",
        )
    for t in targets:
        if t.id in cmd.block and (stats_of(t).shield is None or t.marks.get("shield_broken")):
            raise refuse(
                "PHA-DEF-2",
                f"{t.name} carries no shield to block with",
                f"{t.name} no lleva escudo con el que bloquear",
                "block",
            )
    magic = power is not None and not power.physical
    ranged = power is not None or (weapon is not None and weapon.is_ranged)
    adjacent = cmd.adjacent if cmd.adjacent is not None else not ranged
    bonus = attack_bonus(who, weapon, power, cmd.characteristic)
    at, df = ("am", "dm") if magic else ("at", "df")
    # the attacker's modifiers (statuses after PHA-STK, the repeat penalty, prone)
    mods = dict(statuses.modifiers(who, at))
    mods.update(repeat_penalty(who, spent))
    crossbow = weapon is not None and weapon.crossbow_or_firearm
    if who.has("prone") and not crossbow:  # PHA-STS-19: attacking from the ground
        mods["attacking from the ground"] = -3
    mods = with_situational(mods, cmd.modifiers)
    results = []
    attacker_roll: dict[str, Any] | None = None
    for t in targets:
        result, attacker_roll = _against(
            ctx, cmd, who, t, bonus, mods, at, df, adjacent, attacker_roll, len(targets)
        )
        results.append(result)
    _critical_area(results, cmd.critical_target)
    action_id = f"a{state.version + 1}"
    follows = any(r["follows"] for r in results)
    params: dict[str, Any] = {
        "targets": [t.id for t in targets],
        "weapon": weapon.name if weapon else None,
        "power": power.name if power else None,
        "magic": magic,
        "ranged": ranged,
        "doublings": cmd.doublings,
        "results": results,
        "moment": list(moment(state)),  # the turn it was rolled in (PHA-PP-2 a)
    }
    if power is not None:
        params["available_from"] = (
            who.marks.get("turn", 0) + power.cooldown + 1 if power.cooldown else None
        )
    action = ActionState(
        id=action_id,
        combatant=who.id,
        kind="attack",
        round=state.round,
        declared_round=state.round,
        cost=0 if spent.get("free") or spent.get("reaction") else 1,
        order=0,
        target=targets[0].id,
        weapon=weapon.name if weapon else None,
        params=params,
        status="pending" if follows else "resolved",
        origin=state.version + 1,
    )
    checked = ctx.emit(
        ev.AttackChecked,
        combatant=who.id,
        action=action.model_dump(),
        results=results,
        rolls=rolls_of(*results),
        spent=spent,
    )
    if power is not None and power.pm_cost:  # PHA-PM-5: the power's cost, entered
        pm_change(
            ctx,
            who.id,
            -power.pm_cost,
            f"{power.name} costs {power.pm_cost} PM (PHA-PM-5)",
            checked,
        )
    lucky = {
        r["roller"] for r in results if r["critical"] and r["check"] in ("AT", "AM", "DF", "DM")
    }
    for roller in sorted(lucky):  # PHA-CRIT-3, PHA-PM-2: one PM per natural 1 rolled
        pm_change(ctx, roller, 1, "a natural 1 restores 1 PM (PHA-CRIT-3)", checked)
    if cmd.offensive:
        offensive_action_taken(ctx, who.id, checked)


def _means(
    who: CombatantState, stats: PhantasiaStats, cmd: c.AttackCheck
) -> tuple[Weapon | None, Power | None]:
    if cmd.weapon is not None and cmd.power is not None:
        raise refuse(
            "PHA-ACT-10", "a weapon or a power, not both", "un arma o un poder, no ambos", "power"
        )
    if cmd.power is not None:
        power = stats.power(cmd.power)
        if power is None:
            raise refuse(
                "PHA-MAG-1",
                f"{who.name} has no power {cmd.power!r}",
                f"{who.name} no tiene el poder {cmd.power!r}",
                "power",
            )
        check_power(who, power)
        return None, power
    if cmd.weapon is None:
        return None, None
    weapon = stats.weapon(cmd.weapon)
    if weapon is None:
        raise refuse(
            "PHA-ATK-1",
            f"{who.name} has no weapon {cmd.weapon!r}",
            f"{who.name} no tiene el arma {cmd.weapon!r}",
            "weapon",
        )
    if weapon.two_handed and who.has("grabbed"):
        raise refuse(
            "PHA-STS-1",
            f"{who.name} is grabbed: no two-handed weapon",
            f"{who.name} está agarrado: no puede usar armas a dos manos",
            "weapon",
        )
    if who.marks.get("dropped") == weapon.name:
        raise refuse(
            "PHA-CRIT-5",
            f"{who.name} dropped his {weapon.name}: picking it up is a Use Item action",
            f"{who.name} soltó su {weapon.name}: recogerla es una acción de Usar Ítem",
            "weapon",
        )
    return weapon, None


def check_power(who: CombatantState, power: Power) -> None:
    """Mute blocks magic (PHA-STS-12, Default PHA-AMB-38); Blind blocks powers aimed at
    creatures (PHA-STS-4); a cooldown (PHA-FOE-5, Default PHA-AMB-49) or a power locked
    by a fumble (PHA-CRIT-5); uses per day with the VIT extra uses (PHA-CHAR-6); PM."""
    from domain.rulesystems.phantasia.stats import extra_uses

    if who.has("mute") and power.magic:
        raise refuse(
            "PHA-STS-12",
            f"{who.name} is Mute: no magic",
            f"{who.name} sufre Mudez: no puede usar magia",
            "power",
        )
    if who.has("blind") and power.targeted:
        raise refuse(
            "PHA-STS-4",
            f"{who.name} is Blind: no power aimed at a creature",
            f"{who.name} sufre Ceguera: no puede lanzar poderes a una criatura",
            "power",
        )
    ready = who.marks.get("cooldowns", {}).get(power.name)
    if ready is not None and who.marks.get("turn", 0) < ready:
        raise refuse(
            "PHA-FOE-5",
            f"{power.name} can be used again from {who.name}'s turn {ready}",
            f"{power.name} puede volver a usarse desde el turno {ready} de {who.name}",
            "power",
        )
    if power.uses_per_day is not None:
        stats = stats_of(who)
        allowed = power.uses_per_day + extra_uses(stats, power.uses_per_day)
        if who.marks.get("uses", {}).get(power.name, 0) >= allowed:
            raise refuse(
                "PHA-CHAR-6",
                f"{power.name} has no use left today ({allowed} with the VIT extra uses)",
                f"{power.name} no tiene usos hoy ({allowed} con los usos extra por VIT)",
                "power",
            )
    if power.pm_cost > pm_of(who):
        raise refuse(
            "PHA-PM-5",
            f"{power.name} costs {power.pm_cost} PM; {who.name} has {pm_of(who)}",
            f"{power.name} cuesta {power.pm_cost} PM; {who.name} tiene {pm_of(who)}",
            "power",
        )


def _against(
    ctx: Context,
    cmd: c.AttackCheck,
    who: CombatantState,
    target: CombatantState,
    bonus: dict[str, int],
    mods: dict[str, int],
    at: str,
    df: str,
    adjacent: bool,
    attacker_roll: dict[str, Any] | None,
    n_targets: int,
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """One target: its DF or DM, who rolls, the check and what follows."""
    magic = at == "am"
    block = target.id in cmd.block
    defense_parts = defense(target, df, block=block)
    target_mods = statuses.modifiers(target, df)
    if magic or (cmd.weapon is None and cmd.power is not None):
        target_mods.pop("defense", None)  # PHA-AMB-32: Defense never against powers
    defense_parts.update(target_mods)
    if target.id in cmd.cover:  # PHA-DEF-5 (Default PHA-AMB-35: +3 with no value)
        given = cmd.cover[target.id]
        defense_parts["cover"] = options_of(ctx.state).cover if given is None else given
    attack_mods = dict(mods)
    if target.has("prone"):  # PHA-STS-19, Default PHA-AMB-24: adjacency decides
        if adjacent:
            attack_mods["target prone, adjacent"] = 3
        else:
            defense_parts["prone against ranged"] = 3
    base: dict[str, Any] = {
        "target": target.id,
        "blocked": block,
        "critical": False,
        "fumble": False,
        "doubled": False,
        "follows": False,
    }
    if target.has("paralysed") or target.has("asleep"):  # PHA-ATK-4, Default PHA-AMB-43
        return {
            **base,
            "check": None,
            "roller": None,
            "rolled_by": "automatic",
            "automatic": True,
            "hit": True,
            "doubled": True,  # PHA-ATK-4: ×2, its reason in `doublings`
            "follows": True,
            "doublings": ["paralysed" if target.has("paralysed") else "asleep"],
        }, attacker_roll
    rolled_by = _who_rolls(ctx.state, who, target, cmd)
    if rolled_by == "gm":
        return {
            **base,
            "check": None,
            "roller": None,
            "rolled_by": "gm",
            "automatic": False,
            "hit": bool(cmd.hit),
            "follows": bool(cmd.hit),
        }, attacker_roll
    if rolled_by == "defender":
        # PHA-DEF-6, PHA-CORE-3 (Default PHA-AMB-2): 6 + DF (or DM) − the attack bonus,
        # the attacker's modifiers with the opposite sign; the creature rolls nothing
        # (PHA-CORE-2)
        parts = {"base": BASE, **defense_parts}
        parts.update({f"attacker {k}": -v for k, v in bonus.items()})
        parts.update({f"attacker {k}": -v for k, v in attack_mods.items()})
        name = "defense" if n_targets == 1 else f"defense:{target.name}"
        means = (means_en(cmd.weapon, cmd.power), means_es(cmd.weapon, cmd.power))
        check = roll_check(
            ctx,
            name,
            parts,
            statuses.die_for(target, df),
            by=target.id,
            says=(
                f"{target.name}'s {df.upper()}{' with a block' if block else ''} against "
                f"{who.name}'s attack ({means[0]})",
                f"{df.upper()} de {target.name}{' con bloqueo' if block else ''} contra el "
                f"ataque de {who.name} ({means[1]})",
            ),
            crits=True,
        )
        result = {**base, **check, "check": df.upper(), "roller": target.id}
        return outcome({**result, "rolled_by": "defender"}, check), attacker_roll
    # PHA-ATK-1, PHA-MAG-1: 6 + the attack bonus − the target's DF (or DM) + modifiers
    parts = {"base": BASE, **bonus, **attack_mods}
    parts.update({f"target {k}": -v for k, v in defense_parts.items()})
    if attacker_roll is None:  # one roll, whatever the number of targets
        against = [ctx.state.combatants[t].name for t in cmd.targets]
        several = len(against) > 1
        one = " (one roll for every target, each against his own " + df.upper() + ")"
        uno = " (una tirada para todos, cada uno contra su " + df.upper() + ")"
        attacker_roll = roll_check(
            ctx,
            "attack",
            parts,
            statuses.die_for(who, at),
            by=who.id,
            says=(
                f"{who.name}'s {at.upper()} against {names(against)} with "
                f"{means_en(cmd.weapon, cmd.power)}{one if several else ''}",
                f"{at.upper()} de {who.name} contra {names(against)} con "
                f"{means_es(cmd.weapon, cmd.power)}{uno if several else ''}",
            ),
            crits=True,
            several=several,
        )
    result = {
        **base,
        **attacker_roll,
        "parts": parts,
        "target_number": sum(parts.values()),
        "check": at.upper(),
        "roller": who.id,
        "rolled_by": "attacker" if rolled_by == "attacker" else "program",
    }
    return outcome(result, attacker_roll), attacker_roll


def outcome(result: dict[str, Any], check: dict[str, Any]) -> dict[str, Any]:
    """What a roll means for one target. The attacker's check: a roll ≤ the target hits
    (PHA-ATK-2, PHA-MAG-1); a natural 1 is a critical
    that hits with ×2 damage (PHA-CRIT-1), his die's top face a fumble that misses
    (PHA-CRIT-4, -6; Default PHA-AMB-10). The defender's DF/DM check (PHA-DEF-1): success
    avoids; a natural 1 avoids (with a block, pushes back 1 m, PHA-DEF-4); a fumble is hit
    for double damage (PHA-CRIT-7)."""
    face, die, number = check["face"], result["die"], result["target_number"]
    critical, fumble = face == 1, face == die
    success = critical or (not fumble and face <= number)
    out = {
        **result,
        "roll": check["roll"],
        "face": face,
        "success": success,
        "margin": number - face,
        "critical": critical,
        "fumble": fumble,
    }
    if result["rolled_by"] == "defender":
        hit = not success
        out.update(hit=hit, doubled=fumble, pushes_back=critical and result["blocked"])
        out["follows"] = hit
    else:
        out.update(hit=success, doubled=critical, follows=success or fumble)
    return out


def reroll(ctx: Context, spend_point: Any, payer: CombatantState, helped: CombatantState) -> None:
    """PHA-PP-2 a, PHA-PP-4: re-roll the last AT, DF, AM or DM check `helped` made, after
    seeing it and before its damage or fumble is rolled; the second result stands."""
    action = last_attack(ctx.state)
    mine = [
        r
        for r in (action.params["results"] if action else [])
        if r.get("roller") == helped.id and r.get("face") is not None
    ]
    settled = (
        action is not None
        and action.status == "resolved"
        and any(r["follows"] for r in action.params["results"])
    )
    # "after seeing it": in the turn it was rolled, once (PHA-PP-2 a)
    stale = action is not None and action.params.get("moment") != list(moment(ctx.state))
    if action is None or not mine or settled or stale or mine[0].get("rerolled"):
        raise refuse(
            "PHA-PP-2",
            f"{helped.name} has no AT, DF, AM or DM check open to re-roll",
            f"{helped.name} no tiene un chequeo de AT, DF, AM o DM que repetir",
            "use",
        )
    spent = spend_point(ctx, payer, "reroll", helped, action.origin)
    name = mine[0]["check"]
    check = roll_check(
        ctx,
        "reroll",
        mine[0]["parts"],
        mine[0]["die"],
        by=helped.id,
        says=(
            f"{helped.name} re-rolls his {name} with a PHANTÄSIA point (the second result stands)",
            f"{helped.name} repite su {name} con un punto de PHANTÄSIA (vale el segundo resultado)",
        ),
        crits=True,
    )
    results = [
        outcome({**r, "rerolled": True}, check) if r.get("roller") == helped.id else r
        for r in action.params["results"]
    ]
    _critical_area(results, None)
    rerolled = ctx.emit(
        ev.CheckRerolled,
        cause=spent,
        combatant=helped.id,
        action=action.id,
        results=results,
        replaced=action.params["results"],
        rolls=rolls_of(check),
    )
    if check["critical"]:  # PHA-CRIT-3
        pm_change(ctx, helped.id, 1, "a natural 1 restores 1 PM (PHA-CRIT-3)", rerolled)


def _who_rolls(
    state: EncounterState, who: CombatantState, target: CombatantState, cmd: c.AttackCheck
) -> str:
    """PHA-CORE-1, PHA-DEF-6: a player character rolls AT/AM against the narrator's
    creatures, DF/DM against theirs; Default PHA-AMB-50: player against player, the
    attacker rolls; creature against creature, the program rolls (or the GM enters hit)."""
    if options_of(state).who_rolls == "attacker" or is_player(who):
        return "attacker"
    if is_player(target):
        return "defender"
    return "gm" if cmd.hit is not None else "program"


def _critical_area(results: list[dict[str, Any]], chosen: str | None) -> None:
    """PHA-CRIT-2 (Default: the attacker picks): an area power's critical doubles the
    damage of one target only."""
    crits = [r for r in results if r["doubled"] and r["rolled_by"] in ("attacker", "program")]
    if len(crits) < 2:
        return
    keep = chosen or crits[0]["target"]
    for r in crits:
        r["doubled"] = r["target"] == keep


def pm_change(ctx: Context, combatant: str, delta: int, reason: str, cause: int | None) -> None:
    """PM change, never above the maximum (PHA-PM-1, -2) nor below 0."""
    who = ctx.state.combatants[combatant]
    before = pm_of(who)
    after = max(0, min(max_pm(stats_of(who)), before + delta))
    if after != before:
        ctx.emit(
            ev.PmChanged,
            cause=cause,
            combatant=who.id,
            pm_before=before,
            pm_after=after,
            reason=reason,
        )


# -- damage ------------------------------------------------------------------------------


def roll_damage(ctx: Context, cmd: c.RollDamage) -> None:
    state = ctx.state
    action = pending_attack(state)
    hits = [r for r in action.params["results"] if r["hit"]] if action else []
    if action is not None and hits and fumble_due(action):
        raise refuse(
            "PHA-CRIT-4",
            "this attack also fumbled: roll_fumble first, then its damage",
            "este ataque también pifió: primero roll_fumble, luego el daño",
        )
    if action is None or not hits:
        raise refuse(
            "PHA-DMG-1",
            "no attack has hit: nothing to roll damage for",
            "ningún ataque ha impactado: no hay daño que tirar",
        )
    who = state.combatants[action.combatant]
    stats = stats_of(who)
    weapon = stats.weapon(action.params["weapon"]) if action.params["weapon"] else None
    power = stats.power(action.params["power"]) if action.params["power"] else None
    doubled = [  # a critical, or a fumbled defense whose shield did not break (PHA-DEF-3)
        state.combatants[r["target"]].name
        for r in hits
        if r["doubled"] and not (r["rolled_by"] == "defender" and r["target"] in cmd.shield_breaks)
    ]
    parts, rolls, element = _damage_roll(
        ctx,
        who,
        stats,
        weapon,
        power,
        [state.combatants[r["target"]].name for r in hits],
        doubled,
    )
    fumbled_blocks = {r["target"] for r in hits if r.get("blocked") and r.get("fumble")}
    bad = sorted(set(cmd.shield_breaks) - fumbled_blocks)
    if bad:
        raise refuse(
            "PHA-DEF-3",
            f"{bad[0]} did not block and fumble",
            f"{bad[0]} no bloqueó ni pifió",
            "shield_breaks",
        )
    reduction = {}
    weak = who.conditions.get("weakness")
    if weak and weak.data.get("reduction"):  # PHA-DMG-10, PHA-STS-5
        reduction["weakness"] = int(weak.data["reduction"])
    dealt = 0
    first = None
    recorded = False
    for r in hits:
        target = ctx.state.combatants[r["target"]]
        doublings = list(r.get("doublings", []))
        if r["doubled"] and r["rolled_by"] != "automatic":  # automatic: its `doublings`
            if r["rolled_by"] == "defender":
                if r["target"] not in cmd.shield_breaks:  # PHA-DEF-3
                    doublings.append("fumbled defense (PHA-CRIT-7)")
            else:
                doublings.append("critical (PHA-CRIT-1)")
        doublings += ["power (PHA-DMG-6)"] * action.params.get("doublings", 0)
        if power is not None and power.doubles:
            doublings.append(f"{power.name} (PHA-DMG-6)")
        halvings = []
        weapon_damage = power is None or power.physical
        if target.has("defense") and weapon_damage and power is None:
            halvings.append("Defense (PHA-DMG-9)")  # PHA-STS-6: weapons only
        if parts is None:
            continue
        at = damage.suffer(
            ctx,
            target.id,
            parts,
            cause=first or action.origin,  # the first damage roots the rest: void it, re-roll
            rule="PHA-DMG-11",
            rolls={} if recorded else rolls,  # one roll for all targets, recorded once
            doublings=doublings,
            halvings=halvings,
            reduction=reduction,
            element=element,
        )
        first = first or at
        recorded = recorded or (at is not None and bool(getattr(ctx.last(at), "rolls", None)))
        if at is not None:
            last = ctx.last(at)
            dealt += getattr(last, "amount", 0) if type(last).__name__ == "DamageApplied" else 0
        if r["target"] in cmd.shield_breaks:  # PHA-DEF-3: normal damage, no shield
            ctx.emit(
                ev.ActionSpent,
                cause=at,
                combatant=target.id,
                action="shield_breaks",
                offensive=False,
                reaction=False,
                details={"rule": "PHA-DEF-3"},
            )
    resolved = ctx.emit(
        ev.ActionResolved,
        cause=first or action.origin,
        combatant=who.id,
        action=action.id,
        kind="attack",
        detail={"damage": parts, "dealt": dealt},
    )
    who = ctx.state.combatants[who.id]
    if who.has("curse") and dealt > 0:  # PHA-STS-11, PHA-DMG-10 (half, rounded down)
        damage.suffer(
            ctx,
            who.id,
            {"curse": dealt // 2, "total": dealt // 2, "not doubled": False},
            cause=resolved,
            rule="PHA-STS-11",
        )


def _damage_roll(
    ctx: Context,
    who: CombatantState,
    stats: PhantasiaStats,
    weapon: Weapon | None,
    power: Power | None,
    hit: list[str],
    doubled: list[str],
) -> tuple[dict[str, Any] | None, dict[str, Any], str | None]:
    """PHA-DMG-1..5: weapon dice + FUE or AGI adjustment + level; magic dice (× level) + INT
    adjustment after the multiplication, no level; unarmed 1d4 + FUE adjustment + level.
    One roll for every target hit (`hit`: their names; `doubled`: those it hits double)."""

    def ask(dice: str) -> Ask:
        means = (
            means_en(weapon and weapon.name, power and power.name),
            means_es(weapon and weapon.name, power and power.name),
        )
        more_en = f" × level {stats.level}" if power is not None and power.per_level else ""
        more_es = f" × nivel {stats.level}" if power is not None and power.per_level else ""
        if doubled:
            more_en += f" (double damage on {names(doubled)})"
            more_es += f" (daño doble a {names(doubled)})"
        return Ask(
            who.id,
            f"{who.name}'s damage with {means[0]} on {names(hit)}: {dice}{more_en}",
            f"Daño de {who.name} con {means[1]} a {names(hit)}: {dice}{more_es}",
        )

    if power is not None:
        if power.damage is None:
            return None, {}, power.element
        count, sides = dice_of(power.damage)
        roll = roll_plain(ctx.dice, "damage", count, sides, ask(power.damage))
        parts: dict[str, Any] = {"dice": roll.dice_total}
        if power.per_level:  # PHA-DMG-4: what was rolled and the level it was multiplied by
            parts["dice"] = roll.dice_total * stats.level
            parts["multiplied"] = {
                "dice": power.damage,
                "rolled": roll.dice_total,
                "level": stats.level,
            }
        ch = "int"
        parts[f"{ch.upper()} adj"] = adj(stats, ch, score_change(who, ch))
        return parts, {"damage": roll.to_dict()}, power.element
    if weapon is None:
        roll = roll_plain(ctx.dice, "damage", 1, UNARMED_DIE, ask(f"1d{UNARMED_DIE}"))
        ch = "fue"
        element = None
    else:
        count, sides = dice_of(weapon.damage)
        roll = roll_plain(ctx.dice, "damage", count, sides, ask(weapon.damage))
        ch = str(WEAPON_CODES[weapon.code]["damage"])  # PHA-DMG-2, PHA-WPN-2
        element = weapon.element
    parts = {
        "dice": roll.dice_total,
        f"{ch.upper()} adj": adj(stats, ch, score_change(who, ch)),
        "level": stats.level,  # PHA-DMG-3
    }
    return parts, {"damage": roll.to_dict()}, element


# -- the fumble table (PHA-CRIT-4, -5) ------------------------------------------------------

FUMBLES = {
    1: "drops his weapon (a power: unusable 1d4 turns)",
    2: "falls down: Prone",
    3: "DF −3 and DM −3 until the end of his next turn",
    4: "AT −3 and AM −3 until the end of his next turn",
    5: "the enemy he attacked gets a free attack on him",
    6: "loses 1/4 of his maximum PV, or 1 PM",
}


def roll_fumble(ctx: Context, cmd: c.RollFumble) -> None:
    state = ctx.state
    action = pending_attack(state)
    fumbled = action is not None and any(
        r["fumble"] and r["rolled_by"] in ("attacker", "program") for r in action.params["results"]
    )
    if action is None or not fumbled or action.params.get("fumble_rolled"):
        raise refuse(
            "PHA-CRIT-4",
            "no attack has fumbled: nothing to roll on the fumble table",
            "ningún ataque ha pifiado: no hay nada que tirar en la tabla de pifias",
        )
    who = state.combatants[action.combatant]
    if cmd.choice == "pm" and pm_of(who) < 1:  # asked before the die, so no draw is lost
        raise refuse(
            "PHA-CRIT-5",
            f"{who.name} has no PM left: on a 6 he loses PV",
            f"{who.name} no tiene PM: con un 6 pierde PV",
            "choice",
        )
    means = (
        means_en(action.params["weapon"], action.params["power"]),
        means_es(action.params["weapon"], action.params["power"]),
    )
    roll = roll_plain(
        ctx.dice,
        "fumble",
        1,
        FUMBLE_DIE,
        Ask(
            who.id,
            f"{who.name} fumbled his attack with {means[0]}: 1d6 on the fumble table",
            f"{who.name} pifió su ataque con {means[1]}: 1d6 en la tabla de pifias",
        ),
    )
    rolls = {"fumble": roll.to_dict()}
    result = roll.dice_total  # Default PHA-AMB-9: numbered in printed order
    details: dict[str, Any] = {}
    turn = who.marks.get("turn", 0)
    if result == 1:
        if action.params["power"]:
            power_name = action.params["power"]
            lock = roll_plain(
                ctx.dice,
                "power lock",
                1,
                POWER_LOCK_DIE,
                Ask(
                    who.id,
                    f"{who.name}'s fumble, result 1: {power_name} is unusable for 1d4 of his turns",
                    f"Pifia de {who.name}, resultado 1: {power_name} queda inutilizable 1d4 "
                    "de sus turnos",
                ),
            )
            details = {
                "power_locked": action.params["power"],
                "turns": lock.dice_total,
                "available_from": turn + lock.dice_total + 1,
            }
            rolls["power lock"] = lock.to_dict()
        elif action.params["weapon"]:
            details = {"dropped": action.params["weapon"]}
    elif result == 5:
        details = {"free_attack_for": action.params["targets"][0]}
    elif result == 6:
        details = {"choice": cmd.choice or "pv"}
    fumbled = ctx.emit(
        ev.FumbleRolled,
        cause=action.origin,  # voiding the fumbled attack voids its mishap
        combatant=who.id,
        action=action.id,
        rolls=rolls,
        result=result,
        effect=FUMBLES[result],
        details=details,
    )
    if result == 2:
        damage.lie_prone(ctx, who.id, fumbled, "fumble result 2 (PHA-CRIT-5)")
    elif result in (3, 4):  # "until the end of his next turn" (Default PHA-AMB-11)
        name = "fumble_defense" if result == 3 else "fumble_attack"
        record_status(
            ctx,
            cause=fumbled,
            combatant=who.id,
            status=name,
            turns=1,
            reason=f"fumble result {result} (PHA-CRIT-5)",
        )
    elif result == 6:
        if details["choice"] == "pm":
            pm_change(ctx, who.id, -1, "fumble result 6: 1 PM (PHA-CRIT-5)", fumbled)
        else:  # Default PHA-AMB-23: floor(max PV / 4), applied like damage
            quarter = stats_of(who).pv // 4
            damage.suffer(
                ctx,
                who.id,
                {"a quarter of max PV": quarter},
                cause=fumbled,
                rule="PHA-CRIT-5",
            )
