"""The Branches view at Fit shows the whole session, readable (issue 42), in Chromium.

On the demo, a session of 17 leaves, a comb of 1,000 entries (500 forks), 24 roots and
100k entries (1,872 leaves, 360 compactions), each exported with ``view="branches"``:
at Fit every text the canvas draws is 11 px or more, inside the canvas, and apart from
the others, and dragging the picture one screen up, down, left or right shows no text
that was not there (the whole session was on screen). Fit shows the session's shape:
side branches beside the spine across the width, many roots in rows. Zooming in from
Fit to 1:1 stays readable at every step, and opens first the box under the pointer. And
the defects a new user met: Fit with the side panel open, "Active leaf" then Fit, and a
page exported with ``selected_id`` opening on dots (Fit with the side panel open in
JupyterLab: ``test_fit_jupyterlab_browser``).
What the canvas draws is read by wrapping ``fillText`` in the page
(``test_lod_browser.CAPTURE``), so the checks do not trust the widget's own account.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from big_session import big_page, big_session
from browser import PageWatch, chromium_fixture, page_fixture, wait_drawn  # noqa: F401
from playwright.sync_api import Page
from servers import wait_until
from test_lod_browser import CAPTURE, DRAW_READ, MIN_PX, debug, drawn, overlapping

import prime_nb
from prime_nb.datasets import demo_session_path
from prime_nb.widget._export import export_html
from sessiongen import write_shape

D = debug(0)


@pytest.fixture(scope="module")
def sessions(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("branches-fit")
    return {
        "demo": demo_session_path(),
        "17 leaves": write_shape(tmp / "branchy.jsonl", "branchy", 1000),
        "comb": write_shape(tmp / "comb.jsonl", "comb", 1000),
        "24 roots": write_shape(tmp / "orphans.jsonl", "orphans", 24),
        "100k": big_session(tmp_path_factory),
    }


@pytest.fixture(scope="module")
def pages(sessions: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("branches-fit-html")
    return {
        name: big_page(tmp_path_factory, view="branches")
        if name == "100k"
        else export_html(path, tmp / f"{name.replace(' ', '-')}.html", view="branches")
        for name, path in sessions.items()
    }


def open_page(page: Page, html: Path) -> PageWatch:
    watch = PageWatch(page)
    page.add_init_script(script=f"({CAPTURE})()")
    page.goto(html.as_uri())
    wait_drawn(page)
    return watch


def on_canvas(got: dict[str, Any]) -> list[dict[str, Any]]:
    """The texts drawn that show at least in part on the canvas."""
    w, h = got["w"], got["h"]
    return [
        t
        for t in got["texts"]
        if t["x"] + t["w"] > 0 and t["x"] < w and t["y"] + t["h"] > 0 and t["y"] < h
    ]


def check_readable(
    page: Page, where: str, edges: bool = True, got: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Every text on the canvas at least 11 px, none over another, and (``edges``: the
    whole picture is meant to be on screen) whole inside the canvas. Of the drawing
    ``got`` (:func:`drawn`'s), or of one drawn now."""
    if got is None:
        got = drawn(page)
    texts = on_canvas(got)
    assert texts, f"{where}: no text drawn"
    small = [(t["text"], round(t["px"], 1)) for t in texts if t["px"] < MIN_PX - 0.01]
    assert not small, f"{where}: text under {MIN_PX} px: {small[:5]}"
    cut = [
        (t["text"], round(t["x"]), round(t["y"]))
        for t in texts
        if t["x"] < -0.5
        or t["y"] < -0.5
        or t["x"] + t["w"] > got["w"] + 0.5
        or t["y"] + t["h"] > got["h"] + 0.5
    ]
    assert not edges or not cut, f"{where}: texts cut at the canvas edge: {cut[:5]}"
    assert not overlapping(texts), f"{where}: texts overlap: {overlapping(texts)[:5]}"
    return got


#: In the page, :data:`DRAW_READ` of the first widget (``got``), then for each of
#: ``moves`` ([dx, dy] in screens of that draw): the picture panned by that much, what a
#: draw of it shows (the same read), and panned back. Each read's texts are its own
#: (a later draw does not add to them). Null if a read timed out.
READ_AND_PAN = f"""async ([moves, timeout]) => {{
  const read = {DRAW_READ};
  const dbg = {D};
  const own = (r) => r && {{ ...r, texts: r.texts.slice() }};
  const got = own(await read([0, timeout]));
  if (!got) return null;
  const panned = [];
  for (const [mx, my] of moves) {{
    const dx = mx * got.w, dy = my * got.h;
    dbg.panBy(dx, dy);
    const after = own(await read([0, timeout]));
    dbg.panBy(-dx, -dy);
    if (!after) return null;
    panned.push({{ dx, dy, after }});
  }}
  return {{ got, panned }};
}}"""


def check_whole(page: Page, where: str) -> set[str]:
    """Readable, and nothing more to find by dragging one screen each way; the texts.
    The draw and the four pans run in the page, in one call (:data:`READ_AND_PAN`)."""
    result: dict[str, Any] | None = page.evaluate(
        READ_AND_PAN, [[[1, 0], [-1, 0], [0, 1], [0, -1]], 30_000]
    )
    assert result is not None, f"{where}: timed out waiting for every first line in view"
    got = check_readable(page, where, got=result["got"])
    seen = {t["text"] for t in on_canvas(got)}
    for pan in result["panned"]:
        new = {t["text"] for t in on_canvas(pan["after"])} - seen
        dx, dy = pan["dx"], pan["dy"]
        assert not new, f"{where}: dragging ({dx:.0f}, {dy:.0f}) shows more: {sorted(new)[:5]}"
    return seen


def fit(page: Page) -> None:
    page.evaluate(f"{D}.fit()")


#: the sessions zoomed from Fit to 1:1 a step at a time (:func:`check_zoom_steps`)
ZOOMED = ("17 leaves", "100k")


@pytest.mark.parametrize("name", ["demo", "17 leaves", "comb", "24 roots", "100k"])
def test_fit_shows_the_whole_session_readable(
    page: Page, pages: dict[str, Path], name: str
) -> None:
    """At opening and at Fit, readable and whole; the session's shape at Fit; for the
    sessions of :data:`ZOOMED`, then every zoom step from Fit to 1:1 (on the same page:
    each check starts from Fit)."""
    watch = open_page(page, pages[name])
    assert page.evaluate(f"{D}.stats().view") == "branches"
    check_whole(page, f"{name} at opening")
    fit(page)
    check_whole(page, f"{name} at fit")
    check_shape(page, name)
    if name in ZOOMED:
        check_zoom_steps(page, name)
    assert watch.errors == []


def check_shape(page: Page, name: str) -> None:
    """Fit shows the session's shape, not one column: a branching session's side branches
    stand beside its spine as boxes of their own ("▸ N branches"), across most of the
    width; many roots wrap into rows down the height."""
    got = drawn(page)
    texts = on_canvas(got)
    if name in ("17 leaves", "comb", "100k"):
        spread = max(t["x"] + t["w"] for t in texts) - min(t["x"] for t in texts)
        assert spread > 0.6 * got["w"], f"{name}: the picture takes {spread:.0f} of {got['w']} px"
        sides = [t["text"] for t in texts if t["text"].startswith("▸") and "branch" in t["text"]]
        assert sides, f"{name}: no box of side branches at fit"
        # A span's title takes a second line rather than end in "…" ("entries 46-101 ·
        # peak 15…"); so do prompts where two lines hold them.
        spans = [t["text"] for t in texts if t["text"].startswith("entries ")]
        assert spans, f"{name}: no span box at fit"
        cut = [t for t in spans if t.endswith("…")]
        assert not cut, f"{name}: span titles cut at fit: {cut[:3]}"
    if name == "24 roots":
        rows = {round(t["y"] / 20) for t in texts}
        assert len(rows) >= 4, f"{name}: the roots stand in {len(rows)} rows"
        # A plain node's cell is sized by what it shows: each root has its own, readable.
        folded = [t["text"] for t in texts if "root" in t["text"]]
        assert not folded, f"{name}: roots folded into boxes at fit: {folded[:3]}"
        check_plain_lines(texts, name)


def check_plain_lines(texts: list[dict[str, Any]], name: str) -> None:
    """A plain node's first line longer than its cell takes a second line under the
    first (at a word) rather than end in "…" on one: only a second line may be cut."""
    cut = [
        t["text"]
        for t in texts
        if t["text"].endswith("…")
        and not any(abs(u["x"] - t["x"]) < 1 and 10 < t["y"] - u["y"] < 18 for u in texts)
    ]
    assert not cut, f"{name}: first lines cut to one line at fit: {cut[:3]}"
    seconds = [
        t
        for t in texts
        if any(abs(u["x"] - t["x"]) < 1 and 10 < t["y"] - u["y"] < 18 for u in texts)
    ]
    assert seconds, f"{name}: no first line took a second line at fit"


#: One ctrl+wheel event of ``dy`` px on the first canvas's middle (the reader's zoom)
#: and, with ``read`` set, :data:`DRAW_READ`'s read of the draw after it.
WHEEL = f"""async ([dy, read]) => {{
  const c = document.querySelector('.pnb-canvas');
  const r = c.getBoundingClientRect();
  c.dispatchEvent(new WheelEvent('wheel', {{ deltaY: dy, deltaMode: 0, ctrlKey: true,
    clientX: r.left + r.width / 2, clientY: r.top + r.height / 2,
    bubbles: true, cancelable: true }}));
  return read ? ({DRAW_READ})([0, 30000]) : null;
}}"""


def zoom_in(page: Page, delta: float) -> None:
    """One ctrl+wheel event on the canvas's middle (the reader's zoom)."""
    page.evaluate(WHEEL, [delta, False])


def zoom_and_read(page: Page, delta: float) -> dict[str, Any]:
    """:func:`zoom_in`, then :func:`drawn`, in one call."""
    got: dict[str, Any] | None = page.evaluate(WHEEL, [delta, True])
    assert got is not None, "timed out waiting for every first line in view"
    return got


def check_zoom_steps(page: Page, name: str) -> None:
    """Every zoom step from Fit to 1:1 (ctrl+wheel notches of a quarter) is readable;
    zooming in opens boxes; zooming back out past Fit is allowed."""
    fit(page)
    k_fit = page.evaluate(f"{D}.stats().transform.k")
    nodes_fit = page.evaluate(f"{D}.stats().nodes")
    steps, k = 0, k_fit
    while k < 1.3 and steps < 40:
        got = zoom_and_read(page, -25)
        steps += 1
        check_readable(page, f"{name} zoom step {steps}", edges=False, got=got)
        k = got["stats"]["transform"]["k"]
    assert steps >= 8, f"only {steps} steps from {k_fit} to 1.3"
    # Zooming in opened boxes: more is drawn than at Fit (once the notches pause: notches
    # that come fast keep the level shown until then).
    wait_until(lambda: page.evaluate(f"{D}.stats().nodes") > nodes_fit, 10, "boxes opened", page)
    check_readable(page, f"{name} zoomed in", edges=False)
    # And zooming back out past Fit is allowed (the old floor stopped at Fit's scale).
    fit(page)
    for _ in range(4):
        zoom_in(page, 100)
    assert page.evaluate(f"{D}.stats().transform.k") < k_fit * 0.9


def test_zoom_opens_the_box_under_the_pointer_first(page: Page, pages: dict[str, Path]) -> None:
    """Levels applied to the whole picture, so zooming from Fit into one region opened
    about one level everywhere; the box under the pointer now opens as the zoom starts."""
    open_page(page, pages["17 leaves"])
    fit(page)
    texts = on_canvas(drawn(page))
    boxes = [t for t in texts if t["text"].startswith("▸") and "branch" in t["text"]]
    assert boxes, [t["text"] for t in texts]
    box = max(boxes, key=lambda t: t["y"])
    page.mouse.move(0, 0)
    for _ in range(2):
        page.evaluate(
            """([x, y, dy]) => {
              const c = document.querySelector('.pnb-canvas');
              const r = c.getBoundingClientRect();
              c.dispatchEvent(new WheelEvent('wheel', { deltaY: dy, deltaMode: 0,
                ctrlKey: true, clientX: r.left + x, clientY: r.top + y, bubbles: true,
                cancelable: true }));
            }""",
            [box["x"] + 40, box["y"] + 20, -60],
        )
        page.evaluate(f"{D}.drawNow()")
    # Notches that come fast keep the level shown until they pause.
    wait_until(
        lambda: box["text"] not in {t["text"] for t in on_canvas(drawn(page))},
        10,
        "the box under the pointer to open",
        page,
    )
    check_readable(page, "zoomed at the pointer", edges=False)


def test_fit_with_the_side_panel_open_uses_the_room_left(
    page: Page, pages: dict[str, Path], sessions: dict[str, Path]
) -> None:
    open_page(page, pages["17 leaves"])
    leaf = prime_nb.load(sessions["17 leaves"]).leaf_id
    page.evaluate(f"(id) => {D}.model.set('selected_id', id)", leaf)
    wait_until(lambda: page.locator(".pnb-has-panel").count() == 1, 10, "the side panel", page)
    # the stage takes the room left on a frame after the panel opens: wait for that state
    beside = page.evaluate(
        """() => new Promise((done) => {
          const end = performance.now() + 10000;
          const check = () => {
            const c = document.querySelector('.pnb-canvas').getBoundingClientRect();
            const p = document.querySelector('.pnb-panel').getBoundingClientRect();
            if (c.right <= p.left + 1 || performance.now() > end) done([c.right, p.left]);
            else requestAnimationFrame(check);
          };
          check();
        })"""
    )
    assert beside[0] <= beside[1] + 1, f"the canvas runs under the panel: {beside}"
    fit(page)
    check_whole(page, "fit with the panel open")


def test_active_leaf_shows_boxes_and_fit_undoes_it(
    page: Page, pages: dict[str, Path], sessions: dict[str, Path]
) -> None:
    """ "Active leaf" zoomed to three dots with wide gaps (its run opened into entries),
    and Fit could not undo it. (The side panel the selection opens narrows the stage, and
    Fit's picture uses the width it has: the picture to undo to is Fit's with the panel.)"""
    open_page(page, pages["17 leaves"])
    leaf = prime_nb.load(sessions["17 leaves"]).leaf_id
    page.evaluate(f"(id) => {D}.model.set('selected_id', id)", leaf)
    wait_until(lambda: page.locator(".pnb-has-panel").count() == 1, 10, "the side panel", page)
    fit(page)
    whole = check_whole(page, "fit")
    page.get_by_role("button", name="Active leaf").click()
    wait_until(lambda: page.evaluate(f"{D}.stats().selected") == leaf, 10, "the active leaf", page)
    pos = page.evaluate(f"(id) => {D}.screenPos(id)", leaf)
    assert pos is not None and pos["segment"], "the active leaf's run was opened into dots"
    got = check_readable(page, "active leaf", edges=False)
    assert len(on_canvas(got)) >= 6, [t["text"] for t in on_canvas(got)]
    fit(page)
    assert check_whole(page, "fit after active leaf") == whole


def test_export_with_a_selected_entry_opens_readable(
    page: Page, sessions: dict[str, Path], tmp_path: Path
) -> None:
    session = prime_nb.load(sessions["17 leaves"])
    html = export_html(
        session, tmp_path / "selected.html", view="branches", selected_id=session.leaf_id
    )
    open_page(page, html)
    assert page.evaluate(f"{D}.stats().selected") == session.leaf_id
    pos = page.evaluate(f"(id) => {D}.screenPos(id)", session.leaf_id)
    assert pos is not None and pos["segment"], "the selected entry's run opened into dots"
    got = check_readable(page, "opened on the selected entry", edges=False)
    assert len(on_canvas(got)) >= 6, json.dumps([t["text"] for t in on_canvas(got)])
    fit(page)
    check_whole(page, "fit after opening on the selected entry")
