"""Wits's catalogue of log lines (domain/rulesystems/wits/messages.py): every code its
narrative says is in the catalogue, every entry is said somewhere, the words for a defense,
its mode and a degree cover what the commands accept, and the log is English only."""

from __future__ import annotations

import ast
import inspect
from typing import get_args

import pytest

from domain.rulesystems.wits import commands, narrative, state
from domain.rulesystems.wits.messages import DEFENSES, DEGREES, LINE, MODES


def codes_said() -> set[str]:
    """The codes narrative.py passes to `say`, read from its source: the call's first
    argument, a literal (or a conditional between two)."""
    tree = ast.parse(inspect.getsource(narrative))
    said: set[str] = set()
    for call in ast.walk(tree):
        if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "say" and call.args:
            code = call.args[0]
            sides = [code.body, code.orelse] if isinstance(code, ast.IfExp) else [code]
            assert all(isinstance(c, ast.Constant) for c in sides), ast.unparse(code)
            said |= {c.value for c in sides}
    return said


def test_given_the_narrative_then_every_code_it_says_is_in_the_catalogue() -> None:
    # given / when: the codes the Wits narrative says
    said = codes_said()
    # then: each has its entry
    assert said, "no code found: the narrative no longer calls say()"
    assert said <= set(LINE), said - set(LINE)


def test_given_the_catalogue_then_every_entry_is_said_by_the_narrative() -> None:
    # given / when: the catalogue's codes
    unused = set(LINE) - codes_said()
    # then: none is left unsaid
    assert not unused, unused


@pytest.mark.parametrize(
    ("words", "accepted"),
    [
        (DEFENSES, get_args(commands.DefenseSpec.model_fields["kind"].annotation)),
        (MODES, get_args(state.DefenseMode)),
        (DEGREES, get_args(commands.Degree)),
    ],
    ids=["defenses", "modes", "degrees"],
)
def test_given_what_the_commands_accept_then_each_has_its_word(
    words: dict, accepted: tuple[str, ...]
) -> None:
    # then: a word for each value a command accepts, and none for another
    assert set(words) == set(accepted)


def test_given_the_catalogue_then_it_is_english_only() -> None:
    # given: every entry of the catalogue and of its words
    entries = [*LINE.values(), *DEFENSES.values(), *MODES.values(), *DEGREES.values()]
    # then: no Spanish (the Wits log is offered in English only), and Spanish reads English
    assert all(m.es is None for m in entries)
    assert LINE["held"].say("es", who="Farthan") == "Farthan holds his actions to act later."
