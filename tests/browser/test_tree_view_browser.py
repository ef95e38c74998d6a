"""The commit-graph tree view in a real Chromium, with fixed assertions (issue 13).

On the bundled demo session: no two drawn text boxes overlap, every row on screen has its
text once zoomed in, Fit shows every branch, a hostile file's problems are counted and
listed with line numbers, and a plain wheel scrolls the page while Ctrl+wheel zooms.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browser import DEBUG, PageWatch, chromium_fixture, page_fixture, stats, wait_drawn, wait_js  # noqa: F401
from playwright.sync_api import Page

import prime_nb
from prime_nb.datasets import demo_session_path
from prime_nb.widget._export import export_html
from tests.session_matrix import write_case


@pytest.fixture(scope="module")
def demo_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return export_html(demo_session_path(), tmp_path_factory.mktemp("tree") / "demo.html")


def open_page(page: Page, html: Path) -> PageWatch:
    watch = PageWatch(page)
    page.goto(html.as_uri())
    wait_drawn(page)
    return watch


def settled_draw(page: Page) -> dict[str, Any]:
    """Draw until no text is still being fetched; the last draw's figures."""
    wait_js(
        page,
        f"() => {{ {DEBUG}.drawNow(); const d = {DEBUG}.stats().lastDraw; "
        "return d && d.missingLines && d.missingLines.length === 0; }",
    )
    page.evaluate(f"{DEBUG}.drawNow()")
    return stats(page)["lastDraw"]


#: make the page taller than the window, so that it can scroll
TALL_PAGE = """() => {
  const spacer = document.createElement('div');
  spacer.style.height = '3000px';
  document.body.append(spacer);
}"""


def overlaps(boxes: list[dict[str, float]]) -> list[tuple[int, int]]:
    out = []
    for a in range(len(boxes)):
        for b in range(a + 1, len(boxes)):
            p, q = boxes[a], boxes[b]
            if (
                p["x"] < q["x"] + q["w"]
                and q["x"] < p["x"] + p["w"]
                and p["y"] < q["y"] + q["h"]
                and q["y"] < p["y"] + p["h"]
            ):
                out.append((p["row"], q["row"]))
    return out


def test_overlap_check_can_fail() -> None:
    a = {"row": 1, "x": 0, "y": 0, "w": 10, "h": 10}
    assert overlaps([a, {**a, "row": 2, "x": 9}]) == [(1, 2)]
    assert overlaps([a, {**a, "row": 2, "x": 10}]) == []


def test_no_text_boxes_overlap_at_fit_and_zoomed_in(page: Page, demo_page: Path) -> None:
    watch = open_page(page, demo_page)
    draw = settled_draw(page)
    assert draw["texts"], "the overview draws no text at all"
    assert overlaps(draw["texts"]) == []
    session = prime_nb.load(demo_session_path())
    for entry_id in [session.leaf_id, *session.leaves.index[:3]]:
        page.evaluate(f"([id]) => {DEBUG}.centerOn(id, 1)", [entry_id])
        draw = settled_draw(page)
        assert overlaps(draw["texts"]) == []
    assert watch.errors == []


def test_every_row_on_screen_has_its_text(page: Page, demo_page: Path) -> None:
    open_page(page, demo_page)
    session = prime_nb.load(demo_session_path())
    ids: list[str] = page.evaluate(f"{DEBUG}.rowIds()")
    for entry_id in (ids[0], ids[len(ids) // 2], session.leaf_id):
        page.evaluate(f"([id]) => {DEBUG}.centerOn(id, 1)", [entry_id])
        draw = settled_draw(page)
        rows = page.evaluate(f"{DEBUG}.rowsInView()")
        assert len(rows) >= 10
        with_text = {box["row"] for box in draw["texts"]}
        assert set(rows) <= with_text, f"rows without text: {sorted(set(rows) - with_text)}"


def test_fit_shows_every_branch(page: Page, demo_page: Path) -> None:
    open_page(page, demo_page)
    session = prime_nb.load(demo_session_path())
    page.evaluate(f"{DEBUG}.centerOn({session.leaf_id!r}, 2)")
    page.evaluate(f"{DEBUG}.fit()")
    xs = set()
    for leaf in session.leaves.index:
        pos = page.evaluate(f"(id) => {DEBUG}.screenPos(id)", leaf)
        assert pos is not None, f"leaf {leaf} is off screen after Fit"
        xs.add(round(pos["x"]))
    # the active path has a lane of its own; side branches sit in other lanes, apart
    assert len(xs) >= 2
    assert min(b - a for a, b in zip(sorted(xs), sorted(xs)[1:], strict=False)) >= 10
    # and Fit is a readable overview: the branches' first prompts are written
    assert len(settled_draw(page)["texts"]) >= len(session.leaves)


def test_problems_are_counted_and_listed_by_line(page: Page, tmp_path: Path) -> None:
    path = write_case("odd-orphan-and-cycle", tmp_path)
    session = prime_nb.load(path)
    assert len(session.problems) == 3
    watch = open_page(page, export_html(path, tmp_path / "hostile.html"))
    button = page.locator(".pnb-problems-btn")
    assert button.is_visible()
    assert button.inner_text() == "⚠ 3 problems"
    button.click()
    items = page.locator(".pnb-problem")
    assert items.count() == 3
    lines = [items.nth(k).locator(".pnb-problem-line").inner_text() for k in range(3)]
    assert lines == [f"line {n}" for n in session.problems["line"]]
    items.nth(0).locator("button").click()
    orphan = session.problems["entry_id"].iloc[0]
    wait_js(page, f"(id) => {DEBUG}.stats().selected === id", orphan)
    # the list stays open while its entries are visited
    assert page.locator(".pnb-problem").count() == 3
    draw = settled_draw(page)
    assert draw["texts"]
    assert watch.errors == []


def test_problem_count_hidden_for_a_clean_file(page: Page, demo_page: Path) -> None:
    open_page(page, demo_page)
    assert not page.locator(".pnb-problems-btn").is_visible()


def test_plain_wheel_scrolls_the_page_ctrl_wheel_zooms(page: Page, demo_page: Path) -> None:
    open_page(page, demo_page)
    page.evaluate(TALL_PAGE)
    box = page.locator(".pnb-canvas").bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    before = stats(page)["transform"]
    page.mouse.wheel(0, 300)
    wait_js(page, "() => window.scrollY > 0")
    assert stats(page)["transform"] == before
    page.evaluate("window.scrollTo(0, 0)")
    wait_js(page, "() => window.scrollY === 0")
    box = page.locator(".pnb-canvas").bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.keyboard.down("Control")
    page.mouse.wheel(0, -200)
    page.keyboard.up("Control")
    wait_js(page, f"(k) => {DEBUG}.stats().transform.k > k", before["k"])
    assert page.evaluate("window.scrollY") == 0


#: deliver an "append" message as the kernel does when watch=True reads new lines
APPEND = """([ids, parentRow]) => {
  const n = ids.length;
  const cols = DBG.stats().n;
  // the first new entry hangs off parentRow, each next one off the one before
  const parent = Int32Array.from(ids, (_, j) => (j === 0 ? parentRow : cols + j - 1));
  const msg = {
    type: "append", n, id_list: ids, active_leaf: cols + n - 1,
    parent: new DataView(parent.buffer), kind: new DataView(new Uint8Array(n).buffer),
    flags: new DataView(new Uint8Array(n).buffer),
    tokens: new DataView(new Uint32Array(n).buffer),
    time: new DataView(new Float32Array(n).fill(1e6).buffer),
  };
  DBG.model.emit("msg:custom", msg, undefined);
}""".replace("DBG", DEBUG)


def test_new_entries_are_followed_or_counted(page: Page, demo_page: Path) -> None:
    watch = open_page(page, demo_page)
    session = prime_nb.load(demo_session_path())
    last_row = len(session.entries) - 1
    ids: list[str] = page.evaluate(f"{DEBUG}.rowIds()")
    # reading the top of the session, zoomed in so that the newest entry is off screen
    # (at 1:1 the demo's Fit level of detail fits the stage whole): new entries are
    # counted, not jumped to
    page.evaluate(f"([id]) => {DEBUG}.centerOn(id, 3)", [ids[0]])
    page.evaluate(APPEND, [["newaaaa1", "newaaaa2"], last_row])
    marker = page.locator(".pnb-new-marker")
    assert marker.is_visible()
    assert marker.inner_text() == "↓ 2 new"
    assert page.evaluate(f"(id) => {DEBUG}.screenPos(id)", "newaaaa2") is None
    marker.click()
    assert not marker.is_visible()
    assert page.evaluate(f"(id) => {DEBUG}.screenPos(id)", "newaaaa2") is not None
    # the newest is in view: the next entry is followed
    page.evaluate(APPEND, [["newaaaa3"], last_row + 2])
    assert page.evaluate(f"(id) => {DEBUG}.screenPos(id)", "newaaaa3") is not None
    assert not marker.is_visible()
    assert stats(page)["n"] == len(session.entries) + 3
    assert watch.errors == []


def test_transcript_reads_the_active_branch(page: Page, tmp_path: Path) -> None:
    session = prime_nb.load(demo_session_path())
    html = export_html(session, tmp_path / "t.html", view="transcript")
    watch = open_page(page, html)
    page.locator(".pnb-tx-item").first.wait_for()
    shown = set(page.evaluate(f"{DEBUG}.visibleIds()"))
    path = [i for i in session.path() if i in shown]
    # a virtual list: the branch's first rows are drawn, in order, the rest only counted
    assert page.evaluate(f"{DEBUG}.transcript()")["rows"] == len(path)
    # read in one go: the list may redraw its window between two locator calls
    drawn = page.evaluate(
        "() => Array.from(document.querySelectorAll('.pnb-tx-item'), (e) => e.dataset.entryId)"
    )
    assert 0 < len(drawn) <= len(path) and drawn == path[: len(drawn)]
    # the first message's content loads as it comes into view
    first_user = session.entries.loc[path].query("role == 'user'").index[0]
    item = page.locator(f'.pnb-tx-item[data-entry-id="{first_user}"]')
    item.scroll_into_view_if_needed()
    loaded = "(id) => document.querySelector(`[data-entry-id='${id}']`).dataset.loaded"
    wait_js(page, loaded, first_user)
    assert "CI keeps failing" in item.inner_text()
    item.locator(".pnb-tx-bar").click()
    wait_js(page, f"(id) => {DEBUG}.stats().selected === id", first_user)
    page.locator(".pnb-seg-btn", has_text="Tree").click()
    assert not page.locator(".pnb-transcript").is_visible()
    assert watch.errors == []


@pytest.mark.parametrize("width", [700, 900, 1280])
def test_toolbar_is_one_row_and_the_panel_leaves_room(
    page: Page, demo_page: Path, width: int
) -> None:
    page.set_viewport_size({"width": width, "height": 700})
    open_page(page, demo_page)
    tops = page.evaluate(
        "() => Array.from(document.querySelectorAll('.pnb-toolbar > *'))"
        ".filter((e) => e.offsetWidth > 0 && e.offsetHeight > 0)"
        ".map((e) => Math.round(e.getBoundingClientRect().top))"
    )
    bar = page.locator(".pnb-toolbar").bounding_box()
    assert bar is not None and bar["height"] < 48, f"toolbar wraps at {width}px"
    assert max(tops) - min(tops) <= 4
    page.evaluate(f"{DEBUG}.selectIndex(3)")
    panel = page.locator(".pnb-panel").bounding_box()
    assert panel is not None
    if width > 720:  # below that the panel overlays the tree, as a drawer
        assert panel["width"] <= 0.45 * width
