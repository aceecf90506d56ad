"""PHANTÄSIA's log lines, in English and in the book's Spanish: one function per event type
gathers the line's parameters, and the text is its catalogue's (`messages.LINE`, the reasons
`reasons.REASONS`) in the reader's language. The lines every book shares are
projections.narrative's."""

from __future__ import annotations

from typing import Any

from domain.rulesystems.phantasia.attack_state import PhantasiaAttack
from domain.rulesystems.phantasia.messages import (
    ACTIONS,
    CONTESTS,
    FUMBLES,
    LINE,
    STATUS_EN,
    USES,
)
from domain.rulesystems.phantasia.reasons import REASONS, part_name, reason
from domain.rulesystems.phantasia.state import StatusData
from domain.rulesystems.phantasia.statuses import STATUSES
from domain.state import EncounterState
from domain.wording import Lines, figures, name_of, number, signed

LINES = Lines()
line = LINES.line


def say(code: str, lang: str, **params: Any) -> str:
    return LINE[code].say(lang, **params)


def _check(c: dict[str, Any], lang: str = "en") -> str:
    """'d12 4 ≤ 5: success' / 'd12 4 ≤ 5: éxito'."""
    if c.get("automatic"):
        return say("automatic", lang)
    face, target = c["face"], c["target_number"]
    text = f"d{c['die']} {face} {'≤' if face <= target else '>'} {number(target)}"
    if c["critical"]:
        return text + say("critical", lang)
    if c["fumble"]:
        return text + say("fumble", lang)
    return text + say("success" if c["success"] else "failure", lang)


def _purpose(e: Any, lang: str) -> str:
    """A check's purpose: in English as recorded; else from its code, or the narrator's own
    words as he typed them."""
    code = getattr(e, "purpose_code", None)
    if lang == "en" or code is None or code not in REASONS:
        return str(e.purpose)
    return REASONS[code].say(lang, **(e.purpose_params or {}))


def _status(s: EncounterState, combatant: str, name: str, lang: str) -> str:
    """A status he holds, by its kind (a magic by its own name)."""
    if lang != "es":
        return STATUS_EN.get(name, name)
    who = s.combatants.get(combatant)
    held = who.conditions.get(name) if who else None
    kind = StatusData.of(held).status_or(name) if held is not None else name
    return str(STATUSES.get(kind, {}).get("es", name))


# -- lines that replace the core's for PHANTÄSIA ---------------------------------------


@line("CombatantAdded")
def _(e: Any, s: EncounterState, lang: str) -> str:
    side = f" ({e.side})" if e.side else ""
    if e.hits is None:  # his stat block and PV concealed from the reader
        return say("joins unseen", lang, name=e.name, side=side)
    kind = say("player" if e.stats.get("controller") == "player" else "creature", lang)
    return say(
        "joins", lang, name=e.name, side=side, kind=kind, hits=number(e.hits), max_hits=e.max_hits
    )


@line("InitiativeRolled")
def _(e: Any, s: EncounterState, lang: str) -> str:
    who = name_of(s, e.combatant)
    if e.entered:
        return say("initiative entered", lang, who=who, ip=e.ip)
    if not e.rolls:
        how = "group" if "group" in e.modifiers else "agi"
        return say(f"initiative {how}", lang, who=who, ip=e.ip)
    roll = next(iter(e.rolls.values()))
    mods = " ".join(f"{signed(v)} {k}" for k, v in e.modifiers.items() if k != "group")
    return say("initiative rolled", lang, who=who, face=roll["dice_total"], mods=mods, ip=e.ip)


def _damage_parts(b: dict[str, Any], amount: int, lang: str) -> str:
    """'26 (d10 6 × level 4 = 24, +2 INT adj) ×2 (critical (PHA-CRIT-1))'."""
    said = b.get("said")

    def named(k: str) -> str:
        return part_name(k, lang, said)

    skip = {"rolled", "factor", "doublings", "halvings", "reduction", "total", "rule"}
    times = b.get("multiplied")  # PHA-DMG-4: 'd10 6 × level 4 = 24'
    parts = " ".join(  # what the dice showed first, each other part after its sign
        f"{named(k)} {v}" if k == "dice" else f"{signed(v)} {named(k)}"
        for k, v in b.items()
        if k not in skip and isinstance(v, int) and not (times and k == "dice")
    )
    if times:
        dice = str(times["dice"])
        dice = dice[1:] if dice.startswith("1d") else dice
        head = f"{dice} {times['rolled']} × {named('level')} {times['level']} = {b.get('dice')}"
        parts = f"{head}, {parts}" if parts else head
    parts = parts.lstrip("+ ")
    text = f"{b.get('rolled', amount)} ({parts})" if parts else str(amount)
    if b.get("factor", 1) > 1:
        text += f" ×{b['factor']} ({', '.join(named(d) for d in b['doublings'])})"
    for h in b.get("halvings", []):
        text += f" ½ ({named(h)})"
    for k, v in (b.get("reduction") or {}).items():
        text += f" − {v} {named(k)}"
    return text + (say("immune", lang) if b.get("immune") else "")


@line("DamageApplied")
def _(e: Any, s: EncounterState, lang: str) -> str:
    shown = e.hits_before is not None
    pv = f"; PV {number(e.hits_before)} → {number(e.hits_after)}" if shown else ""
    text = _damage_parts(e.breakdown, e.amount, lang)
    return say("damage", lang, who=name_of(s, e.combatant), amount=e.amount, text=text, pv=pv)


@line("HitsAdjusted")
def _(e: Any, s: EncounterState, lang: str) -> str | None:
    """A rule's adjustment (PHA-SUF-3), its reason from the catalogue; the GM's: the core's."""
    if getattr(e, "reason_code", None) is None or e.amount is None:
        return None
    return say(
        "adjusted",
        lang,
        who=name_of(s, e.combatant),
        amount=signed(e.amount),
        why=reason(e, lang),
        change=figures(e.hits_before, e.hits_after),
        before=number(e.hits_before) if e.hits_before is not None else "?",
        after=number(e.hits_after) if e.hits_after is not None else "?",
    )


@line("TurnEnded")
def _(e: Any, s: EncounterState, lang: str) -> str:
    return say("turn ended", lang, who=name_of(s, e.combatant))


@line("ActionResolved")
def _(e: Any, s: EncounterState, lang: str) -> str:
    return say("settled", lang, who=name_of(s, e.combatant), dealt=e.detail.get("dealt", 0))


# -- PHANTÄSIA's own events ----------------------------------------------------------------


@line("SurpriseDeclared")
def _(e: Any, s: EncounterState, lang: str) -> str:
    return say("surprise", lang, names=", ".join(name_of(s, c) for c in e.combatants))


@line("TieBroken")
def _(e: Any, s: EncounterState, lang: str) -> str:
    how = "simultaneous" if e.simultaneous else "entered" if e.entered else "rolled"
    faces = "; ".join(f"{n.removeprefix('tie:')} {r['faces']}" for n, r in e.rolls.items())
    order = say("before", lang).join(name_of(s, c) for c in e.order)
    return say(
        "tie", lang, how=say(f"tie {how}", lang), order=order, faces=f" ({faces})" if faces else ""
    )


@line("TurnStarted")
def _(e: Any, s: EncounterState, lang: str) -> str:
    who = name_of(s, e.combatant)
    head = (
        say("turn surprise", lang, who=who)
        if e.surprise
        else say("turn", lang, round=e.round, who=who, turn=e.turn)
    )
    lost = say("prepared lost", lang, what=e.prepared_lost) if e.prepared_lost else ""
    return say("turn started", lang, head=head, n=e.actions, lost=lost)


@line("StatusApplied")
def _(e: Any, s: EncounterState, lang: str) -> str:
    if lang == "es":
        name = STATUSES.get(e.kind, {}).get("es", e.status)
    else:
        name = STATUS_EN.get(e.kind, e.status)
    return say(
        "status",
        lang,
        who=name_of(s, e.combatant),
        name=name,
        how=say("status turns", lang, turns=e.turns) if e.turns else "",
        why=f" ({reason(e, lang)})" if e.reason else "",
    )


@line("StatusTicked")
def _(e: Any, s: EncounterState, lang: str) -> str:
    who, name = name_of(s, e.combatant), _status(s, e.combatant, e.status, lang)
    if e.turns_before is not None:
        return say(
            "status left", lang, who=who, name=name, before=e.turns_before, after=e.turns_after
        )
    if "held" in e.data:
        return say("without air", lang, who=who, held=e.data["held"])
    if e.data.get("out"):
        return say("out of breath", lang, who=who)
    return say("status data", lang, who=who, name=name, data=e.data)


@line("StatusEnded")
def _(e: Any, s: EncounterState, lang: str) -> str:
    name = _status(s, e.combatant, e.status, lang)
    return say("status ends", lang, who=name_of(s, e.combatant), name=name, why=reason(e, lang))


@line("CheckRolled")
def _(e: Any, s: EncounterState, lang: str) -> str:
    return say(
        "check",
        lang,
        who=name_of(s, e.combatant),
        ch=e.characteristic.upper(),
        purpose=_purpose(e, lang),
        check=_check(e.check, lang),
    )


@line("ContestRolled")
def _(e: Any, s: EncounterState, lang: str) -> str:
    a, d = e.attacker_check, e.defender_check
    return say(
        "contest",
        lang,
        who=name_of(s, e.combatant),
        verb=CONTESTS[e.kind].say(lang),
        target=name_of(s, e.target),
        a_ch=a["characteristic"].upper(),
        a=_check(a, lang),
        d_ch=d["characteristic"].upper(),
        d=_check(d, lang),
        won=say("wins" if e.attacker_wins else "fails", lang),
        extra="".join(f", {k} {v}" for k, v in e.effect.items()),
    )


@line("ActionSpent")
def _(e: Any, s: EncounterState, lang: str) -> str:
    what = ACTIONS[e.action].say(lang) if e.action in ACTIONS else e.action.replace("_", " ")
    more = ", ".join(f"{k} {v}" for k, v in e.details.items() if k not in ("free", "rule") and v)
    return say(
        "spent",
        lang,
        who=name_of(s, e.combatant),
        what=what,
        tag=say("reaction", lang) if e.reaction else "",
        more=f" ({more})" if more else "",
    )


def _result(r: dict[str, Any], s: EncounterState, lang: str) -> str:
    """One target's part of an attack: an automatic hit, the narrator's ruling or a roll."""
    double = say("double", lang) if r["doubled"] else ""
    if r["rolled_by"] == "automatic":
        return say("automatic hit", lang, target=name_of(s, r["target"]), double=double)
    if r["rolled_by"] == "gm":
        return say("ruled hit" if r["hit"] else "ruled miss", lang)
    outcome = say("hit" if r["hit"] else "no hit", lang) + double
    if r.get("pushes_back"):
        outcome += say("pushes", lang)
    return say(
        "rolls",
        lang,
        roller=name_of(s, r["roller"]),
        check=r["check"],
        block=say("block", lang) if r.get("blocked") else "",
        result=_check(r, lang),
        outcome=outcome,
    )


@line("AttackChecked")
def _(e: Any, s: EncounterState, lang: str) -> str:
    attack = PhantasiaAttack.of_params(e.action["params"])
    return say(
        "attack",
        lang,
        who=name_of(s, e.combatant),
        targets=", ".join(name_of(s, t) for t in attack.targets),
        means=attack.means or say("unarmed", lang),
        results="; ".join(_result(r, s, lang) for r in e.results),
    )


@line("CheckRerolled")
def _(e: Any, s: EncounterState, lang: str) -> str:
    mine = [r for r in e.results if r.get("roller") == e.combatant]
    return say(
        "rerolled",
        lang,
        who=name_of(s, e.combatant),
        check=mine[0]["check"],
        result=_check(mine[0], lang),
        outcome=say("hit" if mine and mine[0]["hit"] else "no hit", lang),
    )


@line("DeathChecked")
def _(e: Any, s: EncounterState, lang: str) -> str:
    face = e.rolls["death"]["dice_total"]
    again = say("death again", lang) if e.reroll else ""
    head = say("death check", lang, who=name_of(s, e.combatant), again=again)
    verdict = say("dies" if e.dies else "survives", lang)
    if e.negative_damage is None:  # concealed from the reader
        return f"{head}: d100 {face} → {verdict}."
    sign = "≤" if e.dies else ">"
    negative = say("negative", lang)
    return f"{head}: d100 {face} {sign} {e.negative_damage} {negative} → {verdict}."


@line("FumbleRolled")
def _(e: Any, s: EncounterState, lang: str) -> str:
    extra = ", ".join(
        f"{k} {name_of(s, v) if k == 'free_attack_for' else v}"
        for k, v in e.details.items()
        if k != "lock"
    )
    return say(
        "fumbled",
        lang,
        who=name_of(s, e.combatant),
        result=e.result,
        what=FUMBLES[e.result].say(lang),
        extra=f" ({extra})" if extra else "",
    )


@line("PmChanged")
def _(e: Any, s: EncounterState, lang: str) -> str:
    who = name_of(s, e.combatant)
    return say("pm", lang, who=who, before=e.pm_before, after=e.pm_after, why=reason(e, lang))


@line("PhantasiaPointsChanged")
def _(e: Any, s: EncounterState, lang: str) -> str:
    helped = say("for", lang, who=name_of(s, e.for_combatant)) if e.for_combatant else ""
    return say(
        "points",
        lang,
        who=name_of(s, e.combatant),
        use=USES[e.use].say(lang),
        helped=helped,
        before=e.points_before,
        after=e.points_after,
    )


@line("Healed")
def _(e: Any, s: EncounterState, lang: str) -> str:
    shown = e.hits_before is not None
    return say(
        "healed",
        lang,
        who=name_of(s, e.combatant),
        amount=e.amount,  # None: concealed from the reader
        parts=", ".join(f"{part_name(k, lang)} {v}" for k, v in e.parts.items()),
        why=f"; {reason(e, lang)}" if e.reason else "",
        pv=f": PV {number(e.hits_before)} → {number(e.hits_after)}" if shown else "",
    )


@line("ActionsLost")
def _(e: Any, s: EncounterState, lang: str) -> str:
    return say("actions lost", lang, who=name_of(s, e.combatant), n=e.actions, why=e.reason)
