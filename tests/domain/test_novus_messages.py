"""Novus's catalogue of log lines: every code its lines say is in the catalogue, every entry
is said, each with the named parameters its template has; and a line reads from it."""

from __future__ import annotations

import ast
import inspect
from string import Formatter

from domain.rulesystems.novus import narrative
from domain.rulesystems.novus.messages import LINE
from domain.wording import Message


def _codes(arg: ast.expr) -> list[str]:
    """The codes a `say` argument may be: a literal, or either branch of a conditional."""
    if isinstance(arg, ast.IfExp):
        return _codes(arg.body) + _codes(arg.orelse)
    assert isinstance(arg, ast.Constant) and isinstance(arg.value, str), ast.dump(arg)
    return [arg.value]


def _said() -> list[tuple[str, set[str]]]:
    """Each (code, the named parameters passed) the narrative's calls say."""
    calls = []
    for node in ast.walk(ast.parse(inspect.getsource(narrative))):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            continue
        if node.func.id == "say" and not isinstance(node.args[0], ast.Name):
            names = {k.arg for k in node.keywords if k.arg}
            calls += [(code, names) for code in _codes(node.args[0])]
    return calls


def _fields(text: object) -> set[str] | None:
    """The named parameters of a template; None for a function."""
    if not isinstance(text, str):
        return None
    return {f for _, f, _, _ in Formatter().parse(text) if f}


def test_given_the_novus_lines_then_every_code_they_say_is_in_the_catalogue() -> None:
    missing = {code for code, _ in _said()} - set(LINE)
    assert not missing, missing


def test_given_the_novus_catalogue_then_every_entry_is_said_by_a_line() -> None:
    unused = set(LINE) - {code for code, _ in _said()}
    assert not unused, unused


def test_given_a_template_then_its_lines_pass_exactly_its_named_parameters() -> None:
    wrong = {}
    for code, names in _said():
        fields = _fields(LINE[code].en)
        if fields is not None and names != fields:
            wrong[code] = (sorted(names), sorted(fields))
    assert not wrong, wrong


def test_given_the_novus_catalogue_then_it_is_english_only() -> None:
    assert all(isinstance(m, Message) and m.es is None for m in LINE.values())


def test_given_boon_points_then_one_is_singular_and_others_plural() -> None:
    # when
    told = [narrative.say("boon points", "en", n=n) for n in (0, 1, 2)]
    # then
    assert told == ["0 Boon Points", "1 Boon Point", "2 Boon Points"]
