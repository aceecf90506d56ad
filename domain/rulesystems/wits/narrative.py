"""Wits's log lines (English): its order by Wits, Current Health, attacks and defenses
tested against skills. One function per event type gathers the line's parameters, and the
text is its catalogue's (`messages.LINE`). The lines every book shares are
projections.narrative's."""

from __future__ import annotations

from typing import Any

from domain.rulesystems.wits.messages import DEFENSES, DEGREES, LINE, MODES
from domain.rulesystems.wits.state import WitsAttack
from domain.state import EncounterState
from domain.wording import Lines, Message, figures, name_of, number, signed

LINES = Lines()
line = LINES.line


def say(code: str, lang: str = "en", **params: Any) -> str:
    return LINE[code].say(lang, **params)


def _word(words: dict[str, Message], code: str, lang: str) -> str:
    """A defense's, a mode's or a degree's word; an older stream's own word where the
    catalogue has none ('_' read as a space)."""
    return words[code].say(lang) if code in words else code.replace("_", " ")


@line("CombatantAdded")
def _(e: Any, s: EncounterState, lang: str) -> str | None:
    if e.hits is None:  # concealed from the reader: the core's line
        return None
    return say("joins", lang, name=e.name, side=e.side, hits=number(e.hits), max_hits=e.max_hits)


@line("InitiativeRolled")
def _(e: Any, s: EncounterState, lang: str) -> str:
    who, ip = name_of(s, e.combatant), number(e.ip)
    rank = say("ordinal", lang, n=e.modifiers.get("rank among equals"))
    if e.entered:  # WIT-ORD-2: the GM orders those tied
        return say("initiative entered", lang, who=who, ip=ip, rank=rank)
    if e.rolls:  # WIT-ORD-2, Default WIT-AMB-15: a roll-off among those tied
        (roll,) = e.rolls.values()
        faces = "→".join(str(f) for f in roll["faces"])
        return say("initiative rolled off", lang, who=who, ip=ip, faces=faces, rank=rank)
    after = say("after those there", lang) if e.raw is not None else ""
    return say("initiative", lang, who=who, ip=ip, after=after)


def _skill_text(skill: dict[str, Any], lang: str) -> str:
    """'13 (short sword +1 aiming) = 14'."""
    parts = "".join(
        say("skill part", lang, value=signed(v), name=k) for k, v in skill["parts"].items() if v
    )
    if not parts:
        return say(
            "skill", lang, effective=number(skill["effective"]), base_from=skill["base_from"]
        )
    return say(
        "skill adjusted",
        lang,
        base=number(skill["base"]),
        base_from=skill["base_from"],
        parts=parts,
        effective=number(skill["effective"]),
    )


def _protection(b: dict[str, Any], lang: str) -> str:
    """WIT-DMG-2, WIT-CRIT-1: what his armour's Protection took off, if anything."""
    if b["protection_ignored"]:
        return say("protection ignored", lang)
    return say("protection", lang, protection=b["protection"]) if b["protection"] else ""


@line("DamageApplied")
def _(e: Any, s: EncounterState, lang: str) -> str:
    b = e.breakdown
    (roll,) = e.rolls.values()
    dice = " + ".join(
        f"[{'+'.join(str(f) for f in d['faces'])}]" if len(d["faces"]) > 1 else str(d["value"])
        for d in roll["dice"]
    )
    modifiers = signed(b["modifiers"])
    down_at = s.options.get("down_at", 0)
    who = s.combatants.get(e.combatant)  # the state before: his hits then, as the event's
    down = who is not None and who.hits > down_at >= who.hits - e.amount
    return say(
        "damage",
        lang,
        who=name_of(s, e.combatant),
        amount=e.amount,
        expression=roll["expression"],
        dice=dice,
        total=number(b["dice"]),
        modifiers=say("damage modifiers", lang, modifiers=modifiers) if b["modifiers"] else "",
        protection=_protection(b, lang),
        change=figures(e.hits_before, e.hits_after, head=say("current health", lang)),
        down=say("down", lang) if down else "",
    )


@line("AttackAnnounced")
def _(e: Any, s: EncounterState, lang: str) -> str:
    attack = WitsAttack.model_validate(e.action["params"])
    ways = [
        text
        for text, on in (
            (say("charges", lang), attack.charge),  # WIT-CHG
            (say("called shot", lang, where=attack.called_shot), attack.called_shot),  # WIT-CALL
            (say("unseen", lang), not attack.visible),
        )
        if on
    ]
    how = say("attack how", lang, ways=", ".join(ways)) if ways else ""
    return say(
        "attack",
        lang,
        who=name_of(s, e.combatant),
        target=name_of(s, e.target),
        weapon=e.action["weapon"],
        how=how,
    )


@line("DefenseDeclared")
def _(e: Any, s: EncounterState, lang: str) -> str:
    return say(
        "defense",
        lang,
        who=name_of(s, e.combatant),
        kind=_word(DEFENSES, e.kind, lang),
        mode=_word(MODES, e.mode, lang),
        skill=_skill_text(e.skill, lang),
    )


def _defense(e: Any, s: EncounterState, lang: str) -> str:
    """WIT-ATK-4, WIT-CRIT-1: the defense against the attack, if any."""
    d = e.defense
    if d is None:
        return ""
    target, kind = name_of(s, e.target), _word(DEFENSES, d["kind"], lang)
    if not d["rolled"]:
        return say("undefended", lang, target=target, kind=kind)
    return say(
        "defended",
        lang,
        target=target,
        kind=kind,
        total=number(d["total"]),
        effective=number(d["effective"]),
        outcome=say("stops the blow" if d["success"] else "defense fails", lang),
    )


@line("AttackTestRolled")
def _(e: Any, s: EncounterState, lang: str) -> str:
    by_the_gm = say("by the GM", lang)
    degree = _word(DEGREES, e.degree, lang)
    degree += by_the_gm if e.degree_source == "entered" else ""
    result = say("hit" if e.hit else "miss", lang) + (by_the_gm if e.overridden else "")
    return say(
        "attack test",
        lang,
        who=name_of(s, e.combatant),
        total=number(e.rolls["attack"]["total"]),
        skill=_skill_text(e.skill, lang),
        degree=degree,
        defense=_defense(e, s, lang),
        result=result,
    )


@line("Aimed")
def _(e: Any, s: EncounterState, lang: str) -> str:
    return say("aimed", lang, who=name_of(s, e.combatant), aim=e.aim_after)


@line("AimLost")
def _(e: Any, s: EncounterState, lang: str) -> str:
    return say("aim lost", lang, who=name_of(s, e.combatant), aim=e.aim, why=e.reason)


@line("Moved")
def _(e: Any, s: EncounterState, lang: str) -> str:
    charge = say("charging", lang, target=name_of(s, e.charge_at)) if e.charge_at else ""
    used = say("one action" if e.actions == 1 else "whole round", lang)
    return say(
        "moved", lang, who=name_of(s, e.combatant), metres=e.metres, charge=charge, used=used
    )


@line("ActionTaken")
def _(e: Any, s: EncounterState, lang: str) -> str:
    used = say("one action" if e.actions == 1 else "two actions", lang)
    return say("action taken", lang, who=name_of(s, e.combatant), what=e.what, used=used)


@line("TurnHeld")
def _(e: Any, s: EncounterState, lang: str) -> str:
    return say("held", lang, who=name_of(s, e.combatant))


@line("KnockBackTested")
def _(e: Any, s: EncounterState, lang: str) -> str:
    return say(
        "knocked back",
        lang,
        who=name_of(s, e.combatant),
        total=number(e.rolls["strength"]["total"]),
        skill=_skill_text(e.skill, lang),
        outcome=say("stays up" if e.stays_up else "goes down", lang),
    )
