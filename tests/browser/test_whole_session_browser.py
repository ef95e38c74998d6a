"""The whole session on one screen (issue 42), read off what the canvas draws.

Every ``fillText`` on the widget's canvas is recorded by wrapping
``CanvasRenderingContext2D.prototype.fillText`` in the page (text, place, font size,
measured width, under the canvas transform), so nothing here trusts the widget's own
account. On a part of the session matrix and on four sessions that overflow one screen
(17 leaves; 1,000 entries with 40 forks; 24 roots; 100k entries), in the Tree and in
Branches:

- at Fit, every text is 11 px or more, none overlaps another, none is cut by the
  canvas's edge, and dragging the picture one screen up, down, left or right shows no
  text that Fit did not;
- at 8 zoom steps between Fit and 1:1 (ctrl+wheel, as a reader zooms), every text is
  still 11 px or more, none overlaps, none is cut.

In exported pages here; in JupyterLab, with the side panel closed and open, in
``test_fit_jupyterlab_browser`` (one server and page for every Fit check there).
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import orjson
import pytest
from big_session import big_page, big_session
from browser import PageWatch, chromium_fixture, page_fixture, wait_drawn  # noqa: F401
from playwright.sync_api import Page
from servers import wait_until
from test_lod_browser import CAPTURE, debug, overlapping

import prime_nb
from prime_nb.widget._export import export_html
from sessiongen import write_shape
from tests.session_matrix import CASES, write_case

MIN_PX = 11
VIEWS = ("tree", "branches")
ZOOM_STEPS = 8

#: The session matrix's shapes the page checks: every synthetic and compaction shape of
#: version 3, every fixture, an empty file and two hostile ones (the rest repeat these).
MATRIX = [
    c
    for c in CASES
    if ("v3" in c and c.startswith(("synthetic-", "comp-")))
    or c.startswith("fixture-")
    or c in ("empty-v3-prime", "odd-parent-id-number", "odd-lone-surrogate")
]

BIG = ("17 leaves", "1,000 entries, 40 forks", "24 roots", "100k entries")

USER = ["Fix the failing test in the parser.", "Now make it faster.", "Explain the change."]
REPLY = ["Done: the loop now stops at the end.", "It reads the file once.", "Here is why."]


def _message(eid: str, parent: str | None, ms: int, j: int) -> dict[str, Any]:
    role = "user" if j % 2 == 0 else "assistant"
    content: Any = USER[j % 3] if role == "user" else [{"type": "text", "text": REPLY[j % 3]}]
    stamp = (
        f"2026-01-05T{10 + ms // 3_600_000:02d}:{ms // 60_000 % 60:02d}:{ms // 1000 % 60:02d}.000Z"
    )
    return {
        "type": "message",
        "id": eid,
        "parentId": parent,
        "timestamp": stamp,
        "message": {"role": role, "content": content, "timestamp": 1767607200000 + ms},
    }


def _write(path: Path, entries: list[dict[str, Any]]) -> Path:
    header = {"type": "session", "version": 3, "id": "5e55105e-0000-4000-8000-000000000042"}
    header |= {"timestamp": "2026-01-05T10:00:00.000Z", "cwd": "/home/dev/projects/app"}
    path.write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in [header, *entries]))
    return path


def forked_session(path: Path, main: int = 800, forks: int = 40, side: int = 5) -> Path:
    """``main`` entries on the active path with ``forks`` side branches of ``side``
    entries, each written right after its fork (the file's last entry ends the path)."""
    out: list[dict[str, Any]] = []
    every = main // (forks + 1)
    prev: str | None = None
    for j in range(main):
        eid = f"m{j:07x}"
        out.append(_message(eid, prev, len(out) * 1000, j))
        prev = eid
        if j and j % every == 0 and j // every <= forks:
            p = eid
            for s in range(side):
                sid = f"s{j:04x}{s:03x}"
                out.append(_message(sid, p, len(out) * 1000, j + 1 + s))
                p = sid
    return _write(path, out)


def rooted_session(path: Path, roots: int = 24, each: int = 40) -> Path:
    """``roots`` conversations of ``each`` entries in one file, each from its own root."""
    out: list[dict[str, Any]] = []
    for r in range(roots):
        prev: str | None = None
        for j in range(each):
            eid = f"r{r:02x}{j:05x}"
            out.append(_message(eid, prev, len(out) * 1000, j))
            prev = eid
    return _write(path, out)


@pytest.fixture(scope="module")
def sessions(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("whole")
    return {
        "17 leaves": write_shape(tmp / "leaves.jsonl", "branchy", 1000),
        "1,000 entries, 40 forks": forked_session(tmp / "forks.jsonl"),
        "24 roots": rooted_session(tmp / "roots.jsonl"),
        "100k entries": big_session(tmp_path_factory),
    }


@pytest.fixture(scope="module")
def pages(sessions: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("whole-html")
    out = {
        name: big_page(tmp_path_factory)
        if name == "100k entries"
        else export_html(path, tmp / f"big-{j}.html")
        for j, (name, path) in enumerate(sessions.items())
    }
    cases = tmp_path_factory.mktemp("whole-matrix")
    for j, name in enumerate(MATRIX):
        out[name] = export_html(write_case(name, cases), tmp / f"matrix-{j}.html")
    return out


def open_page(page: Page, html: Path) -> PageWatch:
    watch = PageWatch(page)
    page.add_init_script(script=f"({CAPTURE})()")
    page.goto(html.as_uri())
    wait_drawn(page)
    return watch


#: ``whole(el, end)``: draw the widget of ``.pnb-root`` ``el`` on each frame until a draw
#: has every text in view: what that draw put on the canvas (texts and place) and the
#: widget's stats; null once ``performance.now()`` passes ``end``.
WHOLE = """const whole = async (el, end) => {
  const canvas = el.querySelector('.pnb-canvas');
  for (;;) {
    canvas.__texts = [];
    el.pnbDebug.drawNow();
    const stats = el.pnbDebug.stats();
    const s = stats.lastDraw;
    if (s && (!s.missingLines || s.missingLines.length === 0)) {
      const r = canvas.getBoundingClientRect();
      const texts = canvas.__texts;
      canvas.__texts = [];  // a later draw (a Fit, a drag) adds to a list of its own
      return { texts, stats, w: r.width, h: r.height, left: r.left, top: r.top };
    }
    if (performance.now() > end) return null;
    // the next frame, or a tenth of a second if frames stop: the timeout still holds
    await new Promise((done) => { requestAnimationFrame(done); setTimeout(done, 100); });
  }
};"""

#: Draw until a draw has every text in view (:data:`WHOLE`), for root ``root``.
DRAW_WHOLE = f"""async ([root, timeout]) => {{
  {WHOLE}
  return whole(document.querySelectorAll('.pnb-root')[root], performance.now() + timeout);
}}"""

#: In the page, for root ``root``: Fit and draw it whole (``got``), then for each of
#: ``sides`` ([name, dx, dy] in screens): Fit again, the transform it gives (``again``),
#: a drag of the picture by (dx * width, dy * height) px from the canvas's middle, and
#: the whole draw after it (``after``); each draw within ``timeout`` ms. A drag is the
#: mouse events a reader's drag makes, dispatched on the canvas: a press, one move
#: (d3-zoom pans by the pointer's way from the press, so more moves end in the same
#: place), a release, then a click on the canvas, which would select an entry there
#: unless d3-zoom swallows it after a drag, as it must. Null if a draw times out.
FIT_AND_DRAG = f"""async ([root, timeout, sides]) => {{
  {WHOLE}
  const el = document.querySelectorAll('.pnb-root')[root];
  const canvas = el.querySelector('.pnb-canvas');
  el.pnbDebug.fit();
  const got = await whole(el, performance.now() + timeout);
  if (!got) return null;
  const x = got.left + got.w / 2, y = got.top + got.h / 2;
  const mouse = (type, cx, cy, buttons) => canvas.dispatchEvent(new MouseEvent(type, {{
    clientX: cx, clientY: cy, button: 0, buttons, view: window, bubbles: true,
    cancelable: true, composed: true, detail: 1 }}));
  const out = [];
  for (const [name, dx, dy] of sides) {{
    el.pnbDebug.fit();
    const again = el.pnbDebug.stats().transform;
    const tx = x + dx * got.w, ty = y + dy * got.h;
    mouse('mousedown', x, y, 1);
    mouse('mousemove', tx, ty, 1);
    mouse('mouseup', tx, ty, 0);
    mouse('click', tx, ty, 0);
    const after = await whole(el, performance.now() + timeout);
    if (!after) return null;
    out.push({{ name, again, after }});
  }}
  return {{ got, sides: out }};
}}"""

#: In the page, for root ``root``: ``steps`` ctrl+wheel events on the canvas's middle of
#: ``delta`` px each (as a reader zooms), each followed by a whole draw (:data:`WHOLE`,
#: within ``timeout`` ms); those draws, or null if one times out.
WHEEL_AND_DRAW = f"""async ([root, timeout, delta, steps]) => {{
  {WHOLE}
  const el = document.querySelectorAll('.pnb-root')[root];
  const c = el.querySelector('.pnb-canvas');
  const draws = [];
  for (let j = 0; j < steps; j++) {{
    const r = c.getBoundingClientRect();
    c.dispatchEvent(new WheelEvent('wheel', {{ deltaY: delta, deltaMode: 0, ctrlKey: true,
      clientX: r.left + r.width / 2, clientY: r.top + r.height / 2,
      bubbles: true, cancelable: true }}));
    const got = await whole(el, performance.now() + timeout);
    if (!got) return null;
    draws.push(got);
  }}
  return draws;
}}"""


def drawn(page: Page, root: int = 0) -> dict[str, Any]:
    """Draw once every text in view has arrived (checked on every frame, not on a fixed
    pause); what the canvas drew in the draw checked, and the widget's stats. One call:
    the texts are those of the complete draw, not of a later one."""
    result: dict[str, Any] | None = page.evaluate(DRAW_WHOLE, [root, 30_000])
    assert result is not None, "timed out waiting for every text in view to arrive"
    return result


def in_canvas(got: dict[str, Any]) -> list[dict[str, Any]]:
    """The texts drawn at least partly inside the canvas."""
    return [
        t
        for t in got["texts"]
        if t["x"] + t["w"] > 0 and t["x"] < got["w"] and t["y"] + t["h"] > 0 and t["y"] < got["h"]
    ]


def faults(got: dict[str, Any]) -> list[str]:
    """What is wrong with a drawing: small, cut or overlapping texts (empty: nothing)."""
    texts = in_canvas(got)
    w, h = got["w"], got["h"]
    out = [f"{t['text']!r} is {t['px']:.1f} px" for t in texts if t["px"] < MIN_PX - 0.01]
    out += [
        f"{t['text']!r} is cut at the edge ({t['x']:.0f},{t['y']:.0f} "
        f"{t['w']:.0f}x{t['h']:.0f} in {w:.0f}x{h:.0f})"
        for t in texts
        if t["x"] < -0.5 or t["y"] < -0.5 or t["x"] + t["w"] > w + 0.5 or t["y"] + t["h"] > h + 0.5
    ]
    out += [f"{a!r} overlaps {b!r}" for a, b in overlapping(texts)]
    return out


def wheel_delta(ratio: float) -> float:
    """The ctrl+wheel ``deltaY`` (pixel mode) that zooms by ``ratio`` (at most 1.25)."""
    return -100 * math.log2(ratio) / math.log2(1.25)


def fit(page: Page, root: int = 0) -> dict[str, Any]:
    page.evaluate(f"{debug(root)}.fit()")
    return drawn(page, root)


#: the four drags of :func:`check_fit`: one screen each way
SIDES = (("up", 0, -1), ("down", 0, 1), ("left", -1, 0), ("right", 1, 0))


def check_fit(page: Page, where: str, root: int = 0) -> list[str]:
    """Faults at Fit, and texts a drag of one screen each way shows that Fit did not.

    Each drag starts from Fit, the picture the first draw read: its texts are known, so
    none is read again. The Fit, the drags and their draws run in the page, in one call
    (:data:`FIT_AND_DRAG`)."""
    result: dict[str, Any] | None = page.evaluate(FIT_AND_DRAG, [root, 30_000, SIDES])
    assert result is not None, f"{where}: timed out waiting for every text in view to arrive"
    got = result["got"]
    out = [f"{where} at fit: {f}" for f in faults(got)]
    seen = {t["text"] for t in in_canvas(got)}
    selected = got["stats"].get("selected")
    moved: list[bool] = []  # a side the picture already reaches may hold it still
    for side in result["sides"]:
        name, again, after = side["name"], side["again"], side["after"]
        assert again == got["stats"]["transform"], f"{where}: Fit moved ({again})"
        moved.append(after["stats"]["transform"] != got["stats"]["transform"])
        new = sorted({t["text"] for t in in_canvas(after)} - seen)
        if new:
            out.append(f"{where}: dragging {name} after fit shows {len(new)} more texts: {new[:3]}")
        assert after["stats"].get("selected") == selected, f"{where}: a drag selected an entry"
    assert any(moved), f"{where}: no drag moved the picture"
    return out


def check_zoom(page: Page, where: str, root: int = 0) -> list[str]:
    """Faults at ``ZOOM_STEPS`` scales between Fit and 1:1: as many ctrl+wheel events,
    each zooming by the same ratio, and the draw after each (in the page, in one call)."""
    got = fit(page, root)
    k0 = got["stats"]["transform"]["k"]
    out: list[str] = []
    if abs(math.log(k0)) < 1e-3:
        return out
    step = math.exp(-math.log(k0) / (ZOOM_STEPS + 1))
    draws: list[dict[str, Any]] | None = page.evaluate(
        WHEEL_AND_DRAW, [root, 30_000, wheel_delta(step), ZOOM_STEPS]
    )
    assert draws is not None, f"{where}: timed out waiting for every text in view to arrive"
    for j, got in enumerate(draws, 1):
        k = got["stats"]["transform"]["k"]
        out += [f"{where} at zoom {k:.2f} (step {j}): {f}" for f in faults(got)]
    return out


def next_frame(page: Page) -> None:
    """Return once the page has drawn two more frames."""
    page.evaluate(
        "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
    )


def set_view(page: Page, view: str, root: int = 0) -> None:
    page.evaluate(f"{debug(root)}.setView('{view}')")
    page.wait_for_function(
        f"(view) => {debug(root)}.stats().view === view", arg=view, polling="raf", timeout=10_000
    )


def test_the_checks_can_fail() -> None:
    got = {"w": 100, "h": 50, "texts": [{"text": "a", "x": 90, "y": 5, "w": 20, "h": 12, "px": 12}]}
    assert faults(got) == ["'a' is cut at the edge (90,5 20x12 in 100x50)"]
    got["texts"] = [{"text": "a", "x": 0, "y": 0, "w": 20, "h": 9, "px": 9}]
    assert faults(got) == ["'a' is 9.0 px"]


#: the sessions whose active leaf is checked whole on screen at opening and at Fit
LEAF_WHOLE = ("17 leaves", "100k entries")


@pytest.mark.parametrize("name", BIG)
def test_fit_shows_the_whole_session(
    page: Page, pages: dict[str, Path], sessions: dict[str, Path], name: str
) -> None:
    """Both views of one page, switched in it (the page is loaded once); first, as the
    page opens, the active leaf of the sessions of :data:`LEAF_WHOLE`."""
    leaf = last_entry_id(sessions[name]) if name in LEAF_WHOLE else None
    watch = open_page(page, pages[name])
    if leaf is not None:
        check_active_leaf_whole(page, leaf, name)
    problems: list[str] = []
    for view in VIEWS:
        set_view(page, view)
        problems += check_fit(page, f"{name} {view}") + check_zoom(page, f"{name} {view}")
        if name == "100k entries":
            problems += check_output_sums(page, f"{name} {view}")
    assert not problems, "\n".join(problems[:12])
    assert watch.errors == []


def last_entry_id(path: Path) -> str:
    """The id of the file's last entry: the active leaf (``Session.leaf_id``), read off
    the file's last line rather than by loading 100k entries for it."""
    with path.open("rb") as file:
        file.seek(max(0, path.stat().st_size - 65_536))
        tail = file.read().rstrip(b"\n")
        if b"\n" not in tail:  # a last line longer than the tail read
            file.seek(0)
            tail = file.read().rstrip(b"\n")
    last = tail.rsplit(b"\n", 1)[-1]
    entry_id: str = orjson.loads(last)["id"]
    return entry_id


def test_the_last_entry_is_the_active_leaf(sessions: dict[str, Path]) -> None:
    path = sessions["17 leaves"]
    assert last_entry_id(path) == prime_nb.load(path).leaf_id


def check_active_leaf_whole(page: Page, leaf: str, name: str) -> None:
    """The active leaf is whole on screen at opening (the page just opened) and at Fit."""
    for when in ("opening", "fit"):
        if when == "fit":
            fit(page)
        pos = page.evaluate(f"(id) => {debug(0)}.screenPos(id)", leaf)
        box = page.locator(".pnb-canvas").bounding_box()
        assert pos is not None and box is not None, (
            f"{name} at {when}: the active leaf is off screen"
        )
        # its row, text and ring included, clear of the bottom edge
        assert pos["y"] + 10 <= box["y"] + box["height"], f"{name} at {when}: {pos} in {box}"


def check_output_sums(page: Page, where: str) -> list[str]:
    """Folded rows (Tree) and boxes (Branches) at Fit give the output tokens they hold,
    summed from the output-tokens column ("251k output tokens", "1.2M output")."""
    texts = [t["text"] for t in in_canvas(fit(page))]
    folded = [t for t in texts if t.startswith("▸") or t.startswith("entries ")]
    summed = [t for t in texts if re.search(r"\d[\d.,]*[kM]? output", t)]
    if not folded:
        return [f"{where}: nothing folded at fit"]
    return [] if summed else [f"{where}: no output-token sum at fit in {folded[:3]}"]


def test_fit_shows_every_session_of_the_matrix(page: Page, pages: dict[str, Path]) -> None:
    problems: list[str] = []
    for name in MATRIX:
        watch = open_page(page, pages[name])
        for view in VIEWS:
            set_view(page, view)
            problems += check_fit(page, f"{name} {view}")
        assert watch.errors == [], name
    assert not problems, "\n".join(problems[:12])


# -- defects a new reader met -------------------------------------------------------------------
def test_clicking_a_row_near_the_top_keeps_the_session_start_at_the_top(
    page: Page, pages: dict[str, Path]
) -> None:
    open_page(page, pages["1,000 entries, 40 forks"])
    got = fit(page)
    top = min((t for t in in_canvas(got)), key=lambda t: t["y"])
    box = page.locator(".pnb-canvas").bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + top["x"] + 5, box["y"] + top["y"] + top["h"] / 2)
    wait_until(lambda: page.evaluate(f"{debug(0)}.stats().selected"), 10, "the selection", page)
    t = page.evaluate(f"{debug(0)}.stats().transform")
    # the first row stays near the top: no empty band above the session's start
    assert t["y"] <= 0.15 * got["h"], t


def test_one_enter_goes_to_the_first_hit(page: Page, pages: dict[str, Path]) -> None:
    open_page(page, pages["1,000 entries, 40 forks"])
    box = page.locator(".pnb-search-input")
    box.click()
    box.type("parser")
    page.keyboard.press("Enter")
    wait_until(lambda: page.evaluate(f"{debug(0)}.stats().selected"), 10, "the first hit", page)
    assert page.evaluate(f"{debug(0)}.stats().hitPos") == 0


def test_the_hit_count_never_wraps(page: Page, pages: dict[str, Path]) -> None:
    page.set_viewport_size({"width": 820, "height": 700})  # the next test gets its own back
    open_page(page, pages["17 leaves"])
    bar = page.locator(".pnb-toolbar")
    before = bar.bounding_box()
    page.evaluate("document.querySelector('.pnb-search-count').textContent = '16/61 (+11 hidden)'")
    after = bar.bounding_box()
    count = page.locator(".pnb-search-count").bounding_box()
    assert before is not None and after is not None and count is not None
    assert after["height"] == before["height"]
    assert count["height"] < 20, count


def test_tree_text_runs_to_the_right_edge_of_a_wide_page(
    page: Page, pages: dict[str, Path]
) -> None:
    page.set_viewport_size({"width": 1400, "height": 900})  # the next test gets its own back
    open_page(page, pages["17 leaves"])
    got = fit(page)
    right = max(t["x"] + t["w"] for t in in_canvas(got))
    assert right > 1000, f"texts stop at {right:.0f} px on a {got['w']:.0f}-px canvas"
    assert not faults(got)


def test_a_real_mouse_drag_pans_and_selects_nothing(page: Page, pages: dict[str, Path]) -> None:
    """The drags of :func:`check_fit` are mouse events dispatched in the page; this one
    is the browser's own input (Playwright's mouse): the picture at Fit moves by the drag,
    and the click that ends it selects nothing."""
    open_page(page, pages["17 leaves"])
    got = fit(page)
    x, y = got["left"] + got["w"] / 2, got["top"] + got["h"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + got["w"] / 3, y + got["h"] / 3, steps=4)
    page.mouse.up()
    after = drawn(page)
    assert after["stats"]["transform"] != got["stats"]["transform"]
    assert after["stats"].get("selected") == got["stats"].get("selected")
