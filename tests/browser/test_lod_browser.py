"""Level of detail in a real Chromium (issue 34): every text readable, none overlapping.

On the demo, every agent-written fixture, a branchy session of 17 leaves and a
100k-entry session, each in an exported page here and in JupyterLab in
``test_fit_jupyterlab_browser`` (one server and one kernel, the notebook's one cell
re-run on each session): in the Tree and Branches views, at opening and at Fit, every
text the canvas draws is 11 px or more, no two texts overlap, and every fork, leaf,
compaction, label (Tree) and box (Branches) on screen carries its text. What the canvas
draws is read by wrapping ``CanvasRenderingContext2D.prototype.fillText`` in the page,
so the check does not trust the widget's own account. A ctrl+wheel notch (pixel or line
mode) zooms by at most 1.25x.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from big_session import big_page, big_session
from browser import PageWatch, chromium_fixture, page_fixture, wait_drawn  # noqa: F401
from playwright.sync_api import Page
from servers import START_TIMEOUT, Jupyter, wait_until

import prime_nb
from prime_nb.datasets import demo_session_path
from prime_nb.widget._export import export_html
from sessiongen import write_shape
from tests.conftest import FIXTURES as SHARED

FIXTURES = sorted((SHARED / "agent-written").glob("*.jsonl"))

#: Records every text drawn on a widget's main canvas, in CSS pixels of the canvas.
CAPTURE = """() => {
  const P = CanvasRenderingContext2D.prototype;
  if (P.__pnbCaptured) return;
  P.__pnbCaptured = true;
  const fill = P.fillText;
  P.fillText = function (text, x, y, maxWidth) {
    const c = this.canvas;
    if (c && c.classList && c.classList.contains('pnb-canvas')) {
      const m = this.getTransform();
      const dpr = window.devicePixelRatio || 1;
      const scale = Math.hypot(m.a, m.b) / dpr;
      const px = parseFloat((/(\\d+(?:\\.\\d+)?)px/.exec(this.font) || [0, 0])[1]);
      const w = this.measureText(text).width * scale;
      const X = (m.a * x + m.c * y + m.e) / dpr;
      const Y = (m.b * x + m.d * y + m.f) / dpr;
      const h = px * scale;
      const align = this.textAlign;
      const right = align === 'right' || align === 'end';
      const left = align === 'center' ? X - w / 2 : right ? X - w : X;
      const base = this.textBaseline;
      const top = base === 'middle' ? Y - h / 2 : base === 'top' ? Y : Y - h * 0.8;
      (c.__texts = c.__texts || []).push({ text: String(text), px: h, x: left, y: top, w, h });
    }
    return fill.call(this, text, x, y, maxWidth);
  };
}"""

MIN_PX = 11


def debug(root: int) -> str:
    return f"document.querySelectorAll('.pnb-root')[{root}].pnbDebug"


#: :func:`drawn` in the page: draw on each frame until a draw has every text in view
#: (null after ``timeout`` ms); what that draw put on the canvas and the widget's figures
DRAW_READ = """async ([root, timeout]) => {
  const el = document.querySelectorAll('.pnb-root')[root];
  const canvas = el.querySelector('.pnb-canvas');
  const dbg = el.pnbDebug;
  const end = performance.now() + timeout;
  for (;;) {
    canvas.__texts = [];
    dbg.drawNow();
    const stats = dbg.stats();
    const last = stats.lastDraw;
    if (last && !(last.missingLines && last.missingLines.length)) {
      const r = canvas.getBoundingClientRect();
      return { texts: canvas.__texts, stats, w: r.width, h: r.height, left: r.left,
               top: r.top, rows: dbg.rowsInView(), boxes: dbg.segments() };
    }
    if (performance.now() > end) return null;
    // the next frame, or a tenth of a second if frames stop: the timeout still holds
    await new Promise((done) => { requestAnimationFrame(done); setTimeout(done, 100); });
  }
}"""


def drawn(page: Page, root: int = 0) -> dict[str, Any]:
    """Draw until a draw has every text in view; what that draw put on the canvas and the
    widget's stats.

    The texts are captured in the draw that is checked for missing first lines, in one
    call: a level of detail a fast zoom builds when its notches pause (a timer) can land
    between two calls, and its new rows have no text until their first lines arrive.
    """
    result: dict[str, Any] | None = page.evaluate(DRAW_READ, [root, 30_000])
    assert result is not None, "timed out waiting for every first line in view"
    return result


def overlapping(texts: list[dict[str, Any]], slack: float = 1.0) -> list[tuple[str, str]]:
    """Pairs of texts whose boxes overlap by more than ``slack`` px each way."""
    out = []
    boxes = sorted(texts, key=lambda t: t["y"])
    for a, p in enumerate(boxes):
        for q in boxes[a + 1 :]:
            if q["y"] >= p["y"] + p["h"] - slack:
                break
            if p["x"] < q["x"] + q["w"] - slack and q["x"] < p["x"] + p["w"] - slack:
                out.append((p["text"], q["text"]))
    return out


def check_readable(
    page: Page,
    where: str,
    root: int = 0,
    landmarks: bool = True,
    got: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Assert the current drawing (or ``got``, a :func:`drawn` of it) is readable (see the
    module docstring); return it."""
    if got is None:
        got = drawn(page, root)
    texts = [
        t for t in got["texts"] if t["y"] + t["h"] > 0 and t["y"] < got["h"] and t["x"] < got["w"]
    ]
    last = got["stats"]["lastDraw"]
    assert last["nodes"] > 0, f"{where}: an empty stage"
    assert texts, f"{where}: no text drawn"
    small = [(t["text"], round(t["px"], 1)) for t in texts if t["px"] < MIN_PX - 0.01]
    assert not small, f"{where}: text under {MIN_PX} px: {small[:5]}"
    assert not overlapping(texts), f"{where}: texts overlap: {overlapping(texts)[:5]}"
    # Read off the canvas alone: in the Tree every row on screen has a text on its line;
    # in Branches every box on screen has a text inside it.
    t = got["stats"]["transform"]
    if got["rows"] is not None:
        pitch = 24 * t["k"]
        bare = [
            r
            for r in got["rows"]
            if not any(abs(x["y"] + x["h"] / 2 - (r * pitch + t["y"])) < pitch / 2 for x in texts)
        ]
        assert not bare, f"{where}: rows on screen without text: {bare[:10]}"
    else:
        half = 29 * t["k"]
        empty = [
            b["id"]
            for b in got["boxes"]
            if half < b["y"] - got["top"] < got["h"] - half
            and not any(
                abs(x["y"] + x["h"] / 2 - (b["y"] - got["top"])) < half
                and abs(x["x"] - (b["x"] - got["left"])) < 420 * t["k"]
                for x in texts
            )
        ]
        assert not empty, f"{where}: boxes on screen without text: {empty[:10]}"
    # Every landmark on screen (rows in Tree, display nodes in Branches) carries a text.
    key = "row" if got["stats"]["view"] == "tree" else "d"
    named = {t[key] for t in last["texts"]}
    unnamed = [m for m in last["landmarks"] if m not in named]
    assert last["landmarks"] or not landmarks, f"{where}: no landmark on screen"
    assert not unnamed, f"{where}: landmarks without text: {unnamed[:10]}"
    return got


#: In the page, root ``root``'s drawings (:data:`DRAW_READ`) in the order
#: :func:`check_views` checks them: the Tree at opening and at Fit, Branches at opening
#: (once the view has switched) and at Fit, the Tree again. Each read's texts are its own.
#: It throws, naming what timed out, if something did.
VIEWS_READ = f"""async ([root, timeout]) => {{
  const read = {DRAW_READ};
  const dbg = document.querySelectorAll('.pnb-root')[root].pnbDebug;
  const end = performance.now() + timeout;
  const reads = [];
  const take = async (what) => {{
    const got = await read([root, timeout]);
    if (!got) throw new Error(`timed out waiting for every first line in view (${{what}})`);
    reads.push({{ ...got, texts: got.texts.slice() }});
  }};
  await take('tree at opening');
  dbg.fit();
  await take('tree at fit');
  dbg.setView('branches');
  while (dbg.stats().view !== 'branches') {{
    if (performance.now() > end) throw new Error('timed out waiting for branches');
    await new Promise((done) => setTimeout(done, 10));
  }}
  await take('branches at opening');
  dbg.fit();
  await take('branches at fit');
  dbg.setView('tree');
  await take('tree again');
  return reads;
}}"""

#: the drawings :data:`VIEWS_READ` reads, in its order
VIEW_STEPS = (
    "tree at opening",
    "tree at fit",
    "branches at opening",
    "branches at fit",
    "tree again",
)


def check_views(page: Page, name: str, root: int = 0) -> dict[str, dict[str, Any]]:
    """Tree and Branches, each at opening and at Fit; back to the Tree: its own camera,
    not the Branches zoom, so never an empty stage. Drawn in the page in one call
    (:data:`VIEWS_READ`), then checked; the drawings, by :data:`VIEW_STEPS`."""
    reads = page.evaluate(VIEWS_READ, [root, 30_000])
    for step, got in zip(VIEW_STEPS, reads, strict=True):
        check_readable(page, f"{name} {step}", root, got=got)
    return dict(zip(VIEW_STEPS, reads, strict=True))


@pytest.fixture(scope="module")
def sessions(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Session files by name; the 100k one is made once for the run (big_session.py)."""
    tmp = tmp_path_factory.mktemp("lod")
    out = {
        "demo": demo_session_path(),
        "branchy": write_shape(tmp / "branchy.jsonl", "branchy", 1000),
    }
    out["100k"] = big_session(tmp_path_factory)
    for path in FIXTURES:
        out[path.stem] = path
    return out


@pytest.fixture(scope="module")
def pages(sessions: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("lod-html")
    return {
        name: big_page(tmp_path_factory)
        if name == "100k"
        else export_html(path, tmp / f"{name}.html")
        for name, path in sessions.items()
    }


def open_export(page: Page, html: Path) -> PageWatch:
    watch = PageWatch(page)
    page.add_init_script(script=f"({CAPTURE})()")
    page.goto(html.as_uri())
    wait_drawn(page)
    return watch


def test_fixtures_are_there() -> None:
    assert len(FIXTURES) >= 10, FIXTURES


def test_branchy_session_has_enough_leaves(sessions: dict[str, Path]) -> None:
    assert prime_nb.load(sessions["branchy"]).entries["is_leaf"].sum() >= 15


def test_overlap_check_can_fail() -> None:
    a = {"text": "a", "x": 0, "y": 0, "w": 20, "h": 12}
    assert overlapping([a, {**a, "text": "b", "x": 10}]) == [("a", "b")]
    assert overlapping([a, {**a, "text": "b", "y": 12}]) == []


@pytest.mark.parametrize("name", ["demo", "branchy"])
def test_readable_in_both_views(page: Page, pages: dict[str, Path], name: str) -> None:
    """(The 100k session's: in :func:`test_big_session_folds_rows_instead_of_shrinking_them`,
    on the same load.)"""
    watch = open_export(page, pages[name])
    check_views(page, name)
    assert watch.errors == []


def test_readable_on_every_agent_written_fixture(page: Page, pages: dict[str, Path]) -> None:
    for path in FIXTURES:
        watch = open_export(page, pages[path.stem])
        check_views(page, path.stem)
        assert watch.errors == [], path.stem


def test_big_session_folds_rows_instead_of_shrinking_them(
    page: Page, pages: dict[str, Path]
) -> None:
    """The 100k session readable in both views (:func:`check_views`, as the other
    sessions in :func:`test_readable_in_both_views`); its Tree at opening folds rows
    rather than shrink them; a click opens a folded row (in the Tree at Fit, where the
    views' check ends); afresh, zooming in unfolds the rows on screen."""
    watch = open_export(page, pages["100k"])
    reads = check_views(page, "100k")
    stats = reads["tree at opening"]["stats"]
    assert stats["nodes"] < stats["shown"] / 4, "the tree did not fold"
    assert stats["transform"]["k"] * 24 >= 17
    assert watch.errors == []
    # A click on a folded row opens it: more rows, the same entries.
    got = check_readable(page, "100k tree at fit, before the click")
    before = got["stats"]["nodes"]
    texts = [t for t in got["texts"] if t["text"].startswith("▸ ") and " entries" in t["text"]]
    assert texts, "no folded row on screen"
    box = page.locator(".pnb-canvas").bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + texts[0]["x"] + 5, box["y"] + texts[0]["y"] + texts[0]["h"] / 2)
    after = drawn(page)["stats"]["nodes"]
    assert after > before
    # Afresh, zooming in (three ctrl+wheel notches) unfolds the folded rows on screen.
    open_export(page, pages["100k"])
    after = drawn(page)["stats"]["nodes"]
    for _ in range(3):
        zoom_ratio(page, '{"deltaY": -100, "deltaMode": 0}')
    zoomed = check_readable(page, "100k tree zoomed in", landmarks=False)["stats"]
    assert zoomed["transform"]["k"] >= 1.25
    assert zoomed["nodes"] > after


def zoom_ratio(page: Page, event: str) -> float:
    """Scale after / before one wheel event dispatched on the canvas's middle."""
    d = debug(0)
    k0 = page.evaluate(f"{d}.stats().transform.k")
    page.evaluate(
        """(init) => {
          const c = document.querySelector('.pnb-canvas');
          const r = c.getBoundingClientRect();
          c.dispatchEvent(new WheelEvent('wheel', { ...init, clientX: r.left + r.width / 2,
            clientY: r.top + r.height / 2, ctrlKey: true, bubbles: true, cancelable: true }));
        }""",
        json.loads(event),
    )
    k1: float = page.evaluate(f"{d}.stats().transform.k")
    return k1 / k0


def test_one_wheel_notch_zooms_at_most_a_quarter(page: Page, pages: dict[str, Path]) -> None:
    open_export(page, pages["demo"])
    page.evaluate(f"{debug(0)}.setView('branches')")
    page.evaluate(f"{debug(0)}.fit()")
    pixel = zoom_ratio(page, '{"deltaY": -100, "deltaMode": 0}')
    line = zoom_ratio(page, '{"deltaY": -3, "deltaMode": 1}')
    out = zoom_ratio(page, '{"deltaY": 100, "deltaMode": 0}')
    assert 1.2 < pixel <= 1.25 + 1e-9
    assert 1.2 < line <= 1.25 + 1e-9
    assert 1 / 1.25 - 1e-9 <= out < 1
    # A real ctrl+wheel from the mouse, as a reader's notch arrives.
    k0 = page.evaluate(f"{debug(0)}.stats().transform.k")
    box = page.locator(".pnb-canvas").bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.keyboard.down("Control")
    page.mouse.wheel(0, -100)
    page.keyboard.up("Control")
    wait_until(lambda: page.evaluate(f"{debug(0)}.stats().transform.k") != k0, 10, "the zoom", page)
    assert page.evaluate(f"{debug(0)}.stats().transform.k") / k0 <= 1.25 + 1e-9


#: The notebook's one cell. It shows the session whose path the test wrote to
#: ``show.txt``, so one server and one kernel serve every session: re-running the cell
#: replaces the widget instead of piling a notebook's worth of widgets up in the page.
SHOW_CELL = (
    "import pathlib, prime_nb\n"
    "prime_nb.show(pathlib.Path('show.txt').read_text('utf-8'), height=600)"
)


def show_in_lab(page: Page, lab: Jupyter, path: Path) -> None:
    """Re-run the notebook's cell on ``path``; return once its new widget has drawn.

    The widget already there is marked first, so a leftover of the previous session can
    never pass for the new one.
    """
    (lab.root / "show.txt").write_text(str(path), "utf-8")
    page.evaluate(
        "() => document.querySelectorAll('.pnb-root').forEach((r) => { r.dataset.pnbOld = '1'; })"
    )
    page.locator(".jp-Notebook .jp-Cell").first.locator(".jp-InputArea-editor").click()
    page.keyboard.press("Control+Enter")  # run the cell and stay on it
    fresh = (
        "() => { const r = document.querySelectorAll('.pnb-root');"
        " return r.length === 1 && !r[0].dataset.pnbOld && r[0].hasAttribute('data-drawn'); }"
    )
    try:
        wait_until(lambda: page.evaluate(fresh), START_TIMEOUT, f"the widget of {path.name}", page)
    except AssertionError as error:
        output = page.locator(".jp-Notebook .jp-Cell").first.locator(".jp-OutputArea")
        raise AssertionError(f"{error}; the cell's output: {output.inner_text()[-2000:]}") from None
    page.locator(".pnb-root").first.scroll_into_view_if_needed()


def test_selecting_the_leaf_shows_the_fork_it_came_from(
    page: Page, pages: dict[str, Path], sessions: dict[str, Path]
) -> None:
    """``w.selected_id = leaf_id`` (the quickstart's cell) frames the branch, not the
    last rows alone: the fork the active branch left from is on screen with the leaf."""
    session = prime_nb.load(sessions["branchy"])
    e = session.entries
    fork = str(e.loc[session.leaf_id, "parent_id"])
    while int(e.loc[fork, "children"]) < 2:
        fork = str(e.loc[fork, "parent_id"])
    open_export(page, pages["branchy"])
    d = debug(0)
    page.evaluate(f"(id) => {d}.model.set('selected_id', id)", session.leaf_id)
    wait_until(lambda: page.evaluate(f"{d}.stats().selected") == session.leaf_id, 10, "select")
    page.evaluate(f"{d}.drawNow()")
    assert page.evaluate(f"(id) => {d}.screenPos(id)", session.leaf_id) is not None
    assert page.evaluate(f"(id) => {d}.screenPos(id)", fork) is not None, "the fork is off screen"
    check_readable(page, "branchy, leaf selected")
