"""What a token may send now: the rule book's candidate commands, kept where the token may
send them and the rules accept them (each run on a copy of the encounter up to its first
die, recording nothing and drawing no server die)."""

from __future__ import annotations

import copy
import logging
from typing import Any

from pydantic import ValidationError

from domain.encounter import Encounter
from domain.errors import DiceNeeded, DomainError
from infra.access import Grant, check_command
from infra.dice import dice_for

log = logging.getLogger("fraylog.choices")


def probe(encounter: Encounter, command: Any) -> tuple[bool, dict[str, Any] | None]:
    """Run `command` on a copy of `encounter` with no faces given: (accepted, the first
    roll it asks for, or None)."""
    scratch = copy.deepcopy(encounter)
    dice = dice_for(scratch.state, None, command.dice_source, _no_secret, preview=True)
    try:
        scratch.execute(command, dice)
    except DiceNeeded as needed:
        return True, needed.needed
    except DomainError:
        return False, None
    return True, None


def _no_secret() -> bytes:  # a probe never reaches a server die (UndrawnServerDice)
    raise AssertionError("a probe drew a server die")


def choices(
    encounter: Encounter, grant: Grant | None, corrections: dict[str, bool]
) -> dict[str, Any]:
    """The answer of GET …/choices for `grant` (None: open mode, the GM's choices)."""
    state = encounter.state
    rules = encounter.rules
    view = rules.view(state)
    gm = grant is None or grant.is_gm
    kept: list[dict[str, Any]] = []
    if not state.ended:
        for candidate in rules.choices(state):
            try:
                command = rules.command_adapter().validate_python(candidate["command"])
            except ValidationError:  # a rule book's bug (its tests fail on the log): skip it
                log.error(
                    "the %s rule book offered an invalid command: %s",
                    state.ruleset,
                    candidate["command"],
                )
                continue
            if grant is not None:
                try:
                    check_command(grant, command, state)
                except DomainError:
                    continue
            accepted, first = probe(encounter, command)
            if accepted:
                public = first and {k: v for k, v in first.items() if k != "label_es"}
                kept.append({**candidate, "first_roll": public or None})
    by_combatant: dict[str, list[str]] = {}
    for choice in kept:
        key = choice.get("combatant") or ""
        types = by_combatant.setdefault(key, [])
        if choice["type"] not in types:
            types.append(choice["type"])
    answer: dict[str, Any] = {
        "version": state.version,
        "ended": state.ended,
        "step": view.get("step"),
        "acting": view.get("acting"),
        "role": "gm" if gm else "player",
        "combatants": sorted(grant.combatants) if grant is not None and not gm else None,
        "choices": kept,
        "by_combatant": by_combatant,
        "overrides": [],
        "corrections": [],
    }
    if gm:
        answer["overrides"] = [] if state.ended else rules.overrides(state)
        answer["corrections"] = [
            {"type": kind, "command": {"type": kind}} for kind, ok in corrections.items() if ok
        ] + [{"type": "void", "fields": {"target": {"type": "integer", "minimum": 2}}}]
    return answer
