"""The web table in a real browser: Playwright drives Debian's chromium headless against a
real fraylog server (uvicorn in a thread, SQLite, tokens on). Where chromium or Playwright
is missing the tests are skipped with the reason; in CI (CI=true) they fail instead, since
.ci/run installs chromium. Every page is watched: a console error, an uncaught exception or
a request to another host fails the test."""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
import uvicorn

from api.main import create_app
from infra.settings import Settings
from tests.builders import free_port

CHROMIUM = os.environ.get("FRAYLOG_CHROMIUM", "/usr/bin/chromium")
IN_CI = os.environ.get("CI", "") not in ("", "0", "false")
SCREENS = Path(__file__).resolve().parents[2] / "docs" / "screens"
PHONE = {"width": 390, "height": 844}
TABLET = {"width": 1024, "height": 768}
LAPTOP = {"width": 1366, "height": 900}


def _missing() -> str | None:
    if not Path(CHROMIUM).exists() and shutil.which("chromium") is None:
        return f"no chromium at {CHROMIUM} (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright (Python) is not installed"
    return None


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    missing = _missing()
    if missing:
        if IN_CI:
            pytest.fail(f"CI runs the browser tests: {missing}")
        pytest.skip(missing)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(
            executable_path=CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium"),
            args=["--no-sandbox"],
        )
        yield chromium
        chromium.close()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """A fraylog server on a free loopback port, tokens on, its own SQLite file."""
    with serving(Settings(sqlite_path=str(tmp_path / "web.db"), heartbeat_seconds=1)) as base:
        yield base


@contextmanager
def serving(settings: Settings) -> Iterator[str]:
    """A fraylog server with `settings` on a free loopback port, while the block runs: its
    base URL."""
    port = free_port()
    app = create_app(settings)
    # idle connections kept for 5 minutes, not uvicorn's 5 s: a test's client that waited on
    # the browser longer than that could send on a connection the server was closing
    # (ECONNRESET; httpx does not send a request again)
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", timeout_keep_alive=300
    )
    running = uvicorn.Server(config)
    thread = threading.Thread(target=running.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not running.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}"
    running.should_exit = True
    thread.join(timeout=10)


class Watched:
    """A browser context whose pages report console errors, page errors and requests to
    any host but the server's."""

    def __init__(self, context: Any, base: str) -> None:
        self.context = context
        self.base = base
        self.problems: list[str] = []
        host = urlparse(base).netloc
        context.on("request", lambda r: self._request(r.url, host))

    def _request(self, url: str, host: str) -> None:
        parsed = urlparse(url)
        if parsed.scheme in ("http", "https", "ws", "wss") and parsed.netloc != host:
            self.problems.append(f"request to another host: {url}")

    def page(self) -> Any:
        page = self.context.new_page()
        page.on(
            "console",
            lambda m: (
                self.problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None
            ),
        )
        page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        return page


@pytest.fixture
def open_context(browser: Any, server: str) -> Iterator[Any]:
    """`open_context(viewport)`: a new watched browser context (its own storage, like
    another device); the test fails if any of its pages misbehaved."""
    made: list[Watched] = []

    def make(viewport: dict[str, int] = LAPTOP) -> Watched:
        context = browser.new_context(viewport=viewport, base_url=server)
        watched = Watched(context, server)
        made.append(watched)
        return watched

    yield make
    problems = [p for w in made for p in w.problems]
    for w in made:
        w.context.close()
    assert not problems, problems


def screenshot(page: Any, name: str) -> Path:
    """Save a screenshot into docs/screens/ (shown in the README and docs/web.md)."""
    SCREENS.mkdir(parents=True, exist_ok=True)
    path = SCREENS / f"{name}.png"
    page.screenshot(path=str(path), full_page=False)
    return path
