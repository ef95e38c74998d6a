"""Headless Chromium for the browser tests: Debian's chromium, driven by Playwright.

Use in a test module: ``from browser import chromium_fixture, page_fixture  # noqa: F401``
then take ``chromium`` or ``page`` as arguments.

The browser is the system one (``/usr/bin/chromium``, installed with apt); Playwright's own
browser downloads are never used. Pages must not reach the network: every request that is
not ``file:``, ``data:`` or to 127.0.0.1 fails the test that made it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

CHROMIUM = os.environ.get("PRIME_NB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
#: How long ``expect`` waits for a state, as a page's own actions do: its 5 s default
#: failed on a loaded machine while a notebook's outputs were still being drawn. It waits
#: for the state, never longer, so a passing check takes no longer for it.
expect.set_options(timeout=30_000)

LOCAL_PREFIXES = ("file:", "data:", "blob:", "about:", "http://127.0.0.1", "ws://127.0.0.1")


#: The Chromium of the browser test modules that run one after another in this process:
#: (Playwright's context manager, the browser). Starting Playwright's driver cost more
#: than most modules' checks.
_SHARED: list[tuple[Any, Browser]] = []


def shared_chromium() -> Browser:
    """Debian's Chromium, headless, started by the first browser module of a run of them
    and kept for the next (:func:`stop_shared_chromium` ends it)."""
    if _SHARED and not _SHARED[0][1].is_connected():
        stop_shared_chromium()
    if not _SHARED:
        assert os.path.exists(CHROMIUM), f"{CHROMIUM} is missing: apt-get install -y chromium"
        manager = sync_playwright()
        playwright = manager.start()
        try:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        except BaseException:
            manager.__exit__(None, None, None)
            raise
        _SHARED.append((manager, browser))
    return _SHARED[0][1]


def stop_shared_chromium() -> None:
    """End the shared Chromium and Playwright, if started. Playwright's sync API marks
    its event loop as running in this thread while it is started, which other tests'
    asyncio would trip on: ``tests/conftest.py`` calls this before any test outside
    tests/browser, and when pytest ends."""
    while _SHARED:
        manager, browser = _SHARED.pop()
        try:
            browser.close()
        finally:
            manager.__exit__(None, None, None)


@pytest.fixture(scope="module", name="chromium")
def chromium_fixture() -> Iterator[Browser]:
    """Debian's Chromium, headless (:func:`shared_chromium`). Each module starts with no
    browser context open and leaves none: the contexts it opened are closed after it."""
    browser = shared_chromium()
    for context in browser.contexts:  # left by a module that failed mid-way
        context.close()
    try:
        yield browser
    finally:
        if browser.is_connected():
            for context in browser.contexts:
                context.close()


class PageWatch:
    """What a page did that a test may want to assert on: errors, dialogs, remote requests."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.remote: list[str] = []
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("console", self._console)
        page.on("dialog", self._dialog)
        page.on("request", self._request)

    def _console(self, msg: Any) -> None:
        if msg.type == "error":
            self.errors.append(msg.text)

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def _request(self, request: Any) -> None:
        if not request.url.startswith(LOCAL_PREFIXES):
            self.remote.append(request.url)


@pytest.fixture(name="page")
def page_fixture(chromium: Browser) -> Iterator[Page]:
    """A fresh page (own context) at 1280x800; closed after the test."""
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    pg = context.new_page()
    pg.set_default_timeout(20_000)
    try:
        yield pg
    finally:
        context.close()


DEBUG = "document.querySelector('.pnb-root').pnbDebug"


def stats(page: Page) -> dict[str, Any]:
    """The widget's own figures (entries, shown, nodes, selection, hits...)."""
    result: dict[str, Any] = page.evaluate(f"{DEBUG}.stats()")
    return result


def node_position(page: Page, entry_id: str, *, zoom: float | None = 1.0) -> dict[str, float]:
    """Page coordinates of an entry's node, centring it first."""
    page.evaluate(f"([id, k]) => {DEBUG}.centerOn(id, k)", [entry_id, zoom])
    pos: dict[str, float] | None = page.evaluate(f"(id) => {DEBUG}.screenPos(id)", entry_id)
    assert pos is not None, f"{entry_id} is not drawn"
    return pos


def wait_js(page: Page, predicate: str, arg: Any = None, timeout: float = 15.0) -> Any:
    """Wait until a JS function of ``arg`` returns something truthy; return it.

    Polls with ``page.evaluate`` rather than ``page.wait_for_function``: the latter runs its
    polling through eval in the page, which a strict Content-Security-Policy (the export's)
    forbids. The pauses between polls start at a hundredth of a second, about a frame, and
    double up to a twentieth: a state that comes soon is seen soon.
    """
    deadline = time.monotonic() + timeout
    pause = 10.0
    while True:
        value = page.evaluate(predicate, arg)
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {predicate} ({arg!r})")
        page.wait_for_timeout(pause)
        pause = min(2 * pause, 50.0)
