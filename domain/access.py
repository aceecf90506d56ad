"""What a player may send (the GM may send anything): a command for his own combatants, with
no field only the GM sets, and dice of his own only at a table that rolls by hand. The game's
rule of who acts for whom; who a command acts for is each rule book's (`acting_for`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel

from domain import commands as c
from domain.errors import DomainError
from domain.rulesystems import all_rule_systems, get_rule_system
from domain.state import EncounterState


class Forbidden(DomainError):
    """A player asking for what only the GM, or another combatant's player, may do."""

    status = 403
    title = "Not allowed"


# What the GM enters or overrides, wherever it appears in a command (an action, a Boon, a
# Snag, a defense): a player's command may not set any of them.
GM_FIELDS = frozenset(
    {
        "out_of_order",
        "hit",
        "degree",
        "dice_source",
        "modifiers",  # situational modifiers are the GM's call
        "tn",
        "riding_tn",
        "casting_tn",
        "spell_bonus",
        "spell_damage",
        "visible",  # Wits: whether the target can see the blow (WIT-AMB-21)
        "physical",  # Wits: whether the damage rolls up (WIT-AMB-13)
        "magical",  # Wits: a magical defense the GM allows against a critical
        "effect",  # a GM Boon's effect, a Fate Point's (NOV-BOON-5, NOV-FATE-2)
        "cover",  # PHANTÄSIA: the narrator sets cover (PHA-DEF-5) ...
        "adjacent",  # ... judges adjacency (PHA-AMB-24) ...
        "offensive",  # ... and says whether an action is offensive (PHA-ACT-2)
        "doublings",  # a power's doubling effect, entered by the narrator (PHA-DMG-6)
    }
)


def gm_only(ruleset: str) -> frozenset[str]:
    """The commands only the GM may send in a rule book: the core's and the book's own."""
    return c.GM_COMMANDS | get_rule_system(ruleset).gm_commands


def gm_entered(kind: str) -> tuple[str, ...]:
    """The fields of a command type only the GM may set beyond GM_FIELDS, in any registered
    book: the core's (`domain.commands.GM_ENTERED`) and every book's (`gm_entered`)."""
    books = [f for s in all_rule_systems() for f in s.gm_entered.get(kind, ())]
    return tuple(dict.fromkeys((*c.GM_ENTERED.get(kind, ()), *books)))


def __getattr__(name: str) -> Any:
    """`GM_ONLY`: the commands only the GM may send, in any rule book registered now."""
    if name == "GM_ONLY":
        return c.GM_COMMANDS.union(*(s.gm_commands for s in all_rule_systems()))
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _gm_entries(data: Any, path: str = "") -> Iterator[str]:
    """The paths of GM fields in a command dumped without its defaults."""
    if isinstance(data, dict):
        for key, value in data.items():
            where = f"{path}.{key}" if path else key
            if key in GM_FIELDS:  # in a dump without defaults: set to something else
                yield where
            else:
                yield from _gm_entries(value, where)
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from _gm_entries(value, f"{path}.{i}")


def check_player(combatants: frozenset[str], command: BaseModel, state: EncounterState) -> None:
    """A player, acting for `combatants`, may send `command` only for one of his own, without
    the GM's overrides, and with dice of his own only at a table that rolls them by hand."""
    kind = command.type  # type: ignore[attr-defined]
    rules = get_rule_system(state.ruleset)
    if kind in gm_only(state.ruleset):
        raise Forbidden("ROLE", f"only the GM may {kind.replace('_', ' ')}", field="type")
    entered = [*_gm_entries(command.model_dump(mode="json", exclude_defaults=True))]
    entered += c.entered(command, gm_entered(kind))  # the core's and the books'
    entered += rules.gm_entries(command)  # what else the book leaves to the GM
    if entered:
        raise Forbidden("ROLE", f"`{entered[0]}` is the GM's to set", field=entered[0])
    if command.dice and state.dice_source != "manual":  # type: ignore[attr-defined]
        raise Forbidden(
            "ROLE", "players enter dice only at a table that rolls by hand", field="dice"
        )
    who = rules.acting_for(state, command)
    if who is None or who not in combatants:
        name = state.combatants[who].name if who in state.combatants else "that combatant"
        raise Forbidden("ROLE", f"this token does not act for {name}", field="combatant")
    other = rules.answering_for(command)
    if other is not None and other not in combatants:  # the target answers for himself
        raise Forbidden("ROLE", "the target declares his own defense (defend)", field="defense")
