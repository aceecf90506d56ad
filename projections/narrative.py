"""The narrative log: one readable line per event, folded alongside the state."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, Literal

from domain.audit import record_of
from domain.corrections import voided_by
from domain.errors import DomainError
from domain.fold import evolve
from domain.state import EncounterState
from projections import narrative_phantasia as _phantasia
from projections.lines import LINES, LINES_ES, Describe, figures, line, line_es, number, signed
from projections.visibility import Sight, as_read, for_player

Lang = Literal["en", "es"]
LANGS: tuple[Lang, ...] = ("en", "es")
SPANISH_RULESETS = frozenset({"phantasia"})  # the rule systems whose log reads in Spanish
_line, _line_es = line, line_es
_LINES, _LINES_ES = LINES, LINES_ES


def check_lang(lang: str, ruleset: str) -> None:
    """Refuse a log language this encounter is not offered in (the API and the CLI ask;
    `narrative` itself writes whatever it is asked for)."""
    if lang not in LANGS:
        raise DomainError("LANG", f"lang is 'en' or 'es', not {lang!r}", field="lang")
    if lang == "es" and ruleset not in SPANISH_RULESETS:
        raise DomainError(
            "LANG",
            f"Spanish is offered for PHANTÄSIA encounters; this one is {ruleset!r}",
            field="lang",
        )


def narrative(
    events: Sequence[Any], lang: Lang = "en", sight: Sight | None = None
) -> Iterator[dict[str, Any]]:
    """Yield {position, round, type, actor, text, voided_by} for each event, in order.

    `lang="es"`: an event type's Spanish line where one is registered (`_line_es`), its
    English line otherwise. `sight`: a player's (projections.visibility), each line told
    without what he may not read."""
    if lang not in LANGS:
        raise ValueError(f"lang is 'en' or 'es', not {lang!r}")
    if lang == "es":
        return _narrate(events, _LINES | _LINES_ES, _created_es, sight)
    return _narrate(events, _LINES, _created, sight)


def _narrate(
    events: Sequence[Any],
    lines: dict[str, Describe],
    created: Callable[[Any], str],
    sight: Sight | None,
) -> Iterator[dict[str, Any]]:
    voided = voided_by(events)
    state: EncounterState | None = None
    for event in events:
        kind = type(event).__name__
        shown = as_read(event, sight)
        text = lines[kind](shown, state) if state is not None else created(shown)
        yield {
            "position": event.originator_version,
            "round": state.round if state else 1,
            "type": kind,
            "actor": event.actor,
            "text": text,
            "voided_by": voided.get(event.originator_version),
        }
        state = evolve(state, event)


def told(
    state: EncounterState,
    events: Sequence[Any],
    spanish: bool = False,
    sight: Sight | None = None,
) -> list[dict]:
    """Events not (yet) stored — what a command's faces so far decided, or what a preview
    would record — each as its record with its log line (`text`), told from the state
    before them; in Spanish when asked for and the encounter's book reads in Spanish; for a
    player's `sight`, as he may read them (projections.visibility.for_player). `state` is
    folded on (pass a copy you may spend)."""
    es = spanish and state.ruleset in SPANISH_RULESETS
    lines = _LINES | _LINES_ES if es else _LINES
    out = []
    for event in events:
        text = lines[type(event).__name__](as_read(event, sight), state)
        rec = for_player([record_of(event)], sight)[0]
        out.append({**rec, "text": text} if "type" in rec else rec)
        state = evolve(state, event)
    return out


def _name(state: EncounterState, combatant_id: str) -> str:
    who = state.combatants.get(combatant_id)
    return who.name if who else combatant_id


def roll_text(roll: dict[str, Any]) -> str:
    """'10→7 + 4 = 21, +9 (skill ranks +7, dex bonus +2) = 30'."""
    dice = " + ".join("→".join(str(f) for f in d["faces"]) for d in roll["dice"])
    text = f"{dice} = {number(roll['dice_total'])}"
    mods = {k: v for k, v in roll["modifiers"].items() if v}
    if mods:
        parts = ", ".join(f"{k} {signed(v)}" for k, v in mods.items())
        text += f" {signed(sum(mods.values()))} ({parts}) = {number(roll['total'])}"
    for flag in roll.get("flags", []):
        text += f" [{flag}]"
    return text


def _created(e: Any) -> str:
    return f"Encounter “{e.name}” begins ({e.ruleset}, {e.dice_source} dice)."


@_line("CombatantAdded")
def _(e: Any, s: EncounterState) -> str:
    if s.ruleset == "phantasia":
        return _phantasia.joins(e, es=False)
    if e.hits is None:  # concealed from the reader
        return f"{e.name} joins ({e.side})."
    if s.ruleset == "wits":
        return f"{e.name} joins ({e.side}): Current Health {number(e.hits)}/{e.max_hits}."
    return f"{e.name} joins ({e.side}): {number(e.hits)}/{e.max_hits} hits."


@_line("InitiativeRolled")
def _(e: Any, s: EncounterState) -> str:
    if s.ruleset == "phantasia":
        return _phantasia.initiative(e, s, es=False)
    if s.ruleset == "wits":
        return _wits_place(e, s)
    if e.entered:
        return (
            f"Round {s.round} initiative: {_name(s, e.combatant)} is given IP {number(e.ip)} "
            "by the GM."
        )
    (roll,) = e.rolls.values()
    return (
        f"Round {s.round} initiative: {_name(s, e.combatant)} rolls {roll_text(roll)} → "
        f"IP {number(e.ip)}."
    )


@_line("ActionsDeclared")
def _(e: Any, s: EncounterState) -> str:
    parts = []
    for a in e.actions:
        label = a["params"].get("label", a["kind"])
        on = f" on {_name(s, a['target'])}" if a.get("target") else ""
        later = f", resolves in round {a['round']}" if a["round"] != e.round else ""
        parts.append(f"{label}{on} ({a['cost']} AP{later})")
    what = "; ".join(parts) or "no action"
    carried = f", {e.ap_carried} AP carried into next round" if e.ap_carried else ""
    gm = " [GM: out of order]" if e.out_of_order else ""
    if e.hold_ip is not None:
        gm = f" Holds to IP {number(e.hold_ip)}.{gm}"
    return (
        f"Round {e.round} declare: {_name(s, e.combatant)}: {what}; "
        f"{e.ap_spent}/{e.ap_budget} AP{carried}.{gm}"
    )


def _points(n: int, kind: str) -> str:
    """'1 Boon Point', '2 Boon Points', '0 Boon Points' (Novus Boon and Snag Points)."""
    return f"{n} {kind} Point" + ("" if n == 1 else "s")


@_line("AttackRolled")
def _(e: Any, s: EncounterState) -> str:
    (roll,) = e.rolls.values()  # "attack", or "friend_attack" for a Snag
    if e.defense.get("cast") is False:
        return (
            f"Round {s.round}: {_name(s, e.combatant)} casts at {_name(s, e.target)}: "
            f"{roll_text(roll)} vs casting TN {number(e.defense['casting_tn'])}: the spell fails."
        )
    outcome = (
        f"hit by {e.margin}, {_points(e.boon_points, 'Boon')}"
        if e.hit
        else f"miss by {-e.margin}"
        + (f", {_points(e.snag_points, 'Snag')}" if e.snag_points else "")
    )
    because = f" ({e.defense['because']})" if e.defense.get("because") else ""
    gm = " [GM override]" if "gm_override" in e.defense else ""
    return (
        f"Round {s.round}: {_name(s, e.combatant)} attacks {_name(s, e.target)}: "
        f"{roll_text(roll)} vs DEF {number(e.defense['def'])}{because}: {outcome}.{gm}"
    )


@_line("RidingRolled")
def _(e: Any, s: EncounterState) -> str:
    (roll,) = e.rolls.values()
    result = "keeps his seat" if e.success else "fails: −1 AB and −1 DEF this round"
    return (
        f"{_name(s, e.combatant)} rolls Riding: {roll_text(roll)} vs TN {number(e.tn)}: {result}."
    )


@_line("LimbWounded")
def _(e: Any, s: EncounterState) -> str:
    state = "useless" if e.useless else f"{signed(e.penalty)} on actions with it"
    return (
        f"{_name(s, e.combatant)}'s {e.location} takes {e.damage} ({e.total_damage} in "
        f"all): {state}."
    )


@_line("FatePointGained")
def _(e: Any, s: EncounterState) -> str:
    return f"Nova Roll! {_name(s, e.combatant)} gains a Fate Point."


@_line("FatePointSpent")
def _(e: Any, s: EncounterState) -> str:
    return f"{_name(s, e.combatant)} spends a Fate Point: {e.effect}."


@_line("BlockRolled")
def _(e: Any, s: EncounterState) -> str:
    (roll,) = e.rolls.values()
    outcome = "the attack is stopped" if e.blocked else "the block fails"
    return (
        f"{_name(s, e.combatant)} blocks {_name(s, e.attacker)}: {roll_text(roll)} vs TN "
        f"{number(e.tn)}: {outcome}."
    )


@_line("BoonsSpent")
def _(e: Any, s: EncounterState) -> str:
    bought = (
        ", ".join(
            f"{b['label']}" + (f" ({b['points']})" if b["points"] > 1 else "") for b in e.boons
        )
        or "nothing"
    )
    return f"{_name(s, e.combatant)} spends {_points(e.points, 'Boon')}: {bought}."


@_line("SnagsSpent")
def _(e: Any, s: EncounterState) -> str:
    taken = ", ".join(x["label"] for x in e.snags) or "nothing (GM)"
    return f"{_name(s, e.combatant)} spends {_points(e.points, 'Snag')}: {taken}."


@_line("ActionsCancelled")
def _(e: Any, s: EncounterState) -> str:
    what = ", ".join(s.action(a).params.get("label", s.action(a).kind) for a in e.cancelled)
    instead = ""
    if e.replacement:
        r = e.replacement[0]
        on = f" on {_name(s, r['target'])}" if r.get("target") else ""
        instead = f"; instead, at once: {r['params'].get('label', r['kind'])}{on}"
    return f"Round {s.round}: {_name(s, e.combatant)} cancels {what}{instead}."


@_line("OpportunityTaken")
def _(e: Any, s: EncounterState) -> str:
    paid = f" ({e.ap_cost} AP)" if e.ap_cost else " (his declared attack)"
    return (
        f"Round {s.round}: {_name(s, e.combatant)} takes an Opportunity Attack on "
        f"{_name(s, e.target)}{paid}."
    )


@_line("ActionHeld")
def _(e: Any, s: EncounterState) -> str:
    return (
        f"Round {s.round}: {_name(s, e.combatant)} holds to IP {e.ip} "
        f"(−{e.ap_cost} AP, budget {e.ap_budget})."
    )


@_line("DamageApplied")
def _(e: Any, s: EncounterState) -> str:
    b = e.breakdown
    if s.ruleset == "phantasia":
        return _phantasia.damage(e, s, es=False)
    if s.ruleset == "wits":
        return _wits_damage(e, s)
    parts = [f"{sum(b['base_damage'].values())} base"]
    if b["scaled"]:
        parts.append(f"+ {b['scaled']} scaled")
    for k, v in b["extra"].items():
        parts.append(f"{signed(v)} {k}")
    if b["armour"]:
        parts.append(f"− {b['armour']} armour")
    return (
        f"{_name(s, e.combatant)} takes {e.amount} ({' '.join(parts)})"
        f"{figures(e.hits_before, e.hits_after)}."
    )


_CONDITION_WORDS = {"reroll_initiative": "set to reroll initiative"}


def _condition(name: str) -> str:
    """What a combatant is with a condition, as the sentence says it after 'is' and 'is no
    longer': 'hasted', 'knocked back', 'set to reroll initiative' (not its name as stored)."""
    return _CONDITION_WORDS.get(name, name.replace("_", " "))


@_line("ConditionApplied")
def _(e: Any, s: EncounterState) -> str:
    extra = (
        f" {e.rate} per round"
        if e.rate
        else (f" for {e.count} round{'' if e.count == 1 else 's'}" if e.count else "")
    )
    return f"{_name(s, e.combatant)} is {_condition(e.condition)}{extra} ({e.reason})."


@_line("ConditionCleared")
def _(e: Any, s: EncounterState) -> str:
    return f"{_name(s, e.combatant)} is no longer {_condition(e.condition)} ({e.reason})."


@_line("SaveRolled")
def _(e: Any, s: EncounterState) -> str:
    (roll,) = e.rolls.values()
    by = f" by {-e.margin}" if e.margin is not None else ""  # the TN may be the GM's secret
    result = "saved" if e.saved else f"failed{by}"
    why = f" ({e.purpose})" if e.purpose else ""
    tn = f" vs TN {number(e.tn)}" if e.tn is not None else ""
    return (
        f"{_name(s, e.combatant)} saves vs. {e.stat.capitalize()}{why}: {roll_text(roll)}"
        f"{tn}: {result}."
    )


@_line("FirstAidRolled")
def _(e: Any, s: EncounterState) -> str:
    (roll,) = e.rolls.values()
    result = "success" if e.success else "failure"
    return (
        f"{_name(s, e.combatant)} gives First Aid to {_name(s, e.target)} ({e.purpose}): "
        f"{roll_text(roll)} vs TN {number(e.tn)}: {result}."
    )


@_line("ActionResolved")
def _(e: Any, s: EncounterState) -> str:
    if s.ruleset == "phantasia":
        return _phantasia.attack_settled(e, s, es=False)
    action = s.action(e.action)
    note = f" ({e.detail['outcome']})" if "outcome" in e.detail else ""
    return f"Round {s.round}: {_name(s, e.combatant)} {action.params.get('label', e.kind)}{note}."


@_line("ActionLost")
def _(e: Any, s: EncounterState) -> str:
    label = s.action(e.action).params.get("label", e.kind)
    return f"Round {s.round}: {_name(s, e.combatant)} loses {label} ({e.rule}: {e.reason})."


@_line("UpkeepTicked")
def _(e: Any, s: EncounterState) -> str:
    who = _name(s, e.combatant)
    change = figures(e.hits_before, e.hits_after)
    if e.kind == "bleeding":
        return f"Round {e.round} upkeep: {who} bleeds {e.amount}{change}."
    if e.kind == "dying":
        return f"Round {e.round} upkeep: {who} is dying, loses {e.amount}{change}."
    label = {"stunned": "stun", "dazed": "daze"}.get(e.kind, e.kind)
    return f"Round {e.round} upkeep: {who} {label} {e.count_before} → {e.count_after}."


@_line("RollVoided")
@_line("CommandUndone")
@_line("CommandRedone")
def _(e: Any, s: EncounterState) -> str:
    verb = {
        "RollVoided": f"voids event {e.target}",
        "CommandUndone": "undoes the last command",
        "CommandRedone": f"redoes (voids undo {e.target})",
    }[type(e).__name__]
    what = ", ".join(str(p) for p in e.cascade)
    return f"{e.actor.upper() if e.actor == 'gm' else e.actor} {verb}: events {what} ({e.reason})."


@_line("DiceSecretRevealed")
def _(e: Any, s: EncounterState) -> str:
    more = " A fresh secret is committed for the rolls to come." if e.next_commitment else ""
    return (
        f"Server dice secret {e.epoch} revealed: {e.secret} (SHA-256 {e.commitment[:16]}…, "
        f"as committed).{more}"
    )


@_line("DiceCommitted")
def _(e: Any, s: EncounterState) -> str:
    return f"Server dice secret {e.epoch} committed: SHA-256 {e.commitment[:16]}…."


@_line("EncounterEnded")
def _(e: Any, s: EncounterState) -> str:
    return f"The encounter ends ({e.reason})."


@_line("RoundEnded")
def _(e: Any, s: EncounterState) -> str:
    return f"Round {e.round} ends."


@_line("CombatantHidden")
def _(e: Any, s: EncounterState) -> str:
    until = " until he acts" if e.until_acting else ""
    return f"GM: {_name(s, e.combatant)} is hidden from the players{until}."


@_line("CombatantRevealed")
def _(e: Any, s: EncounterState) -> str:
    earlier = "" if e.earlier == "all" else " (what he did before stays hidden)"
    why = " as he acts" if e.reason == "acts" else ""
    return f"{_name(s, e.combatant)} is revealed{why}{earlier}."


_SHOWN = {"exact": "as figures", "described": "in words", "none": "not at all"}
_SHOWN_ES = {"exact": "en cifras", "described": "en palabras", "none": "en absoluto"}


@_line("HealthShown")
def _(e: Any, s: EncounterState) -> str:
    whose = (
        f"{_name(s, e.combatant)}'s health"
        if e.combatant
        else ("the party's health" if e.party else "the health of the GM's combatants")
    )
    return f"GM: players see {whose} {_SHOWN.get(e.shown, e.shown)}."


@_line("NoteTaken")
def _(e: Any, s: EncounterState) -> str:
    about = f" on {_name(s, e.combatant)}" if e.combatant else ""
    return f"GM's note{about}: {e.text}" if e.text is not None else f"The GM takes a note{about}."


@_line("HitsAdjusted")
def _(e: Any, s: EncounterState) -> str:
    if e.amount is None:  # concealed from the reader
        return f"GM: {_name(s, e.combatant)}'s hits change ({e.reason})."
    return (
        f"GM: {_name(s, e.combatant)} hits {signed(e.amount)} ({e.reason})"
        f"{figures(e.hits_before, e.hits_after)}."
    )


@_line("ModifierSet")
def _(e: Any, s: EncounterState) -> str:
    until = f" until round {e.last_round}" if e.last_round else ""
    return f"GM: {_name(s, e.combatant)} {e.name} {signed(e.value)} to {e.applies_to}{until}."


@_line("ModifierCleared")
def _(e: Any, s: EncounterState) -> str:
    return f"GM: {_name(s, e.combatant)} {e.name} removed ({e.reason})."


# -- the Wits system ------------------------------------------------------------------


def _ordinal(n: int) -> str:
    return f"{n}{'st' if n == 1 else 'nd' if n == 2 else 'rd' if n == 3 else 'th'}"


def _wits_place(e: Any, s: EncounterState) -> str:
    who = _name(s, e.combatant)
    rank = e.modifiers.get("rank among equals")
    if e.entered:
        return (
            f"{who} acts at Wits {number(e.ip)}, {_ordinal(rank)} among equals by the GM's ruling."
        )
    if e.rolls:
        (roll,) = e.rolls.values()
        faces = "→".join(str(f) for f in roll["faces"])
        return (
            f"{who} takes his place in the order: Wits {number(e.ip)}, roll-off {faces} "
            f"({_ordinal(rank)} among equals)."
        )
    after = " after those already there" if e.raw is not None else ""
    return f"{who} takes his place in the order: Wits {number(e.ip)}{after}."


def _skill_text(skill: dict[str, Any]) -> str:
    """'13 (short sword +1 aiming) = 14'."""
    parts = "".join(f" {signed(v)} {k}" for k, v in skill["parts"].items() if v)
    if not parts:
        return f"{number(skill['effective'])} ({skill['base_from']})"
    return f"{number(skill['base'])} ({skill['base_from']}){parts} = {number(skill['effective'])}"


def _wits_damage(e: Any, s: EncounterState) -> str:
    b = e.breakdown
    (roll,) = e.rolls.values()
    dice = " + ".join(
        f"[{'+'.join(str(f) for f in d['faces'])}]" if len(d["faces"]) > 1 else str(d["value"])
        for d in roll["dice"]
    )
    text = (
        f"{_name(s, e.combatant)} takes {e.amount}: {roll['expression']}: {dice} = "
        f"{number(b['dice'])}"
    )
    if b["modifiers"]:
        text += f" {signed(b['modifiers'])}"
    if b["protection_ignored"]:
        text += " (Protection ignored: critical)"
    elif b["protection"]:
        text += f" − {b['protection']} Protection"
    down_at = s.options.get("down_at", 0)
    who = s.combatants.get(e.combatant)  # the state before: his hits then, as the event's
    down = (
        " He is down: the GM rules his state."
        if who and who.hits > down_at >= who.hits - e.amount
        else ""
    )
    change = figures(e.hits_before, e.hits_after, head="Current Health ")
    return f"{text}{change}.{down}"


@_line("AttackAnnounced")
def _(e: Any, s: EncounterState) -> str:
    p = e.action["params"]
    how = [
        label
        for label, on in (
            ("charges", p["charge"]),
            (f"called shot: {p['called_shot']}", p["called_shot"]),
            ("unseen", not p["visible"]),
        )
        if on
    ]
    extra = f" ({', '.join(how)})" if how else ""
    return f"{_name(s, e.combatant)} attacks {_name(s, e.target)} with {e.action['weapon']}{extra}."


@_line("DefenseDeclared")
def _(e: Any, s: EncounterState) -> str:
    mode = {
        "basic": "Basic Defense",
        "total": "Total Defense",
        "total_single": ("Total Defense against this attack"),
    }[e.mode]
    return f"{_name(s, e.combatant)} will {e.kind} ({mode}) at {_skill_text(e.skill)}."


@_line("AttackTestRolled")
def _(e: Any, s: EncounterState) -> str:
    roll = e.rolls["attack"]
    test = f"rolls {number(roll['total'])} vs {_skill_text(e.skill)}"
    degree = e.degree.replace("_", " ")
    if e.degree_source == "entered":
        degree += " (GM)"
    text = f"{_name(s, e.combatant)} {test}: {degree}"
    d = e.defense
    if d is not None:
        if d["rolled"]:
            outcome = "stops the blow" if d["success"] else "fails"
            text += (
                f"; {_name(s, e.target)}'s {d['kind']} {number(d['total'])} vs "
                f"{number(d['effective'])} {outcome}"
            )
        else:
            text += f"; a critical cannot be defended against ({_name(s, e.target)}'s {d['kind']})"
    result = "hit" if e.hit else "miss"
    if e.overridden:
        result += " (GM)"
    return f"{text} → {result}."


@_line("Aimed")
def _(e: Any, s: EncounterState) -> str:
    return f"{_name(s, e.combatant)} aims: +{e.aim_after} to his next attack."


@_line("AimLost")
def _(e: Any, s: EncounterState) -> str:
    return f"{_name(s, e.combatant)} loses his +{e.aim} aim: {e.reason}."


@_line("Moved")
def _(e: Any, s: EncounterState) -> str:
    charge = f", charging {_name(s, e.charge_at)}" if e.charge_at else ""
    used = "one action" if e.actions == 1 else "the whole round"
    return f"{_name(s, e.combatant)} moves {e.metres:g} m{charge} ({used})."


@_line("ActionTaken")
def _(e: Any, s: EncounterState) -> str:
    used = "one action" if e.actions == 1 else "two actions"
    return f"{_name(s, e.combatant)} {e.what} ({used})."


@_line("TurnHeld")
def _(e: Any, s: EncounterState) -> str:
    return f"{_name(s, e.combatant)} holds his actions to act later."


@_line("TurnEnded")
def _(e: Any, s: EncounterState) -> str:
    if s.ruleset == "phantasia":
        return _phantasia.turn_ended(e, s, es=False)
    kept = f", keeping {e.actions_left} action(s) to defend" if e.actions_left else ""
    return f"{_name(s, e.combatant)} ends his turn{kept}."


@_line("KnockBackTested")
def _(e: Any, s: EncounterState) -> str:
    roll = e.rolls["strength"]
    outcome = "stays on his feet" if e.stays_up else "goes down"
    return (
        f"{_name(s, e.combatant)} is knocked back: Strength {number(roll['total'])} vs "
        f"{_skill_text(e.skill)}, {outcome}."
    )


# -- Spanish (the terms of the PHANTÄSIA book: PV, PM, narrador, turno, ronda) ------------


def _pv(before: int, after: int) -> str:
    return f"PV {number(before)} → {number(after)}"


def _narrator(actor: str) -> str:
    return "El narrador" if actor == "gm" else actor


_DICE_SOURCE_ES = {
    "server": "dados del servidor",
    "seeded": "dados con semilla",
    "manual": "dados de la mesa",
}


def _created_es(e: Any) -> str:
    dice = _DICE_SOURCE_ES.get(e.dice_source, f"dados {e.dice_source}")
    return f"Comienza el encuentro “{e.name}” ({e.ruleset}, {dice})."


@_line_es("CombatantAdded")
def _(e: Any, s: EncounterState) -> str:
    if s.ruleset == "phantasia":
        return _phantasia.joins(e, es=True)
    side = f" ({e.side})" if e.side else ""
    if e.hits is None:  # concealed from the reader
        return f"{e.name} se une{side}."
    return f"{e.name} se une{side}: PV {number(e.hits)}/{e.max_hits}."


@_line_es("InitiativeRolled")
def _(e: Any, s: EncounterState) -> str:
    if s.ruleset == "phantasia":
        return _phantasia.initiative(e, s, es=True)
    return _LINES["InitiativeRolled"](e, s)


@_line_es("DamageApplied")
def _(e: Any, s: EncounterState) -> str:
    if s.ruleset == "phantasia":
        return _phantasia.damage(e, s, es=True)
    pv = f": {_pv(e.hits_before, e.hits_after)}" if e.hits_before is not None else ""
    return f"{_name(s, e.combatant)} recibe {e.amount} de daño{pv}."


@_line_es("CombatantHidden")
def _(e: Any, s: EncounterState) -> str:
    until = " hasta que actúe" if e.until_acting else ""
    return f"Narrador: {_name(s, e.combatant)} queda oculto a los jugadores{until}."


@_line_es("CombatantRevealed")
def _(e: Any, s: EncounterState) -> str:
    earlier = "" if e.earlier == "all" else " (lo anterior sigue oculto)"
    why = " al actuar" if e.reason == "acts" else ""
    return f"{_name(s, e.combatant)} se revela{why}{earlier}."


@_line_es("HealthShown")
def _(e: Any, s: EncounterState) -> str:
    whose = (
        f"los PV de {_name(s, e.combatant)}"
        if e.combatant
        else ("los PV de los personajes" if e.party else "los PV de las criaturas del narrador")
    )
    return f"Narrador: los jugadores ven {whose} {_SHOWN_ES.get(e.shown, e.shown)}."


@_line_es("NoteTaken")
def _(e: Any, s: EncounterState) -> str:
    about = f" sobre {_name(s, e.combatant)}" if e.combatant else ""
    if e.text is None:
        return f"El narrador toma una nota{about}."
    return f"Nota del narrador{about}: {e.text}"


@_line_es("HitsAdjusted")
def _(e: Any, s: EncounterState) -> str:
    if e.amount is None:  # concealed from the reader
        return f"Narrador: cambian los PV de {_name(s, e.combatant)} ({e.reason})."
    return (
        f"Narrador: {_name(s, e.combatant)} {signed(e.amount)} PV ({e.reason}): "
        f"{_pv(e.hits_before, e.hits_after)}."
    )


@_line_es("ConditionApplied")
def _(e: Any, s: EncounterState) -> str:
    extra = (
        f", {e.rate} por ronda"
        if e.rate
        else (f" durante {e.count} ronda{'s' if e.count != 1 else ''}" if e.count else "")
    )
    return f"{_name(s, e.combatant)} sufre «{e.condition}»{extra} ({e.reason})."


@_line_es("ConditionCleared")
def _(e: Any, s: EncounterState) -> str:
    return f"{_name(s, e.combatant)} ya no sufre «{e.condition}» ({e.reason})."


@_line_es("UpkeepTicked")
def _(e: Any, s: EncounterState) -> str:
    who = _name(s, e.combatant)
    head = f"Ronda {e.round}, mantenimiento"
    pv = figures(e.hits_before, e.hits_after, number, "PV ")
    if e.kind == "bleeding":
        return f"{head}: {who} sangra {e.amount}{pv}."
    if e.kind == "dying":
        return f"{head}: {who} se está muriendo y pierde {e.amount}{pv}."
    count = f"«{e.kind}» {e.count_before} → {e.count_after}"
    if e.amount:
        return f"{head}: {who} pierde {e.amount} por {count}{pv}."
    return f"{head}: {who}: {count}."


@_line_es("RollVoided")
@_line_es("CommandUndone")
@_line_es("CommandRedone")
def _(e: Any, s: EncounterState) -> str:
    verb = {
        "RollVoided": f"anula el evento {e.target}",
        "CommandUndone": "deshace la última orden",
        "CommandRedone": f"rehace (anula el deshacer {e.target})",
    }[type(e).__name__]
    what = ", ".join(str(p) for p in e.cascade)
    return f"{_narrator(e.actor)} {verb}: eventos {what} ({e.reason})."


@_line_es("DiceSecretRevealed")
def _(e: Any, s: EncounterState) -> str:
    more = (
        " Se compromete un secreto nuevo para las tiradas que siguen." if e.next_commitment else ""
    )
    return (
        f"Se revela el secreto {e.epoch} de los dados del servidor: {e.secret} "
        f"(SHA-256 {e.commitment[:16]}…, el comprometido).{more}"
    )


@_line_es("DiceCommitted")
def _(e: Any, s: EncounterState) -> str:
    return (
        f"Se compromete el secreto {e.epoch} de los dados del servidor: "
        f"SHA-256 {e.commitment[:16]}…."
    )


@_line_es("EncounterEnded")
def _(e: Any, s: EncounterState) -> str:
    return f"El encuentro termina ({e.reason})."


@_line_es("RoundEnded")
def _(e: Any, s: EncounterState) -> str:
    return f"Fin de la ronda {e.round}."


@_line_es("ModifierSet")
def _(e: Any, s: EncounterState) -> str:
    until = f" hasta la ronda {e.last_round}" if e.last_round else ""
    return f"Narrador: {_name(s, e.combatant)}: {e.name} {signed(e.value)} a {e.applies_to}{until}."


@_line_es("ModifierCleared")
def _(e: Any, s: EncounterState) -> str:
    return f"Narrador: {_name(s, e.combatant)} pierde {e.name} ({e.reason})."


@_line_es("ActionResolved")
def _(e: Any, s: EncounterState) -> str:
    return _phantasia.attack_settled(e, s, es=True)


@_line_es("TurnEnded")
def _(e: Any, s: EncounterState) -> str:
    if s.ruleset == "phantasia":
        return _phantasia.turn_ended(e, s, es=True)
    n = e.actions_left
    kept = f" y guarda {n} {'acción' if n == 1 else 'acciones'} para defenderse" if n else ""
    return f"{_name(s, e.combatant)} termina su turno{kept}."
