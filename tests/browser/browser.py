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
import weakref
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect, sync_playwright

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
    """What a page did that a test may want to assert on: errors, dialogs, remote requests.
    It listens until the test that made it ends (:func:`page_fixture`)."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.remote: list[str] = []
        self._on_error = lambda e: self.errors.append(str(e))
        page.on("pageerror", self._on_error)
        page.on("console", self._console)
        page.on("dialog", self._dialog)
        page.on("request", self._request)
        _WATCHES.setdefault(page, []).append(self)

    def close(self) -> None:
        """Stop listening: the page goes on to another test."""
        self.page.remove_listener("pageerror", self._on_error)
        self.page.remove_listener("console", self._console)
        self.page.remove_listener("dialog", self._dialog)
        self.page.remove_listener("request", self._request)

    def _console(self, msg: Any) -> None:
        if msg.type == "error":
            self.errors.append(msg.text)

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def _request(self, request: Any) -> None:
        if not request.url.startswith(LOCAL_PREFIXES):
            self.remote.append(request.url)


#: the watches on each page, closed when its test ends
_WATCHES: weakref.WeakKeyDictionary[Page, list[PageWatch]] = weakref.WeakKeyDictionary()
#: each module's page (:func:`page_fixture`), by module name
_PAGES: dict[str, Page] = {}
VIEWPORT: ViewportSize = {"width": 1280, "height": 800}


@pytest.fixture(name="page")
def page_fixture(chromium: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    """A page at 1280x800 on a blank document, for one test. The tests of a module take
    turns on one page: a new browser context and page cost more than most tests' checks.
    What a test leaves is undone after it: its watches and routes, the storage of the
    document it ended on (the widget keeps the legend and panel width there), and the
    document itself (about:blank); its viewport and timeout are set again before the
    next. The page's init scripts stay: the ones these tests add only record what the
    canvas draws. The module's contexts close after it (:func:`chromium_fixture`)."""
    module = request.module.__name__
    pg = _PAGES.get(module)
    if pg is None or pg.is_closed() or pg.context.browser is not chromium:
        pg = _PAGES[module] = chromium.new_context(viewport=VIEWPORT).new_page()
    pg.set_viewport_size(VIEWPORT)
    pg.set_default_timeout(20_000)
    pg.set_default_navigation_timeout(20_000)
    try:
        yield pg
    finally:
        for watch in _WATCHES.pop(pg, []):
            watch.close()
        if pg.is_closed() or not chromium.is_connected():
            _PAGES.pop(module, None)
        else:
            try:
                pg.unroute_all(behavior="ignoreErrors")
                pg.evaluate(CLEAR_STORAGE)
                pg.goto("about:blank")
            except Exception:  # a page the test broke: the next one gets a new one
                pg.context.close()
                _PAGES.pop(module, None)


#: empties the current document's local and session storage (none on about:blank)
CLEAR_STORAGE = """() => {
  for (const name of ["localStorage", "sessionStorage"]) {
    try { window[name].clear(); } catch (e) { /* an opaque origin: no storage */ }
  }
}"""


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


#: resolves once the page has a drawn widget (``.pnb-root[data-drawn]``), checked on each
#: frame (or each tenth of a second if frames stop); rejects after ``timeout`` ms
DRAWN = """async (timeout) => {
  const end = performance.now() + timeout;
  while (!document.querySelector('.pnb-root[data-drawn]')) {
    if (performance.now() > end) throw new Error(`no drawn widget after ${timeout} ms`);
    await new Promise((done) => { requestAnimationFrame(done); setTimeout(done, 100); });
  }
}"""


def wait_drawn(page: Page, timeout: float = 20_000) -> None:
    """Wait until the page's widget has drawn (``.pnb-root[data-drawn]``), ``timeout``
    in ms. In the page's own script, as :func:`wait_js` does: ``wait_for_selector`` first
    injects Playwright's selector engine into each new document, a cost of its own on
    every page load that checks only the canvas after it."""
    page.evaluate(DRAWN, timeout)


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
