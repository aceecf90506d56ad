"""PHANTÄSIA's catalogues: every refusal and every reason in English and in the book's
Spanish, keyed by code, with the same named parameters (the Spanish may leave one out)."""

from __future__ import annotations

import re
from string import Formatter

import pytest

from domain.rulesystems.phantasia.messages import LINE
from domain.rulesystems.phantasia.reasons import PART_CODES, PARTS, REASONS, reason, said
from domain.rulesystems.phantasia.refusals import REFUSALS, refused
from domain.wording import Message


def names(text: object) -> set[str] | None:
    """The named parameters of a template; None for a function."""
    if not isinstance(text, str):
        return None
    return {f for _, f, _, _ in Formatter().parse(text) if f}


# a refusal's or a reason's parameters are those its English is made from
CATALOGUES = {"refusals": REFUSALS, "reasons": REASONS, "parts": PART_CODES}


@pytest.mark.parametrize("catalogue", CATALOGUES)
def test_given_a_catalogue_then_each_spanish_names_only_parameters_its_english_has(
    catalogue: str,
) -> None:
    wrong = {}
    for code, message in CATALOGUES[catalogue].items():
        en, es = names(message.en), names(message.es)
        if en is not None and es is not None and not es <= en:
            wrong[code] = es - en
    assert not wrong, wrong


def test_given_the_refusals_then_each_key_names_its_rule_and_has_its_spanish() -> None:
    bad = [k for k, m in REFUSALS.items() if not re.fullmatch(r"PHA-[A-Z]+-\d+\.[a-z-]+", k)]
    assert not bad, bad
    assert all(m.es is not None for m in REFUSALS.values())


def test_given_a_refusal_code_and_its_parameters_then_one_violation_in_both_languages() -> None:
    e = refused("PHA-ACT-9.no-weapon", field="weapon", who="Endimion", weapon="axe")
    assert (e.rule, e.field) == ("PHA-ACT-9", "weapon")
    assert e.detail == "Endimion has no weapon 'axe'"
    assert e.detail_es == "Endimion no tiene el arma 'axe'"


def test_given_a_rules_reason_then_the_event_keeps_english_code_and_parameters() -> None:
    recorded = said("passed_check", characteristic="VIT", rule="PHA-STS-20")
    assert recorded == {
        "reason": "passed his VIT check (PHA-STS-20)",
        "reason_code": "passed_check",
        "reason_params": {"characteristic": "VIT", "rule": "PHA-STS-20"},
    }

    class Event:
        reason = recorded["reason"]
        reason_code = recorded["reason_code"]
        reason_params = recorded["reason_params"]

    assert reason(Event, "es") == "superó su chequeo de VIT (PHA-STS-20)"
    assert reason(Event, "en") == "passed his VIT check (PHA-STS-20)"


def test_given_the_damage_parts_and_the_lines_then_each_has_its_spanish() -> None:
    assert all(isinstance(m, Message) and m.es is not None for m in PARTS.values())
    english_only = {"status data", "pm"}  # the same words in both: figures and names
    assert {code for code, m in LINE.items() if m.es is None} == english_only
