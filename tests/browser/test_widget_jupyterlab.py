"""End to end in JupyterLab: a click in the widget reaches the kernel, and back.

A real ``jupyter lab`` on 127.0.0.1 (random port and token) serves a notebook that shows a
widget and records every selection into a file through ``on_select``; headless Chromium
runs the cells like a person would (Shift+Enter). Every wait is on state (the DOM, the
file, the server's status), never a fixed sleep.
"""

from __future__ import annotations

import json

from browser import DEBUG, chromium_fixture, node_position  # noqa: F401
from playwright.sync_api import Browser, expect
from servers import (
    Jupyter,
    close_notebook,
    jupyterlab_page,
    lab_fixture,  # noqa: F401
    notebook,
    open_notebook,
    run_cell,
    wait_until,
)
from widget_support import write_hostile_session

import prime_nb
import sessiongen


def test_click_reaches_the_kernel_and_python_selects(lab: Jupyter, chromium: Browser) -> None:
    session_path = sessiongen.synthetic_session(lab.root / "session.jsonl")
    session = prime_nb.load(session_path)
    e = session.entries
    users = [str(i) for i in e.index[(e["role"] == "user") & e["on_active_path"]]]
    clicked, chosen = users[len(users) // 2], users[1]
    log = lab.root / "selected.txt"
    hostile_path = write_hostile_session(lab.root / "hostile.jsonl")
    hostile = prime_nb.load(hostile_path)
    cells = [
        "from pathlib import Path\n"
        "import prime_nb\n"
        f"w = prime_nb.show({str(session_path)!r}, height=520)\n"
        f"w.on_select(lambda entry_id: Path({str(log)!r}).write_text(entry_id or '-'))\n"
        "w",
        f"w.selected_id = {chosen!r}",
        f"h = prime_nb.show({str(hostile_path)!r}, filter='all')\nh",
    ]
    (lab.root / "test.ipynb").write_text(json.dumps(notebook(cells)), "utf-8")

    page = jupyterlab_page(lab, chromium)
    try:
        open_notebook(page, lab, "test.ipynb")
        run_cell(page, 0)
        page.wait_for_selector(".pnb-root[data-drawn]")

        # A click in the browser sets selected_id in the kernel (the observer writes it).
        pos = node_position(page, clicked)
        page.mouse.click(pos["x"], pos["y"])
        expect(page.locator(".pnb-panel")).to_have_attribute("data-entry-id", clicked)
        wait_until(
            lambda: log.is_file() and log.read_text() == clicked,
            60,
            "the kernel to see the click",
            page,
        )

        # Keys in the widget drive the widget, not the notebook ("a": active leaf, not a cell).
        cells_before = page.locator(".jp-Notebook .jp-Cell").count()
        page.keyboard.press("a")
        page.wait_for_function(f"(id) => {DEBUG}.stats().selected === id", arg=session.leaf_id)
        wait_until(
            lambda: log.read_text() == session.leaf_id, 60, "the kernel to see the key", page
        )
        assert page.locator(".jp-Notebook .jp-Cell").count() == cells_before

        # Setting it from Python selects the node and shows it in the panel.
        run_cell(page, 1)
        panel = page.locator(".pnb-panel")
        expect(panel).to_have_attribute("data-entry-id", chosen)
        expect(panel.locator(".pnb-entry-id")).to_have_text(chosen)
        page.wait_for_function(f"(id) => {DEBUG}.stats().selected === id", arg=chosen)
        wait_until(lambda: log.read_text() == chosen, 60, "Python's choice in the log", page)

        # A hostile session in the notebook: every entry opened in full, no script runs.
        run_cell(page, 2)
        root = page.locator(".pnb-root").nth(1)
        expect(root).to_have_attribute("data-drawn", "1", timeout=60_000)  # the cell runs first
        panel = root.locator(".pnb-panel")
        for index in range(len(hostile.entries)):
            root.evaluate("(el, i) => el.pnbDebug.selectIndex(i)", index)
            expect(panel).to_have_attribute("data-loaded", str(index))
            for summary in panel.locator("summary").all():
                summary.click()
        assert page.evaluate("window.__pwned") is None
        assert panel.locator("script, iframe, svg, object, embed, [onerror], [onload]").count() == 0
    finally:
        close_notebook(page, lab, "test.ipynb")
