"""The other actions (PHA-ACT-7..9, -12..19), checks and opposed checks (PHA-CHK), statuses
(PHA-STS, PHA-STK-3), jumps and falls (PHA-JMP, PHA-DMG-8), healing (PHA-DTH-5), PM and
PHANTÄSIA points (PHA-PM, PHA-PP)."""

from __future__ import annotations

from typing import Any

from domain import commands as c
from domain import events as ev
from domain.dice import Ask, checked_dice, dice_of, roll_plain
from domain.rulesystems.base import Context, with_situational
from domain.rulesystems.phantasia import asks, attacks, damage, statuses
from domain.rulesystems.phantasia.checks import attacker_wins, roll_check, rolls_of
from domain.rulesystems.phantasia.record import (
    end_status,
    offensive_action_taken,
    record_check,
    record_status,
)
from domain.rulesystems.phantasia.stats import (
    adj,
    max_phantasia_points,
    max_pm,
)
from domain.rulesystems.phantasia.turns import (
    check_action,
    check_parts,
    moment,
    options_of,
    pm_of,
    pp_of,
    refuse,
    repeat_penalty,
    stats_of,
)
from domain.state import CombatantState

# what an opposed check tries, in the table's words: the attacker's (English, Spanish,
# {t} the target) and the defender's (Spanish)
CONTEST_WORDS = {
    "grab": ("grab {t}", "agarrar a {t}", "agarrarlo"),
    "snatch": ("snatch from {t}", "arrebatar algo a {t}", "arrebatarle algo"),
    "push": ("push {t}", "empujar a {t}", "empujarlo"),
    "knock_down": ("knock down {t}", "tumbar a {t}", "tumbarlo"),
    "escape": ("break free of {t}", "liberarse de {t}", "liberarse de él"),
}
# Default PHA-AMB-28: what is offensive unless the narrator marks otherwise
OFFENSIVE = {"grab": True, "snatch": True, "push": True, "knock_down": True, "escape": False}


def _since(who: CombatantState) -> dict[str, Any]:
    return {"since_turn": who.marks.get("turn", 0)}


# -- characteristic checks and opposed checks ---------------------------------------------


def check(ctx: Context, cmd: c.Check) -> None:
    """PHA-ACT-12, PHA-CHK-1..3, -5: a characteristic check; a PHANTÄSIA point makes it
    succeed (PHA-PP-2 b), the ally's own point if he helps (PHA-PP-4)."""
    state = ctx.state
    who = state.combatant(cmd.combatant)
    spent = None
    if cmd.as_action:
        spent = check_action(
            state,
            who,
            offensive=cmd.offensive,
            reaction=cmd.reaction,
            out_of_order=cmd.out_of_order,
        )
    parts = check_parts(who, cmd.characteristic)
    if spent:
        parts.update(repeat_penalty(who, spent))  # PHA-ACT-3: offensive checks too
    if cmd.power_user_level is not None:  # PHA-CHK-5, PHA-CORE-6
        bonus = max(0, stats_of(who).level - cmd.power_user_level)
        if bonus:
            parts["levels above the power's user"] = bonus
    parts = with_situational(parts, cmd.modifiers)
    payer = None
    if cmd.phantasia_point:
        payer = state.combatant(cmd.helped_by) if cmd.helped_by else who
        _spend_point(ctx, payer, "auto_success", who)
    ch = cmd.characteristic.upper()
    purpose = "" if cmd.purpose == "check" else f" ({cmd.purpose})"
    result = roll_check(
        ctx,
        "check",
        parts,
        statuses.die_for(who, cmd.characteristic),
        auto_success=cmd.phantasia_point,
        by=who.id,
        says=(f"{who.name}'s {ch} check{purpose}", f"Chequeo de {ch} de {who.name}{purpose}"),
    )
    checked = record_check(
        ctx,
        combatant=who.id,
        purpose=cmd.purpose,
        characteristic=cmd.characteristic,
        check=result,
        spent={**spent, "action": "check"} if spent else None,
    )
    if spent and cmd.offensive:
        offensive_action_taken(ctx, who.id, checked)


def contest(ctx: Context, cmd: c.Contest) -> None:
    """Grab (PHA-ACT-7), Snatch (-8), Push (-14), Knock Down (-18), escaping a grab
    (PHA-STS-1): opposed checks (PHA-CHK-4, Default PHA-AMB-5). Both sides roll, a
    narrator's creature too (PHA-CORE-4, Default PHA-AMB-47)."""
    state = ctx.state
    who = state.combatant(cmd.combatant)
    target = state.combatant(cmd.target)
    if target.has("dead"):
        raise refuse(
            "PHA-STS-13",
            f"{target.name} is dead",
            f"{target.name} está muerto",
            "target",
        )
    if target is who:
        raise refuse(
            "PHA-CHK-4",
            "an opposed check has two sides",
            "un chequeo enfrentado tiene dos bandos",
            "target",
        )
    mine, theirs = stats_of(who), stats_of(target)
    ch, their_ch = cmd.characteristic, cmd.target_characteristic
    if cmd.kind in ("push", "knock_down") and (ch != "fue" or their_ch != "fue"):
        raise refuse(
            "PHA-ACT-14" if cmd.kind == "push" else "PHA-ACT-18",
            "an opposed FUE check",
            "un chequeo enfrentado de FUE",
            "characteristic",
        )
    if cmd.kind == "push" and theirs.size > mine.size:
        raise refuse(
            "PHA-ACT-14",
            f"{target.name} is larger: push only a target of equal or smaller size",
            f"{target.name} es más grande: solo se empuja a un objetivo de igual o menor tamaño",
            "target",
        )
    grab = who.conditions.get("grabbed")
    if cmd.kind == "escape" and (grab is None or grab.data.get("by") not in (None, target.id)):
        raise refuse(
            "PHA-STS-1",
            f"{who.name} is not grabbed by {target.name}",
            f"{who.name} no está agarrado por {target.name}",
            "target",
        )
    spent = check_action(
        state,
        who,
        offensive=OFFENSIVE[cmd.kind],
        reaction=cmd.reaction,
        out_of_order=cmd.out_of_order,
    )
    mine_parts = with_situational(
        {**check_parts(who, ch), **repeat_penalty(who, spent)}, cmd.modifiers
    )
    if cmd.phantasia_point:
        _spend_point(ctx, who, "auto_success", who)
    en, es, es_him = CONTEST_WORDS[cmd.kind]
    a = roll_check(
        ctx,
        "attacker",
        mine_parts,
        statuses.die_for(who, ch),
        auto_success=cmd.phantasia_point,
        by=who.id,
        says=(
            f"{who.name}'s {ch.upper()} to {en.format(t=target.name)}, against his "
            f"{their_ch.upper()} (the larger margin wins, a tie goes to the defender)",
            f"{ch.upper()} de {who.name} para {es.format(t=target.name)}, contra su "
            f"{their_ch.upper()} (gana el mayor margen; el empate, para el defensor)",
        ),
    )
    d = roll_check(
        ctx,
        "defender",
        check_parts(target, their_ch),
        statuses.die_for(target, their_ch),
        by=target.id,
        says=(
            f"{target.name}'s {their_ch.upper()} against {who.name}'s attempt to "
            f"{en.format(t='him')}",
            f"{their_ch.upper()} de {target.name} contra {who.name}, que intenta {es_him}",
        ),
    )
    wins = attacker_wins(a, d)
    effect: dict[str, Any] = {}
    if wins and cmd.kind == "push":  # PHA-ACT-14: FUE adjustment metres, minimum 1
        effect["metres"] = max(1, adj(mine, "fue", attacks.score_change(who, "fue")))
    if wins and cmd.kind == "snatch":
        effect["item"] = cmd.item or "what he held in one hand"
    if wins and cmd.kind == "grab" and theirs.size >= 2 * max(mine.size, 1):
        effect["moves_freely"] = True  # PHA-ACT-7: twice the size or more
    rolled = ctx.emit(
        ev.ContestRolled,
        combatant=who.id,
        target=target.id,
        kind=cmd.kind,
        attacker_check={**a, "characteristic": ch},
        defender_check={**d, "characteristic": their_ch},
        attacker_wins=wins,
        rolls=rolls_of(a, d),
        effect=effect,
        spent={**spent, "action": cmd.kind},
    )
    if OFFENSIVE[cmd.kind]:
        offensive_action_taken(ctx, who.id, rolled)
    if not wins:
        return
    if cmd.kind == "grab":
        record_status(
            ctx,
            cause=rolled,
            combatant=target.id,
            status="grabbed",
            data={"by": who.id, **effect},
            reason=f"grabbed by {who.name} (PHA-ACT-7)",
        )
    elif cmd.kind == "knock_down":
        damage.lie_prone(ctx, target.id, rolled, f"knocked down by {who.name} (PHA-ACT-18)")
    elif cmd.kind == "escape":
        end_status(
            ctx,
            cause=rolled,
            combatant=who.id,
            status="grabbed",
            reason="he broke free (PHA-STS-1)",
        )


# -- other actions -----------------------------------------------------------------------


def act(ctx: Context, cmd: c.Act) -> None:
    state = ctx.state
    who = state.combatant(cmd.combatant)
    stats = stats_of(who)
    details: dict[str, Any] = {}
    offensive = bool(cmd.offensive)
    if cmd.action == "move":  # PHA-ACT-16
        if who.has("grabbed") and not who.conditions["grabbed"].data.get("moves_freely"):
            raise refuse(
                "PHA-STS-1",
                f"{who.name} is grabbed: no Move until he breaks free",
                f"{who.name} está agarrado: no puede moverse hasta liberarse",
                "action",
            )
        mo = stats.movement + sum(statuses.modifiers(who, "movement").values())  # overloaded: −3
        if cmd.terrain != "normal":  # Default PHA-AMB-26: halved, rounded down, min 1
            mo = max(1, mo // 2)
        mo = max(0, mo)
        metres = mo if cmd.metres is None else cmd.metres
        if metres > mo:
            raise refuse(
                "PHA-ACT-16",
                f"{who.name} moves at most {mo} m ({cmd.terrain})",
                f"{who.name} se mueve como máximo {mo} m",
                "metres",
            )
        details = {"metres": metres, "movement": mo, "terrain": cmd.terrain}
    elif cmd.action in ("switch_weapon", "reload"):  # PHA-ACT-9, -17
        weapon = stats.weapon(cmd.weapon or "")
        if weapon is None:
            raise refuse(
                "PHA-ACT-9",
                f"{who.name} has no weapon {cmd.weapon!r}",
                f"{who.name} no tiene el arma {cmd.weapon!r}",
                "weapon",
            )
        if cmd.action == "reload" and not weapon.crossbow_or_firearm:
            raise refuse(
                "PHA-ACT-17",
                "only crossbows and firearms are reloaded",
                "solo se recargan ballestas y armas de fuego",
                "weapon",
            )
        if cmd.action == "switch_weapon" and who.marks.get("dropped") == weapon.name:
            raise refuse(
                "PHA-CRIT-5",
                f"the {weapon.name} lies on the ground: pick it up (use_item)",
                f"el arma {weapon.name} está en el suelo: recógela (use_item)",
                "weapon",
            )
        details = {"weapon": weapon.name}
    elif cmd.action == "use_item":  # PHA-ACT-19; picking up a dropped weapon (PHA-AMB-23)
        details = {"what": cmd.what}
        if cmd.weapon is not None:
            if who.marks.get("dropped") != cmd.weapon:
                raise refuse(
                    "PHA-ACT-19",
                    f"{who.name} has not dropped a {cmd.weapon}",
                    f"{who.name} no ha soltado {cmd.weapon}",
                    "weapon",
                )
            details["weapon"] = cmd.weapon
    elif cmd.action == "defense":  # PHA-ACT-13
        if who.marks.get("offensive") or who.marks.get("defended"):
            raise refuse(
                "PHA-ACT-13",
                f"{who.name} already took an offensive action this turn: no Defense",
                f"{who.name} ya hizo una acción ofensiva este turno: no puede tomar Defensa",
                "action",
            )
        offensive = False
    elif cmd.action == "stand_up":  # PHA-STS-19
        if not who.has("prone"):
            raise refuse(
                "PHA-STS-19",
                f"{who.name} is not prone",
                f"{who.name} no está tumbado",
                "action",
            )
    elif cmd.action == "prepare":  # PHA-RX-2, -5 (Default PHA-AMB-19): one action point
        if not cmd.trigger:
            raise refuse(
                "PHA-RX-2",
                "a prepared action names the condition that triggers it",
                "una acción preparada nombra la condición que la desencadena",
                "trigger",
            )
        details = {"trigger": cmd.trigger, "what": cmd.what}
    elif cmd.action == "cast_power":  # PHA-ACT-15; beneficial magic: no AM (PHA-MAG-2)
        power = stats.power(cmd.power or "")
        if power is None:
            raise refuse(
                "PHA-ACT-15",
                f"{who.name} has no power {cmd.power!r}",
                f"{who.name} no tiene el poder {cmd.power!r}",
                "power",
            )
        attacks.check_power(who, power)
        details = {
            "power": power.name,
            "sustain": cmd.sustain,
            "available_from": (
                who.marks.get("turn", 0) + power.cooldown + 1 if power.cooldown else None
            ),
        }
    else:
        details = {"what": cmd.what}
    check_action(
        state, who, offensive=offensive, reaction=cmd.reaction, out_of_order=cmd.out_of_order
    )
    done = ctx.emit(
        ev.ActionSpent,
        combatant=who.id,
        action=cmd.action,
        offensive=offensive,
        reaction=cmd.reaction,
        details={k: v for k, v in details.items() if v is not None},
    )
    if cmd.action == "cast_power":
        power = stats.power(cmd.power or "")
        if power and power.pm_cost:
            attacks.pm_change(ctx, who.id, -power.pm_cost, f"{power.name} (PHA-PM-5)", done)
    if cmd.action == "defense":
        _apply(
            ctx,
            who,
            "defense",
            "defense",
            None,
            {"kind": "beneficial", "ends": "turn_start"},
            "the Defense action (PHA-ACT-13)",
            cmd.replace,
            done,
        )
    elif cmd.action == "stand_up":
        end_status(
            ctx, cause=done, combatant=who.id, status="prone", reason="he stands up (PHA-STS-19)"
        )
    if offensive:
        offensive_action_taken(ctx, who.id, done)


# -- statuses ----------------------------------------------------------------------------


def apply_status(ctx: Context, cmd: c.ApplyStatus) -> None:
    """PHA-STS: a status with its duration in his own turns (PHA-STS-0) or its ending
    check; a resist check first if the power allows one (PHA-CHK-5); at most three
    beneficial statuses (PHA-STK-3)."""
    state = ctx.state
    who = state.combatant(cmd.combatant)
    if cmd.status not in statuses.NAMES:
        raise refuse(
            "PHA-STS-0",
            f"unknown status {cmd.status!r}; known: {', '.join(sorted(statuses.NAMES))}",
            f"status desconocido {cmd.status!r}",
            "status",
        )
    name = cmd.status
    data: dict[str, Any] = {**_since(who)}
    if cmd.status == statuses.MAGIC:
        if not cmd.name or not cmd.modifiers or cmd.beneficial is None:
            raise refuse(
                "PHA-STK-1",
                "a magic names itself, its modifiers and whether it is beneficial",
                "una magia lleva nombre, modificadores y si es beneficiosa",
                "name",
            )
        name = cmd.name
        if name in statuses.STATUSES or statuses.clashes(name):
            raise refuse(
                "PHA-STK-1",
                f"{name!r} names a status or a computed part of a figure: name the magic "
                "differently",
                f"{name!r} es un status o una parte calculada de una cifra: usa otro nombre",
                "name",
            )
        data.update(kind="beneficial" if cmd.beneficial else "harmful", modifiers=cmd.modifiers)
        if cmd.item:
            data["item"] = True
    else:
        data["kind"] = statuses.spec(name)["kind"]
    if cmd.end_check is not None:  # PHA-STS-0, Default PHA-AMB-51
        offered = statuses.spec(cmd.status).get("end_check", ())
        if cmd.end_check not in offered:
            shown = " or ".join(ch.upper() for ch in offered)
            raise refuse(
                "PHA-AMB-51",
                f"{cmd.status} is ended by {shown}, not {cmd.end_check.upper()}"
                if offered
                else f"{cmd.status} has no choice of ending check: only Stunned, Chaos and "
                "Paralysed do",
                f"{statuses.name_es(cmd.status)} termina con "
                f"{' o '.join(ch.upper() for ch in offered)}, no {cmd.end_check.upper()}"
                if offered
                else f"{statuses.name_es(cmd.status)} no ofrece chequeo a elegir: solo "
                "Aturdido, Caos y Parálisis",
                "end_check",
            )
        data["end_check"] = cmd.end_check
    if cmd.status == "poisoned":
        data["damage"] = "1d6" if cmd.damage is None else _valid_dice(cmd.damage, "damage")
    if cmd.status == "petrified" and cmd.harmed_by:
        data["harmed_by"] = cmd.harmed_by
    if cmd.status == "weakness" and cmd.reduction:
        data["reduction"] = cmd.reduction
    if cmd.status == "suffocating":
        data.update(held=0, breath=stats_of(who).vit)
    if cmd.resist is not None:
        parts = check_parts(who, cmd.resist)
        if cmd.by is not None:  # PHA-CHK-5
            user = state.combatant(cmd.by)
            bonus = max(0, stats_of(who).level - stats_of(user).level)
            if bonus:
                parts["levels above the power's user"] = bonus
        parts = with_situational(parts, cmd.modifiers_check)
        if cmd.resist_point:
            _spend_point(ctx, who, "auto_success", who)
        shown = name if cmd.status == statuses.MAGIC else None
        result = roll_check(
            ctx,
            "resist",
            parts,
            statuses.die_for(who, cmd.resist),
            auto_success=cmd.resist_point,
            by=who.id,
            says=(
                f"{who.name} resists {shown or asks.status_en(name)}: {cmd.resist.upper()} "
                "check (a success avoids it)",
                f"{who.name} resiste {shown or asks.status_es(name)}: chequeo de "
                f"{cmd.resist.upper()} (si lo supera, lo evita)",
            ),
        )
        resisted = record_check(
            ctx,
            combatant=who.id,
            purpose=f"resist {name}",
            characteristic=cmd.resist,
            check=result,
            spent=None,
        )
        if result["success"]:
            return
        cause = resisted
    else:
        cause = None
    turns, reason = cmd.turns, cmd.reason or ""
    if cmd.from_attack is not None:
        fumbled = [
            r
            for r in state.action(cmd.from_attack).params.get("results", [])
            if r["target"] == who.id and r["rolled_by"] == "defender" and r["fumble"]
        ]
        if fumbled and turns:  # PHA-CRIT-7: a fumbled DF/DM doubles the effect's duration
            turns *= 2
            reason = f"{reason} (duration doubled: fumbled defense, PHA-CRIT-7)".strip()
    _apply(ctx, who, name, cmd.status, turns, data, reason, cmd.replace, cause)


def _valid_dice(expression: str, field: str) -> str:
    """Dice as typed, checked and written the one way (e.g. ' 1D6' → '1d6')."""
    try:
        return checked_dice(expression)
    except ValueError as e:
        raise refuse("PHA-DMG-1", str(e), "dados mal escritos (p. ej. 1d6)", field) from None


def _apply(
    ctx: Context,
    who: CombatantState,
    name: str,
    kind: str,
    turns: int | None,
    data: dict[str, Any],
    reason: str,
    replace: str | None,
    cause: int | None,
) -> None:
    who = ctx.state.combatants[who.id]
    if data.get("kind") == "beneficial" and name not in who.conditions:
        held = statuses.beneficial(who)
        if len(held) >= statuses.MAX_BENEFICIAL:  # PHA-STK-3
            if replace is None:
                raise refuse(
                    "PHA-STK-3",
                    f"{who.name} has three beneficial statuses ({', '.join(held)}): end one "
                    "(replace=<status>) or let the one with least time left end "
                    "(replace=least_time)",
                    f"{who.name} ya tiene tres status beneficiosos "
                    f"({', '.join(statuses.name_es(n) for n in held)}): "
                    "termina uno (replace) o el de menos tiempo (replace=least_time)",
                    "replace",
                )
            ending = least_time(who, held) if replace == "least_time" else replace
            if ending not in held:
                raise refuse(
                    "PHA-STK-3",
                    f"{replace!r} is not one of his beneficial statuses",
                    f"{replace!r} no es uno de sus status beneficiosos",
                    "replace",
                )
            end_status(
                ctx,
                cause=cause,
                combatant=who.id,
                status=ending,
                reason=f"ends so that {name} can work (PHA-STK-3)",
            )
    applied = record_status(
        ctx,
        cause=cause,
        combatant=who.id,
        status=name,
        kind=kind,
        turns=turns,
        data=data,
        reason=reason,
    )
    if kind in ("asleep", "unconscious", "dead"):  # PHA-STS-8, -13, -17: lies prone
        damage.lie_prone(ctx, who.id, applied, f"{kind} ({statuses.spec(kind)['rule']})")


def least_time(who: CombatantState, names: list[str]) -> str:
    """The beneficial status with the least time left: turns left, the Defense action
    (until his next turn begins) counting as 1; open-ended ones last."""

    def left(n: str) -> tuple[float, int]:
        cond = who.conditions[n]
        if cond.count is not None:
            return (cond.count, 1)
        return (1, 0) if cond.data.get("ends") == "turn_start" else (float("inf"), 1)

    return min(names, key=left)


# -- jumps, falls, healing --------------------------------------------------------------


def jump(ctx: Context, cmd: c.Jump) -> None:
    """PHA-JMP-1..4: FUE check; long base floor(FUE / 2) m, high floor(FUE / 4) m; −1 a
    metre beyond, +1 a metre short (Default PHA-AMB-29); failing by exactly 1, an AGI check
    to catch the edge; else he falls (PHA-DMG-8)."""
    state = ctx.state
    who = state.combatant(cmd.combatant)
    check_action(state, who, offensive=False, out_of_order=cmd.out_of_order, costs=False)
    if who.has("grabbed") and not who.conditions["grabbed"].data.get("moves_freely"):
        raise refuse(
            "PHA-STS-1",
            f"{who.name} is grabbed: he cannot jump away",
            f"{who.name} está agarrado: no puede saltar",
            "combatant",
        )
    fue = stats_of(who).fue
    base = fue // 2 if cmd.kind == "long" else fue // 4
    parts = check_parts(who, "fue")
    if base != cmd.metres:
        parts[f"{cmd.metres} m against base {base} m"] = base - cmd.metres
    if cmd.phantasia_point:
        _spend_point(ctx, who, "auto_success", who)
    result = roll_check(
        ctx,
        "jump",
        parts,
        statuses.die_for(who, "fue"),
        auto_success=cmd.phantasia_point,
        by=who.id,
        says=(
            f"{who.name}'s {cmd.kind} jump of {cmd.metres} m (base {base} m): FUE check",
            f"Salto {'largo' if cmd.kind == 'long' else 'alto'} de {who.name} de {cmd.metres} m "
            f"(base {base} m): chequeo de FUE",
        ),
    )
    jumped = record_check(
        ctx,
        combatant=who.id,
        purpose=f"{cmd.kind} jump {cmd.metres} m",
        characteristic="fue",
        check=result,
        spent=None,
    )
    if result["success"]:
        return
    if result["face"] == result["target_number"] + 1:  # PHA-JMP-4
        edge = roll_check(
            ctx,
            "edge",
            check_parts(who, "agi"),
            statuses.die_for(who, "agi"),
            by=who.id,
            says=(
                f"{who.name}'s jump failed by 1: AGI check to catch the edge",
                f"El salto de {who.name} falló por 1: chequeo de AGI para agarrarse al borde",
            ),
        )
        jumped = record_check(
            ctx,
            cause=jumped,
            combatant=who.id,
            purpose="catch the edge",
            characteristic="agi",
            check=edge,
            spent=None,
        )
        if edge["success"]:
            return
    if cmd.fall_m:
        falling(ctx, who.id, cmd.fall_m, jumped)


def fall(ctx: Context, cmd: c.Fall) -> None:
    who = ctx.state.combatant(cmd.combatant)
    falling(ctx, who.id, cmd.metres, None)


def falling(ctx: Context, combatant: str, metres: int, cause: int | None) -> None:
    """PHA-DMG-8: metres × 3, and Prone."""
    at = damage.suffer(
        ctx,
        combatant,
        {f"fall {metres} m × 3": metres * 3},
        cause=cause,
        rule="PHA-DMG-8",
    )
    damage.lie_prone(ctx, combatant, at if at is not None else cause, "a fall (PHA-DMG-8)")


def heal(ctx: Context, cmd: c.Heal) -> None:
    """PHA-DTH-5: healing pays off negative PV first; he wakes at 1 PV or more. A healing
    magic adds its caster's INT adjustment (PHA-DMG-4). Never above maximum PV."""
    state = ctx.state
    who = state.combatant(cmd.combatant)
    if who.has("dead"):
        raise refuse(
            "PHA-DTH-7",
            f"{who.name} is dead: only a resurrection power brings him back (the GM clears it)",
            f"{who.name} está muerto: solo un poder de resurrección lo devuelve",
            "combatant",
        )
    if (cmd.amount is None) == (cmd.heal_dice is None):
        raise refuse(
            "PHA-DTH-5",
            "heal an amount or roll heal_dice",
            "cura una cantidad o tira heal_dice",
            "amount",
        )
    parts: dict[str, int] = {}
    rolls: dict[str, Any] = {}
    if cmd.heal_dice is not None:
        dice = _valid_dice(cmd.heal_dice, "heal_dice")
        count, sides = dice_of(dice)
        healer = state.combatants.get(cmd.caster or "")
        by_en = f" by {healer.name}" if healer else ""
        by_es = f" por {healer.name}" if healer else ""
        roll = roll_plain(
            ctx.dice,
            "heal",
            count,
            sides,
            Ask(
                healer.id if healer else who.id,
                f"Healing for {who.name}{by_en}: {dice}",
                f"Curación de {who.name}{by_es}: {dice}",
            ),
        )
        parts["dice"] = roll.dice_total
        rolls["heal"] = roll.to_dict()
    else:
        parts["amount"] = cmd.amount or 0
    if cmd.caster is not None:
        caster = state.combatant(cmd.caster)
        parts["caster INT adj"] = adj(  # PHA-DMG-4, from his current INT (PHA-AMB-51)
            stats_of(caster), "int", attacks.score_change(caster, "int")
        )
    amount = max(0, min(sum(parts.values()), who.max_hits - who.hits))
    at = ctx.emit(
        ev.Healed,
        combatant=who.id,
        amount=amount,
        hits_before=who.hits,
        hits_after=who.hits + amount,
        parts=parts,
        rolls=rolls,
        reason=cmd.reason,
    )
    damage.wake_if_healed(ctx, who.id, at)


# -- PHANTÄSIA points and PM ------------------------------------------------------------


def _ally(payer: CombatantState, helped: CombatantState) -> None:
    if helped.side != payer.side:  # PHA-PP-4: to help an ally
        raise refuse(
            "PHA-PP-4",
            f"{payer.name} spends his points on himself or an ally, not on {helped.name}",
            f"{payer.name} gasta sus puntos en sí mismo o en un aliado, no en {helped.name}",
            "for_combatant",
        )


def _spend_point(
    ctx: Context,
    payer: CombatantState,
    use: str,
    helped: CombatantState,
    cause: int | None = None,
) -> int:
    """PHA-PP-2, PHA-PP-4: his own point, or one spent to help an ally (his side)."""
    _ally(payer, helped)
    if pp_of(payer) < 1:
        raise refuse(
            "PHA-PP-2",
            f"{payer.name} has no PHANTÄSIA point",
            f"{payer.name} no tiene puntos de PHANTÄSIA",
            "combatant",
        )
    return ctx.emit(
        ev.PhantasiaPointsChanged,
        cause=cause,
        combatant=payer.id,
        points_before=pp_of(payer),
        points_after=pp_of(payer) - 1,
        use=use,
        for_combatant=helped.id if helped is not payer else None,
        reason=f"spent: {use} (PHA-PP-2)",
    )


def spend_phantasia_point(ctx: Context, cmd: c.SpendPhantasiaPoint) -> None:
    """PHA-PP-2 a, c, d and PHA-PP-4 (on an ally's check)."""
    state = ctx.state
    payer = state.combatant(cmd.combatant)
    helped = state.combatant(cmd.for_combatant) if cmd.for_combatant else payer
    _ally(payer, helped)
    if cmd.use == "pm":  # PHA-PP-2 d, PHA-PM-3
        if pm_of(helped) >= max_pm(stats_of(helped)):
            raise refuse(
                "PHA-PM-3",
                f"{helped.name} already has all his PM",
                f"{helped.name} ya tiene todos sus PM",
                "use",
            )
        spent = _spend_point(ctx, payer, "pm", helped)
        attacks.pm_change(ctx, helped.id, 1, "a PHANTÄSIA point (PHA-PM-3)", spent)
        return
    if cmd.use == "death_reroll":  # PHA-DTH-6
        last = helped.marks.get("death_check") or {}
        late = last.get("moment") != list(moment(state))  # at once, in that turn
        if not helped.has("dead") or not last.get("dies") or last.get("reroll") or late:
            raise refuse(
                "PHA-DTH-6",
                f"{helped.name} has no failed death check to re-roll",
                f"{helped.name} no tiene un chequeo de muerte fallido que repetir",
                "for_combatant",
            )
        spent = _spend_point(ctx, payer, "death_reroll", helped)
        damage.death_check(ctx, helped.id, spent, reroll=True)
        return
    attacks.reroll(ctx, _spend_point, payer, helped)


def award_phantasia_point(ctx: Context, cmd: c.AwardPhantasiaPoint) -> None:
    """PHA-PP-1, -3: the narrator's award, up to the level's maximum; a player at his
    maximum may pass it to one below his."""
    state = ctx.state
    who = state.combatant(cmd.combatant)
    to = who
    if pp_of(who) >= max_phantasia_points(stats_of(who).level):
        if cmd.pass_to is None:
            raise refuse(
                "PHA-PP-3",
                f"{who.name} is at his maximum ({pp_of(who)}): pass it on (pass_to)",
                f"{who.name} está en su máximo ({pp_of(who)}): pásalo a otro (pass_to)",
                "pass_to",
            )
        to = state.combatant(cmd.pass_to)
        if pp_of(to) >= max_phantasia_points(stats_of(to).level):
            raise refuse(
                "PHA-PP-1",
                f"{to.name} is at his maximum too",
                f"{to.name} también está en su máximo",
                "pass_to",
            )
    ctx.emit(
        ev.PhantasiaPointsChanged,
        combatant=to.id,
        points_before=pp_of(to),
        points_after=pp_of(to) + 1,
        use="award" if to is who else "pass",
        for_combatant=None if to is who else who.id,
        reason=cmd.reason or "the narrator's award (PHA-PP-1)",
    )


def adjust_pm(ctx: Context, cmd: c.AdjustPm) -> None:
    """PHA-PM-4, -5: PM the narrator grants or an ability spends, within 0..maximum."""
    who = ctx.state.combatant(cmd.combatant)
    attacks.pm_change(ctx, who.id, cmd.amount, cmd.reason or "the narrator", None)


def set_load(ctx: Context, cmd: c.SetLoad) -> None:
    """PHA-WPN-7 (Default PHA-AMB-53): above FUE score × 7 kg, Weakness (d20 on AT, DF, AM,
    DM) and MO −3 while overloaded; back within the limit, both end."""
    state = ctx.state
    who = state.combatant(cmd.combatant)
    if not options_of(state).load_rule:
        raise refuse(
            "PHA-WPN-7",
            "the load rule is off in this encounter (option load_rule)",
            "la regla de carga no se usa en este encuentro (opción load_rule)",
            "carried_kg",
        )
    limit = stats_of(who).fue * 7
    over = cmd.carried_kg > limit
    done = ctx.emit(
        ev.ActionSpent,
        combatant=who.id,
        action="load",
        offensive=False,
        reaction=False,
        details={"carried_kg": cmd.carried_kg, "limit_kg": limit, "free": True},
    )
    if over and not who.has("overloaded"):
        _apply(
            ctx,
            who,
            "overloaded",
            "overloaded",
            None,
            {"kind": "harmful", **_since(who)},
            f"carries {cmd.carried_kg} kg, more than {limit} kg (PHA-WPN-7)",
            None,
            done,
        )
    elif not over and who.has("overloaded"):
        end_status(
            ctx,
            cause=done,
            combatant=who.id,
            status="overloaded",
            reason=f"back within {limit} kg (PHA-WPN-7)",
        )
