"""The Transcript at 100k entries, in an exported page (here) and in JupyterLab (in
``test_fit_jupyterlab_browser``, whose JupyterLab page and kernel it shares).

The Transcript is a virtual list: these tests open it on a 100k-entry session (made once
per run, ``big_session.large_session``) and check that the DOM holds only the rows near
the screen after opening and after scrolling to the middle and the end, that the rows on
screen get their bodies, and that the page (or the kernel) was asked only for entries
near the screen: every request is recorded with whether its row was drawn when it was
sent. The opening time is printed as a report, never asserted. The exported page's long
tasks (PerformanceObserver 'longtask') have a bound; that test is marked ``alone``, so
that ``.ci/test`` runs it when no other test shares the machine. Node counts have a
generous bound.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from big_session import large_session
from browser import DEBUG, PageWatch, chromium_fixture, page_fixture, wait_drawn, wait_js  # noqa: F401
from playwright.sync_api import Page
from run_cache import built_once

from prime_nb.widget._export import export_html

N = 100_000
MAX_ITEMS = 300  # "a few hundred nodes at most"

# Records every request the view sends (what, index or indices, whether each asked row was
# drawn at the time) and every long task, from now on.
WATCH = """
(dbg) => {
  const model = dbg.model;
  const sent = [];
  const drawn = (i) => document.querySelector(`.pnb-tx-item[data-index="${i}"]`) !== null;
  const send = model.send.bind(model);
  model.send = (c) => {
    if (c && c.type === "request" && ["entry", "entries", "lines"].includes(c.what)) {
      const ix = c.what === "entry" ? [c.index] : c.indices;
      sent.push({ what: c.what, ix, drawn: ix.map(drawn) });
    }
    return send(c);
  };
  const long = [];
  new PerformanceObserver((l) => { for (const e of l.getEntries()) long.push(e.duration); })
    .observe({ type: "longtask" });
  window.__pnbWatch = { sent, long };
}
"""

OPEN = f"""
async () => {{
  const t0 = performance.now();
  const sync = {DEBUG}.setView("transcript");
  await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  return {{ sync, toFrame: performance.now() - t0 }};
}}
"""

ITEMS = "() => document.querySelectorAll('.pnb-tx-item').length"

# Rows whose box meets the transcript's screen, and how many of them have their body.
ON_SCREEN = """
() => {
  const box = document.querySelector('.pnb-transcript').getBoundingClientRect();
  const rows = Array.from(document.querySelectorAll('.pnb-tx-item')).filter((n) => {
    const r = n.getBoundingClientRect();
    return r.bottom > box.top && r.top < box.bottom;
  });
  const read = rows.filter((n) => n.querySelector('.pnb-tx-body'));
  return {
    rows: rows.length,
    read: read.length,
    loaded: read.filter((n) => n.dataset.loaded === '1').length,
    indices: rows.map((n) => Number(n.dataset.index)),
  };
}
"""

SCROLL = """
(f) => {
  const e = document.querySelector('.pnb-transcript');
  e.scrollTop = f * (e.scrollHeight - e.clientHeight);
}
"""


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The large session and its exported page."""
    path = large_session(tmp_path_factory)
    html = built_once(
        tmp_path_factory,
        f"export_html({path})",
        "big.html",
        lambda out: export_html(path, out, progress=False),
    )
    return path, html


def check_transcript(page: Page, label: str, timeout: float = 30.0) -> dict[str, Any]:
    """Open the Transcript, scroll to the middle and the end; check the DOM stays small,
    the rows on screen get their bodies, and every request was for a row drawn then."""
    page.evaluate(WATCH, page.evaluate_handle(DEBUG))
    opened = page.evaluate(OPEN)
    counts = [page.evaluate(ITEMS)]
    rows = page.evaluate(f"{DEBUG}.transcript()")["rows"]
    assert rows > N // 2  # the active branch of the large session is most of it
    seen: list[int] = []
    for where in (None, 0.5, 1.0):
        if where is not None:
            page.evaluate(SCROLL, where)
        # rows on screen, and every one that is read gets its body
        wait_js(
            page,
            f"() => {{ const s = ({ON_SCREEN})(); return s.rows > 0 && s.loaded === s.read; }}",
            timeout=timeout,
        )
        screen = page.evaluate(ON_SCREEN)
        assert screen["read"] > 0, where
        seen.extend(screen["indices"])
        counts.append(page.evaluate(ITEMS))
    assert max(counts) <= MAX_ITEMS, counts
    assert page.evaluate(f"{DEBUG}.transcript()")["drawn"] == counts[-1]
    watch = page.evaluate("window.__pnbWatch")
    entries = [ix for s in watch["sent"] if s["what"] in ("entry", "entries") for ix in s["ix"]]
    lines = [ix for s in watch["sent"] if s["what"] == "lines" for ix in s["ix"]]
    # only rows drawn when asked for, so only near the three screens visited
    assert all(d for s in watch["sent"] for d in s["drawn"]), watch["sent"][:5]
    assert 0 < len(entries) <= 3 * MAX_ITEMS and len(set(entries)) == len(entries)
    assert len(lines) <= 3 * MAX_ITEMS
    assert set(seen) & set(entries)
    report = {
        "open_sync_ms": round(opened["sync"]),
        "open_to_frame_ms": round(opened["toFrame"]),
        "items": counts,
        "entry_requests": len(entries),
        "lines_asked": len(lines),
        "long_tasks_ms": [round(x) for x in watch["long"]],
    }
    print(f"\n{label}: {json.dumps(report)}")
    return report


def test_exported_page_transcript_is_virtual(page: Page, big: tuple[Path, Path]) -> None:
    _, html = big
    watch = PageWatch(page)
    page.goto(html.as_uri())
    wait_drawn(page, 120_000)
    check_transcript(page, "exported 100k")
    # an entry a third of the way down, selected in the Tree: the Transcript opens on it
    page.evaluate(SCROLL, 1 / 3)
    wait_js(page, f"() => ({ON_SCREEN})().rows > 0")
    row = page.evaluate(ON_SCREEN)["indices"][0]
    page.locator(".pnb-seg-btn", has_text="Tree").click()
    page.evaluate(f"(i) => {DEBUG}.selectIndex(i)", row)
    page.locator(".pnb-seg-btn", has_text="Transcript").click()
    # the Transcript opens in the task after the click; until then the hidden one still
    # holds the rows it drew before
    shown = "(i) => document.querySelector(`.pnb-transcript:not(.pnb-hidden) [data-index='${i}']`)"
    wait_js(page, shown, row)
    # still on screen once the bodies around it have loaded and changed the heights
    wait_js(page, f"() => {{ const s = ({ON_SCREEN})(); return s.loaded === s.read; }}")
    assert row in page.evaluate(ON_SCREEN)["indices"]
    assert page.locator(".pnb-tx-selected").get_attribute("data-index") == str(row)
    assert page.evaluate(ITEMS) <= MAX_ITEMS
    assert watch.errors == [] and watch.remote == []


# Every long task from now on; ``window.__pnbLong()`` returns their durations, those the
# observer has not delivered yet included.
LONG_TASKS = """
() => {
  const long = [];
  const observer = new PerformanceObserver((l) => {
    for (const e of l.getEntries()) long.push(e.duration);
  });
  observer.observe({ type: "longtask" });
  window.__pnbLong = () => {
    for (const e of observer.takeRecords()) long.push(e.duration);
    return long;
  };
}
"""

#: Issue #34: no frame blocked for more than 100 ms. On a shared 2-core machine this test
#: saw 113 ms on the code before the fix (the click laid out every row of the session for
#: the stage the Transcript covers; unpacking a chunk of entries blocked 40-60 ms more),
#: and at most 55 ms over ten runs after it: the issue's bound leaves room for a busy one.
LONG_TASK_BOUND_MS = 100


@pytest.mark.alone
def test_exported_page_opens_the_transcript_without_blocking_a_frame(
    page: Page, big: tuple[Path, Path]
) -> None:
    """Opening the Transcript on an exported 100k page, and reading its first screen and
    one in the middle (each unpacks a chunk of entries), blocks no frame for long."""
    _, html = big
    watch = PageWatch(page)
    page.goto(html.as_uri())
    wait_drawn(page, 120_000)
    # what the page does on loading (reading the document, the Tree's first lines) is not
    # the Transcript's
    wait_js(page, "() => document.readyState === 'complete'", timeout=120.0)
    wait_js(page, f"() => {DEBUG}.stats().lines > 0", timeout=60.0)
    page.evaluate(LONG_TASKS)
    page.locator(".pnb-seg-btn", has_text="Transcript").click()
    bodies = f"() => {{ const s = ({ON_SCREEN})(); return s.read > 0 && s.loaded === s.read; }}"
    wait_js(page, bodies, timeout=30.0)
    page.evaluate(SCROLL, 0.5)
    wait_js(page, bodies, timeout=30.0)
    long = [round(x) for x in page.evaluate("window.__pnbLong()")]
    print(f"\nexported 100k, long tasks opening the Transcript: {long} ms")
    assert max(long, default=0) <= LONG_TASK_BOUND_MS, long
    assert watch.errors == [] and watch.remote == []
