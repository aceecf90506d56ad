"""The texts of the lines every rule book shares, keyed by code, in English and in Spanish
(PV, narrador, ronda: the words the Spanish log uses for every book), with named
parameters; projections.narrative fills them in. A book's own lines are in its package."""

from __future__ import annotations

from domain.wording import Message, plural

_DICE_ES = {
    "server": "dados del servidor",
    "seeded": "dados con semilla",
    "manual": "dados de la mesa",
}


def _created_es(name: str, ruleset: str, dice_source: str) -> str:
    dice = _DICE_ES.get(dice_source, f"dados {dice_source}")
    return f"Comienza el encuentro “{name}” ({ruleset}, {dice})."


def _upkeep_es(
    head: str, who: str, kind: str, before: int, after: int, amount: int, change: str, **_: str
) -> str:
    count = f"«{kind}» {before} → {after}"
    if amount:
        return f"{head}: {who} pierde {amount} por {count}{change}."
    return f"{head}: {who}: {count}."


TEXTS: dict[str, Message] = {
    "created": Message("Encounter “{name}” begins ({ruleset}, {dice_source} dice).", _created_es),
    # combatants
    "joins": Message(
        "{name} joins ({side_raw}): {hits}/{max_hits} hits.",
        "{name} se une{side}: PV {hits}/{max_hits}.",
    ),
    "joins unseen": Message("{name} joins ({side_raw}).", "{name} se une{side}."),
    "damage": Message("{who} takes {amount}{change}.", "{who} recibe {amount} de daño{pv}."),
    "condition": Message(
        "{who} is {condition}{extra} ({why}).", "{who} sufre «{name}»{extra} ({why})."
    ),
    "per round": Message(" {rate} per round", ", {rate} por ronda"),
    "for rounds": Message(
        lambda count: f" for {plural(count, 'round', 'rounds')}",
        lambda count: f" durante {plural(count, 'ronda', 'rondas')}",
    ),
    "condition cleared": Message(
        "{who} is no longer {condition} ({why}).", "{who} ya no sufre «{name}» ({why})."
    ),
    "upkeep": Message("Round {round} upkeep", "Ronda {round}, mantenimiento"),
    "bleeding": Message(
        "{head}: {who} bleeds {amount}{change}.", "{head}: {who} sangra {amount}{change}."
    ),
    "dying": Message(
        "{head}: {who} is dying, loses {amount}{change}.",
        "{head}: {who} se está muriendo y pierde {amount}{change}.",
    ),
    "count": Message("{head}: {who} {label} {before} → {after}.", _upkeep_es),
    "turn ended": Message("{who} ends his turn{kept}.", "{who} termina su turno{kept}."),
    "kept": Message(
        ", keeping {n} action(s) to defend",
        lambda n: f" y guarda {n} {'acción' if n == 1 else 'acciones'} para defenderse",
    ),
    # corrections
    "RollVoided": Message("voids event {target}", "anula el evento {target}"),
    "CommandUndone": Message("undoes the last command", "deshace la última orden"),
    "CommandRedone": Message("redoes (voids undo {target})", "rehace (anula el deshacer {target})"),
    "corrected": Message(
        lambda gm, actor, verb, what, why: (
            f"{'GM' if gm else actor} {verb}: events {what} ({why})."
        ),
        lambda gm, actor, verb, what, why: (
            f"{'El narrador' if gm else actor} {verb}: eventos {what} ({why})."
        ),
    ),
    # the server's dice secret
    "revealed secret": Message(
        "Server dice secret {epoch} revealed: {secret} (SHA-256 {digest}…, as committed).{more}",
        "Se revela el secreto {epoch} de los dados del servidor: {secret} "
        "(SHA-256 {digest}…, el comprometido).{more}",
    ),
    "fresh secret": Message(
        " A fresh secret is committed for the rolls to come.",
        " Se compromete un secreto nuevo para las tiradas que siguen.",
    ),
    "committed secret": Message(
        "Server dice secret {epoch} committed: SHA-256 {digest}….",
        "Se compromete el secreto {epoch} de los dados del servidor: SHA-256 {digest}….",
    ),
    # the encounter
    "ended": Message("The encounter ends ({why}).", "El encuentro termina ({why})."),
    "round ended": Message("Round {round} ends.", "Fin de la ronda {round}."),
    # the GM's overrides
    "hidden": Message(
        "GM: {who} is hidden from the players{until}.",
        "Narrador: {who} queda oculto a los jugadores{until}.",
    ),
    "until he acts": Message(" until he acts", " hasta que actúe"),
    "revealed": Message("{who} is revealed{why}{earlier}.", "{who} se revela{why}{earlier}."),
    "as he acts": Message(" as he acts", " al actuar"),
    "earlier hidden": Message(" (what he did before stays hidden)", " (lo anterior sigue oculto)"),
    "health shown": Message(
        "GM: players see {whose} {shown}.", "Narrador: los jugadores ven {whose} {shown}."
    ),
    "health of": Message("{who}'s health", "los PV de {who}"),
    "party's health": Message("the party's health", "los PV de los personajes"),
    "gm's health": Message(
        "the health of the GM's combatants", "los PV de las criaturas del narrador"
    ),
    "exact": Message("as figures", "en cifras"),
    "described": Message("in words", "en palabras"),
    "none": Message("not at all", "en absoluto"),
    "note": Message("GM's note{about}: {text}", "Nota del narrador{about}: {text}"),
    "note untold": Message("The GM takes a note{about}.", "El narrador toma una nota{about}."),
    "about": Message(" on {who}", " sobre {who}"),
    "hits change": Message(
        "GM: {who}'s hits change ({why}).", "Narrador: cambian los PV de {who} ({why})."
    ),
    "hits": Message(
        "GM: {who} hits {amount} ({why}){change}.",
        "Narrador: {who} {amount} PV ({why}): PV {before} → {after}.",
    ),
    "modifier": Message(
        "GM: {who} {name} {value} to {applies_to}{until}.",
        "Narrador: {who}: {name} {value} a {applies_to}{until}.",
    ),
    "until round": Message(" until round {round}", " hasta la ronda {round}"),
    "modifier cleared": Message(
        "GM: {who} {name} removed ({why}).", "Narrador: {who} pierde {name} ({why})."
    ),
}
