"""A huge hostile message (200 kB of ``*a``) opens without freezing the page."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser import (  # noqa: F401
    PageWatch,
    chromium_fixture,
    node_position,
    page_fixture,
    wait_drawn,
    wait_js,
)
from conftest import header, msg, write_lines
from playwright.sync_api import Page, expect

from prime_nb.widget._export import export_html

#: the longest the page may go without running a 10 ms timer: it froze for 7-14 s before;
#: a piece takes ~0.1 s, and the headroom is for a loaded CI machine
MAX_GAP_MS = 3000
HUGE = "*a" * 100_000

PROBE = """() => {
  window.__gaps = [];
  let last = performance.now();
  window.__probe = setInterval(() => {
    const now = performance.now();
    window.__gaps.push(now - last);
    last = now;
  }, 10);
}"""
MAX_GAP = "() => Math.max(0, ...window.__gaps)"


@pytest.fixture(scope="module")
def huge_export(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("huge")
    path = write_lines(
        folder / "huge.jsonl",
        [
            header(),
            msg("u1", None, "user", "hello"),
            msg("a1", "u1", "assistant", HUGE, 1),
            msg("u2", "a1", "user", "thanks", 2),
        ],
    )
    return export_html(path, folder / "huge.html")


def test_opening_a_200kb_emphasis_message_keeps_the_page_responsive(
    page: Page, huge_export: Path
) -> None:
    watch = PageWatch(page)
    page.goto(huge_export.as_uri())
    wait_drawn(page)
    pos = node_position(page, "a1")
    page.evaluate(PROBE)
    page.mouse.click(pos["x"], pos["y"])
    panel = page.locator(".pnb-panel")
    expect(panel).to_have_attribute("data-entry-id", "a1")
    expect(panel.locator(".pnb-md").first).to_contain_text("a", timeout=60_000)
    # a few more ticks of the probe after the first render (a freeze there delays them)
    ticks = page.evaluate("() => window.__gaps.length")
    wait_js(page, "(n) => window.__gaps.length >= n", ticks + 5)
    opened = page.evaluate(MAX_GAP)
    assert opened < MAX_GAP_MS, f"the page froze for {opened:.0f} ms opening the message"
    more = panel.get_by_role("button", name="Show all (200,000 chars)")
    expect(more).to_be_visible()
    first = panel.locator(".pnb-md").first.inner_text()
    assert 0 < first.count("a") < 100_000  # a first part, rendered as markdown

    page.evaluate("() => { window.__gaps = []; }")
    more.click()
    expect(more).to_have_count(0, timeout=120_000)  # the rest arrives a piece at a time
    rest = page.evaluate(MAX_GAP)
    assert rest < MAX_GAP_MS, f"the page froze for {rest:.0f} ms showing the rest"
    text = panel.locator(".pnb-md").first.evaluate("(el) => el.textContent")
    assert text.count("a") == 100_000  # every char of the message is shown
    page.evaluate("() => clearInterval(window.__probe)")
    assert watch.errors == [] and watch.dialogs == [] and watch.remote == []
