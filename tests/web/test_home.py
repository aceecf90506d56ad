"""The home page fits a phone and is keyboard-operable; the API docs render from this server
alone (vendored Swagger UI and ReDoc)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.web.conftest import LAPTOP, PHONE, screenshot


def test_given_a_phone_then_the_home_page_fits_and_is_keyboard_operable(open_context: Any) -> None:
    page = open_context(PHONE).page()
    page.goto("/")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"]  # nothing runs off the side
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.tagName") in ("A", "INPUT")
    screenshot(page, "home-phone")


@pytest.mark.parametrize("path", ["/docs", "/redoc"])
def test_given_the_api_docs_then_they_render_with_nothing_from_another_host(
    open_context: Any, path: str
) -> None:
    page = open_context(LAPTOP).page()
    page.goto(path)
    # an operation's summary, drawn from /openapi.json by the vendored script (ReDoc lays
    # out the whole document first: 26 s on a slow 2-core machine, hence the long wait)
    page.get_by_text("Run Command").first.wait_for(state="attached", timeout=90_000)
