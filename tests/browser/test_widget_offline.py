"""The widget's JavaScript without a kernel behind it: answers from the saved first lines.

A notebook executed headless keeps its widget state; JupyterLab restores the widget from
it when the notebook is opened again, before (and without) any cell running. That model
has no comm: its requests go nowhere. After a few seconds the widget answers them from
the data saved in its state (``_offline``): previews, first lines and search from the
first lines; a short entry in the panel that says what is missing; a clear message for
the context. No "no answer from the kernel" after 60 s. (The notebook is signed as trusted:
JupyterLab draws widgets only in trusted notebooks.)
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser import chromium_fixture  # noqa: F401
from playwright.sync_api import Browser, expect
from servers import Jupyter, child_env, only_local, shared_lab, wait_until

import prime_nb
import sessiongen
from prime_nb.widget._data import SessionData

KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}
SESSION = "offline-session.jsonl"


@pytest.fixture
def lab_with_saved_widget(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[Jupyter]:
    """The run's JupyterLab (``servers.shared_lab``) serving ``saved.ipynb``: executed,
    with its widget state, and signed in that server's data dir. nbformat and nbclient
    are imported here: at the top, every worker paid for them while collecting."""
    import nbformat
    from nbclient import NotebookClient
    from nbformat.sign import NotebookNotary

    lab = shared_lab(tmp_path_factory, request.config)
    sessiongen.synthetic_session(lab.root / SESSION)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(f"import prime_nb\nprime_nb.show({SESSION!r})")]
    nb.metadata["kernelspec"] = KERNELSPEC
    env = child_env(lab.root)
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = env["PYTHONPATH"]  # the kernel imports this checkout
    try:
        NotebookClient(nb, timeout=120).execute(cwd=str(lab.root))
    finally:
        if old is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = old
    assert "application/vnd.jupyter.widget-state+json" in nb.metadata["widgets"]
    # Trusted, as if this user had run it: JupyterLab renders widget views of trusted
    # notebooks only (an untrusted one shows the text line and the static picture).
    Path(env["JUPYTER_DATA_DIR"]).mkdir(parents=True, exist_ok=True)
    NotebookNotary(data_dir=env["JUPYTER_DATA_DIR"]).sign(nb)
    nbformat.write(nb, lab.root / "saved.ipynb")
    try:
        yield lab
    finally:
        lab.stop_kernels("saved.ipynb")


def test_saved_widget_answers_without_the_kernel(
    lab_with_saved_widget: Jupyter, chromium: Browser
) -> None:
    lab = lab_with_saved_widget
    session = prime_nb.load(lab.root / SESSION)
    data = SessionData(session)
    e = session.entries
    users = [i for i, (r, a) in enumerate(zip(e["role"], e["on_active_path"], strict=True))
             if r == "user" and a]  # fmt: skip
    index = users[len(users) // 2]
    first_line = data.preview(index)["first_line"]

    context = chromium.new_context(viewport={"width": 1400, "height": 1000})
    context.route("**/*", only_local)
    page = context.new_page()
    page.set_default_timeout(60_000)
    # The kernel idle before the page opens. JupyterLab's widget manager restores the
    # saved widgets when the notebook opens: state from the kernel, then from the
    # notebook; an error on the way ends that restore silently. Each time the kernel's
    # connection opens it restores again, from the kernel alone, and marks the restore
    # done: a view drawn then finds no model and shows "Error displaying widget: model
    # not found" for good (jupyterlab_widgets; ipywidgets#3231). A kernel started by the
    # page, on a loaded machine, can have its first requests cut off by a connection
    # made again while it starts, which is that order. An idle kernel answers the first
    # restore's requests on the one connection, which opens while that restore waits for
    # them, so the restore from the kernel alone never runs.
    lab.start_kernel("saved.ipynb")
    try:
        page.goto(f"{lab.base}/lab/tree/saved.ipynb?reset&token={lab.token}")
        root = page.locator(".pnb-root")
        expect(root).to_have_attribute("data-drawn", "1", timeout=60_000)  # from saved state
        expect(page.locator(".pnb-static")).to_be_hidden()  # its fallback output is hidden
        assert root.evaluate("(el) => el.pnbDebug.stats().n") == len(e)

        # The panel: a short entry from the saved first line, saying what is missing.
        root.evaluate("(el, i) => el.pnbDebug.selectIndex(i)", index)
        panel = root.locator(".pnb-panel")
        expect(panel).to_have_attribute("data-loaded", str(index), timeout=20_000)
        expect(panel).to_contain_text("Saved with the notebook")
        expect(panel).to_contain_text(first_line[:40])
        expect(panel.locator(".pnb-entry-id")).to_have_text(data.ids[index])

        # Search over the saved lines: the hits are the entries whose line holds the words.
        query = " ".join(first_line.split()[:2])
        box = root.locator(".pnb-search-input")
        box.fill(query)
        box.press("Enter")
        wait_until(
            lambda: root.evaluate("(el) => el.pnbDebug.stats().hits") > 0,
            20,
            "search hits from the saved lines",
            page,
        )

        # The context needs the kernel, and says so at once (not after 60 s).
        panel.get_by_role("button", name="Context here").click()
        expect(panel).to_contain_text("not saved with the notebook", timeout=10_000)
        assert page.get_by_text("no answer from the kernel").count() == 0
        # A plain JupyterLab (news URL off, as here) still asks about news: the control
        # for test_demo_browser, where the demo's own setting keeps the question away.
        expect(page.get_by_text("official Jupyter news")).to_be_visible()
    finally:
        context.close()
    # nothing was written back: the notebook on disk still holds its saved state
    saved = json.loads((lab.root / "saved.ipynb").read_text("utf-8"))
    assert "widgets" in saved["metadata"]
