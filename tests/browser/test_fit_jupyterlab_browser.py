"""Level of detail, Fit and the Transcript in JupyterLab (issues 34 and 42), in a real
Chromium.

The checks of the exported pages (``test_lod_browser``, ``test_whole_session_browser``,
``test_branches_fit_browser``, ``test_transcript_browser``), in a notebook: one
JupyterLab (the run's, ``servers.shared_lab``), one kernel and one page for them all,
the notebook's one cell (:data:`LOGGED_SHOW_CELL`) re-run on each session. Starting a
server, loading JupyterLab in a page and starting a kernel cost more than a session's
checks, so the four modules no longer each pay for their own.

Each session is shown once and gets every check that names it: in the Tree and
Branches, at opening and at Fit, every text 11 px or more, none overlapping, every
landmark named (the demo, every agent-written fixture, 17 leaves, 100k entries); at Fit
with the side panel closed and open, nothing cut and nothing more found by dragging one
screen each way (17 leaves, 1,000 entries with 40 forks, 24 roots, 100k entries). And
Fit with the side panel open in the Branches view (a defect a new user met). Last, the
Transcript of the realistic 100k session asks the kernel only for the rows on screen.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from big_session import big_session, large_session
from browser import chromium_fixture  # noqa: F401
from playwright.sync_api import Browser, Page
from servers import (  # noqa: F401
    Jupyter,
    close_notebook,
    jupyterlab_page,
    lab_fixture,
    notebook,
    open_notebook,
    wait_until,
)
from test_branches_fit_browser import check_whole, fit
from test_lod_browser import CAPTURE, FIXTURES, check_views, debug, show_in_lab
from test_transcript_browser import check_transcript
from test_whole_session_browser import (
    BIG,
    VIEWS,
    check_fit,
    forked_session,
    next_frame,
    rooted_session,
    set_view,
)

import prime_nb
from prime_nb.datasets import demo_session_path
from sessiongen import write_shape

D = debug(0)

#: the sessions ``test_lod_browser`` reads in both views at opening and at Fit
READABLE = ["demo", "17 leaves", "100k entries", *(path.stem for path in FIXTURES)]
#: every session shown: those, and ``test_whole_session_browser``'s (``BIG``)
SHOWN = list(dict.fromkeys([*READABLE, *BIG]))

#: ``test_lod_browser.SHOW_CELL`` (the session named in show.txt, in a new widget), whose
#: kernel side logs every entry the page asks for to asked.txt, for the Transcript's check
LOGGED_SHOW_CELL = (
    "import pathlib, prime_nb\n"
    "w = prime_nb.show(pathlib.Path('show.txt').read_text('utf-8'), height=600)\n"
    "_answer = w._data.answer\n"
    "def _logged(message, _answer=_answer):\n"
    "    if message.get('what') == 'entries':\n"
    "        with open('asked.txt', 'a') as fh:\n"
    "            fh.writelines(f'{i}\\n' for i in message.get('indices'))\n"
    "    return _answer(message)\n"
    "w._data.answer = _logged\n"
    "w"
)


@pytest.fixture(scope="module")
def sessions(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Session files by name; the 100k one is made once for the run (big_session.py)."""
    tmp = tmp_path_factory.mktemp("fit-lab")
    out = {
        "demo": demo_session_path(),
        "17 leaves": write_shape(tmp / "leaves.jsonl", "branchy", 1000),
        "1,000 entries, 40 forks": forked_session(tmp / "forks.jsonl"),
        "24 roots": rooted_session(tmp / "roots.jsonl"),
        "100k entries": big_session(tmp_path_factory),
    }
    for path in FIXTURES:
        out[path.stem] = path
    return out


@pytest.fixture(scope="module")
def lab_page(lab: Jupyter, chromium: Browser) -> Iterator[Page]:
    """The notebook of :data:`LOGGED_SHOW_CELL`, open in the run's JupyterLab page
    (``servers.jupyterlab_page``) with its kernel idle, and the page recording what the canvas
    draws (:data:`CAPTURE`) before any widget draws."""
    (lab.root / "lod.ipynb").write_text(json.dumps(notebook([LOGGED_SHOW_CELL])), "utf-8")
    page = jupyterlab_page(lab, chromium)
    page.evaluate(CAPTURE)
    try:
        open_notebook(page, lab, "lod.ipynb")
        yield page
    finally:
        close_notebook(page, lab, "lod.ipynb")


def whole_at_fit(page: Page, name: str) -> list[str]:
    """``check_fit`` in both views, with the side panel closed and then open."""
    problems: list[str] = []
    for view in VIEWS:
        set_view(page, view)
        page.evaluate(f"{D}.selectIndex(-1)")
        problems += check_fit(page, f"JupyterLab {name} {view}, panel closed")
        # the side panel open: the stage is narrower, Fit still shows it all
        page.evaluate(f"{D}.selectIndex(0)")
        wait_until(
            lambda: page.evaluate("document.querySelector('.pnb-root.pnb-has-panel') !== null"),
            10,
            "the side panel",
            page,
        )
        next_frame(page)  # the stage resizes on the next frame
        problems += check_fit(page, f"JupyterLab {name} {view}, panel open")
        page.evaluate(f"{D}.selectIndex(-1)")
    return problems


@pytest.mark.parametrize("name", SHOWN)
def test_readable_and_whole_at_fit_in_jupyterlab(
    lab_page: Page, lab: Jupyter, sessions: dict[str, Path], name: str
) -> None:
    """The widget is new (``show_in_lab``), so the checks at opening see it as a reader
    does; the checks at Fit then set their own view, selection and camera."""
    show_in_lab(lab_page, lab, sessions[name])
    if name in READABLE:
        check_views(lab_page, f"JupyterLab {name}")
    if name in BIG:
        problems = whole_at_fit(lab_page, name)
        assert not problems, "\n".join(problems[:12])


def test_fit_with_the_side_panel_open_in_jupyterlab(
    lab_page: Page, lab: Jupyter, sessions: dict[str, Path]
) -> None:
    """In JupyterLab, Fit with the side panel open cut boxes at the left edge."""
    page = lab_page
    show_in_lab(page, lab, sessions["17 leaves"])
    page.evaluate(f"{D}.setView('branches')")
    wait_until(lambda: page.evaluate(f"{D}.stats().view") == "branches", 10, "branches", page)
    fit(page)
    check_whole(page, "JupyterLab fit, panel closed")
    leaf = prime_nb.load(sessions["17 leaves"]).leaf_id
    # a block, not an arrow's value: ``model.set`` returns the model, whose graph (the
    # widget manager and every model in it) Playwright would copy back to this process
    page.evaluate(f"(id) => {{ {D}.model.set('selected_id', id); }}", leaf)
    wait_until(lambda: page.locator(".pnb-has-panel").count() == 1, 10, "the side panel", page)
    next_frame(page)  # the stage resizes on the next frame
    fit(page)
    check_whole(page, "JupyterLab fit, panel open")


def test_jupyterlab_transcript_asks_the_kernel_only_for_the_screen(
    lab_page: Page, lab: Jupyter, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The kernel logs every entry it is asked for: only rows drawn, a few screens' worth."""
    asked = lab.root / "asked.txt"
    asked.unlink(missing_ok=True)  # what the sessions shown before asked for
    show_in_lab(lab_page, lab, large_session(tmp_path_factory))
    report = check_transcript(lab_page, "JupyterLab 100k", timeout=90.0)

    def logged() -> list[int]:
        return [int(x) for x in asked.read_text().split()] if asked.exists() else []

    # the kernel saw what the page sent (rows drawn off screen may still be on their
    # way when the rows on screen have their bodies), and nothing more
    sent = report["entry_requests"]
    wait_until(lambda: len(logged()) >= sent, 60, "the kernel to log each request", lab_page)
    assert len(logged()) == sent > 0
