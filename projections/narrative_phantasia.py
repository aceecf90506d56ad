"""The narrative lines of a PHANTÄSIA encounter, in English and in the book's Spanish
(PV, PM, DF, DM, AT, AM, Aturdido, Tumbado, ...). projections.narrative merges them."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from domain.rulesystems.phantasia.attacks import FUMBLES
from domain.rulesystems.phantasia.stats import ELEMENTS_ES
from domain.rulesystems.phantasia.statuses import STATUSES, name_es
from domain.state import EncounterState
from projections.lines import line, line_es, number, signed

FUMBLES_ES = {
    1: "suelta su arma (un poder: inutilizable 1d4 turnos)",
    2: "cae al suelo: Tumbado",
    3: "DF −3 y DM −3 hasta el final de su próximo turno",
    4: "AT −3 y AM −3 hasta el final de su próximo turno",
    5: "el enemigo al que atacaba obtiene un ataque gratuito contra él",
    6: "pierde 1/4 de sus PV máximos, o 1 PM",
}
ACTIONS_ES = {
    "move": "Movimiento",
    "switch_weapon": "Cambiar Arma",
    "reload": "Recargar",
    "use_item": "Usar Ítem",
    "defense": "Defensa",
    "stand_up": "se levanta",
    "prepare": "prepara una acción",
    "cast_power": "Lanzar Poder",
    "other": "otra acción",
    "load": "carga",
    "shield_breaks": "su escudo se rompe",
}
CONTESTS = {
    "grab": ("grabs", "agarra a"),
    "snatch": ("snatches from", "arrebata a"),
    "push": ("pushes", "empuja a"),
    "knock_down": ("knocks down", "tumba a"),
    "escape": ("breaks free of", "se libera de"),
}
PURPOSES_ES = {
    "check": "chequeo",
    "fear": "Temor",
    "suffocation": "asfixia",
    "concentration": "concentración",
    "catch the edge": "agarrarse al borde",
}
# the purposes the rules write with a status's code or a jump's figures in them
PURPOSE_PATTERNS_ES: list[tuple[str, Callable[[re.Match[str]], str]]] = [
    (r"end of (.+)", lambda m: f"fin de {name_es(m[1])}"),
    (r"resist (.+)", lambda m: f"resistir {name_es(m[1])}"),
    (r"long jump (\S+) m", lambda m: f"saltar de largo {m[1]} m"),
    (r"high jump (\S+) m", lambda m: f"saltar hacia arriba {m[1]} m"),
]


def purpose_es(purpose: str) -> str:
    """A check's purpose in the book's Spanish; a narrator's own words as he typed them."""
    if purpose in PURPOSES_ES:
        return PURPOSES_ES[purpose]
    for pattern, words in PURPOSE_PATTERNS_ES:
        if m := re.fullmatch(pattern, purpose):
            return words(m)
    return purpose


def _element(m: re.Match[str]) -> str:
    return ELEMENTS_ES.get(m[1], m[1])


# The English fragments the rules write into reasons and damage parts, in the book's Spanish
# (longest first); a narrator's own words are left as he typed them.
PHRASES_ES: list[tuple[str, str | Callable[[re.Match[str]], str]]] = [
    (r"its duration is over", "se acabó su duración"),
    (r"his next turn begins", "empieza su siguiente turno"),
    (r"passed his (\w+) check", r"superó su chequeo de \1"),
    (r"an offensive action ends it", "una acción ofensiva lo termina"),
    (r"he took damage", "recibió daño"),
    (r"healed to (\S+) PV", r"curado a \1 PV"),
    (r"the re-rolled death check passed", "el chequeo de muerte repetido salió bien"),
    (r"he stands up", "se levanta"),
    (r"he broke free", "se liberó"),
    (r"ends so that (.+?) can work", lambda m: f"termina para que {name_es(m[1])} funcione"),
    (r"grabbed by", "agarrado por"),
    (r"knocked down by", "tumbado por"),
    (r"the Defense action", "la acción de Defensa"),
    (r"suffocation: PV set to 0", "asfixia: PV a 0"),
    (r"a natural 1 restores 1 PM", "un 1 natural recupera 1 PM"),
    (r"(.+?) costs (\d+) PM", r"\1 cuesta \2 PM"),
    (r"a PHANTÄSIA point", "un punto de PHANTÄSIA"),
    (r"carries (\S+) kg, more than", r"lleva \1 kg, más de"),
    (r"back within", "de nuevo dentro de"),
    (r"duration doubled: fumbled defense", "duración doblada: defensa pifiada"),
    (r"the narrator's award", "premio del narrador"),
    (r"the narrator", "el narrador"),
    (r"spent: ", "gastado: "),
    (r"fumble result (\d)", r"pifia, resultado \1"),
    (r"death check (\d+) ≤", r"chequeo de muerte \1 ≤"),
    (r"a quarter of max PV", "un cuarto de los PV máximos"),
    (r"fall (\d+) m", r"caída de \1 m"),
    (r"a fall", "una caída"),
    (r"fumbled defense", "defensa pifiada"),
    (r"vulnerable to (\w+)", lambda m: f"vulnerable a {_element(m)}"),
    (r"resistant to (\w+)", lambda m: f"resistente a {_element(m)}"),
    (r"affinity to (\w+)", lambda m: f"afinidad con {_element(m)}"),
    (r"the damage heals", "el daño cura"),
    (r"(\b[A-Z]{2,3}) adj\b", r"ajuste \1"),
    (r"\bitem bonus\b", "bonus de ítem"),
    (r"\blevel increments\b", "incrementos de nivel"),
    (r"\bcritical\b", "crítico"),
    (r"\bunconscious\b", "inconsciente"),
    (r"\bparalysed\b", "paralizado"),
    (r"\basleep\b", "dormido"),
    (r"\bpetrified\b", "petrificado"),
    (r"\bDefense\b", "Defensa"),
    (r"\bpower\b", "poder"),
    (r"\bpoison\b", "veneno"),
    (r"\bsuffocation\b", "asfixia"),
    (r"\bcurse\b", "maldición"),
    (r"\bdice\b", "dados"),
    (r"\blevel\b", "nivel"),
]


def spanish(text: str, *, ruled: bool = False) -> str:
    """A rule's English fragments in the book's Spanish. A reason is the rules' when it
    names a rule (PHA-…) or `ruled` says so (damage parts); a narrator's own words are left
    as he typed them."""
    if not ruled and "(PHA-" not in text:
        return text
    for pattern, words in PHRASES_ES:
        text = re.sub(pattern, words, text)
    return text


def _who(s: EncounterState, combatant: str | None) -> str:
    who = s.combatants.get(combatant or "")
    return who.name if who else str(combatant)


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


def status_en(name: str) -> str:
    return STATUS_EN.get(name, name)


def status_es(s: EncounterState, combatant: str, name: str) -> str:
    who = s.combatants.get(combatant)
    kind = who.conditions[name].data.get("status", name) if who and name in who.conditions else name
    return str(STATUSES.get(kind, {}).get("es", name))


def _check(c: dict[str, Any], es: bool = False) -> str:
    """'d12 4 ≤ 5: success' / 'd12 4 ≤ 5: éxito'."""
    if c.get("automatic"):
        return (
            "éxito automático (punto de PHANTÄSIA)" if es else "automatic success (PHANTÄSIA point)"
        )
    face, target = c["face"], c["target_number"]
    text = f"d{c['die']} {face} {'≤' if face <= target else '>'} {number(target)}"
    if c["critical"]:
        return text + (": ¡crítico!" if es else ": critical!")
    if c["fumble"]:
        return text + (": ¡pifia!" if es else ": fumble!")
    ok = c["success"]
    return text + ((": éxito" if ok else ": fallo") if es else (": success" if ok else ": failure"))


# -- lines that replace the generic ones for PHANTÄSIA ------------------------------------


def joins(e: Any, es: bool) -> str:
    side = f" ({e.side})" if e.side else ""
    if e.hits is None:  # his stat block and PV concealed from the reader
        return f"{e.name} se une{side}." if es else f"{e.name} joins{side}."
    who = e.stats.get("controller") == "player"
    if es:
        kind = "personaje jugador" if who else "criatura del narrador"
        return f"{e.name} se une{side}, {kind}: PV {number(e.hits)}/{e.max_hits}."
    kind = "player character" if who else "the narrator's creature"
    return f"{e.name} joins{side}, {kind}: {number(e.hits)}/{e.max_hits} PV."


def initiative(e: Any, s: EncounterState, es: bool) -> str:
    who = _who(s, e.combatant)
    if e.entered:
        return (
            f"El narrador da a {who} iniciativa {e.ip}."
            if es
            else f"The narrator gives {who} initiative {e.ip}."
        )
    if not e.rolls and "group" in e.modifiers:
        return (
            f"{who} comparte la iniciativa de su grupo: {e.ip}."
            if es
            else f"{who} shares his group's initiative: {e.ip}."
        )
    if not e.rolls:
        return (
            f"{who} actúa por su AGI {e.ip} (variante por AGI)."
            if es
            else f"{who} acts at his AGI {e.ip} (AGI-order variant)."
        )
    roll = next(iter(e.rolls.values()))
    mods = " ".join(f"{signed(v)} {k}" for k, v in e.modifiers.items() if k != "group")
    head = "Iniciativa de" if es else "Initiative for"
    return f"{head} {who}: 1d12 {roll['dice_total']} {mods} = {e.ip}."


def damage(e: Any, s: EncounterState, es: bool) -> str:
    b = e.breakdown
    who = _who(s, e.combatant)
    skip = {"rolled", "factor", "doublings", "halvings", "reduction", "total", "rule"}
    times = b.get("multiplied")  # PHA-DMG-4: 'd10 6 × level 4 = 24'
    parts = " ".join(  # what the dice showed first, each other part after its sign
        f"{k} {v}" if k == "dice" else f"{signed(v)} {k}"
        for k, v in b.items()
        if k not in skip and isinstance(v, int) and not (times and k == "dice")
    )
    if times:
        dice = re.sub(r"^1d", "d", str(times["dice"]))
        head = f"{dice} {times['rolled']} × level {times['level']} = {b.get('dice')}"
        parts = f"{head}, {parts}" if parts else head
    parts = parts.lstrip("+ ")
    text = f"{b.get('rolled', e.amount)} ({parts})" if parts else str(e.amount)
    if b.get("factor", 1) > 1:
        text += f" ×{b['factor']} ({', '.join(b['doublings'])})"
    for h in b.get("halvings", []):
        text += f" ½ ({h})"
    for k, v in (b.get("reduction") or {}).items():
        text += f" − {v} {k}"
    if b.get("immune"):
        text += " → inmune" if es else " → immune"
    pv = (
        f"; PV {number(e.hits_before)} → {number(e.hits_after)}"
        if e.hits_before is not None
        else ""
    )
    if es:
        return f"{who} recibe {e.amount} de daño: {spanish(text, ruled=True)}{pv}."
    return f"{who} takes {e.amount} damage: {text}{pv}."


def turn_ended(e: Any, s: EncounterState, es: bool) -> str:
    who = _who(s, e.combatant)
    return f"{who} termina su turno." if es else f"{who} ends his turn."


def attack_settled(e: Any, s: EncounterState, es: bool) -> str:
    who = _who(s, e.combatant)
    dealt = e.detail.get("dealt", 0)
    if es:
        return f"El ataque de {who} queda resuelto ({dealt} de daño en total)."
    return f"{who}'s attack is settled ({dealt} damage dealt)."


# -- PHANTÄSIA events ----------------------------------------------------------------------


@line("SurpriseDeclared")
def _(e: Any, s: EncounterState) -> str:
    names = ", ".join(_who(s, c) for c in e.combatants)
    return f"Surprise! {names} act once before initiative (PHA-SURP-1)."


@line_es("SurpriseDeclared")
def _(e: Any, s: EncounterState) -> str:
    names = ", ".join(_who(s, c) for c in e.combatants)
    return f"¡Sorpresa! {names}: una acción antes de la iniciativa."


@line("TieBroken")
def _(e: Any, s: EncounterState) -> str:
    how = (
        "they act at the same time"
        if e.simultaneous
        else "the narrator orders them"
        if e.entered
        else "1d12 re-roll"
    )
    faces = "; ".join(f"{n.removeprefix('tie:')} {r['faces']}" for n, r in e.rolls.items())
    return f"Tied on initiative and AGI, {how}: {' before '.join(_who(s, c) for c in e.order)}" + (
        f" ({faces})." if faces else "."
    )


@line_es("TieBroken")
def _(e: Any, s: EncounterState) -> str:
    how = (
        "actúan a la vez"
        if e.simultaneous
        else "el narrador decide"
        if e.entered
        else "se repite 1d12"
    )
    faces = "; ".join(f"{n.removeprefix('tie:')} {r['faces']}" for n, r in e.rolls.items())
    return (
        f"Empate en iniciativa y AGI, {how}: {' antes que '.join(_who(s, c) for c in e.order)}"
        + (f" ({faces})." if faces else ".")
    )


@line("TurnStarted")
def _(e: Any, s: EncounterState) -> str:
    who = _who(s, e.combatant)
    head = f"Surprise: {who} acts" if e.surprise else f"Round {e.round}, {who}'s turn {e.turn}"
    lost = f"; his prepared action ({e.prepared_lost}) is lost" if e.prepared_lost else ""
    return f"{head}: {e.actions} action point{'s' if e.actions != 1 else ''}{lost}."


@line_es("TurnStarted")
def _(e: Any, s: EncounterState) -> str:
    who = _who(s, e.combatant)
    head = f"Sorpresa: actúa {who}" if e.surprise else f"Ronda {e.round}, turno {e.turn} de {who}"
    lost = f"; pierde su acción preparada ({e.prepared_lost})" if e.prepared_lost else ""
    n = e.actions
    return f"{head}: {n} punto{'s' if n != 1 else ''} de acción{lost}."


@line("StatusApplied")
def _(e: Any, s: EncounterState) -> str:
    how = f" for {e.turns} of his turns" if e.turns else ""
    why = f" ({e.reason})" if e.reason else ""
    name = status_en(e.kind) if e.kind in STATUS_EN else e.status
    return f"{_who(s, e.combatant)}: status {name}{how}{why}."


@line_es("StatusApplied")
def _(e: Any, s: EncounterState) -> str:
    name = STATUSES.get(e.kind, {}).get("es", e.status)
    how = f" durante {e.turns} turno{'s' if e.turns != 1 else ''}" if e.turns else ""
    why = f" ({spanish(e.reason)})" if e.reason else ""
    return f"{_who(s, e.combatant)}: status {name}{how}{why}."


@line("StatusTicked")
def _(e: Any, s: EncounterState) -> str:
    who = _who(s, e.combatant)
    if e.turns_before is not None:
        return f"{who}: {status_en(e.status)}, {e.turns_before} → {e.turns_after} turns left."
    if "held" in e.data:
        return f"{who} has been without air for {e.data['held']} of his turns."
    if e.data.get("out"):
        return f"{who} runs out of breath."
    return f"{who}: {status_en(e.status)} {e.data}."


@line_es("StatusTicked")
def _(e: Any, s: EncounterState) -> str:
    who = _who(s, e.combatant)
    name = status_es(s, e.combatant, e.status)
    if e.turns_before is not None:
        return f"{who}: {name}, quedan {e.turns_after} turnos (antes {e.turns_before})."
    if "held" in e.data:
        return f"{who} lleva {e.data['held']} turnos sin respirar."
    if e.data.get("out"):
        return f"{who} se queda sin aliento."
    return f"{who}: {name} {e.data}."


@line("StatusEnded")
def _(e: Any, s: EncounterState) -> str:
    return f"{_who(s, e.combatant)}: status {status_en(e.status)} ends ({e.reason})."


@line_es("StatusEnded")
def _(e: Any, s: EncounterState) -> str:
    name = status_es(s, e.combatant, e.status)
    return f"{_who(s, e.combatant)} pierde el status {name} ({spanish(e.reason)})."


@line("CheckRolled")
def _(e: Any, s: EncounterState) -> str:
    return (
        f"{_who(s, e.combatant)}: {e.characteristic.upper()} check ({e.purpose}), "
        f"{_check(e.check)}."
    )


@line_es("CheckRolled")
def _(e: Any, s: EncounterState) -> str:
    purpose = purpose_es(e.purpose)
    return (
        f"{_who(s, e.combatant)}: chequeo de {e.characteristic.upper()} ({purpose}), "
        f"{_check(e.check, es=True)}."
    )


@line("ContestRolled")
def _(e: Any, s: EncounterState) -> str:
    a, d = e.attacker_check, e.defender_check
    verb = CONTESTS[e.kind][0]
    won = "wins" if e.attacker_wins else "fails"
    extra = "".join(f", {k} {v}" for k, v in e.effect.items())
    return (
        f"{_who(s, e.combatant)} {verb} {_who(s, e.target)}: {a['characteristic'].upper()} "
        f"{_check(a)} against {d['characteristic'].upper()} {_check(d)}: {won}{extra}."
    )


@line_es("ContestRolled")
def _(e: Any, s: EncounterState) -> str:
    a, d = e.attacker_check, e.defender_check
    verb = CONTESTS[e.kind][1]
    won = "lo consigue" if e.attacker_wins else "no lo consigue"
    extra = "".join(f", {k} {v}" for k, v in e.effect.items())
    return (
        f"{_who(s, e.combatant)} {verb} {_who(s, e.target)}: {a['characteristic'].upper()} "
        f"{_check(a, True)} contra {d['characteristic'].upper()} {_check(d, True)}: "
        f"{won}{extra}."
    )


@line("ActionSpent")
def _(e: Any, s: EncounterState) -> str:
    d = e.details
    what = e.action.replace("_", " ")
    more = ", ".join(f"{k} {v}" for k, v in d.items() if k not in ("free", "rule") and v)
    tag = " (reaction)" if e.reaction else ""
    return f"{_who(s, e.combatant)}: {what}{tag}{f' ({more})' if more else ''}."


@line_es("ActionSpent")
def _(e: Any, s: EncounterState) -> str:
    d = e.details
    what = ACTIONS_ES.get(e.action, e.action)
    more = ", ".join(f"{k} {v}" for k, v in d.items() if k not in ("free", "rule") and v)
    tag = " (reacción)" if e.reaction else ""
    return f"{_who(s, e.combatant)}: {what}{tag}{f' ({more})' if more else ''}."


def _attack(e: Any, s: EncounterState, es: bool) -> str:
    p = e.action["params"]
    who = _who(s, e.combatant)
    means = p.get("power") or p.get("weapon") or ("sin armas" if es else "unarmed")
    lines = []
    for r in e.results:
        target = _who(s, r["target"])
        if r["rolled_by"] == "automatic":
            double = (", daño doble" if es else ", double damage") if r["doubled"] else ""
            lines.append(
                f"{target} no puede defenderse: impacto automático{double}"
                if es
                else f"{target} is helpless: an automatic hit{double}"
            )
            continue
        if r["rolled_by"] == "gm":
            hit = r["hit"]
            lines.append(
                f"el narrador decide: {'impacta' if hit else 'falla'}"
                if es
                else f"the narrator rules a {'hit' if hit else 'miss'}"
            )
            continue
        roller = _who(s, r["roller"])
        check = _check(r, es)
        outcome = (
            ("impacta" if r["hit"] else "no impacta") if es else ("hit" if r["hit"] else "no hit")
        )
        if r["doubled"]:
            outcome += ", daño doble" if es else ", double damage"
        if r.get("pushes_back"):
            outcome += ", puede empujarlo 1 m" if es else ", may push him back 1 m"
        tail = " (bloqueo)" if r.get("blocked") and es else " (block)" if r.get("blocked") else ""
        lines.append(f"{roller} {'tira' if es else 'rolls'} {r['check']}{tail} {check} → {outcome}")
    verb = "ataca a" if es else "attacks"
    with_ = "con" if es else "with"
    targets = ", ".join(_who(s, t) for t in p["targets"])
    return f"{who} {verb} {targets} {with_} {means}: {'; '.join(lines)}."


@line("AttackChecked")
def _(e: Any, s: EncounterState) -> str:
    return _attack(e, s, False)


@line_es("AttackChecked")
def _(e: Any, s: EncounterState) -> str:
    return _attack(e, s, True)


@line("CheckRerolled")
def _(e: Any, s: EncounterState) -> str:
    mine = [r for r in e.results if r.get("roller") == e.combatant]
    outcome = "hit" if mine and mine[0]["hit"] else "no hit"
    return (
        f"A PHANTÄSIA point re-rolls {_who(s, e.combatant)}'s {mine[0]['check']}: "
        f"{_check(mine[0])} → {outcome}."
    )


@line_es("CheckRerolled")
def _(e: Any, s: EncounterState) -> str:
    mine = [r for r in e.results if r.get("roller") == e.combatant]
    outcome = "impacta" if mine and mine[0]["hit"] else "no impacta"
    return (
        f"Un punto de PHANTÄSIA repite el {mine[0]['check']} de {_who(s, e.combatant)}: "
        f"{_check(mine[0], True)} → {outcome}."
    )


@line("DeathChecked")
def _(e: Any, s: EncounterState) -> str:
    face = e.rolls["death"]["dice_total"]
    again = " (re-rolled with a PHANTÄSIA point)" if e.reroll else ""
    verdict = "dies" if e.dies else "survives"
    sign = "≤" if e.dies else ">"
    if e.negative_damage is None:  # concealed from the reader
        return f"{_who(s, e.combatant)}'s death check{again}: d100 {face} → {verdict}."
    return (
        f"{_who(s, e.combatant)}'s death check{again}: d100 {face} {sign} "
        f"{e.negative_damage} negative damage → {verdict}."
    )


@line_es("DeathChecked")
def _(e: Any, s: EncounterState) -> str:
    face = e.rolls["death"]["dice_total"]
    again = " (repetido con un punto de PHANTÄSIA)" if e.reroll else ""
    verdict = "muere" if e.dies else "sobrevive"
    sign = "≤" if e.dies else ">"
    if e.negative_damage is None:  # concealed from the reader
        return f"Chequeo de muerte de {_who(s, e.combatant)}{again}: d100 {face} → {verdict}."
    return (
        f"Chequeo de muerte de {_who(s, e.combatant)}{again}: d100 {face} {sign} "
        f"{e.negative_damage} de daño negativo → {verdict}."
    )


@line("FumbleRolled")
def _(e: Any, s: EncounterState) -> str:
    extra = ", ".join(
        f"{k} {_who(s, v) if k == 'free_attack_for' else v}"
        for k, v in e.details.items()
        if k != "lock"
    )
    return f"{_who(s, e.combatant)}'s fumble: d6 {e.result}, {FUMBLES[e.result]}" + (
        f" ({extra})." if extra else "."
    )


@line_es("FumbleRolled")
def _(e: Any, s: EncounterState) -> str:
    extra = ", ".join(
        f"{k} {_who(s, v) if k == 'free_attack_for' else v}"
        for k, v in e.details.items()
        if k != "lock"
    )
    return f"Pifia de {_who(s, e.combatant)}: d6 {e.result}, {FUMBLES_ES[e.result]}" + (
        f" ({extra})." if extra else "."
    )


@line("PmChanged")
def _(e: Any, s: EncounterState) -> str:
    return f"{_who(s, e.combatant)}: PM {e.pm_before} → {e.pm_after} ({e.reason})."


@line_es("PmChanged")
def _(e: Any, s: EncounterState) -> str:
    return f"{_who(s, e.combatant)}: PM {e.pm_before} → {e.pm_after} ({spanish(e.reason)})."


USES = {
    "award": ("is awarded", "recibe"),
    "pass": ("is passed", "recibe (cedido)"),
    "reroll": ("spends one to re-roll", "gasta uno para repetir una tirada"),
    "auto_success": ("spends one to succeed", "gasta uno para tener éxito"),
    "death_reroll": (
        "spends one to re-roll a death check",
        "gasta uno para repetir un chequeo de muerte",
    ),
    "pm": ("spends one for 1 PM", "gasta uno por 1 PM"),
}


@line("PhantasiaPointsChanged")
def _(e: Any, s: EncounterState) -> str:
    helped = f" for {_who(s, e.for_combatant)}" if e.for_combatant else ""
    return (
        f"{_who(s, e.combatant)} {USES[e.use][0]}{helped}: PHANTÄSIA points "
        f"{e.points_before} → {e.points_after}."
    )


@line_es("PhantasiaPointsChanged")
def _(e: Any, s: EncounterState) -> str:
    helped = f" por {_who(s, e.for_combatant)}" if e.for_combatant else ""
    return (
        f"{_who(s, e.combatant)} {USES[e.use][1]}{helped}: puntos de PHANTÄSIA "
        f"{e.points_before} → {e.points_after}."
    )


@line("Healed")
def _(e: Any, s: EncounterState) -> str:
    parts = ", ".join(f"{k} {v}" for k, v in e.parts.items())
    why = f"; {e.reason}" if e.reason else ""
    pv = (
        f": PV {number(e.hits_before)} → {number(e.hits_after)}"
        if e.hits_before is not None
        else ""
    )
    amount = f" {e.amount}" if e.amount is not None else ""  # concealed from the reader
    return f"{_who(s, e.combatant)} is healed{amount} ({parts}{why}){pv}."


@line_es("Healed")
def _(e: Any, s: EncounterState) -> str:
    parts = spanish(", ".join(f"{k} {v}" for k, v in e.parts.items()), ruled=True)
    why = f"; {e.reason}" if e.reason else ""
    pv = (
        f": PV {number(e.hits_before)} → {number(e.hits_after)}"
        if e.hits_before is not None
        else ""
    )
    amount = f"{e.amount} PV" if e.amount is not None else "PV"  # concealed from the reader
    return f"{_who(s, e.combatant)} recupera {amount} ({parts}{why}){pv}."


@line("ActionsLost")
def _(e: Any, s: EncounterState) -> str:
    return f"{_who(s, e.combatant)} loses {e.actions} action point(s): {e.reason}."


@line_es("ActionsLost")
def _(e: Any, s: EncounterState) -> str:
    who = _who(s, e.combatant)
    return f"{who} pierde {e.actions} punto(s) de acción: falló el chequeo de CA por Temor."
