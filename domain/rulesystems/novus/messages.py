"""Novus's log in words: the catalogue of its lines' texts (`LINE`, keyed by code, with
named parameters; English only — the book's log is not offered in another language)."""

from __future__ import annotations

from domain.wording import Message, plural

LINE: dict[str, Message] = {  # the texts of Novus's lines, by code
    # initiative (NOV-INIT)
    "initiative entered": Message("Round {round} initiative: {who} is given IP {ip} by the GM."),
    "initiative rolled": Message("Round {round} initiative: {who} rolls {roll} → IP {ip}."),
    # declarations (NOV-DECL)
    "declared action": Message("{label}{on} ({cost} AP{later})"),
    "on": Message(" on {target}"),
    "resolves later": Message(", resolves in round {round}"),
    "no action": Message("no action"),
    "carried": Message(", {ap} AP carried into next round"),
    "out of order": Message(" [GM: out of order]"),
    "holds": Message(" Holds to IP {ip}.{gm}"),
    "declare": Message("Round {round} declare: {who}: {what}; {spent}/{budget} AP{carried}.{gm}"),
    # Boon and Snag Points (NOV-BOON, NOV-SNAG)
    "boon points": Message(lambda n: plural(n, "Boon Point", "Boon Points")),
    "snag points": Message(lambda n: plural(n, "Snag Point", "Snag Points")),
    # attacks (NOV-ATK)
    "spell fails": Message(
        "Round {round}: {who} casts at {target}: {roll} vs casting TN {tn}: the spell fails."
    ),
    "hit": Message("hit by {margin}, {boons}"),
    "miss": Message("miss by {margin}{snags}"),
    "miss snags": Message(", {snags}"),
    "because": Message(" ({because})"),
    "gm override": Message(" [GM override]"),
    "attack": Message(
        "Round {round}: {who} attacks {target}: {roll} vs DEF {defense}{because}: {outcome}.{gm}"
    ),
    # riding, limbs, Fate Points, blocks
    "seat kept": Message("keeps his seat"),
    "seat lost": Message("fails: −1 AB and −1 DEF this round"),
    "riding": Message("{who} rolls Riding: {roll} vs TN {tn}: {result}."),
    "limb useless": Message("useless"),
    "limb penalty": Message("{penalty} on actions with it"),
    "limb wounded": Message("{who}'s {location} takes {damage} ({total} in all): {state}."),
    "fate gained": Message("Nova Roll! {who} gains a Fate Point."),
    "fate spent": Message("{who} spends a Fate Point: {effect}."),
    "blocked": Message("the attack is stopped"),
    "block fails": Message("the block fails"),
    "block": Message("{who} blocks {attacker}: {roll} vs TN {tn}: {outcome}."),
    # spending Boons and Snags
    "boon": Message("{label}"),
    "boon of points": Message("{label} ({points})"),
    "nothing": Message("nothing"),
    "boons spent": Message("{who} spends {points}: {bought}."),
    "no snags": Message("nothing (GM)"),
    "snags spent": Message("{who} spends {points}: {taken}."),
    # cancelling, Opportunity Attacks, holding, losing an action
    "instead": Message("; instead, at once: {label}{on}"),
    "cancelled": Message("Round {round}: {who} cancels {what}{instead}."),
    "opportunity paid": Message(" ({ap} AP)"),
    "opportunity declared": Message(" (his declared attack)"),
    "opportunity": Message("Round {round}: {who} takes an Opportunity Attack on {target}{paid}."),
    "held": Message("Round {round}: {who} holds to IP {ip} (−{cost} AP, budget {budget})."),
    "action lost": Message("Round {round}: {who} loses {label} ({rule}: {reason})."),
    # damage (NOV-DMG)
    "base": Message("{n} base"),
    "scaled": Message("+ {n} scaled"),
    "extra": Message("{n} {what}"),
    "armour": Message("− {n} armour"),
    "damage": Message("{who} takes {amount} ({parts}){figures}."),
    # saves and First Aid
    "save by": Message(" by {margin}"),
    "saved": Message("saved"),
    "save failed": Message("failed{by}"),
    "purpose": Message(" ({purpose})"),
    "vs tn": Message(" vs TN {tn}"),
    "save": Message("{who} saves vs. {stat}{why}: {roll}{tn}: {result}."),
    "success": Message("success"),
    "failure": Message("failure"),
    "first aid": Message(
        "{who} gives First Aid to {target} ({purpose}): {roll} vs TN {tn}: {result}."
    ),
}
