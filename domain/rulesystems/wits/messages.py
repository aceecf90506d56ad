"""Wits's log in words: the catalogue of its lines' texts (`LINE`, keyed by code, with
named parameters; English only — the book's log is not offered in another language) and
the words its lines use for a defense, its mode and an attack's degree of success."""

from __future__ import annotations

from domain.wording import Message


def _ordinal(n: int) -> str:
    return f"{n}{'st' if n == 1 else 'nd' if n == 2 else 'rd' if n == 3 else 'th'}"


DEFENSES = {  # WIT-DEF-6: a defense, as a verb ('will parry') and as a noun ("T's parry")
    "parry": Message("parry"),
    "block": Message("block"),
    "dodge": Message("dodge"),
}

MODES = {  # WIT-DEF-2..4: how much of his round a defense takes
    "basic": Message("Basic Defense"),
    "total": Message("Total Defense"),
    "total_single": Message("Total Defense against this attack"),
}

DEGREES = {  # WIT-TEST-3: a test's degree of success
    "failure": Message("failure"),
    "success": Message("success"),
    "critical": Message("critical"),
    "extraordinary": Message("extraordinary"),
}

LINE: dict[str, Message] = {  # the texts of Wits's lines, by code
    # a combatant joins
    "joins": Message("{name} joins ({side}): Current Health {hits}/{max_hits}."),
    # the acting order by Wits (WIT-ORD-1, -2)
    "ordinal": Message(_ordinal),
    "initiative entered": Message(
        "{who} acts at Wits {ip}, {rank} among equals by the GM's ruling."
    ),
    "initiative rolled off": Message(
        "{who} takes his place in the order: Wits {ip}, roll-off {faces} ({rank} among equals)."
    ),
    "initiative": Message("{who} takes his place in the order: Wits {ip}{after}."),
    "after those there": Message(" after those already there"),
    # a skill tested: '13 (short sword +1 aiming) = 14'
    "skill": Message("{effective} ({base_from})"),
    "skill adjusted": Message("{base} ({base_from}){parts} = {effective}"),
    "skill part": Message(" {value} {name}"),
    # damage (WIT-DMG)
    "damage": Message(
        "{who} takes {amount}: {expression}: {dice} = {total}{modifiers}{protection}{change}.{down}"
    ),
    "damage modifiers": Message(" {modifiers}"),
    "protection ignored": Message(" (Protection ignored: critical)"),
    "protection": Message(" − {protection} Protection"),
    "current health": Message("Current Health "),
    "down": Message(" He is down: the GM rules his state."),
    # attacks and defenses (WIT-ATK-1..4, WIT-DEF)
    "attack": Message("{who} attacks {target} with {weapon}{how}."),
    "attack how": Message(" ({ways})"),
    "charges": Message("charges"),
    "called shot": Message("called shot: {where}"),
    "unseen": Message("unseen"),
    "defense": Message("{who} will {kind} ({mode}) at {skill}."),
    "attack test": Message("{who} rolls {total} vs {skill}: {degree}{defense} → {result}."),
    "by the GM": Message(" (GM)"),
    "defended": Message("; {target}'s {kind} {total} vs {effective} {outcome}"),
    "stops the blow": Message("stops the blow"),
    "defense fails": Message("fails"),
    "undefended": Message("; a critical cannot be defended against ({target}'s {kind})"),
    "hit": Message("hit"),
    "miss": Message("miss"),
    # aiming (WIT-AIM)
    "aimed": Message("{who} aims: +{aim} to his next attack."),
    "aim lost": Message("{who} loses his +{aim} aim: {why}."),
    # moves and other actions (WIT-ACT, WIT-MOV, WIT-CHG)
    "moved": Message("{who} moves {metres:g} m{charge} ({used})."),
    "charging": Message(", charging {target}"),
    "one action": Message("one action"),
    "two actions": Message("two actions"),
    "whole round": Message("the whole round"),
    "action taken": Message("{who} {what} ({used})."),
    "held": Message("{who} holds his actions to act later."),
    "knocked back": Message("{who} is knocked back: Strength {total} vs {skill}, {outcome}."),
    "stays up": Message("stays on his feet"),
    "goes down": Message("goes down"),
}
