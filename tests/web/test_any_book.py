"""Any rule book shows on the web table as it declares (its `table` in GET /rulesets/{name},
domain/presentation.py): the tests' fourth book, the skirmish (tests/skirmish), registered
on a real server as FRAYLOG_RULE_BOOKS would, shows its title, its health measure, its
figures, its order and its state on the table and in the replay, with no file of the web
table naming it (issue 17)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from domain.rulesystems import unregister
from infra.settings import Settings
from tests.web.conftest import PHONE, TABLET, screenshot, serving
from tests.web.test_replay import Fight, open_replay
from tests.web.test_table import add_combatant, start_fight

SKIRMISH = "tests.skirmish.system:SkirmishRules"
WOLF = {"fight": 3, "guard": 2, "hits": 3}
BEAR = {"fight": 1, "guard": 4, "hits": 4}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """conftest's server, with the skirmish registered (FRAYLOG_RULE_BOOKS) and forgotten
    after the test."""
    settings = Settings(
        sqlite_path=str(tmp_path / "web.db"), heartbeat_seconds=1, rule_books=(SKIRMISH,)
    )
    with serving(settings) as base:
        yield base
    unregister("skirmish")


def den(base: str) -> Fight:
    """A skirmish on the table's dice: the wolf (initiative 4 + 3) and the bear (5 + 1)."""
    f = Fight(base, "skirmish", "The den")
    f.add("Wolf", WOLF, "wolves")
    f.add("Bear", BEAR, "bears")
    f.cmd({"type": "roll_initiative", "dice": {"initiative:Wolf": [4], "initiative:Bear": [5]}})
    return f


def open_table(page: Any, f: Fight) -> None:
    page.goto(f"/e/{f.id}#token={f.gm}")
    page.wait_for_selector("body[data-ready=true]", timeout=10_000)


def test_given_a_registered_fourth_book_then_the_table_shows_its_measure_and_order(
    open_context: Any,
) -> None:
    # given the skirmish's wolf and bear, initiative rolled (SKR-INIT-1: 7 and 6)
    f = den(open_context(TABLET).base)
    # when the GM opens the table
    gm = open_context(TABLET).page()
    open_table(gm, f)
    # then the header says the book's title, and each card its health measure and figures
    expect(gm.locator("#enc-book")).to_have_text("Skirmish")
    wolf = gm.locator('article.card[data-name="Wolf"]')
    expect(wolf.locator(".stat.big dt")).to_have_text("Hits")
    expect(wolf.locator(".stat.big dd")).to_have_text("3 / 3")
    assert wolf.get_by_role("meter").get_attribute("aria-label") == "Hits"
    figures = dict(
        zip(
            wolf.locator(".stat dt").all_inner_texts(),
            wolf.locator(".stat dd").all_inner_texts(),
            strict=True,
        )
    )
    assert figures == {"Hits": "3 / 3", "Fight": "3", "Guard": "2"}
    # and the order column its initiative, highest first; no Spanish switch (its log is English)
    order = gm.locator("#order li")
    expect(order).to_have_count(2)
    expect(order.nth(0)).to_contain_text("Wolf")
    expect(order.nth(0)).to_contain_text("Init. 7")
    expect(order.nth(1)).to_contain_text("Init. 6")
    assert gm.locator("#lang-wrap").is_hidden()
    # and the form to add a combatant asks for its stats, filled from its example
    expect(gm.locator("#stat-fight")).to_have_value("3")
    expect(gm.locator("#stat-hits")).to_have_value("3")

    # when the wolf strikes the bear for 2 (SKR-STR-3: a natural 6), from another device
    f.cmd(
        {
            "type": "strike",
            "combatant": f.ids["Wolf"],
            "target": f.ids["Bear"],
            "dice": {"strike": [6]},
        }
    )
    # then the live feed brings it: the bear's hits, the wolf's tag
    bear = gm.locator('article.card[data-name="Bear"]')
    expect(bear.locator(".stat.big dd")).to_have_text("2 / 4")
    expect(wolf.locator(".tags")).to_have_text("struck this round")
    screenshot(gm, "any-book-gm-tablet")

    # and on a phone the card fits the screen
    phone = open_context(PHONE).page()
    open_table(phone, f)
    expect(phone.locator('article.card[data-name="Bear"] .stat.big dd')).to_have_text("2 / 4")
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_given_a_registered_fourth_book_then_the_replay_shows_its_measure_and_facts(
    open_context: Any,
) -> None:
    # given the skirmish, the bear struck down to 2 and then to 0 (SKR-DOWN-1)
    watched = open_context(TABLET)
    f = den(watched.base)
    wolf, bear = f.ids["Wolf"], f.ids["Bear"]
    f.cmd({"type": "strike", "combatant": wolf, "target": bear, "dice": {"strike": [6]}})
    f.cmd({"type": "strike", "combatant": bear, "target": wolf, "dice": {"strike": [3]}})
    f.cmd({"type": "end_round"})
    f.cmd({"type": "strike", "combatant": wolf, "target": bear, "dice": {"strike": [6]}})
    # when the replay opens
    page = watched.page()
    open_replay(page, f)
    # then it names the book, its measure on each card and the chart, its facts and flags
    expect(page.locator("#book")).to_have_text("Skirmish")
    assert page.locator(".card .meter-label span").first.inner_text() == "Hits"
    assert "Hits" in page.locator("#chart svg text.label").all_text_contents()
    card = page.locator(f".card[data-combatant='{bear}']")
    expect(card.locator(".meter-label .value")).to_have_text("0 / 4")
    facts = dict(
        zip(card.locator("dt").all_inner_texts(), card.locator("dd").all_inner_texts(), strict=True)
    )
    assert facts == {"Initiative": "6", "Guard": "4"}
    expect(card.locator(".flag")).to_have_text(["down"])
    assert page.locator("#lang-row").is_hidden()


def test_given_a_registered_fourth_book_then_the_home_page_starts_it_and_the_form_adds_to_it(
    open_context: Any,
) -> None:
    # given the home page of a server that plays the skirmish beside fraylog's own books
    page = open_context(PHONE).page()
    # when the GM starts a skirmish and adds two fighters through the form
    start_fight(page, "skirmish")
    add_combatant(page, "Wolf", "wolves", {"fight": "3", "guard": "2", "hits": "3"}, None)
    add_combatant(page, "Bear", "bears", {"fight": "1", "guard": "4", "hits": "4"}, None)
    # then the table is the skirmish's, each fighter with his hits and his figures
    expect(page.locator("#enc-book")).to_have_text("Skirmish")
    bear = page.locator('article.card[data-name="Bear"]')
    expect(bear.locator(".stat.big dd")).to_have_text("4 / 4")
    expect(bear.locator(".stat dd").nth(2)).to_have_text("4")  # his guard
    expect(page.locator("#order li")).to_have_text(["No order yet: roll initiative."])
