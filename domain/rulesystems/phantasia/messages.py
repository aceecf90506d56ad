"""PHANTÄSIA's log in words: the catalogue of its lines' texts (`LINE`, keyed by code, each
in English and in the book's Spanish — PV, PM, DF, DM, AT, AM, Aturdido, Tumbado, ... — with
named parameters) and the names its lines use: fumbles, actions, contests, the uses of a
PHANTÄSIA point, statuses. The reasons its rules record are `reasons.py`."""

from __future__ import annotations

from domain.wording import Message, plural

FUMBLES = {  # PHA-CRIT-5: the d6 of a fumble
    1: Message(
        "drops his weapon (a power: unusable 1d4 turns)",
        "suelta su arma (un poder: inutilizable 1d4 turnos)",
    ),
    2: Message("falls down: Prone", "cae al suelo: Tumbado"),
    3: Message(
        "DF −3 and DM −3 until the end of his next turn",
        "DF −3 y DM −3 hasta el final de su próximo turno",
    ),
    4: Message(
        "AT −3 and AM −3 until the end of his next turn",
        "AT −3 y AM −3 hasta el final de su próximo turno",
    ),
    5: Message(
        "the enemy he attacked gets a free attack on him",
        "el enemigo al que atacaba obtiene un ataque gratuito contra él",
    ),
    6: Message("loses 1/4 of his maximum PV, or 1 PM", "pierde 1/4 de sus PV máximos, o 1 PM"),
}

ACTIONS = {  # an action spent, by its code
    "move": Message("move", "Movimiento"),
    "switch_weapon": Message("switch weapon", "Cambiar Arma"),
    "reload": Message("reload", "Recargar"),
    "use_item": Message("use item", "Usar Ítem"),
    "defense": Message("defense", "Defensa"),
    "stand_up": Message("stand up", "se levanta"),
    "prepare": Message("prepare", "prepara una acción"),
    "cast_power": Message("cast power", "Lanzar Poder"),
    "other": Message("other", "otra acción"),
    "load": Message("load", "carga"),
    "shield_breaks": Message("shield breaks", "su escudo se rompe"),
}

CONTESTS = {  # PHA-ACT-7..: the verb of a contest
    "grab": Message("grabs", "agarra a"),
    "snatch": Message("snatches from", "arrebata a"),
    "push": Message("pushes", "empuja a"),
    "knock_down": Message("knocks down", "tumba a"),
    "escape": Message("breaks free of", "se libera de"),
}

USES = {  # PHA-PP-1..4: what a PHANTÄSIA point is used for
    "award": Message("is awarded", "recibe"),
    "pass": Message("is passed", "recibe (cedido)"),
    "reroll": Message("spends one to re-roll", "gasta uno para repetir una tirada"),
    "auto_success": Message("spends one to succeed", "gasta uno para tener éxito"),
    "death_reroll": Message(
        "spends one to re-roll a death check", "gasta uno para repetir un chequeo de muerte"
    ),
    "pm": Message("spends one for 1 PM", "gasta uno por 1 PM"),
}

STATUS_EN = {
    "grabbed": "Grabbed",
    "stunned": "Stunned",
    "chaos": "Chaos",
    "blind": "Blind",
    "weakness": "Weakness",
    "defense": "Defense",
    "fascinated": "Fascinated",
    "unconscious": "Unconscious",
    "invisible": "Invisible",
    "slowness": "Slowness",
    "curse": "Curse",
    "mute": "Mute",
    "dead": "Dead",
    "paralysed": "Paralysed",
    "petrified": "Petrified",
    "haste": "Haste",
    "asleep": "Asleep",
    "fear": "Fear",
    "prone": "Prone",
    "poisoned": "Poisoned",
    "fumble_defense": "fumble: DF/DM −3",
    "fumble_attack": "fumble: AT/AM −3",
    "suffocating": "Suffocating",
    "overloaded": "Overloaded",
}


def _healed_en(who: str, amount: int | None, parts: str, why: str, pv: str) -> str:
    shown = "" if amount is None else f" {amount}"  # None: concealed from the reader
    return f"{who} is healed{shown} ({parts}{why}){pv}."


def _healed_es(who: str, amount: int | None, parts: str, why: str, pv: str) -> str:
    shown = "PV" if amount is None else f"{amount} PV"
    return f"{who} recupera {shown} ({parts}{why}){pv}."


LINE: dict[str, Message] = {  # the texts of PHANTÄSIA's lines, by code
    # a check (PHA-CHK-1)
    "automatic": Message(
        "automatic success (PHANTÄSIA point)", "éxito automático (punto de PHANTÄSIA)"
    ),
    "critical": Message(": critical!", ": ¡crítico!"),
    "fumble": Message(": fumble!", ": ¡pifia!"),
    "success": Message(": success", ": éxito"),
    "failure": Message(": failure", ": fallo"),
    "hit": Message("hit", "impacta"),
    "no hit": Message("no hit", "no impacta"),
    "double": Message(", double damage", ", daño doble"),
    # a combatant joins
    "joins": Message(
        "{name} joins{side}, {kind}: {hits}/{max_hits} PV.",
        "{name} se une{side}, {kind}: PV {hits}/{max_hits}.",
    ),
    "joins unseen": Message("{name} joins{side}.", "{name} se une{side}."),
    "player": Message("player character", "personaje jugador"),
    "creature": Message("the narrator's creature", "criatura del narrador"),
    # initiative (PHA-INIT)
    "initiative entered": Message(
        "The narrator gives {who} initiative {ip}.", "El narrador da a {who} iniciativa {ip}."
    ),
    "initiative group": Message(
        "{who} shares his group's initiative: {ip}.",
        "{who} comparte la iniciativa de su grupo: {ip}.",
    ),
    "initiative agi": Message(
        "{who} acts at his AGI {ip} (AGI-order variant).",
        "{who} actúa por su AGI {ip} (variante por AGI).",
    ),
    "initiative rolled": Message(
        "Initiative for {who}: 1d12 {face} {mods} = {ip}.",
        "Iniciativa de {who}: 1d12 {face} {mods} = {ip}.",
    ),
    "tie simultaneous": Message("they act at the same time", "actúan a la vez"),
    "tie entered": Message("the narrator orders them", "el narrador decide"),
    "tie rolled": Message("1d12 re-roll", "se repite 1d12"),
    "tie": Message(
        "Tied on initiative and AGI, {how}: {order}{faces}.",
        "Empate en iniciativa y AGI, {how}: {order}{faces}.",
    ),
    "before": Message(" before ", " antes que "),
    "surprise": Message(
        "Surprise! {names} act once before initiative (PHA-SURP-1).",
        "¡Sorpresa! {names}: una acción antes de la iniciativa.",
    ),
    # turns
    "turn surprise": Message("Surprise: {who} acts", "Sorpresa: actúa {who}"),
    "turn": Message("Round {round}, {who}'s turn {turn}", "Ronda {round}, turno {turn} de {who}"),
    "prepared lost": Message(
        "; his prepared action ({what}) is lost", "; pierde su acción preparada ({what})"
    ),
    "turn started": Message(
        lambda head, n, lost: f"{head}: {plural(n, 'action point', 'action points')}{lost}.",
        lambda head, n, lost: f"{head}: {plural(n, 'punto', 'puntos')} de acción{lost}.",
    ),
    "turn ended": Message("{who} ends his turn.", "{who} termina su turno."),
    "actions lost": Message(
        "{who} loses {n} action point(s): {why}.",
        "{who} pierde {n} punto(s) de acción: falló el chequeo de CA por Temor.",
    ),
    "spent": Message("{who}: {what}{tag}{more}.", "{who}: {what}{tag}{more}."),
    "reaction": Message(" (reaction)", " (reacción)"),
    # statuses (PHA-STS)
    "status": Message("{who}: status {name}{how}{why}.", "{who}: status {name}{how}{why}."),
    "status turns": Message(
        " for {turns} of his turns", lambda turns: f" durante {plural(turns, 'turno', 'turnos')}"
    ),
    "status left": Message(
        "{who}: {name}, {before} → {after} turns left.",
        "{who}: {name}, quedan {after} turnos (antes {before}).",
    ),
    "without air": Message(
        "{who} has been without air for {held} of his turns.",
        "{who} lleva {held} turnos sin respirar.",
    ),
    "out of breath": Message("{who} runs out of breath.", "{who} se queda sin aliento."),
    "status data": Message("{who}: {name} {data}."),
    "status ends": Message(
        "{who}: status {name} ends ({why}).", "{who} pierde el status {name} ({why})."
    ),
    # checks and contests (PHA-CHK)
    "check": Message(
        "{who}: {ch} check ({purpose}), {check}.", "{who}: chequeo de {ch} ({purpose}), {check}."
    ),
    "contest": Message(
        "{who} {verb} {target}: {a_ch} {a} against {d_ch} {d}: {won}{extra}.",
        "{who} {verb} {target}: {a_ch} {a} contra {d_ch} {d}: {won}{extra}.",
    ),
    "wins": Message("wins", "lo consigue"),
    "fails": Message("fails", "no lo consigue"),
    # attacks (PHA-ATK, PHA-DEF, PHA-CRIT)
    "attack": Message(
        "{who} attacks {targets} with {means}: {results}.",
        "{who} ataca a {targets} con {means}: {results}.",
    ),
    "unarmed": Message("unarmed", "sin armas"),
    "automatic hit": Message(
        "{target} is helpless: an automatic hit{double}",
        "{target} no puede defenderse: impacto automático{double}",
    ),
    "ruled hit": Message("the narrator rules a hit", "el narrador decide: impacta"),
    "ruled miss": Message("the narrator rules a miss", "el narrador decide: falla"),
    "pushes": Message(", may push him back 1 m", ", puede empujarlo 1 m"),
    "rolls": Message(
        "{roller} rolls {check}{block} {result} → {outcome}",
        "{roller} tira {check}{block} {result} → {outcome}",
    ),
    "block": Message(" (block)", " (bloqueo)"),
    "rerolled": Message(
        "A PHANTÄSIA point re-rolls {who}'s {check}: {result} → {outcome}.",
        "Un punto de PHANTÄSIA repite el {check} de {who}: {result} → {outcome}.",
    ),
    "settled": Message(
        "{who}'s attack is settled ({dealt} damage dealt).",
        "El ataque de {who} queda resuelto ({dealt} de daño en total).",
    ),
    "fumbled": Message(
        "{who}'s fumble: d6 {result}, {what}{extra}.", "Pifia de {who}: d6 {result}, {what}{extra}."
    ),
    # damage, death, healing (PHA-DMG, PHA-DTH)
    "damage": Message(
        "{who} takes {amount} damage: {text}{pv}.", "{who} recibe {amount} de daño: {text}{pv}."
    ),
    "immune": Message(" → immune", " → inmune"),
    "adjusted": Message(
        "GM: {who} hits {amount} ({why}){change}.",
        "Narrador: {who} {amount} PV ({why}): PV {before} → {after}.",
    ),
    "death again": Message(
        " (re-rolled with a PHANTÄSIA point)", " (repetido con un punto de PHANTÄSIA)"
    ),
    "death check": Message("{who}'s death check{again}", "Chequeo de muerte de {who}{again}"),
    "dies": Message("dies", "muere"),
    "survives": Message("survives", "sobrevive"),
    "negative": Message("negative damage", "de daño negativo"),
    "healed": Message(_healed_en, _healed_es),
    # PM and PHANTÄSIA points (PHA-PM, PHA-PP)
    "pm": Message("{who}: PM {before} → {after} ({why})."),
    "points": Message(
        "{who} {use}{helped}: PHANTÄSIA points {before} → {after}.",
        "{who} {use}{helped}: puntos de PHANTÄSIA {before} → {after}.",
    ),
    "for": Message(" for {who}", " por {who}"),
}
