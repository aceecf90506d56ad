"""Novus's log lines (English): its initiative, declarations, attacks, Boons and Snags,
saves and damage. One function per event type gathers the line's parameters, and the text
is its catalogue's (`messages.LINE`). The lines every book shares are
projections.narrative's."""

from __future__ import annotations

from typing import Any

from domain.rulesystems.novus.messages import LINE
from domain.rulesystems.novus.state import NovusAction
from domain.state import EncounterState
from domain.wording import Lines, figures, name_of, number, roll_text, signed

LINES = Lines()
line = LINES.line


def say(code: str, lang: str, **params: Any) -> str:
    return LINE[code].say(lang, **params)


def _on(s: EncounterState, target: str | None, lang: str) -> str:
    """' on Brannoc', or nothing for an action with no target."""
    return say("on", lang, target=name_of(s, target)) if target else ""


@line("InitiativeRolled")
def _(e: Any, s: EncounterState, lang: str) -> str:
    who, ip = name_of(s, e.combatant), number(e.ip)
    if e.entered:
        return say("initiative entered", lang, round=s.round, who=who, ip=ip)
    (roll,) = e.rolls.values()
    return say("initiative rolled", lang, round=s.round, who=who, roll=roll_text(roll), ip=ip)


def _declared(e: Any, s: EncounterState, a: dict[str, Any], lang: str) -> str:
    """'Attack on Brannoc (4 AP, resolves in round 2)'."""
    label = NovusAction.model_validate(a["params"]).named(a["kind"])
    later = say("resolves later", lang, round=a["round"]) if a["round"] != e.round else ""
    on = _on(s, a.get("target"), lang)
    return say("declared action", lang, label=label, on=on, cost=a["cost"], later=later)


@line("ActionsDeclared")
def _(e: Any, s: EncounterState, lang: str) -> str:
    what = "; ".join(_declared(e, s, a, lang) for a in e.actions) or say("no action", lang)
    carried = say("carried", lang, ap=e.ap_carried) if e.ap_carried else ""
    gm = say("out of order", lang) if e.out_of_order else ""
    if e.hold_ip is not None:
        gm = say("holds", lang, ip=number(e.hold_ip), gm=gm)
    return say(
        "declare",
        lang,
        round=e.round,
        who=name_of(s, e.combatant),
        what=what,
        spent=e.ap_spent,
        budget=e.ap_budget,
        carried=carried,
        gm=gm,
    )


def _outcome(e: Any, lang: str) -> str:
    """'hit by 3, 1 Boon Point' / 'miss by 2, 1 Snag Point' (NOV-BOON, NOV-SNAG)."""
    if e.hit:
        return say("hit", lang, margin=e.margin, boons=say("boon points", lang, n=e.boon_points))
    snags = ""
    if e.snag_points:
        snags = say("miss snags", lang, snags=say("snag points", lang, n=e.snag_points))
    return say("miss", lang, margin=-e.margin, snags=snags)


@line("AttackRolled")
def _(e: Any, s: EncounterState, lang: str) -> str:
    (roll,) = e.rolls.values()  # "attack", or "friend_attack" for a Snag
    who, target, rolled = name_of(s, e.combatant), name_of(s, e.target), roll_text(roll)
    if e.defense.get("cast") is False:
        tn = number(e.defense["casting_tn"])
        return say("spell fails", lang, round=s.round, who=who, target=target, roll=rolled, tn=tn)
    because = e.defense.get("because")
    return say(
        "attack",
        lang,
        round=s.round,
        who=who,
        target=target,
        roll=rolled,
        defense=number(e.defense["def"]),
        because=say("because", lang, because=because) if because else "",
        outcome=_outcome(e, lang),
        gm=say("gm override", lang) if "gm_override" in e.defense else "",
    )


@line("RidingRolled")
def _(e: Any, s: EncounterState, lang: str) -> str:
    (roll,) = e.rolls.values()
    result = say("seat kept" if e.success else "seat lost", lang)
    return say(
        "riding",
        lang,
        who=name_of(s, e.combatant),
        roll=roll_text(roll),
        tn=number(e.tn),
        result=result,
    )


@line("LimbWounded")
def _(e: Any, s: EncounterState, lang: str) -> str:
    if e.useless:
        state = say("limb useless", lang)
    else:
        state = say("limb penalty", lang, penalty=signed(e.penalty))
    return say(
        "limb wounded",
        lang,
        who=name_of(s, e.combatant),
        location=e.location,
        damage=e.damage,
        total=e.total_damage,
        state=state,
    )


@line("FatePointGained")
def _(e: Any, s: EncounterState, lang: str) -> str:
    return say("fate gained", lang, who=name_of(s, e.combatant))


@line("FatePointSpent")
def _(e: Any, s: EncounterState, lang: str) -> str:
    return say("fate spent", lang, who=name_of(s, e.combatant), effect=e.effect)


@line("BlockRolled")
def _(e: Any, s: EncounterState, lang: str) -> str:
    (roll,) = e.rolls.values()
    return say(
        "block",
        lang,
        who=name_of(s, e.combatant),
        attacker=name_of(s, e.attacker),
        roll=roll_text(roll),
        tn=number(e.tn),
        outcome=say("blocked" if e.blocked else "block fails", lang),
    )


def _boon(b: dict[str, Any], lang: str) -> str:
    """'Extra Damage', or 'Extra Damage (2)' for a Boon of more than one Point."""
    if b["points"] > 1:
        return say("boon of points", lang, label=b["label"], points=b["points"])
    return say("boon", lang, label=b["label"])


@line("BoonsSpent")
def _(e: Any, s: EncounterState, lang: str) -> str:
    bought = ", ".join(_boon(b, lang) for b in e.boons) or say("nothing", lang)
    points = say("boon points", lang, n=e.points)
    return say("boons spent", lang, who=name_of(s, e.combatant), points=points, bought=bought)


@line("SnagsSpent")
def _(e: Any, s: EncounterState, lang: str) -> str:
    taken = ", ".join(x["label"] for x in e.snags) or say("no snags", lang)
    points = say("snag points", lang, n=e.points)
    return say("snags spent", lang, who=name_of(s, e.combatant), points=points, taken=taken)


@line("ActionsCancelled")
def _(e: Any, s: EncounterState, lang: str) -> str:
    what = ", ".join(NovusAction.of(s.action(a)).named(s.action(a).kind) for a in e.cancelled)
    instead = ""
    if e.replacement:
        r = e.replacement[0]
        label = NovusAction.model_validate(r["params"]).named(r["kind"])
        instead = say("instead", lang, label=label, on=_on(s, r.get("target"), lang))
    return say(
        "cancelled",
        lang,
        round=s.round,
        who=name_of(s, e.combatant),
        what=what,
        instead=instead,
    )


@line("OpportunityTaken")
def _(e: Any, s: EncounterState, lang: str) -> str:
    if e.ap_cost:
        paid = say("opportunity paid", lang, ap=e.ap_cost)
    else:
        paid = say("opportunity declared", lang)
    return say(
        "opportunity",
        lang,
        round=s.round,
        who=name_of(s, e.combatant),
        target=name_of(s, e.target),
        paid=paid,
    )


@line("ActionHeld")
def _(e: Any, s: EncounterState, lang: str) -> str:
    return say(
        "held",
        lang,
        round=s.round,
        who=name_of(s, e.combatant),
        ip=e.ip,
        cost=e.ap_cost,
        budget=e.ap_budget,
    )


def _breakdown(b: dict[str, Any], lang: str) -> str:
    """'12 base + 3 scaled +2 Boon − 4 armour' (NOV-DMG)."""
    parts = [say("base", lang, n=sum(b["base_damage"].values()))]
    if b["scaled"]:
        parts.append(say("scaled", lang, n=b["scaled"]))
    for k, v in b["extra"].items():
        parts.append(say("extra", lang, n=signed(v), what=k))
    if b["armour"]:
        parts.append(say("armour", lang, n=b["armour"]))
    return " ".join(parts)


@line("DamageApplied")
def _(e: Any, s: EncounterState, lang: str) -> str:
    return say(
        "damage",
        lang,
        who=name_of(s, e.combatant),
        amount=e.amount,
        parts=_breakdown(e.breakdown, lang),
        figures=figures(e.hits_before, e.hits_after),
    )


@line("SaveRolled")
def _(e: Any, s: EncounterState, lang: str) -> str:
    (roll,) = e.rolls.values()
    # the TN, and so the margin, may be the GM's secret
    by = say("save by", lang, margin=-e.margin) if e.margin is not None else ""
    return say(
        "save",
        lang,
        who=name_of(s, e.combatant),
        stat=e.stat.capitalize(),
        why=say("purpose", lang, purpose=e.purpose) if e.purpose else "",
        roll=roll_text(roll),
        tn=say("vs tn", lang, tn=number(e.tn)) if e.tn is not None else "",
        result=say("saved", lang) if e.saved else say("save failed", lang, by=by),
    )


@line("FirstAidRolled")
def _(e: Any, s: EncounterState, lang: str) -> str:
    (roll,) = e.rolls.values()
    return say(
        "first aid",
        lang,
        who=name_of(s, e.combatant),
        target=name_of(s, e.target),
        purpose=e.purpose,
        roll=roll_text(roll),
        tn=number(e.tn),
        result=say("success" if e.success else "failure", lang),
    )


@line("ActionLost")
def _(e: Any, s: EncounterState, lang: str) -> str:
    label = NovusAction.of(s.action(e.action)).named(e.kind)
    return say(
        "action lost",
        lang,
        round=s.round,
        who=name_of(s, e.combatant),
        label=label,
        rule=e.rule,
        reason=e.reason,
    )
