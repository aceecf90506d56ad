"""One attack against each of its targets: the target's DF or DM, who rolls (PHA-CORE-1, -2,
PHA-DEF-6), the check, and what a roll means for him (PHA-ATK-2, PHA-DEF-1, PHA-CRIT)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from domain.rulesystems.base import Context
from domain.rulesystems.phantasia import commands as ph
from domain.rulesystems.phantasia import statuses
from domain.rulesystems.phantasia.asks import means_en, means_es, names
from domain.rulesystems.phantasia.checks import roll_check
from domain.rulesystems.phantasia.figures import BASE, defense
from domain.rulesystems.phantasia.turns import is_player, options_of
from domain.state import CombatantState, EncounterState


@dataclass(frozen=True)
class Attack:
    """An attack check as it stands against every target."""

    cmd: ph.AttackCheck
    who: CombatantState
    bonus: dict[str, int]  # his AT or AM figure − 6 (figures.attack_bonus)
    mods: dict[str, int]  # his modifiers
    at: str  # "at", or "am" for magic
    df: str  # what it is against: "df", or "dm" for magic
    adjacent: bool  # he stands next to his targets
    ranged: bool  # a ranged weapon, or a power


def check_targets(
    ctx: Context, attack: Attack, targets: list[CombatantState]
) -> list[dict[str, Any]]:
    """Each target's result, in the order named; the attacker rolls once, whatever the
    number of targets he rolls against."""
    results = []
    attacker_roll: dict[str, Any] | None = None
    for target in targets:
        result, attacker_roll = _against(ctx, attack, target, attacker_roll)
        results.append(result)
    return results


def _against(
    ctx: Context,
    attack: Attack,
    target: CombatantState,
    attacker_roll: dict[str, Any] | None,
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """One target: its DF or DM, who rolls, the check and what follows."""
    cmd = attack.cmd
    block = target.id in cmd.block
    defense_parts, attack_mods = _figures_against(ctx.state, attack, target, block)
    base: dict[str, Any] = {
        "target": target.id,
        "blocked": block,
        "critical": False,
        "fumble": False,
        "doubled": False,
        "follows": False,
    }
    if target.has("paralysed") or target.has("asleep"):  # PHA-ATK-4, Default PHA-AMB-43
        return _automatic_hit(base, target), attacker_roll
    rolled_by = who_rolls(ctx.state, attack.who, target, cmd)
    if rolled_by == "gm":
        return _entered_hit(base, cmd), attacker_roll
    if rolled_by == "defender":
        # PHA-DEF-6, PHA-CORE-3 (Default PHA-AMB-2): 6 + DF (or DM) − the attack bonus,
        # the attacker's modifiers with the opposite sign; the creature rolls nothing
        # (PHA-CORE-2)
        parts = {"base": BASE, **defense_parts}
        parts.update({f"attacker {k}": -v for k, v in attack.bonus.items()})
        parts.update({f"attacker {k}": -v for k, v in attack_mods.items()})
        check = _defender_roll(ctx, attack, target, parts, block)
        result = {**base, **check, "check": attack.df.upper(), "roller": target.id}
        return outcome({**result, "rolled_by": "defender"}, check), attacker_roll
    # PHA-ATK-1, PHA-MAG-1: 6 + the attack bonus − the target's DF (or DM) + modifiers
    parts = {"base": BASE, **attack.bonus, **attack_mods}
    parts.update({f"target {k}": -v for k, v in defense_parts.items()})
    if attacker_roll is None:  # one roll, whatever the number of targets
        attacker_roll = _attacker_roll(ctx, attack, parts)
    result = {
        **base,
        **attacker_roll,
        "parts": parts,
        "target_number": sum(parts.values()),
        "check": attack.at.upper(),
        "roller": attack.who.id,
        "rolled_by": "attacker" if rolled_by == "attacker" else "program",
    }
    return outcome(result, attacker_roll), attacker_roll


def _figures_against(
    state: EncounterState, attack: Attack, target: CombatantState, block: bool
) -> tuple[dict[str, int], dict[str, int]]:
    """The target's DF or DM with his modifiers and cover, and the attacker's modifiers
    against him."""
    cmd = attack.cmd
    defense_parts = defense(target, attack.df, block=block)
    target_mods = statuses.modifiers(target, attack.df)
    if attack.at == "am" or (cmd.weapon is None and cmd.power is not None):
        target_mods.pop("defense", None)  # PHA-AMB-32: Defense never against powers
    defense_parts.update(target_mods)
    if target.id in cmd.cover:  # PHA-DEF-5 (Default PHA-AMB-35: +3 with no value)
        given = cmd.cover[target.id]
        defense_parts["cover"] = options_of(state).cover if given is None else given
    attack_mods = dict(attack.mods)
    if target.has("prone"):  # PHA-STS-19, Default PHA-AMB-24: adjacency decides
        if attack.adjacent:
            attack_mods["target prone, adjacent"] = 3
        else:
            defense_parts["prone against ranged"] = 3
    return defense_parts, attack_mods


def _automatic_hit(base: dict[str, Any], target: CombatantState) -> dict[str, Any]:
    """PHA-ATK-4: a paralysed or sleeping target is hit for double damage, no roll."""
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
    }


def _entered_hit(base: dict[str, Any], cmd: ph.AttackCheck) -> dict[str, Any]:
    """Default PHA-AMB-50: creature against creature, the GM entered whether it hit."""
    return {
        **base,
        "check": None,
        "roller": None,
        "rolled_by": "gm",
        "automatic": False,
        "hit": bool(cmd.hit),
        "follows": bool(cmd.hit),
    }


def _defender_roll(
    ctx: Context, attack: Attack, target: CombatantState, parts: dict[str, int], block: bool
) -> dict[str, Any]:
    """The player character's DF (or DM) check against a creature's attack (PHA-DEF-6)."""
    cmd, who, df = attack.cmd, attack.who, attack.df
    name = "defense" if len(cmd.targets) == 1 else f"defense:{target.name}"
    means = (means_en(cmd.weapon, cmd.power), means_es(cmd.weapon, cmd.power))
    return roll_check(
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


def _attacker_roll(ctx: Context, attack: Attack, parts: dict[str, int]) -> dict[str, Any]:
    """The attacker's AT (or AM) check: one roll, each target against his own DF (or DM)."""
    cmd, who, at, df = attack.cmd, attack.who, attack.at, attack.df
    against = [ctx.state.combatants[t].name for t in cmd.targets]
    several = len(against) > 1
    one = " (one roll for every target, each against his own " + df.upper() + ")"
    uno = " (una tirada para todos, cada uno contra su " + df.upper() + ")"
    return roll_check(
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


def who_rolls(
    state: EncounterState, who: CombatantState, target: CombatantState, cmd: ph.AttackCheck
) -> str:
    """PHA-CORE-1, PHA-DEF-6: a player character rolls AT/AM against the narrator's
    creatures, DF/DM against theirs; Default PHA-AMB-50: player against player, the
    attacker rolls; creature against creature, the program rolls (or the GM enters hit)."""
    if options_of(state).who_rolls == "attacker" or is_player(who):
        return "attacker"
    if is_player(target):
        return "defender"
    return "gm" if cmd.hit is not None else "program"


def critical_area(results: list[dict[str, Any]], chosen: str | None) -> None:
    """PHA-CRIT-2 (Default: the attacker picks): an area power's critical doubles the
    damage of one target only."""
    crits = [r for r in results if r["doubled"] and r["rolled_by"] in ("attacker", "program")]
    if len(crits) < 2:
        return
    keep = chosen or crits[0]["target"]
    for r in crits:
        r["doubled"] = r["target"] == keep
