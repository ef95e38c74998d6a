"""The exported HTML in a real (headless) Chromium: it renders, it is interactive, it is safe."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import orjson
import pytest
from browser import (  # noqa: F401
    DEBUG,
    PageWatch,
    chromium_fixture,
    node_position,
    page_fixture,
    stats,
    wait_drawn,
    wait_js,
)
from playwright.sync_api import Page, expect
from session_matrix import write_case
from widget_support import hostile_entries, shown_by_filter, write_hostile_session

import prime_nb
import sessiongen
from prime_nb.widget import _export_parts, export_html, read_export
from prime_nb.widget._data import SessionData
from sessiongen import large_session_entries, write_jsonl


@pytest.fixture(scope="module")
def known(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Path]:
    folder = tmp_path_factory.mktemp("export")
    path = sessiongen.synthetic_session(folder / "known.jsonl")
    session = prime_nb.load(path)
    html = export_html(session, folder / "known.html")
    return session, html


def open_export(page: Page, html: Path) -> PageWatch:
    watch = PageWatch(page)
    page.goto(html.as_uri())
    wait_drawn(page)
    return watch


def wait_stats(page: Page, key: str, value: Any) -> None:
    wait_js(page, f"([k, v]) => {DEBUG}.stats()[k] === v", [key, value])


def test_export_renders_every_shown_entry(page: Page, known: tuple[Any, Path]) -> None:
    session, html = known
    watch = open_export(page, html)
    s = stats(page)
    assert s["n"] == len(session.entries)
    expected = shown_by_filter(session, "default")
    assert s["shown"] == len(expected)
    # Runs without a landmark fold into one row each: fewer nodes, every entry drawn.
    assert 0 < s["nodes"] <= len(expected)
    assert set(page.evaluate(f"{DEBUG}.visibleIds()")) == expected
    header = page.locator(".pnb-title").inner_text()
    assert session.name in header
    assert watch.errors == [] and watch.remote == []


def test_click_opens_the_right_entry(page: Page, known: tuple[Any, Path]) -> None:
    session, html = known
    open_export(page, html)
    e = session.entries
    users = e[(e["role"] == "user") & e["on_active_path"]]
    entry_id = str(users.index[len(users) // 2])
    text = session.entry(entry_id)["message"]["content"]
    text = text if isinstance(text, str) else text[0]["text"]
    pos = node_position(page, entry_id)
    page.mouse.click(pos["x"], pos["y"])
    panel = page.locator(".pnb-panel")
    expect(panel).to_have_attribute("data-entry-id", entry_id)
    expect(panel).to_have_attribute("data-loaded", str(e.index.get_loc(entry_id)))
    expect(panel.locator(".pnb-entry-id")).to_have_text(entry_id)
    expect(panel.locator(".pnb-md").first).to_contain_text(text.split("\n")[0][:40])
    assert stats(page)["selected"] == entry_id

    # An assistant with tool calls shows each call with its paired result.
    calls = session.tool_calls.dropna(subset=["result_id"])
    assistant_id = str(calls["assistant_id"].iloc[0])
    page.evaluate(f"(i) => {DEBUG}.selectIndex(i)", int(e.index.get_loc(assistant_id)))
    expect(panel).to_have_attribute("data-loaded", str(e.index.get_loc(assistant_id)))
    first_call = calls[calls["assistant_id"] == assistant_id].iloc[0]
    expect(panel.locator(".pnb-tool-name").first).to_have_text(first_call["name"])
    expect(panel.locator(".pnb-tool-result-head").first).to_contain_text(
        str(first_call["result_id"])
    )


def test_first_lines_are_fetched_when_zoomed_in(page: Page, known: tuple[Any, Path]) -> None:
    session, html = known
    open_export(page, html)
    node_position(page, session.leaf_id, zoom=1.0)
    wait_js(page, f"() => {DEBUG}.stats().lines > 5")
    page.evaluate(f"{DEBUG}.drawNow()")
    assert stats(page)["lastDraw"]["missingLines"] == []


def test_hover_shows_a_tooltip(page: Page, known: tuple[Any, Path]) -> None:
    session, html = known
    open_export(page, html)
    leaf = session.leaf_id
    pos = node_position(page, leaf)
    page.mouse.move(pos["x"], pos["y"])
    tip = page.locator(".pnb-tooltip")
    expect(tip).to_be_visible()
    first_line = SessionData(session).preview(len(session.entries) - 1)["first_line"]
    expect(tip.locator(".pnb-tip-text")).to_have_text(first_line or "(no text)")


@pytest.mark.parametrize("mode", ["no-tools", "user-only", "labeled-only", "all", "default"])
def test_filters_match_the_agent(page: Page, known: tuple[Any, Path], mode: str) -> None:
    session, html = known
    open_export(page, html)
    page.locator(".pnb-select").select_option(mode)
    wait_stats(page, "filter", mode)
    expected = shown_by_filter(session, mode)
    assert stats(page)["shown"] == len(expected)
    assert set(page.evaluate(f"{DEBUG}.visibleIds()")) == expected


def test_search_highlights_and_steps_through_hits(page: Page, known: tuple[Any, Path]) -> None:
    session, html = known
    open_export(page, html)
    data = SessionData(session)
    shown = shown_by_filter(session, "default")
    query = "header row"
    hits = [data.ids[i] for i in data.search(query) if data.ids[i] in shown]
    assert len(hits) >= 2
    box = page.locator(".pnb-search-input")
    box.fill(query)
    box.press("Enter")
    wait_stats(page, "hits", len(hits))
    page.locator(".pnb-next").click()
    wait_js(page, f"() => {DEBUG}.stats().hitPos >= 0")
    first = stats(page)
    assert first["selected"] in hits
    page.locator(".pnb-next").click()
    wait_js(page, f"(p) => {DEBUG}.stats().hitPos === (p + 1) % {len(hits)}", first["hitPos"])
    second = stats(page)
    assert second["selected"] in hits and second["selected"] != first["selected"]
    expect(page.locator(".pnb-search-count")).to_contain_text(f"/{len(hits)}")
    page.locator(".pnb-prev").click()
    wait_stats(page, "selected", first["selected"])


def test_branch_view_keyboard_and_context(page: Page, known: tuple[Any, Path]) -> None:
    session, html = known
    open_export(page, html)
    leaf = session.leaf_id
    page.locator(".pnb-root").focus()
    page.keyboard.press("a")
    wait_stats(page, "selected", leaf)
    page.keyboard.press("ArrowUp")
    wait_js(page, f"(id) => {DEBUG}.stats().selected !== id", leaf)
    parent = stats(page)["selected"]
    assert parent in session.path(leaf)

    page.locator(".pnb-seg-btn", has_text="Branches").click()
    wait_stats(page, "view", "branches")
    nodes = stats(page)["nodes"]
    assert nodes < stats(page)["shown"]
    page.keyboard.press("a")
    wait_stats(page, "selected", leaf)

    # The context the model saw at the active leaf.
    panel = page.locator(".pnb-panel")
    expect(panel).to_have_attribute("data-loaded", str(len(session.entries) - 1))
    panel.get_by_role("button", name=re.compile("Context")).click()
    expect(panel).to_have_attribute("data-loaded", f"context-{len(session.entries) - 1}")
    assert panel.locator(".pnb-ctx-item").count() == len(session.context(leaf))


def test_segments_expand_on_click(page: Page, known: tuple[Any, Path]) -> None:
    _, html = known
    open_export(page, html)
    page.locator(".pnb-seg-btn", has_text="Branches").click()
    wait_stats(page, "view", "branches")
    page.evaluate(f"{DEBUG}.fit()")
    before = stats(page)["nodes"]
    # click the first collapsed segment found on screen
    segments = page.evaluate(f"{DEBUG}.segments()")
    assert segments, "no collapsed segment in view"
    pos = segments[0]
    page.mouse.click(pos["x"], pos["y"])
    wait_js(page, f"(n) => {DEBUG}.stats().nodes > n", before)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Path, Path, Path]:
    folder = tmp_path_factory.mktemp("hostile")
    path = write_hostile_session(folder / "hostile.jsonl")
    session = prime_nb.load(path)
    strict = export_html(session, folder / "strict.html")  # its title is the hostile name
    bare = folder / "no-csp.html"
    page, found = re.subn(
        r'<meta http-equiv="Content-Security-Policy"[^>]*>\n', "", strict.read_text("utf-8")
    )
    assert found == 1
    bare.write_text(page, "utf-8")
    with pytest.MonkeyPatch.context() as mp:  # entries in many compressed chunks
        mp.setattr(_export_parts, "CHUNK_ROWS", 3)
        streamed = export_html(session, folder / "streamed.html")
    return session, strict, bare, streamed


#: In the page, entry ``i`` (id ``id``) opened in full, as a reader would: selected; once
#: the panel holds it, every ``summary`` clicked in document order (a summary inside
#: another's details shows once that one opens), each scrolled into view first; then
#: what the opened details draw on their toggle event (the raw JSON) waited for. Returns
#: what went wrong (a summary not on screen to click, a timeout), the entry's node on
#: screen (null if off it) and the ``href`` of every link in the panel.
OPEN_IN_FULL = f"""async ([i, id]) => {{
  const dbg = {DEBUG};
  const panel = document.querySelector('.pnb-panel');
  const wait = async (done, what) => {{
    const end = performance.now() + 20000;
    while (!done()) {{
      if (performance.now() > end) throw new Error(`entry ${{i}}: timed out waiting for ${{what}}`);
      await new Promise((next) => setTimeout(next, 10));
    }}
  }};
  dbg.selectIndex(i);
  await wait(() => panel.getAttribute('data-loaded') === String(i), 'the panel');
  const missed = [];
  for (const summary of panel.querySelectorAll('summary')) {{
    summary.scrollIntoView({{ block: 'nearest' }});
    if (summary.getClientRects().length === 0) {{ missed.push(summary.textContent); continue; }}
    summary.click();
  }}
  await wait(() => [...panel.querySelectorAll('details.pnb-raw')]
    .every((d) => !d.open || d.childElementCount > 1), 'the raw JSON');
  const hrefs = [...panel.querySelectorAll('a')].map((a) => a.getAttribute('href'));
  return {{ missed, pos: dbg.screenPos(id), hrefs }};
}}"""


@pytest.mark.parametrize("variant", ["strict", "no-csp", "streamed"])
def test_hostile_session_runs_no_script(
    page: Page, hostile: tuple[Any, Path, Path, Path], variant: str
) -> None:
    """Every entry opened in full (details unfolded, raw JSON, context), hovered, searched.

    ``streamed``: the page export_html writes, its entries in chunks of 3 decoded as
    they are opened."""
    session, strict, bare, streamed = hostile
    html = {"strict": strict, "no-csp": bare, "streamed": streamed}[variant]
    watch = open_export(page, html)
    page.locator(".pnb-select").select_option("all")
    wait_stats(page, "filter", "all")
    panel = page.locator(".pnb-panel")
    for index, entry_id in enumerate(session.entries.index):
        opened = page.evaluate(OPEN_IN_FULL, [index, entry_id])
        assert opened["missed"] == [], f"entry {index}: summaries not on screen"
        pos = opened["pos"]
        if pos:
            page.mouse.move(pos["x"], pos["y"])
        page.mouse.move(5, 5)
        for href in opened["hrefs"]:
            assert href is None or re.match(r"^(https?:|mailto:)", href), href
    page.evaluate(f"(i) => {DEBUG}.selectIndex(i)", len(session.entries) - 1)
    panel.get_by_role("button", name=re.compile("Context")).click()
    expect(panel.locator(".pnb-ctx-item").first).to_be_visible()
    page.locator(".pnb-search-input").fill("script")
    page.locator(".pnb-search-input").press("Enter")
    wait_js(page, f"() => {DEBUG}.stats().hits > 0")
    page.locator(".pnb-seg-btn", has_text="Branches").click()
    wait_stats(page, "view", "branches")

    assert page.evaluate("window.__pwned") is None
    assert watch.dialogs == []
    assert watch.remote == []
    for tag in ("iframe", "object", "embed", "svg", "math", "form", "style", "meta", "input"):
        assert page.locator(f".pnb-panel {tag}, .pnb-tooltip {tag}").count() == 0, tag
    assert page.locator(".pnb-root [onerror], .pnb-root [onload], .pnb-root [onclick]").count() == 0
    imgs = page.locator(".pnb-root img").evaluate_all("els => els.map(e => e.getAttribute('src'))")
    for src in imgs:
        assert re.match(r"^data:image/(png|jpeg|gif|webp);base64,", src), src
    if variant != "no-csp":
        assert watch.errors == []


def test_export_is_self_contained(hostile: tuple[Any, Path, Path, Path]) -> None:
    session, strict, _, _ = hostile
    text = strict.read_text("utf-8")
    assert 'http-equiv="Content-Security-Policy"' in text
    policy = text.split('http-equiv="Content-Security-Policy" content="')[1].split('"')[0]
    assert "default-src 'none'" in policy and "connect-src 'none'" in policy
    assert "unsafe" not in policy  # no 'unsafe-eval', no 'unsafe-inline'
    assert policy.count("'sha256-") == 2  # the one script and the one style, by hash

    class Tags(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.tags: list[str] = []
            self.urls: list[str] = []

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            self.tags.append(tag)
            self.urls += [v or "" for k, v in attrs if k in ("src", "href")]

    parser = Tags()
    parser.feed(text)
    # payloads closing the data or code element early would add tags here
    assert parser.tags == [
        "html",
        "head",
        "meta",
        "meta",
        "meta",
        "meta",
        "title",
        "style",
        "body",
        "div",
        "script",  # the tree (JSON)
        "script",  # the first lines (compressed: base64, no tag can hide in it)
        "script",  # the code
        *["script"] * 5,  # the other compressed parts
        "script",  # their index (JSON)
    ]
    assert parser.urls == []
    assert len(hostile_entries()) == len(session.entries) + 1


ASK_ALL = """
async ([what, rows]) => {
  const ask = document.getElementById('pnb-app').pnbAsk;
  const out = [];
  for (const index of rows) out.push(await ask({ what, index }));
  return JSON.stringify(out);  // as text: deep values are past what evaluate() carries
}
"""


def plain(value: Any) -> Any:
    return orjson.loads(orjson.dumps(value, option=orjson.OPT_SERIALIZE_NUMPY))


@pytest.mark.parametrize(
    "case",
    [
        "synthetic-v3-prime-forks5",
        "synthetic-v2-spec-forks1",
        "comp-on2-off2-forks6-v3-spec",
        "fixture-agent-written--feature-tour.jsonl",
        "fixture-agent-written--edge-compaction-offpath.jsonl",
        "odd-tool-call-args-string",
        "odd-tool-call-id-object",
        "odd-long-tool-call-line",
        "odd-deep-nesting",
        "odd-numbers-past-double",
        "odd-message-string",
        "odd-duplicate-id-taken-rename",
        "odd-timestamp-garbage",
        "hostile",
    ],
)
def test_page_answers_as_the_kernel_does(page: Page, tmp_path: Path, case: str) -> None:
    """Every entry's detail, preview and carried context, and searches, asked of the
    page's stand-in (entries in chunks of 5), equal the notebook widget's answers."""
    if case == "hostile":
        path = write_hostile_session(tmp_path / "hostile.jsonl")
    else:
        path = write_case(case, tmp_path)
    session = prime_nb.load(path)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_export_parts, "CHUNK_ROWS", 5)
        html = export_html(session, tmp_path / "page.html")
    watch = open_export(page, html)
    data = SessionData(session)
    rows = list(range(data.n))

    def ask(what: str, rows: list[int]) -> Any:
        return json.loads(page.evaluate(ASK_ALL, [what, rows]))

    assert ask("entry", rows) == plain([data.entry(i) for i in rows])
    assert ask("preview", rows) == plain([data.preview(i) for i in rows])
    carried = [int(r) for r in read_export(html)["contexts"]]
    assert data.row_of[session.leaf_id] in carried
    assert ask("context", carried) == plain([data.context(i) for i in carried])
    for query in ("the", "read", "error", "<script", "zzz-not-there"):
        got = page.evaluate(
            "(q) => document.getElementById('pnb-app').pnbAsk({ what: 'search', query: q })", query
        )
        assert got == {"indices": data.search(query)}, query
    assert watch.errors == [] and watch.remote == []


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Path]:
    folder = tmp_path_factory.mktemp("big")
    path = write_jsonl(folder / "big.jsonl", large_session_entries(20_000, seed=5))
    session = prime_nb.load(path)
    return session, export_html(session, folder / "big.html", progress=False)


def test_big_export_draws_opens_searches_and_shows_context(
    page: Page, big: tuple[Any, Path]
) -> None:
    """A 20k-entry page: drawn from the tree alone, then an entry (a tool call and its
    result from another chunk when there is one), a search and the active leaf's context."""
    session, html = big
    watch = open_export(page, html)
    assert stats(page)["n"] == len(session.entries)
    data = SessionData(session)
    calls = session.tool_calls.dropna(subset=["result_id"])
    assistant = str(calls["assistant_id"].iloc[-1])
    row = data.row_of[assistant]
    page.evaluate(f"(i) => {DEBUG}.selectIndex(i)", row)
    panel = page.locator(".pnb-panel")
    expect(panel).to_have_attribute("data-loaded", str(row))
    expect(panel.locator(".pnb-entry-id")).to_have_text(assistant)
    expect(panel.locator(".pnb-tool-result-head").first).to_contain_text(
        str(calls[calls["assistant_id"] == assistant]["result_id"].iloc[0])
    )
    query = "retry"
    shown = shown_by_filter(session, "default")
    hits = [i for i in data.search(query) if data.ids[i] in shown]
    assert hits
    box = page.locator(".pnb-search-input")
    box.fill(query)
    box.press("Enter")
    wait_stats(page, "hits", len(hits))
    leaf = len(session.entries) - 1
    page.evaluate(f"(i) => {DEBUG}.selectIndex(i)", leaf)
    expect(panel).to_have_attribute("data-loaded", str(leaf))
    panel.get_by_role("button", name=re.compile("Context")).click()
    expect(panel).to_have_attribute("data-loaded", f"context-{leaf}")
    assert panel.locator(".pnb-ctx-item").count() == len(session.context(session.leaf_id))
    assert watch.errors == [] and watch.remote == []
