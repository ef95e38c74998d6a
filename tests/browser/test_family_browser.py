"""The family view's bundle (static/family.js) in a real Chromium, mounted as anywidget
mounts it (``render({model, el})``) on a small stand-in model, as a notebook would."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from browser import PageWatch, chromium_fixture, page_fixture, wait_js  # noqa: F401
from playwright.sync_api import Page, expect
from widget_support import PAYLOADS

import prime_nb
from prime_nb.widget._family_data import family_payload
from prime_nb.widget._session_widget import STATIC
from sessiongen import synthetic_family

HOST = """<!doctype html><html><head><meta charset="utf-8"><title>family</title>
<style>{css}</style></head><body><div id="host" style="width:1180px"></div></body></html>"""

#: a stand-in for anywidget's model: get/set/on/off/save_changes, changes recorded
MOUNT = """async ([code, data]) => {
  const url = URL.createObjectURL(new Blob([code], { type: "text/javascript" }));
  const mod = await import(url);
  const state = { _family: data, selected_session: null };
  const listeners = {};
  window.__saved = [];
  window.__model = {
    get: (k) => state[k],
    set: (k, v) => { state[k] = v; (listeners["change:" + k] || []).forEach((f) => f()); },
    on: (e, f) => { (listeners[e] = listeners[e] || []).push(f); },
    off: (e, f) => { listeners[e] = (listeners[e] || []).filter((g) => g !== f); },
    save_changes: () => { window.__saved.push(state.selected_session); },
  };
  window.__listeners = listeners;
  const el = document.getElementById("host");
  window.__dispose = mod.default.render({ model: window.__model, el });
  return document.querySelectorAll(".pnb-fam-box").length;
}"""


def mount(page: Page, folder: Path, payload: dict[str, Any]) -> PageWatch:
    assert (STATIC / "family.js").is_file(), "build the bundle: cd js && npm ci && npm run build"
    html = folder / "host.html"
    html.write_text(HOST.format(css=(STATIC / "family.css").read_text()))
    watch = PageWatch(page)
    page.goto(html.as_uri())
    count = page.evaluate(MOUNT, [(STATIC / "family.js").read_text(), payload])
    assert count == len(payload["sessions"])
    return watch


def box(page: Page, key: str) -> Any:
    return page.locator(".pnb-fam-box").nth(
        page.evaluate(
            "(k) => [...document.querySelectorAll('.pnb-fam-box')].findIndex("
            "(b) => b.dataset.session === k)",
            key,
        )
    )


@pytest.fixture(scope="module")
def family(tmp_path_factory: pytest.TempPathFactory) -> prime_nb.Family:
    written = synthetic_family(tmp_path_factory.mktemp("family"), seed=0)
    return prime_nb.load_family(written["root"])


def test_lanes_link_children_at_their_branch_points(
    page: Page, family: prime_nb.Family, tmp_path: Path
) -> None:
    watch = mount(page, tmp_path, family_payload(family))
    sessions = family.sessions.set_index("session")
    boxes = page.evaluate(
        """() => [...document.querySelectorAll('.pnb-fam-box')].map((b) => {
          const r = b.getBoundingClientRect();
          return {key: b.dataset.session, kind: b.dataset.kind, x: r.left, y: r.top,
                  text: b.textContent};
        })"""
    )
    assert [b["key"] for b in boxes] == sessions.index.tolist()
    at = {b["key"]: b for b in boxes}
    for key, row in sessions.iterrows():
        assert at[key]["kind"] == row["kind"]
        if isinstance(row["parent"], str):  # below its parent, starting to its right
            parent = at[row["parent"]]
            assert at[key]["y"] > parent["y"] and at[key]["x"] > parent["x"]
    assert page.locator(".pnb-fam-link").count() == 4
    assert page.locator(".pnb-fam-link.pnb-fam-subagent").count() == 2
    dashed = page.evaluate(
        "() => getComputedStyle(document.querySelector('.pnb-fam-link.pnb-fam-subagent'))"
        ".strokeDasharray"
    )
    assert dashed not in ("", "none")
    head = page.locator(".pnb-fam-head").inner_text()
    assert head.startswith("5 sessions") and f"${family.totals['cost']:.4f}" in head
    assert watch.errors == [] and watch.remote == []


def test_click_selects_and_the_model_can_select_back(
    page: Page, family: prime_nb.Family, tmp_path: Path
) -> None:
    mount(page, tmp_path, family_payload(family))
    sub = family.sessions.query("kind == 'subagent' and level == 2")["session"].iloc[0]
    box(page, sub).click()
    assert page.evaluate("window.__saved") == [sub]
    expect(box(page, sub)).to_have_class("pnb-fam-box pnb-fam-subagent pnb-fam-selected")
    root = family.roots[0]
    page.evaluate("(k) => window.__model.set('selected_session', k)", root)
    expect(box(page, root)).to_have_attribute("aria-pressed", "true")
    expect(box(page, sub)).to_have_attribute("aria-pressed", "false")
    box(page, root).focus()
    page.keyboard.press("Enter")
    assert page.evaluate("window.__saved") == [sub, root]
    # new data redraws; the disposer removes the view and every listener
    page.evaluate("() => window.__model.set('_family', {sessions: []})")
    wait_js(page, "() => document.querySelectorAll('.pnb-fam-box').length === 0")
    page.evaluate("() => window.__dispose()")
    assert page.evaluate("() => document.querySelector('.pnb-fam')") is None
    assert page.evaluate("() => Object.values(window.__listeners).flat().length") == 0


def test_hostile_names_stay_text(page: Page, tmp_path: Path) -> None:
    from conftest import header, msg, write_lines

    src = tmp_path / "src.jsonl"
    write_lines(
        src,
        [
            header(id=f"sess-{PAYLOADS[0]}"),
            msg("a1", None, "user", PAYLOADS[1]),
            {
                "type": "session_info",
                "id": "a2",
                "parentId": "a1",
                "name": PAYLOADS[2],
                "timestamp": "2026-01-05T10:01:00.000Z",
            },
        ],
    )
    write_lines(
        tmp_path / "fork.jsonl",
        [
            header(id=PAYLOADS[9], parentSession=str(src), timestamp="2026-01-05T11:00:00.000Z"),
            msg("a1", None, "user", PAYLOADS[1]),
            msg("b1", "a1", "user", PAYLOADS[12], minute=5),
        ],
    )
    (tmp_path / "bad.jsonl").write_text(json.dumps(header(id=PAYLOADS[5])) + "\n\xff{")
    family = prime_nb.load_family(tmp_path)
    watch = mount(page, tmp_path, family_payload(family))
    labels = page.locator(".pnb-fam-label").all_inner_texts()
    assert PAYLOADS[2] in labels and PAYLOADS[12] in labels
    assert page.evaluate("() => window.__pwned") is None
    assert page.locator(".pnb-fam img, .pnb-fam script, .pnb-fam iframe").count() == 0
    for index in range(page.locator(".pnb-fam-box").count()):
        page.locator(".pnb-fam-box").nth(index).click()
    assert page.evaluate("() => window.__pwned") is None
    assert watch.dialogs == [] and watch.remote == [] and watch.errors == []
