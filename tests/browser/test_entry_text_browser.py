"""Entry text in the page: search ends with Escape, hits in Thinking show, tables keep
whole words in a narrow panel, tool arguments read as text, and the Transcript does not
repeat its entry in the side panel. An exported page of a small hand-made session."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browser import DEBUG, PageWatch, chromium_fixture, page_fixture, stats, wait_drawn, wait_js  # noqa: F401
from conftest import header, msg, write_lines
from playwright.sync_api import Page, expect

import prime_nb
from prime_nb.widget._export import export_html

TABLE = (
    "| setting | meaning |\n|---|---|\n"
    "| concurrency | how many workers download simultaneously |\n"
    "| retention | how long checkpoints survive before deletion |"
)
# The entries in file order: their rows in the page.
ROWS = ["u0000000", "a0000000", "r0000000", "t0000000"]
ARGS = {"path": "notes/plan.md", "content": "first line\nsecond line <b>not bold</b>"}


def thinking_turn(entry_id: str, parent: str) -> dict[str, Any]:
    entry = msg(entry_id, parent, "assistant", "I will write the plan.")
    entry["message"]["content"] = [
        {"type": "thinking", "thinking": "The flakiness comes from the retry loop."},
        {"type": "text", "text": "I will write the plan."},
        {"type": "toolCall", "id": "call_1", "name": "write", "arguments": ARGS},
    ]
    return entry


@pytest.fixture(scope="module")
def html(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("entry-text")
    result = msg("r0000000", "a0000000", "toolResult", "written", toolCallId="call_1")
    result["message"].update({"toolName": "write", "isError": False})
    path = write_lines(
        folder / "s.jsonl",
        [
            header(),
            msg("u0000000", None, "user", "Why do the tests fail?"),
            thinking_turn("a0000000", "u0000000"),
            result,
            msg("t0000000", "r0000000", "assistant", f"The settings:\n\n{TABLE}"),
        ],
    )
    session = prime_nb.load(path)
    assert list(session.entries.index) == ROWS
    return export_html(session, folder / "s.html")


def open_page(page: Page, html: Path) -> PageWatch:
    watch = PageWatch(page)
    page.goto(html.as_uri())
    wait_drawn(page)
    return watch


def select(page: Page, entry_id: str) -> None:
    """Select an entry as a click would, and wait for the panel to show it."""
    page.evaluate(f"(i) => {DEBUG}.selectIndex(i)", ROWS.index(entry_id))
    expect(page.locator(".pnb-panel")).to_have_attribute("data-entry-id", entry_id)


def test_escape_ends_the_search(page: Page, html: Path) -> None:
    watch = open_page(page, html)
    box = page.locator(".pnb-search-input")
    box.fill("retry")
    box.press("Enter")
    wait_js(page, f"() => {DEBUG}.stats().hits > 0")
    count = page.locator(".pnb-search-count")
    expect(count).not_to_have_text("")
    box.press("Escape")
    expect(count).to_have_text("")
    expect(box).to_have_value("")
    wait_js(page, f"() => {DEBUG}.stats().hits === 0")
    assert page.evaluate("() => document.activeElement.classList.contains('pnb-root')")
    assert watch.errors == []


def test_a_hit_in_thinking_is_shown_in_the_panel_and_transcript(page: Page, html: Path) -> None:
    watch = open_page(page, html)
    box = page.locator(".pnb-search-input")
    box.fill("flakiness")
    box.press("Enter")
    wait_js(page, f"() => {DEBUG}.stats().hits === 1")
    select(page, "a0000000")
    panel = page.locator(".pnb-panel")
    expect(panel).to_have_attribute("data-loaded", "1")
    thinking = panel.locator("details.pnb-thinking")
    expect(thinking).to_have_attribute("open", "")
    expect(thinking).to_contain_text("The flakiness comes from the retry loop.")
    page.locator(".pnb-seg-btn", has_text="Transcript").click()
    item = page.locator('.pnb-tx-item[data-entry-id="a0000000"]')
    expect(item).to_have_attribute("data-loaded", "1")
    expect(item.locator("details.pnb-thinking")).to_have_attribute("open", "")
    assert watch.errors == []


def test_tool_arguments_read_as_text_with_line_breaks(page: Page, html: Path) -> None:
    watch = open_page(page, html)
    select(page, "a0000000")
    args = page.locator(".pnb-panel .pnb-args")
    expect(args).to_have_text(
        "path: notes/plan.md\ncontent: |\n  first line\n  second line <b>not bold</b>"
    )
    assert page.locator(".pnb-panel .pnb-args b").count() == 0
    assert "\\n" not in args.inner_text()
    assert watch.errors == []


def test_a_narrow_panel_keeps_table_words_whole(page: Page, html: Path) -> None:
    watch = open_page(page, html)
    select(page, "t0000000")
    panel = page.locator(".pnb-panel")
    expect(panel.locator(".pnb-md table")).to_have_count(1)
    page.evaluate("() => { document.querySelector('.pnb-panel').style.width = '240px'; }")
    # Every word of every cell on one line: a word broken in the middle has two boxes.
    broken = page.evaluate(
        """() => {
          const out = [];
          const cells = document.querySelectorAll('.pnb-panel .pnb-md td, .pnb-panel .pnb-md th');
          for (const cell of cells) {
            const text = cell.firstChild;
            if (!text || text.nodeType !== 3) continue;
            const re = /\\S+/g;
            let m;
            while ((m = re.exec(text.data))) {
              const r = document.createRange();
              r.setStart(text, m.index);
              r.setEnd(text, m.index + m[0].length);
              const lines = new Set(Array.from(r.getClientRects(), (b) => Math.round(b.top)));
              if (lines.size > 1) out.push(m[0]);
            }
          }
          return out;
        }"""
    )
    assert broken == []
    assert watch.errors == []


def test_the_transcript_does_not_repeat_its_entry_in_the_panel(page: Page, html: Path) -> None:
    watch = open_page(page, html)
    select(page, "u0000000")
    panel = page.locator(".pnb-panel")
    expect(panel).to_be_visible()
    page.locator(".pnb-seg-btn", has_text="Transcript").click()
    expect(page.locator(".pnb-transcript")).to_be_visible()
    expect(panel).to_be_hidden()
    assert stats(page)["selected"] == "u0000000"
    # a header click selects without opening the panel either
    page.locator('.pnb-tx-item[data-entry-id="t0000000"] .pnb-tx-bar').click()
    wait_js(page, f"() => {DEBUG}.stats().selected === 't0000000'")
    expect(panel).to_be_hidden()
    assert watch.errors == []
