"""End to end in Jupyter Notebook 7: the widget draws, a click reaches ``selected_id``.

Notebook 7's own page (``/notebooks/``), which its lab extension serves in any jupyter
lab it is installed in: here the run's JupyterLab (``servers.shared_lab``, 127.0.0.1,
random port and token), as ``jupyter notebook`` would. It serves a notebook that shows a
widget and records every selection into a file through ``on_select``; headless
Chromium runs the cell like a person would (Shift+Enter). The static fallback output that
follows the widget must stay hidden while the widget is drawn.
"""

from __future__ import annotations

import json

from browser import DEBUG, chromium_fixture, node_position  # noqa: F401
from playwright.sync_api import Browser, expect
from servers import (
    START_TIMEOUT,
    Jupyter,
    lab_fixture,  # noqa: F401
    notebook,
    only_local,
    run_cell,
    wait_until,
)

import prime_nb
import sessiongen


def test_notebook7_draws_and_a_click_reaches_python(lab: Jupyter, chromium: Browser) -> None:
    session_path = sessiongen.synthetic_session(lab.root / "nb7-session.jsonl")
    session = prime_nb.load(session_path)
    e = session.entries
    users = [str(i) for i in e.index[(e["role"] == "user") & e["on_active_path"]]]
    clicked = users[len(users) // 2]
    log = lab.root / "nb7-selected.txt"
    cells = [
        "from pathlib import Path\n"
        "import prime_nb\n"
        f"w = prime_nb.show({session_path.name!r}, height=480)\n"
        f"w.on_select(lambda entry_id: Path({log.name!r}).write_text(entry_id or '-'))\n"
        "w",
    ]
    (lab.root / "nb7.ipynb").write_text(json.dumps(notebook(cells)), "utf-8")

    context = chromium.new_context(viewport={"width": 1400, "height": 1000})
    context.route("**/*", only_local)
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        page.goto(f"{lab.base}/notebooks/nb7.ipynb?token={lab.token}")
        page.wait_for_selector(".jp-Notebook .jp-Cell .jp-InputArea-editor")
        wait_until(lambda: lab.kernel_ready("nb7.ipynb"), START_TIMEOUT, "the kernel", page)
        run_cell(page, 0)
        root = page.locator(".pnb-root")
        expect(root).to_have_attribute("data-drawn", "1", timeout=60_000)  # the cell runs first
        assert page.evaluate(f"{DEBUG}.stats().n") == len(e)

        # The fallback output for static renders is there, but hidden under a drawn widget.
        fallback = page.locator(".pnb-static")
        expect(fallback).to_have_count(1)
        expect(fallback).to_be_hidden()

        pos = node_position(page, clicked)
        page.mouse.click(pos["x"], pos["y"])
        expect(page.locator(".pnb-panel")).to_have_attribute("data-entry-id", clicked)
        wait_until(
            lambda: log.is_file() and log.read_text() == clicked,
            60,
            "the kernel to see the click",
            page,
        )
        # The panel's text came from the kernel (not from the saved first lines).
        expect(page.locator(".pnb-panel .pnb-entry-id")).to_have_text(clicked)
        expect(page.locator(".pnb-panel")).not_to_contain_text("Saved with the notebook")
    finally:
        context.close()
        lab.stop_kernels("nb7.ipynb")
