"""Screenshots of the bundled demo session for the README, in light and dark.

Exports the demo with ``export_html`` (the same bundle as the notebook widget), opens it
in Debian's Chromium through Playwright, and saves PNGs next to this file:

    .venv/bin/python docs/make_screenshots.py

Run it again after a change to how the widget draws, and look at every picture.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import prime_nb
from prime_nb.datasets import demo_session_path

HERE = Path(__file__).resolve().parent
CHROMIUM = "/usr/bin/chromium"
VIEWPORT = {"width": 1200, "height": 680}
DEBUG = "document.querySelector('.pnb-root').pnbDebug"

#: (file name, view, colour scheme, what to do before the picture, legend open)
SHOTS = [
    ("tree-light.png", "tree", "light", "fit", True),
    ("tree-dark.png", "tree", "dark", "active", False),
    ("branches-light.png", "branches", "light", "fit", False),
    ("branches-dark.png", "branches", "dark", "fit", False),
    ("transcript-light.png", "transcript", "light", "top", False),
]


def settle(page) -> None:  # type: ignore[no-untyped-def]
    """Draw until every line of text in view has arrived."""
    for _ in range(100):
        page.evaluate(f"{DEBUG}.drawNow()")
        last = page.evaluate(f"{DEBUG}.stats().lastDraw")
        if last and not last.get("missingLines"):
            break
        page.wait_for_timeout(50)
    page.wait_for_timeout(300)


def main() -> None:
    session = prime_nb.load(demo_session_path())
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox"])
        for name, view, scheme, action, legend in SHOTS:
            html = prime_nb.export_html(session, Path(tmp) / f"{name}.html", view=view)
            context = browser.new_context(viewport=VIEWPORT, color_scheme=scheme)
            page = context.new_page()
            page.goto(html.as_uri())
            page.wait_for_selector(".pnb-root[data-drawn]")
            if not legend:
                page.evaluate("document.querySelector('.pnb-legend').classList.add('pnb-collapsed')")
            if action == "active":
                page.click(".pnb-root .pnb-header")
                page.keyboard.press("a")
            elif action == "fit":
                page.evaluate(f"{DEBUG}.fit()")
            settle(page)
            page.screenshot(path=str(HERE / name))
            context.close()
            print(HERE / name)
        browser.close()


if __name__ == "__main__":
    main()
