"""Each rule book's presentation (`table` in GET /rulesets/{name}, its table.py): served
with the book's title and languages, and naming only fields its combatant view has, so
the web table, which reads the view by these names, shows no blank a typo would make."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.registered import combatant_model
from domain.presentation import Table
from domain.rulesystems import get_rule_system, register, rulesets, unregister
from tests.skirmish.system import SkirmishRules

BOOKS = ("novus", "wits", "phantasia", "skirmish")


@pytest.fixture(autouse=True)
def skirmish() -> Iterator[None]:
    register(SkirmishRules())
    yield
    unregister("skirmish")


def view_fields(book: str) -> set[str]:
    model = combatant_model(get_rule_system(book).view_model)
    return {f.alias or name for name, f in model.model_fields.items()}


def named_fields(table: Table) -> set[str]:
    """Every view field the presentation reads (a dotted one by its first part)."""
    figures = [*table.card.stats, *table.replay.facts, *([table.order] if table.order else [])]
    marks = [*table.card.tags, *table.card.state, *table.replay.flags]
    names = {table.health.current, table.health.maximum, *table.replay.fields}
    names |= {f for figure in figures for f in figure.fields}
    names |= {m.field for m in marks} | {f for m in marks for f in m.unless}
    names |= {table.card.statuses} if table.card.statuses else set()
    return {name.split(".")[0] for name in names}


@pytest.mark.parametrize("book", BOOKS)
def test_given_a_books_presentation_then_it_reads_only_fields_its_view_has(book: str) -> None:
    # given the presentation the book serves
    table = Table.model_validate(get_rule_system(book).describe()["table"])
    # then every field it names is one of its combatant view's
    assert named_fields(table) <= view_fields(book), named_fields(table) - view_fields(book)
    # and its example stat block is one the book accepts, its key stats among the stats
    stats, _, _ = get_rule_system(book).new_combatant(table.example)
    assert set(table.key_stats or []) <= set(stats)


@pytest.mark.parametrize("book", BOOKS)
def test_given_get_rulesets_name_then_table_has_the_books_title_and_languages(
    book: str, sqlite_client: TestClient
) -> None:
    # when a client reads the book's description
    described: dict[str, Any] = sqlite_client.get(f"/rulesets/{book}").json()
    served = described["table"]
    # then it is named as its readers spell it, as GET /rulesets names it too
    rules = get_rule_system(book)
    assert described["title"] == rules.title
    listed = sqlite_client.get("/rulesets").json()["rulesets"]
    assert {"name": book, "title": rules.title} in listed
    # and its table is titled and offers the languages its log reads in
    assert served["title"] in (rules.title, rules.table.title if rules.table else None)
    assert served["languages"] == list(rules.languages)
    assert served["health"]["label"]


def test_given_a_book_that_declares_no_presentation_then_its_health_is_shown_under_its_word() -> (
    None
):
    # given a rule system with no table of its own
    class Bare(SkirmishRules):
        name = "bare"
        title = "Bare"
        table = None

    # when it is described
    served = Bare().describe()["table"]
    # then the table shows its title and its hits under its own word, nothing more
    assert served["title"] == "Bare" and served["languages"] == ["en"]
    assert served["health"] == {"label": "Hits", "current": "hits", "maximum": "max_hits"}
    assert served["order"] is None and served["card"]["stats"] == []


def test_given_get_rulesets_then_every_playable_book_is_listed_with_its_title(
    sqlite_client: TestClient,
) -> None:
    # when a client asks which rule books the server plays
    listed = sqlite_client.get("/rulesets").json()["rulesets"]
    # then each registered one, fraylog's own first, with its title
    assert [b["name"] for b in listed] == list(rulesets())
    assert {b["name"]: b["title"] for b in listed}["skirmish"] == "Skirmish"
