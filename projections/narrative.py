"""The narrative log: one readable line per event, folded alongside the state.

An event's line is its rule book's where the book tells one (`RuleSystem.tell`, from the
book's catalogue in domain/rulesystems/<book>/), the core's below otherwise: the lines
every book shares (combatants, corrections, dice, the GM's overrides), in English and in
Spanish. A language a line has not: its English stands in."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Literal

from domain.audit import record_of
from domain.corrections import voided_by
from domain.errors import DomainError
from domain.fold import evolve
from domain.rulesystems import all_rule_systems, get_rule_system
from domain.state import EncounterState
from domain.wording import Lines, figures, name_of, number, roll_text, signed
from projections.lines import TEXTS
from projections.visibility import Sight, as_read, for_player

Lang = Literal["en", "es"]
LANGS: tuple[Lang, ...] = ("en", "es")
CORE = Lines()
_line = CORE.line


def check_lang(lang: str, ruleset: str) -> None:
    """Refuse a log language this encounter is not offered in (the API and the CLI ask;
    `narrative` itself writes whatever it is asked for)."""
    if lang not in LANGS:
        raise DomainError("LANG", f"lang is 'en' or 'es', not {lang!r}", field="lang")
    if lang not in get_rule_system(ruleset).languages:
        offered = ", ".join(b.title for b in all_rule_systems() if lang in b.languages)
        raise DomainError(
            "LANG",
            f"Spanish is offered for {offered} encounters; this one is {ruleset!r}",
            field="lang",
        )


def narrative(
    events: Sequence[Any], lang: Lang = "en", sight: Sight | None = None
) -> Iterator[dict[str, Any]]:
    """Yield {position, round, type, actor, text, voided_by} for each event, in order.

    `lang="es"`: an event's Spanish line where its book or the core has one, its English
    line otherwise. `sight`: a player's (projections.visibility), each line told without
    what he may not read."""
    if lang not in LANGS:
        raise ValueError(f"lang is 'en' or 'es', not {lang!r}")
    return _narrate(events, lang, sight)


def _narrate(events: Sequence[Any], lang: Lang, sight: Sight | None) -> Iterator[dict[str, Any]]:
    voided = voided_by(events)
    state: EncounterState | None = None
    for event in events:
        shown = as_read(event, sight)
        text = line_of(shown, state, lang) if state is not None else created_line(shown, lang)
        yield {
            "position": event.originator_version,
            "round": state.round if state else 1,
            "type": type(event).__name__,
            "actor": event.actor,
            "text": text,
            "voided_by": voided.get(event.originator_version),
        }
        state = evolve(state, event)


def line_of(event: Any, state: EncounterState, lang: str) -> str:
    """An event's line, told from the state before it: its book's in `lang`, the core's in
    `lang`, then the same in English."""
    book = get_rule_system(state.ruleset)
    for tongue in dict.fromkeys((lang, "en")):
        text = book.tell(event, state, tongue)
        text = text if text is not None else CORE.tell(event, state, tongue)
        if text is not None:
            return text
    raise LookupError(f"no line for {type(event).__name__} in {state.ruleset}")


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
    es = spanish and "es" in get_rule_system(state.ruleset).languages
    out = []
    for event in events:
        text = line_of(as_read(event, sight), state, "es" if es else "en")
        rec = for_player([record_of(event)], sight)[0]
        out.append({**rec, "text": text} if "type" in rec else rec)
        state = evolve(state, event)
    return out


def say(code: str, lang: str, **params: Any) -> str:
    return TEXTS[code].say(lang, **params)


def created_line(e: Any, lang: str) -> str:
    """The first event's line (no state before it to tell it from)."""
    return say("created", lang, name=e.name, ruleset=e.ruleset, dice_source=e.dice_source)


@_line("CombatantAdded")
def _(e: Any, s: EncounterState, lang: str) -> str:
    side = f" ({e.side})" if e.side else ""
    if e.hits is None:  # concealed from the reader
        return say("joins unseen", lang, name=e.name, side=side, side_raw=e.side)
    return say(
        "joins",
        lang,
        name=e.name,
        side=side,
        side_raw=e.side,
        hits=number(e.hits),
        max_hits=e.max_hits,
    )


@_line("InitiativeRolled")
def _(e: Any, s: EncounterState, lang: str) -> str | None:
    """A book without its own initiative line (each built-in book has one): English only."""
    if lang != "en":
        return None
    who = name_of(s, e.combatant)
    if e.entered or not e.rolls:
        return f"Round {s.round} initiative: {who} is given {number(e.ip)} by the GM."
    (roll,) = e.rolls.values()
    return f"Round {s.round} initiative: {who} rolls {roll_text(roll)} → {number(e.ip)}."


@_line("DamageApplied")
def _(e: Any, s: EncounterState, lang: str) -> str:
    shown = e.hits_before is not None
    return say(
        "damage",
        lang,
        who=name_of(s, e.combatant),
        amount=e.amount,
        change=figures(e.hits_before, e.hits_after),
        pv=f": PV {number(e.hits_before)} → {number(e.hits_after)}" if shown else "",
    )


_CONDITION_WORDS = {"reroll_initiative": "set to reroll initiative"}


def _condition(name: str) -> str:
    """What a combatant is with a condition, as the sentence says it after 'is' and 'is no
    longer': 'hasted', 'knocked back', 'set to reroll initiative' (not its name as stored)."""
    return _CONDITION_WORDS.get(name, name.replace("_", " "))


@_line("ConditionApplied")
def _(e: Any, s: EncounterState, lang: str) -> str:
    if e.rate:
        extra = say("per round", lang, rate=e.rate)
    else:
        extra = say("for rounds", lang, count=e.count) if e.count else ""
    return say(
        "condition",
        lang,
        who=name_of(s, e.combatant),
        condition=_condition(e.condition),
        name=e.condition,
        extra=extra,
        why=e.reason,
    )


@_line("ConditionCleared")
def _(e: Any, s: EncounterState, lang: str) -> str:
    who, condition = name_of(s, e.combatant), _condition(e.condition)
    return say(
        "condition cleared", lang, who=who, condition=condition, name=e.condition, why=e.reason
    )


@_line("ActionResolved")
def _(e: Any, s: EncounterState, lang: str) -> str | None:
    """An action resolved, by its label (English only: PHANTÄSIA tells its own)."""
    if lang != "en":
        return None
    action = s.action(e.action)
    note = f" ({e.detail['outcome']})" if "outcome" in e.detail else ""
    return f"Round {s.round}: {name_of(s, e.combatant)} {action.params.get('label', e.kind)}{note}."


@_line("UpkeepTicked")
def _(e: Any, s: EncounterState, lang: str) -> str:
    change = figures(e.hits_before, e.hits_after, number, "PV " if lang == "es" else "")
    return say(
        e.kind if e.kind in ("bleeding", "dying") else "count",
        lang,
        head=say("upkeep", lang, round=e.round),
        who=name_of(s, e.combatant),
        amount=e.amount,
        change=change,
        kind=e.kind,
        label={"stunned": "stun", "dazed": "daze"}.get(e.kind, e.kind),
        before=e.count_before,
        after=e.count_after,
    )


@_line("RollVoided", "CommandUndone", "CommandRedone")
def _(e: Any, s: EncounterState, lang: str) -> str:
    return say(
        "corrected",
        lang,
        gm=e.actor == "gm",
        actor=e.actor,
        verb=say(type(e).__name__, lang, target=getattr(e, "target", None)),
        what=", ".join(str(p) for p in e.cascade),
        why=e.reason,
    )


@_line("DiceSecretRevealed")
def _(e: Any, s: EncounterState, lang: str) -> str:
    return say(
        "revealed secret",
        lang,
        epoch=e.epoch,
        secret=e.secret,
        digest=e.commitment[:16],
        more=say("fresh secret", lang) if e.next_commitment else "",
    )


@_line("DiceCommitted")
def _(e: Any, s: EncounterState, lang: str) -> str:
    return say("committed secret", lang, epoch=e.epoch, digest=e.commitment[:16])


@_line("EncounterEnded")
def _(e: Any, s: EncounterState, lang: str) -> str:
    return say("ended", lang, why=e.reason)


@_line("RoundEnded")
def _(e: Any, s: EncounterState, lang: str) -> str:
    return say("round ended", lang, round=e.round)


@_line("CombatantHidden")
def _(e: Any, s: EncounterState, lang: str) -> str:
    until = say("until he acts", lang) if e.until_acting else ""
    return say("hidden", lang, who=name_of(s, e.combatant), until=until)


@_line("CombatantRevealed")
def _(e: Any, s: EncounterState, lang: str) -> str:
    return say(
        "revealed",
        lang,
        who=name_of(s, e.combatant),
        why=say("as he acts", lang) if e.reason == "acts" else "",
        earlier="" if e.earlier == "all" else say("earlier hidden", lang),
    )


@_line("HealthShown")
def _(e: Any, s: EncounterState, lang: str) -> str:
    if e.combatant:
        whose = say("health of", lang, who=name_of(s, e.combatant))
    else:
        whose = say("party's health" if e.party else "gm's health", lang)
    shown = say(e.shown, lang) if e.shown in ("exact", "described", "none") else e.shown
    return say("health shown", lang, whose=whose, shown=shown)


@_line("NoteTaken")
def _(e: Any, s: EncounterState, lang: str) -> str:
    about = say("about", lang, who=name_of(s, e.combatant)) if e.combatant else ""
    if e.text is None:  # concealed from the reader
        return say("note untold", lang, about=about)
    return say("note", lang, about=about, text=e.text)


@_line("HitsAdjusted")
def _(e: Any, s: EncounterState, lang: str) -> str:
    who = name_of(s, e.combatant)
    if e.amount is None:  # concealed from the reader
        return say("hits change", lang, who=who, why=e.reason)
    return say(
        "hits",
        lang,
        who=who,
        amount=signed(e.amount),
        why=e.reason,
        change=figures(e.hits_before, e.hits_after),
        before=number(e.hits_before) if e.hits_before is not None else "?",
        after=number(e.hits_after) if e.hits_after is not None else "?",
    )


@_line("ModifierSet")
def _(e: Any, s: EncounterState, lang: str) -> str:
    return say(
        "modifier",
        lang,
        who=name_of(s, e.combatant),
        name=e.name,
        value=signed(e.value),
        applies_to=e.applies_to,
        until=say("until round", lang, round=e.last_round) if e.last_round else "",
    )


@_line("ModifierCleared")
def _(e: Any, s: EncounterState, lang: str) -> str:
    return say("modifier cleared", lang, who=name_of(s, e.combatant), name=e.name, why=e.reason)


@_line("TurnEnded")
def _(e: Any, s: EncounterState, lang: str) -> str:
    kept = say("kept", lang, n=e.actions_left) if e.actions_left else ""
    return say("turn ended", lang, who=name_of(s, e.combatant), kept=kept)
