"""End to end in JupyterLab: click a session in the family view, get its own tree below.

In the run's JupyterLab (``servers.shared_lab``: a real ``jupyter lab`` on 127.0.0.1 with
a random token); waits on state (the DOM, a file the kernel writes).
"""

from __future__ import annotations

import json

from browser import chromium_fixture  # noqa: F401
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

import prime_nb
from sessiongen import synthetic_family


def test_click_a_session_opens_its_tree_and_python_selects(lab: Jupyter, chromium: Browser) -> None:
    written = synthetic_family(lab.root / "agent", seed=8)
    family = prime_nb.load_family(written["root"])
    fork = family.key(str(written["fork_of_fork"]))
    log = lab.root / "opened.txt"
    cells = [
        "from pathlib import Path\n"
        "import prime_nb\n"
        f"box = prime_nb.show_family({str(written['root'])!r}, height=420)\n"
        "view = box.children[0]\n"
        f"view.on_open(lambda w: Path({str(log)!r}).write_text(w.session.file.name))\n"
        "box",
        f"view.selected_session = {family.roots[0]!r}",
    ]
    (lab.root / "family.ipynb").write_text(json.dumps(notebook(cells)), "utf-8")
    page = jupyterlab_page(lab, chromium)
    try:
        open_notebook(page, lab, "family.ipynb")
        run_cell(page, 0)
        boxes = page.locator(".pnb-fam-box")
        expect(boxes).to_have_count(5)

        # a click reaches the kernel, which opens that session's own tree under the view
        index = family.sessions["session"].tolist().index(fork)
        boxes.nth(index).click()
        wait_until(
            lambda: log.is_file() and log.read_text() == written["fork_of_fork"].name,
            60,
            "the kernel to open the clicked session",
            page,
        )
        expect(page.locator(".pnb-root[data-drawn]")).to_have_count(1)
        expect(boxes.nth(index)).to_have_attribute("aria-pressed", "true")

        # Python selects back: the view follows, and the tree below is the root's
        run_cell(page, 1)
        expect(boxes.nth(0)).to_have_attribute("aria-pressed", "true")
        expect(boxes.nth(index)).to_have_attribute("aria-pressed", "false")
        wait_until(lambda: log.read_text() == written["root"].name, 60, "the root's tree", page)
        page.locator(".pnb-fam").scroll_into_view_if_needed()
    finally:
        close_notebook(page, lab, "family.ipynb")
