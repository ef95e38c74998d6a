"""Screenshots for the README: the bundled demo in light and dark, a branchy session and
a session of 100k entries at Fit.

Exports each session with ``export_html`` (the same bundle as the notebook widget), opens
it in Debian's Chromium through Playwright, and saves PNGs next to this file:

    .venv/bin/python docs/make_screenshots.py            # every picture
    .venv/bin/python docs/make_screenshots.py tree-light.png branches-light.png

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
from sessiongen import write_shape

HERE = Path(__file__).resolve().parent
CHROMIUM = "/usr/bin/chromium"
VIEWPORT = {"width": 1200, "height": 680}
DEBUG = "document.querySelector('.pnb-root').pnbDebug"

#: (file name, session, view, colour scheme, what to do before the picture, legend open);
#: "branchy" is a generated session of 1,000 entries and 17 leaves, "100k" one of 100,000
#: entries (1,872 leaves, 360 compactions).
SHOTS = [
    ("tree-light.png", "demo", "tree", "light", "fit", False),
    ("tree-dark.png", "demo", "tree", "dark", "active", False),
    ("branches-light.png", "demo", "branches", "light", "open", False),
    ("branches-dark.png", "demo", "branches", "dark", "open", False),
    ("transcript-light.png", "demo", "transcript", "light", "top", False),
    ("tree-branchy.png", "branchy", "tree", "light", "fit", False),
    ("branches-branchy.png", "branchy", "branches", "light", "fit", False),
    ("tree-100k.png", "100k", "tree", "light", "fit", False),
    ("branches-100k.png", "100k", "branches", "light", "fit", False),
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


def main(only: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        sessions = {
            "demo": prime_nb.load(demo_session_path()),
            "branchy": prime_nb.load(write_shape(Path(tmp) / "branchy.jsonl", "branchy", 1000)),
        }
        if not only or any("100k" in name for name in only):
            big = write_shape(Path(tmp) / "big.jsonl", "branchy", 100_000)
            sessions["100k"] = prime_nb.load(big)
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox"])
        for name, which, view, scheme, action, legend in SHOTS:
            if (only and name not in only) or which not in sessions:
                continue
            html = prime_nb.export_html(sessions[which], Path(tmp) / f"{name}.html", view=view)
            context = browser.new_context(viewport=VIEWPORT, color_scheme=scheme)
            page = context.new_page()
            page.goto(html.as_uri())
            page.wait_for_selector(".pnb-root[data-drawn]")
            legend_js = "(open) => document.querySelector('.pnb-legend')"
            page.evaluate(f"{legend_js}.classList.toggle('pnb-collapsed', !open)", legend)
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
    main(sys.argv[1:])
