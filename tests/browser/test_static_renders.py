"""Static renders of a notebook with widgets: ``jupyter nbconvert --to html``, offline.

``nbconvert --execute`` runs the notebook headless and stores the widget state, so the page
asks a CDN for the widget manager; offline, that fails and the widget itself never draws.
What must show is the static fallback: the summary and the SVG picture of the tree. The
page is opened with every request off the machine blocked, and a hostile session in it
must run no script.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import PageWatch, chromium_fixture, wait_js  # noqa: F401
from playwright.sync_api import Browser, Route, expect
from widget_support import write_hostile_session

import prime_nb
import sessiongen

REPO = Path(__file__).resolve().parents[2]
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
OUT = ["--output", "executed.html", "render.ipynb"]
KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}


@contextlib.contextmanager
def _pythonpath(value: str) -> Iterator[None]:
    """PYTHONPATH for kernels started meanwhile (they import this checkout)."""
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = value
    try:
        yield
    finally:
        if old is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = old


def block_remote(route: Route) -> None:
    if route.request.url.startswith(("file:", "data:", "blob:", "about:")):
        route.continue_()
    else:
        route.abort()


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path, Path]:
    """A notebook with two widgets (one hostile), executed to HTML by nbconvert.

    nbformat, nbclient and nbconvert are imported here, by the tests that use them: at
    the top, every worker paid for them while collecting."""
    import nbformat
    from nbclient import NotebookClient
    from nbconvert import HTMLExporter

    root = tmp_path_factory.mktemp("nbconvert")
    session = sessiongen.synthetic_session(root / "session.jsonl")
    hostile = write_hostile_session(root / "hostile.jsonl")
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(f"import prime_nb\nprime_nb.show({session.name!r})"),
        nbformat.v4.new_code_cell(f"prime_nb.show({hostile.name!r}, filter='all')"),
    ]
    nb.metadata["kernelspec"] = KERNELSPEC
    nbformat.write(nb, root / "render.ipynb")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    }
    # The command as a reader would type it; it runs while the API run below does (each
    # spends most of its time starting a kernel and waiting on it).
    # Its output goes to a file: a pipe nobody reads meanwhile could fill and stop it.
    command = [sys.executable, "-m", "jupyter", "nbconvert", "--to", "html", "--execute", *OUT]
    log = root / "nbconvert.log"
    with open(log, "wb") as out:
        cli = subprocess.Popen(command, cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        # The same run through the API, to look at the notebook itself, and the notebook
        # as JupyterLab saves it by default: with its outputs, but without the widget state.
        client = NotebookClient(nbformat.read(root / "render.ipynb", as_version=4), timeout=120)
        with _pythonpath(env["PYTHONPATH"]):
            ran = client.execute(cwd=str(root))
        cli.wait(timeout=120)
    finally:
        if cli.poll() is None:
            cli.kill()
            cli.wait()
    printed = log.read_text("utf-8", errors="replace")
    assert cli.returncode == 0, f"{' '.join(command)} failed: {printed[-3000:]}"
    nbformat.write(ran, root / "executed.ipynb")
    ran.metadata.pop("widgets", None)
    body, _ = HTMLExporter().from_notebook_node(ran)
    (root / "stateless.html").write_text(body, "utf-8")
    return root / "executed.ipynb", root / "executed.html", root / "stateless.html", session


def test_executed_notebook_holds_widget_then_fallback(
    executed: tuple[Path, Path, Path, Path],
) -> None:
    import nbformat

    notebook = nbformat.read(executed[0], as_version=4)
    assert "application/vnd.jupyter.widget-state+json" in notebook["metadata"]["widgets"]
    session = prime_nb.load(executed[3])
    for cell in notebook["cells"]:
        widget, fallback = cell["outputs"]
        assert set(widget["data"]) == {WIDGET_VIEW, "text/plain"}
        assert widget["data"]["text/plain"].startswith("SessionWidget: ")
        assert set(fallback["data"]) == {"text/html", "text/plain"}
        assert fallback["data"]["text/html"].startswith('<div class="pnb-static"')
    first = notebook["cells"][0]["outputs"][0]["data"]["text/plain"]
    assert f"{len(session.entries)} entries" in first


@pytest.mark.parametrize("page_name", ["executed.html", "stateless.html"])
def test_fallback_shows_offline_and_runs_no_script(
    chromium: Browser, executed: tuple[Path, Path, Path, Path], page_name: str
) -> None:
    html = executed[1].parent / page_name
    context = chromium.new_context(viewport={"width": 1280, "height": 900}, offline=True)
    context.route("**/*", block_remote)
    page = context.new_page()
    page.set_default_timeout(20_000)
    watch = PageWatch(page)
    try:
        page.goto(html.as_uri())
        page.wait_for_load_state("load")
        figures = page.locator(".pnb-static")
        expect(figures).to_have_count(2)
        for i in range(2):
            picture = figures.nth(i).locator("img")
            expect(picture).to_be_visible()
            wait_js(page, "(el) => el.complete && el.naturalWidth > 200", picture.element_handle())
        expect(figures.nth(0)).to_contain_text("entries")
        expect(figures.nth(1)).to_contain_text("hostile.jsonl")
        # the hostile session's text is there, as text
        expect(figures.nth(1)).to_contain_text("<img src=x onerror=")
        box: dict[str, Any] | None = figures.nth(0).locator("img").bounding_box()
        assert box is not None and box["width"] > 200 and box["height"] > 40
        assert page.evaluate("window.__pwned") is None
        assert watch.dialogs == []
        active = ".pnb-static script, .pnb-static svg, .pnb-static [onload], .pnb-static [onerror]"
        assert page.locator(active).count() == 0
        if page_name == "executed.html":
            # the page did try the CDN for the widget manager, and was refused
            assert any("unpkg" in url or "jsdelivr" in url for url in watch.remote), watch.remote
            assert page.locator(".pnb-root").count() == 0
        else:
            # no widget state: the widget's own output falls back to its text line
            expect(page.locator("pre", has_text="SessionWidget: ").first).to_be_visible()
    finally:
        context.close()
