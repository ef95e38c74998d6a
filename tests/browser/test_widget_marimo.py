"""End to end in marimo: ``mo.ui.anywidget(prime_nb.show(...))``, the selection flows back.

``marimo run`` and ``marimo edit`` serve a small app on 127.0.0.1 (random port and
token). The app wraps the widget in ``mo.ui.anywidget``; an ``on_select`` callback writes
the selection to a file, and a second cell that reads ``w.value["selected_id"]`` re-runs
reactively and writes it too. Headless Chromium clicks a node; the panel's text comes
from the kernel's answers.
"""

from __future__ import annotations

import secrets
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser import chromium_fixture  # noqa: F401
from playwright.sync_api import Browser, expect
from servers import START_TIMEOUT, Server, child_env, free_port, only_local, wait_until

import prime_nb
import sessiongen

APP = """
import marimo

app = marimo.App()


@app.cell
def _():
    from pathlib import Path

    import marimo as mo

    import prime_nb
    return Path, mo, prime_nb


@app.cell
def _(Path, mo, prime_nb):
    w = mo.ui.anywidget(prime_nb.show("session.jsonl", height=480))
    w.widget.on_select(lambda entry_id: Path("selected.txt").write_text(entry_id or "-"))
    w
    return (w,)


@app.cell
def _(Path, w):
    chosen = w.value.get("selected_id")
    Path("reactive.txt").write_text(str(chosen))
    return


if __name__ == "__main__":
    app.run()
"""


class Marimo(Server):
    def __init__(self, root: Path, mode: str) -> None:
        self.port = free_port()
        self.token = secrets.token_hex(16)
        argv = [
            sys.executable,
            "-m",
            "marimo",
            mode,
            str(root / "app.py"),
            "--headless",
            "--host=127.0.0.1",
            f"--port={self.port}",
            f"--token-password={self.token}",
            "--no-sandbox",
            *(["--no-check"] if mode == "run" else ["--skip-update-check"]),
        ]
        env = {**child_env(root), "MARIMO_SKIP_UPDATE_CHECK": "1"}
        super().__init__(root, argv, env)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/?access_token={self.token}"

    def ready(self) -> bool:
        self.alive()
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=5) as r:
                return bool(r.status == 200)
        except OSError:
            return False


@pytest.fixture(params=["run", "edit"])
def marimo_app(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Marimo]:
    sessiongen.synthetic_session(tmp_path / "session.jsonl")
    (tmp_path / "app.py").write_text(APP, "utf-8")
    # the editor runs the app on open (as `marimo run` does)
    (tmp_path / "pyproject.toml").write_text(
        "[tool.marimo.runtime]\nauto_instantiate = true\n", "utf-8"
    )
    server = Marimo(tmp_path, request.param)
    try:
        wait_until(server.ready, START_TIMEOUT, "marimo to answer /health")
        yield server
    finally:
        server.stop()


def test_marimo_selection_flows_back(marimo_app: Marimo, chromium: Browser) -> None:
    root_dir = marimo_app.root
    session = prime_nb.load(root_dir / "session.jsonl")
    e = session.entries
    users = [str(i) for i in e.index[(e["role"] == "user") & e["on_active_path"]]]
    clicked = users[len(users) // 2]
    text = session.entry(clicked)["message"]["content"]
    text = text if isinstance(text, str) else text[0]["text"]

    context = chromium.new_context(viewport={"width": 1400, "height": 1000})
    context.route("**/*", only_local)
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        page.goto(marimo_app.url)
        root = page.locator(".pnb-root")
        try:
            expect(root).to_have_attribute("data-drawn", "1", timeout=90_000)
        except AssertionError:
            page.screenshot(path=str(root_dir / "marimo.png"))
            raise
        wait_until(
            lambda: (root_dir / "reactive.txt").is_file(), 60, "the reactive cell to run", page
        )
        assert (root_dir / "reactive.txt").read_text() == "None"
        assert root.evaluate("(el) => el.pnbDebug.stats().n") == len(e)

        root.evaluate("(el, id) => el.pnbDebug.centerOn(id, 1.0)", clicked)
        pos = root.evaluate("(el, id) => el.pnbDebug.screenPos(id)", clicked)
        assert pos is not None, f"{clicked} is not drawn"
        page.mouse.click(pos["x"], pos["y"])
        panel = page.locator(".pnb-panel")
        expect(panel).to_have_attribute("data-entry-id", clicked)
        # the panel's request was answered by the kernel: the whole entry, not a saved line
        expect(panel).to_have_attribute("data-loaded", str(e.index.get_loc(clicked)))
        expect(panel.locator(".pnb-md").first).to_contain_text(text.split("\n")[0][:40])
        wait_until(
            lambda: (
                (root_dir / "selected.txt").is_file()
                and (root_dir / "selected.txt").read_text() == clicked
            ),
            60,
            "on_select in the kernel",
            page,
        )
        wait_until(
            lambda: (root_dir / "reactive.txt").read_text() == clicked,
            60,
            "the cell reading w.value to re-run",
            page,
        )
    finally:
        context.close()
