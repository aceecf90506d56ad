"""The home page's account (issue 18): a GM opens an account, sees its key once, starts fights
that are the account's, finds them listed (newest first, filtered by name), and on another
device opens them with the key alone. Phone and tablet."""

from __future__ import annotations

from typing import Any

from tests.web.conftest import PHONE, TABLET, screenshot


def start_fight(page: Any, name: str, ruleset: str = "novus") -> str:
    page.goto("/")
    page.fill("#name", name)
    page.select_option("#ruleset", ruleset)
    page.click("#create button[type=submit]")
    page.wait_for_url("**/e/*")
    return page.url.split("/e/")[1].split("#")[0]


def test_given_a_gm_when_he_opens_an_account_then_his_fights_are_listed_on_any_device(
    open_context: Any,
) -> None:
    # given a GM on his phone opening an account
    phone = open_context(PHONE).page()
    phone.goto("/")
    phone.fill("#account-name-input", "Marta")
    phone.click("#open-account button[type=submit]")
    phone.locator("#new-key").wait_for(state="visible")
    key = phone.locator("#key-text").inner_text()
    assert key.startswith("fl_account_")
    assert phone.locator("#account-name").inner_text() == "Marta"
    screenshot(phone, "home-account-key-phone")
    # when he starts two fights from this browser
    bridge = start_fight(phone, "Goblins at the bridge")
    start_fight(phone, "The crypt", ruleset="wits")
    # then the home page lists them, newest first, without the key shown again
    phone.goto("/")
    fights = phone.locator("#fights li a")
    fights.nth(1).wait_for()
    assert fights.all_inner_texts() == ["The crypt", "Goblins at the bridge"]
    assert phone.locator("#new-key").is_hidden()
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert "Novus" in phone.locator("#fights li").nth(1).inner_text()  # the book's title
    phone.evaluate("document.getElementById('account-title').scrollIntoView()")
    screenshot(phone, "home-account-phone")
    # and on a tablet, another device with nothing kept, the key alone opens them
    tablet = open_context(TABLET).page()
    tablet.goto("/")
    tablet.fill("#key-input", key)
    tablet.click("#use-key button[type=submit]")
    tablet.locator("#fights li a").nth(1).wait_for()
    tablet.fill("#filter-name", "goblin")
    tablet.locator("#fights li a").nth(1).wait_for(state="detached")
    assert tablet.locator("#fights li a").all_inner_texts() == ["Goblins at the bridge"]
    screenshot(tablet, "home-account-tablet")
    tablet.click("#fights li a")
    tablet.wait_for_url(f"**/e/{bridge}")
    # the account key is the GM's: the GM's screen opens, where combatants are added
    tablet.locator("section.area-add").wait_for(state="visible")
    assert tablet.locator("#fatal").is_hidden()
