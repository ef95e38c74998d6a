"""What the browser tests share across modules and runs, and why it is safe to.

- The browser files go out before the others (``tests/xdist_spread.py``), so that a
  worker runs them one after another on the one Chromium they share.
- That Chromium marks Playwright's event loop as running in the thread; it is ended
  before any test outside tests/browser (``tests/conftest.py``), whose ``asyncio.run``
  would fail while it lives.
- The tests of a module take turns on one page (``browser.page_fixture``): what a test
  leaves (storage, routes, watches, viewport, document) is undone before the next.
- The 100k page with a view state is the plain page with the state written in
  (``big_session.with_state``): the very bytes ``export_html`` writes with that state.
- ``PRIME_NB_BUILT_ONCE`` names a folder several pytest runs share (``.ci/test``'s two
  phases), under a digest of the code the artefacts are built from.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
import run_cache
from big_session import with_state
from browser import (  # noqa: F401
    PageWatch,
    chromium_fixture,
    page_fixture,
    shared_chromium,
    stop_shared_chromium,
)
from playwright.sync_api import Browser, Page
from xdist_spread import COSTS, ordered_units

from prime_nb.widget._export import export_html
from sessiongen import write_shape
from tests.conftest import BROWSER_TESTS, pytest_runtest_setup


def test_browser_files_go_out_first_each_costliest_first() -> None:
    costly = max((f for f in COSTS if not f.startswith("tests/browser")), key=COSTS.get)
    collection = [
        f"{costly}::test_slow",
        "tests/browser/test_cheap_browser.py::test_a",
        "tests/browser/test_whole_session_browser.py::test_b",
        "tests/a.py::test_one",
    ]
    assert list(ordered_units(collection)) == [
        "tests/browser/test_whole_session_browser.py",
        "tests/browser/test_cheap_browser.py",
        costly,
        "tests/a.py",
    ]


def test_a_named_folder_is_shared_under_the_code_digest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    monkeypatch.setenv(run_cache.SHARED_ENV, str(tmp_path / "shared"))
    built: list[Path] = []

    def build(path: Path) -> None:
        built.append(path)
        path.write_text("made")

    first = run_cache.built_once(tmp_path_factory, "key", "big.jsonl", build)
    again = run_cache.built_once(tmp_path_factory, "key", "big.jsonl", build)
    assert first == again and len(built) == 1 and first.read_text() == "made"
    digest = run_cache._code_digest()
    assert first.parent.parent == tmp_path / "shared" / digest and len(digest) == 16


def test_a_state_written_into_a_page_is_what_export_html_writes(tmp_path: Path) -> None:
    session = write_shape(tmp_path / "branchy.jsonl", "branchy", 300)
    plain = export_html(session, tmp_path / "plain.html")
    for state in ({"view": "branches"}, {"view": "transcript", "filter": "all"}):
        made = with_state(plain, tmp_path / "made.html", state)
        exported = export_html(session, tmp_path / "exported.html", **state)
        assert made.read_bytes() == exported.read_bytes(), state


#: what the first of the two tests below left on the module's page
_LEFT: list[Any] = []


def test_a_test_may_leave_its_page_dirty(page: Page, tmp_path: Path) -> None:
    """The first of two: storage, a route, a watch, a viewport and a timeout left."""
    html = tmp_path / "dirty.html"
    html.write_text("<!doctype html><title>dirty</title>", "utf-8")
    page.goto(html.as_uri())
    page.evaluate("() => { localStorage.setItem('k', 'v'); sessionStorage.setItem('k', 'v'); }")
    page.route("**/*", lambda route: route.abort())
    page.set_viewport_size({"width": 500, "height": 300})
    page.set_default_timeout(1)
    _LEFT[:] = [page, PageWatch(page), html]


def test_the_next_test_gets_it_clean(page: Page) -> None:
    """The second: the same page, blank, with nothing of the first left."""
    assert _LEFT, "runs after test_a_test_may_leave_its_page_dirty"
    before, watch, html = _LEFT
    assert page is before and page.url == "about:blank"
    assert page.viewport_size == {"width": 1280, "height": 800}
    page.goto(html.as_uri())  # the route is gone, and the default timeout is back
    page.wait_for_function("() => document.title === 'dirty'")
    assert page.evaluate("() => [localStorage.length, sessionStorage.length]") == [0, 0]
    page.evaluate("() => console.error('after')")
    page.evaluate("() => new Promise((done) => setTimeout(done, 0))")
    assert watch.errors == []  # the first test's watch stopped listening


def test_the_shared_chromium_ends_before_a_test_outside_the_browser_tests(
    chromium: Browser, request: pytest.FixtureRequest
) -> None:
    """Last in this module: it ends the module's Chromium."""

    async def nothing() -> int:
        return 1

    assert shared_chromium() is chromium and chromium.is_connected()
    # while it lives, asyncio.run in this thread fails: why it must end
    refused = nothing()
    with pytest.raises(RuntimeError, match="running event loop"):
        asyncio.run(refused)
    refused.close()
    pytest_runtest_setup(request.node)  # a browser test: it stays
    assert chromium.is_connected()

    class Elsewhere:
        path = BROWSER_TESTS.parent / "test_other.py"

    pytest_runtest_setup(Elsewhere())  # type: ignore[arg-type]  # only .path is read
    assert not chromium.is_connected()
    assert asyncio.run(nothing()) == 1
