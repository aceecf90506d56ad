"""PHANTÄSIA's reasons, keyed by code: why a status began or ended, PM changed, PV were
healed or adjusted, what a check was for, and the names of damage parts. An event carries
the code and its parameters beside the English text (`said`); the Spanish log is made from
them, never by translating the stored text."""

from __future__ import annotations

from typing import Any

from domain.rulesystems.phantasia.stats import ELEMENTS_ES
from domain.rulesystems.phantasia.statuses import name_es
from domain.wording import Message


def _element(element: str) -> str:
    return ELEMENTS_ES.get(element, element)


# The reasons the rules record (an event's `reason_code` and `reason_params`); the English
# text is what the event's `reason` holds. A check's purpose is one of these too.
REASONS: dict[str, Message] = {
    "over": Message("its duration is over (PHA-STS-0)", "se acabó su duración (PHA-STS-0)"),
    "next_turn": Message(
        "his next turn begins (PHA-ACT-13)", "empieza su siguiente turno (PHA-ACT-13)"
    ),
    "passed_check": Message(
        "passed his {characteristic} check ({rule})",
        "superó su chequeo de {characteristic} ({rule})",
    ),
    "offensive_action": Message(
        "an offensive action ends it (PHA-STS-9)", "una acción ofensiva lo termina (PHA-STS-9)"
    ),
    "took_damage": Message("he took damage (PHA-STS-17)", "recibió daño (PHA-STS-17)"),
    "healed_pv": Message("PV ≥ 1 (PHA-DTH-5)"),
    "death_check": Message(
        "death check d100 {face} (PHA-DTH-2)", "chequeo de muerte d100 {face} (PHA-DTH-2)"
    ),
    "death_reroll_passed": Message(
        "the re-rolled death check passed (PHA-DTH-6)",
        "el chequeo de muerte repetido salió bien (PHA-DTH-6)",
    ),
    "down": Message("PV ≤ 0 (PHA-DTH-2)"),
    "stands_up": Message("he stands up (PHA-STS-19)", "se levanta (PHA-STS-19)"),
    "broke_free": Message("he broke free (PHA-STS-1)", "se liberó (PHA-STS-1)"),
    "makes_way": Message(
        "ends so that {status} can work (PHA-STK-3)",
        lambda status: f"termina para que {name_es(status)} funcione (PHA-STK-3)",
    ),
    "grabbed_by": Message("grabbed by {by} (PHA-ACT-7)", "agarrado por {by} (PHA-ACT-7)"),
    "knocked_down_by": Message("knocked down by {by} ({rule})", "tumbado por {by} ({rule})"),
    "suffocation_down": Message(
        "suffocation: PV set to 0 (PHA-SUF-3)", "asfixia: PV a 0 (PHA-SUF-3)"
    ),
    "natural_1": Message(
        "a natural 1 restores 1 PM (PHA-CRIT-3)", "un 1 natural recupera 1 PM (PHA-CRIT-3)"
    ),
    "power_cost": Message("{power} costs {pm} PM (PHA-PM-5)", "{power} cuesta {pm} PM (PHA-PM-5)"),
    "power_kept": Message("{power} (PHA-PM-5)"),
    "point_for_pm": Message("a PHANTÄSIA point (PHA-PM-3)", "un punto de PHANTÄSIA (PHA-PM-3)"),
    "overloaded": Message(
        "carries {kg} kg, more than FUE {fue} × 7 kg (PHA-WPN-7)",
        "lleva {kg} kg, más de FUE {fue} × 7 kg (PHA-WPN-7)",
    ),
    "unloaded": Message(
        "back within {limit} kg (PHA-WPN-7)", "de nuevo dentro de {limit} kg (PHA-WPN-7)"
    ),
    "point_spent": Message("spent: {use} (PHA-PP-2)", "gastado: {use} (PHA-PP-2)"),
    "award": Message("the narrator's award (PHA-PP-1)", "premio del narrador (PHA-PP-1)"),
    "narrator": Message("the narrator", "el narrador"),
    "fumble_result": Message(
        "fumble result {result} (PHA-CRIT-5)", "pifia, resultado {result} (PHA-CRIT-5)"
    ),
    "fumble_pm": Message(
        "fumble result 6: 1 PM (PHA-CRIT-5)", "pifia, resultado 6: 1 PM (PHA-CRIT-5)"
    ),
    "fall": Message("a fall (PHA-DMG-8)", "una caída (PHA-DMG-8)"),
    "lies_down": Message("{status} ({rule})", lambda status, rule: f"{_lies(status)} ({rule})"),
    "affinity_heals": Message(
        "affinity to {element}: the damage heals (PHA-DMG-7)",
        lambda element: f"afinidad con {_element(element)}: el daño cura (PHA-DMG-7)",
    ),
    "duration_doubled": Message(
        lambda typed: f"{typed} (duration doubled: fumbled defense, PHA-CRIT-7)".strip(),
        lambda typed: f"{typed} (duración doblada: defensa pifiada, PHA-CRIT-7)".strip(),
    ),
    "defense_action": Message(
        "the Defense action (PHA-ACT-13)", "la acción de Defensa (PHA-ACT-13)"
    ),
    "overloaded_load": Message(
        "carries {kg} kg, more than {limit} kg (PHA-WPN-7)",
        "lleva {kg} kg, más de {limit} kg (PHA-WPN-7)",
    ),
    "fear_lost": Message(
        "failed his CA check against Fear (PHA-STS-18)",
        "falló el chequeo de CA por Temor (PHA-STS-18)",
    ),
    # a check's purpose (CheckRolled)
    "check": Message("check", "chequeo"),
    "fear": Message("fear", "Temor"),
    "suffocation": Message("suffocation", "asfixia"),
    "concentration": Message("concentration", "concentración"),
    "catch_the_edge": Message("catch the edge", "agarrarse al borde"),
    "end_of": Message("end of {status}", lambda status: f"fin de {name_es(status)}"),
    "resist": Message("resist {status}", lambda status: f"resistir {name_es(status)}"),
    "long_jump": Message("long jump {metres} m", "saltar de largo {metres} m"),
    "high_jump": Message("high jump {metres} m", "saltar hacia arriba {metres} m"),
}

_LIES_ES = {"asleep": "dormido", "unconscious": "inconsciente", "dead": "muerto"}


def _lies(status: str) -> str:
    return _LIES_ES.get(status, status)


Said = dict[str, Any]  # an event's `reason`, `reason_code` and `reason_params`


def said(code: str, **params: Any) -> Said:
    """What an event records of a rule's reason: its English `reason` (as the log and the
    exports read it), its `reason_code` and the `reason_params` the Spanish is made from."""
    return {
        "reason": REASONS[code].say("en", **params),
        "reason_code": code,
        "reason_params": params,
    }


def reason_of(reason: str | Said) -> Said:
    """A rule's reason (`said`) as it is, or the narrator's own words (no code)."""
    return reason if isinstance(reason, dict) else {"reason": reason}


def purpose_of(purpose: str | Said) -> Said:
    """A check's purpose as CheckRolled records it: `purpose`, `purpose_code`, `purpose_params`."""
    if isinstance(purpose, str):
        return {"purpose": purpose}
    return {
        "purpose": purpose["reason"],
        "purpose_code": purpose["reason_code"],
        "purpose_params": purpose["reason_params"],
    }


def reason(e: Any, lang: str) -> str:
    """An event's reason in `lang`: in English as recorded; else from its code and
    parameters, or the stored text where it has no code (the narrator's own words, or an
    event recorded before codes existed)."""
    code = getattr(e, "reason_code", None)
    if lang == "en" or code is None or code not in REASONS:  # English: as recorded
        return str(e.reason)
    return REASONS[code].say(lang, **(getattr(e, "reason_params", None) or {}))


# The parts of a damage or a heal (a breakdown's keys) and its doublings and halvings, as
# the rules name them; a part written with figures carries its code in the breakdown's
# `said` ({text: {code, params}}); a narrator's own words are left as he typed them.
PARTS: dict[str, Message] = {
    "dice": Message("dice", "dados"),
    "level": Message("level", "nivel"),
    "item bonus": Message("item bonus", "bonus de ítem"),
    "level increments": Message("level increments", "incrementos de nivel"),
    "caster INT adj": Message("caster INT adj", "ajuste INT del lanzador"),
    "a quarter of max PV": Message("a quarter of max PV", "un cuarto de los PV máximos"),
    "weakness": Message("weakness", name_es("weakness")),
    "curse": Message("curse", "maldición"),
    "poison": Message("poison", "veneno"),
    "suffocation": Message("suffocation", "asfixia"),
    "critical (PHA-CRIT-1)": Message("critical (PHA-CRIT-1)", "crítico (PHA-CRIT-1)"),
    "fumbled defense (PHA-CRIT-7)": Message(
        "fumbled defense (PHA-CRIT-7)", "defensa pifiada (PHA-CRIT-7)"
    ),
    "power (PHA-DMG-6)": Message("power (PHA-DMG-6)", "poder (PHA-DMG-6)"),
    "unconscious (PHA-DTH-3)": Message("unconscious (PHA-DTH-3)", "inconsciente (PHA-DTH-3)"),
    "petrified (PHA-AMB-36)": Message("petrified (PHA-AMB-36)", "petrificado (PHA-AMB-36)"),
    "Defense (PHA-DMG-9)": Message("Defense (PHA-DMG-9)", "Defensa (PHA-DMG-9)"),
    "paralysed": Message("paralysed", "paralizado"),
    "asleep": Message("asleep", "dormido"),
    **{
        f"{ch} adj": Message(f"{ch} adj", f"ajuste {ch}")
        for ch in ("FUE", "AGI", "INT", "VIT", "SUE", "CA")
    },
}
PART_CODES: dict[str, Message] = {
    "vulnerable": Message(
        "vulnerable to {element} (PHA-DMG-7)",
        lambda element: f"vulnerable a {_element(element)} (PHA-DMG-7)",
    ),
    "resistant": Message(
        "resistant to {element} (PHA-DMG-7)",
        lambda element: f"resistente a {_element(element)} (PHA-DMG-7)",
    ),
    "power_doubles": Message("{power} (PHA-DMG-6)"),
    "fall": Message("fall {metres} m × 3", "caída de {metres} m × 3"),
}


def part(code: str, **params: Any) -> tuple[str, dict[str, Any]]:
    """A damage part written with figures: its English text and what `said` keeps of it."""
    return PART_CODES[code].say("en", **params), {"code": code, "params": params}


def part_name(name: str, lang: str, said: dict[str, Any] | None = None) -> str:
    """A damage part, doubling or halving in `lang`."""
    if lang != "es":
        return name
    coded = (said or {}).get(name)
    if coded and coded["code"] in PART_CODES:
        return PART_CODES[coded["code"]].say(lang, **coded["params"])
    return PARTS[name].say(lang) if name in PARTS else name
