"""PHANTÄSIA's refusals, in English and in the book's Spanish: one catalogue keyed by code
(the rule it applies, a dot, what went wrong), each with its named parameters. A handler
refuses in one line: `raise refused("PHA-STS-1.grabbed-move-until", field="action",
who=who.name)`."""

from __future__ import annotations

from typing import Any

from domain.errors import RuleViolation
from domain.rulesystems.phantasia.statuses import name_es, spec
from domain.wording import Message

REFUSALS: dict[str, Message] = {
    "PHA-STS-0.no-such-status": Message(
        "{who} has no status {status!r}", "{who} no tiene el status {status!r}"
    ),
    "PHA-STK-1.use-apply-status": Message(
        "use apply_status (status 'magic' with modifiers, item true for equipment) so the "
        "stacking rules apply, or a command's situational modifiers",
        "usa apply_status (status 'magic' con modificadores, item para el equipo) para que se "
        "apliquen las reglas de acumulación, o los modificadores de la orden",
    ),
    "PHA-ACT-1.no-action-left": Message(
        "{who} has no action point left this turn", "{who} no tiene más puntos de acción este turno"
    ),
    "PHA-ACT-6.cannot-act": Message(
        lambda who, blocking: f"{who} cannot act ({', '.join(blocking)})",
        lambda who, blocking: (
            f"{who} no puede actuar ({', '.join(spec(n)['es'] for n in blocking)})"
        ),
    ),
    "PHA-ACT-9.no-weapon": Message(
        "{who} has no weapon {weapon!r}", "{who} no tiene el arma {weapon!r}"
    ),
    "PHA-ACT-10.weapon-power-both": Message(
        "a weapon or a power, not both", "un arma o un poder, no ambos"
    ),
    "PHA-ACT-13.already-took-offensive": Message(
        "{who} already took an offensive action this turn: no Defense",
        "{who} ya hizo una acción ofensiva este turno: no puede tomar Defensa",
    ),
    "PHA-ACT-13.took-defense-action": Message(
        "{who} took the Defense action this turn: no offensive action (PHA-AMB-41)",
        "{who} tomó la acción de Defensa este turno: no puede hacer acciones ofensivas",
    ),
    "PHA-ACT-14.larger-push-only": Message(
        "{target} is larger: push only a target of equal or smaller size",
        "{target} es más grande: solo se empuja a un objetivo de igual o menor tamaño",
    ),
    "PHA-ACT-14.opposed-fue": Message("an opposed FUE check", "un chequeo enfrentado de FUE"),
    "PHA-ACT-15.no-power": Message(
        "{who} has no power {power!r}", "{who} no tiene el poder {power!r}"
    ),
    "PHA-ACT-16.too-far": Message(
        "{who} moves at most {mo} m ({terrain})", "{who} se mueve como máximo {mo} m"
    ),
    "PHA-ACT-17.not-reloadable": Message(
        "only crossbows and firearms are reloaded", "solo se recargan ballestas y armas de fuego"
    ),
    "PHA-ACT-18.opposed-fue": Message("an opposed FUE check", "un chequeo enfrentado de FUE"),
    "PHA-ACT-19.not-dropped": Message(
        "{who} has not dropped a {weapon}", "{who} no ha soltado {weapon}"
    ),
    "PHA-AMB-50.hit-entered-only": Message(
        "hit is entered only for a creature attacking a creature, both the narrator's",
        "hit solo se introduce cuando una criatura del narrador ataca a otra",
    ),
    "PHA-AMB-51.ended-by": Message(
        "{status} is ended by {shown}, not {named}",
        lambda status, offered, named, **_: (
            f"{name_es(status)} termina con {' o '.join(ch.upper() for ch in offered)}, no {named}"
        ),
    ),
    "PHA-AMB-51.no-choice": Message(
        "{status} has no choice of ending check: only Stunned, Chaos and Paralysed do",
        lambda status, **_: (
            f"{name_es(status)} no ofrece chequeo a elegir: solo Aturdido, Caos y Parálisis"
        ),
    ),
    "PHA-ATK-1.name-each-target": Message(
        "name each target once, and not the attacker",
        "nombra cada objetivo una vez, y no al atacante",
    ),
    "PHA-ATK-1.no-weapon": Message(
        "{who} has no weapon {weapon!r}", "{who} no tiene el arma {weapon!r}"
    ),
    "PHA-ATK-1.wrong-characteristic": Message(
        lambda code, allowed: (
            f"a {code} weapon attacks with {' or '.join(a.upper() for a in allowed)}"
        ),
        lambda code, allowed: f"un arma {code} ataca con {' o '.join(a.upper() for a in allowed)}",
    ),
    "PHA-CHAR-6.use-left-today": Message(
        "{power} has no use left today ({allowed} with the VIT extra uses)",
        "{power} no tiene usos hoy ({allowed} con los usos extra por VIT)",
    ),
    "PHA-CHK-4.two-sides": Message(
        "an opposed check has two sides", "un chequeo enfrentado tiene dos bandos"
    ),
    "PHA-CRIT-2.critical-target-is-a-target": Message(
        "critical_target is one of the targets", "critical_target es uno de los objetivos"
    ),
    "PHA-CRIT-2.only-power-affects": Message(
        "only a power affects several targets", "solo un poder afecta a varios objetivos"
    ),
    "PHA-CRIT-4.attack-fumbled-nothing": Message(
        "no attack has fumbled: nothing to roll on the fumble table",
        "ningún ataque ha pifiado: no hay nada que tirar en la tabla de pifias",
    ),
    "PHA-CRIT-4.this-attack-also": Message(
        "this attack also fumbled: roll_fumble first, then its damage",
        "este ataque también pifió: primero roll_fumble, luego el daño",
    ),
    "PHA-CRIT-5.dropped-picking-up": Message(
        "{who} dropped his {weapon}: picking it up is a Use Item action",
        "{who} soltó su {weapon}: recogerla es una acción de Usar Ítem",
    ),
    "PHA-CRIT-5.lies-ground-pick": Message(
        "the {weapon} lies on the ground: pick it up (use_item)",
        "el arma {weapon} está en el suelo: recógela (use_item)",
    ),
    "PHA-CRIT-5.no-free-attack": Message(
        "{who} has no free attack on {target}", "{who} no tiene un ataque gratuito contra {target}"
    ),
    "PHA-CRIT-5.no-pm-left": Message(
        "{who} has no PM left: on a 6 he loses PV", "{who} no tiene PM: con un 6 pierde PV"
    ),
    "PHA-DEF-2.no-shield": Message(
        "{t} carries no shield to block with", "{t} no lleva escudo con el que bloquear"
    ),
    "PHA-DEF-2.not-a-target": Message("{bad} is not a target", "{bad} no es un objetivo"),
    "PHA-DEF-3.not-fumbled-block": Message(
        "{bad} did not block and fumble", "{bad} no bloqueó ni pifió"
    ),
    "PHA-DMG-1.attack-hit-nothing": Message(
        "no attack has hit: nothing to roll damage for",
        "ningún ataque ha impactado: no hay daño que tirar",
    ),
    "PHA-DMG-1.attack-still-open": Message(
        "attack {waiting_id} is still open: roll_damage or roll_fumble first",
        "el ataque {waiting_id} sigue abierto: roll_damage o roll_fumble primero",
    ),
    "PHA-DMG-1.attack-open-at-turn-end": Message(
        "attack {waiting_id} is still open: roll_damage or roll_fumble before the turn ends",
        "el ataque {waiting_id} sigue abierto: roll_damage o roll_fumble antes de terminar",
    ),
    "PHA-DMG-1.bad-dice": Message("{error}", "dados mal escritos (p. ej. 1d6)"),
    "PHA-DTH-5.heal-amount-roll": Message(
        "heal an amount or roll heal_dice", "cura una cantidad o tira heal_dice"
    ),
    "PHA-DTH-6.failed-death-check": Message(
        "{helped} has no failed death check to re-roll",
        "{helped} no tiene un chequeo de muerte fallido que repetir",
    ),
    "PHA-DTH-7.dead-only-resurrection": Message(
        "{who} is dead: only a resurrection power brings him back (the GM clears it)",
        "{who} está muerto: solo un poder de resurrección lo devuelve",
    ),
    "PHA-FOE-5.can-used-again": Message(
        "{power} can be used again from {who}'s turn {ready}",
        "{power} puede volver a usarse desde el turno {ready} de {who}",
    ),
    "PHA-INIT-1.group-names-two": Message(
        "a group names two or more different combatants, and no single combatant",
        "un grupo nombra dos o más combatientes distintos, y ningún combatiente suelto",
    ),
    "PHA-INIT-1.group-without-initiative": Message(
        "a group is of the narrator's enemies without initiative: {wrong}",
        "un grupo es de enemigos del narrador sin iniciativa: {wrong}",
    ),
    "PHA-INIT-1.roll-initiative-first": Message(
        "roll initiative first: {missing}", "tira primero la iniciativa: {missing}"
    ),
    "PHA-INIT-2.its-turn": Message("it is {now}'s turn", "es el turno de {now}"),
    "PHA-INIT-2.next-turn": Message("it is {up}'s turn next", "el siguiente turno es de {up}"),
    "PHA-INIT-2.no-turn-started": Message(
        "no turn has started: start_turn first", "no ha empezado ningún turno: start_turn"
    ),
    "PHA-INIT-2.nobody-left": Message(
        "nobody has a turn left this round", "nadie tiene turno esta ronda"
    ),
    "PHA-INIT-2.not-his-turn": Message("it is not {who}'s turn", "no es el turno de {who}"),
    "PHA-INIT-2.turn-under-way": Message(
        "{now}'s turn is under way: end_turn first",
        "el turno de {now} está en curso: end_turn primero",
    ),
    "PHA-INIT-3.tie-order-exact": Message(
        "tie_order orders exactly the tie this initiative makes (ties made: {made})",
        lambda made, ties: (
            "tie_order ordena exactamente el empate que hace esta iniciativa "
            f"(empates: {made if ties else 'ninguno'})"
        ),
    ),
    "PHA-INIT-3.tie-order-names-two": Message(
        "tie_order names two or more combatants tied on initiative and AGI",
        "tie_order nombra dos o más combatientes empatados en iniciativa y AGI",
    ),
    "PHA-INIT-4.agi-order-variant": Message(
        "the AGI-order variant rolls nothing: turns go by AGI score",
        "la variante por AGI no tira nada: los turnos van por puntuación de AGI",
    ),
    "PHA-INIT-5.already-initiative-rolled": Message(
        "{who} already has his initiative ({who_ip}): it is rolled once a combat",
        "{who} ya tiene su iniciativa ({who_ip}): se tira una vez por combate",
    ),
    "PHA-INIT-5.every-combatant-already": Message(
        "every combatant already has his initiative",
        "todos los combatientes tienen ya su iniciativa",
    ),
    "PHA-MAG-1.no-power": Message(
        "{who} has no power {power!r}", "{who} no tiene el poder {power!r}"
    ),
    "PHA-PM-3.already-all-pm": Message(
        "{helped} already has all his PM", "{helped} ya tiene todos sus PM"
    ),
    "PHA-PM-5.not-enough-pm": Message(
        "{power} costs {pm} PM; {who} has {has}", "{power} cuesta {pm} PM; {who} tiene {has}"
    ),
    "PHA-PP-1.at-maximum-too": Message(
        "{to} is at his maximum too", "{to} también está en su máximo"
    ),
    "PHA-PP-2.no-point": Message(
        "{payer} has no PHANTÄSIA point", "{payer} no tiene puntos de PHANTÄSIA"
    ),
    "PHA-PP-2.nothing-to-reroll": Message(
        "{helped} has no AT, DF, AM or DM check open to re-roll",
        "{helped} no tiene un chequeo de AT, DF, AM o DM que repetir",
    ),
    "PHA-PP-3.at-maximum": Message(
        "{who} is at his maximum ({points}): pass it on (pass_to)",
        "{who} está en su máximo ({points}): pásalo a otro (pass_to)",
    ),
    "PHA-PP-4.spends-points-himself": Message(
        "{payer} spends his points on himself or an ally, not on {helped}",
        "{payer} gasta sus puntos en sí mismo o en un aliado, no en {helped}",
    ),
    "PHA-RX-1.own-turn-this": Message(
        "on his own turn this is a plain action, not a reaction",
        "en su propio turno es una acción normal, no una reacción",
    ),
    "PHA-RX-1.used-one-reaction": Message(
        "{who} has used his one reaction until his next turn",
        "{who} ya usó su única reacción hasta su próximo turno",
    ),
    "PHA-RX-2.prepared-action-names": Message(
        "a prepared action names the condition that triggers it",
        "una acción preparada nombra la condición que la desencadena",
    ),
    "PHA-STK-1.magic-names-itself": Message(
        "a magic names itself, its modifiers and whether it is beneficial",
        "una magia lleva nombre, modificadores y si es beneficiosa",
    ),
    "PHA-STK-1.names-status-computed": Message(
        "{name!r} names a status or a computed part of a figure: name the magic differently",
        "{name!r} es un status o una parte calculada de una cifra: usa otro nombre",
    ),
    "PHA-STK-3.not-beneficial": Message(
        "{replace!r} is not one of his beneficial statuses",
        "{replace!r} no es uno de sus status beneficiosos",
    ),
    "PHA-STK-3.three-beneficial": Message(
        lambda who, held: (
            f"{who} has three beneficial statuses ({', '.join(held)}): end one "
            "(replace=<status>) or let the one with least time left end (replace=least_time)"
        ),
        lambda who, held: (
            f"{who} ya tiene tres status beneficiosos "
            f"({', '.join(name_es(n) for n in held)}): termina uno (replace) o el de menos tiempo "
            "(replace=least_time)"
        ),
    ),
    "PHA-STS-0.unknown-status": Message(
        "unknown status {status!r}; known: {known}", "status desconocido {status!r}"
    ),
    "PHA-STS-1.grabbed-cannot-jump": Message(
        "{who} is grabbed: he cannot jump away", "{who} está agarrado: no puede saltar"
    ),
    "PHA-STS-1.grabbed-move-until": Message(
        "{who} is grabbed: no Move until he breaks free",
        "{who} está agarrado: no puede moverse hasta liberarse",
    ),
    "PHA-STS-1.grabbed-two-handed": Message(
        "{who} is grabbed: no two-handed weapon",
        "{who} está agarrado: no puede usar armas a dos manos",
    ),
    "PHA-STS-1.not-grabbed-by": Message(
        "{who} is not grabbed by {target}", "{who} no está agarrado por {target}"
    ),
    "PHA-STS-4.blind-power-aimed": Message(
        "{who} is Blind: no power aimed at a creature",
        "{who} sufre Ceguera: no puede lanzar poderes a una criatura",
    ),
    "PHA-STS-12.mute-magic": Message(
        "{who} is Mute: no magic", "{who} sufre Mudez: no puede usar magia"
    ),
    "PHA-STS-13.target-dead": Message("{target} is dead", "{target} está muerto"),
    "PHA-STS-19.not-prone": Message("{who} is not prone", "{who} no está tumbado"),
    "PHA-SURP-1.name-each-one": Message("name each one once", "nombra a cada uno una sola vez"),
    "PHA-SURP-1.surprise-comes-before": Message(
        "a surprise comes before initiative is rolled",
        "la sorpresa va antes de tirar la iniciativa",
    ),
    "PHA-SURP-1.surprising-combatants-act": Message(
        "the surprising combatants act before initiative is rolled",
        "los combatientes que sorprenden actúan antes de tirar la iniciativa",
    ),
    "PHA-WPN-7.load-rule-off": Message(
        "the load rule is off in this encounter (option load_rule)",
        "la regla de carga no se usa en este encuentro (opción load_rule)",
    ),
}


def refused(key: str, /, field: str | None = None, **params: Any) -> RuleViolation:
    """The refusal `key` (its rule the part before the dot), in English with its Spanish
    (`detail_es`), its parameters filled in."""
    message = REFUSALS[key]
    return RuleViolation(
        key.partition(".")[0],
        message.say("en", **params),
        field=field,
        detail_es=message.say("es", **params),
    )
