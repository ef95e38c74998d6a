"""End to end in JupyterLab: a click in the widget reaches the kernel, and back.

A real ``jupyter lab`` on 127.0.0.1 (random port and token) serves a notebook that shows a
widget and records every selection into a file through ``on_select``; headless Chromium
runs the cells like a person would (Shift+Enter). Every wait is on state (the DOM, the
file, the server's status), never a fixed sleep.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import DEBUG, chromium_fixture, node_position  # noqa: F401
from playwright.sync_api import Browser, Page, Route, expect
from widget_support import write_hostile_session

import prime_nb
from prime_nb import datasets

REPO = Path(__file__).resolve().parents[2]
START_TIMEOUT = 120.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_until(
    check: Callable[[], Any], timeout: float, what: str, page: Page | None = None
) -> Any:
    """Poll ``check`` until it returns something truthy; fail after ``timeout`` seconds.

    With a page, the pause between polls lets Playwright work (its request routing runs
    only while the sync API is called; a plain sleep would stall the page's requests).
    """
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        if page is not None:
            page.wait_for_timeout(100)
        else:
            time.sleep(0.1)


class Lab:
    """A JupyterLab server in its own folder, config and runtime dirs."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.port = free_port()
        self.token = secrets.token_hex(16)
        home = root / ".home"
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
            "JUPYTER_CONFIG_DIR": str(home / "config"),
            "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
            "IPYTHONDIR": str(home / "ipython"),
            "JUPYTER_PLATFORM_DIRS": "1",
        }
        self.log = open(root / "lab.log", "wb")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "jupyterlab",
                "--no-browser",
                "--ip=127.0.0.1",
                f"--port={self.port}",
                "--port-retries=0",
                "--allow-root",
                f"--IdentityProvider.token={self.token}",
                f"--ServerApp.root_dir={root}",
                "--ServerApp.open_browser=False",
                "--LabApp.news_url=",
                "--LabApp.extension_manager=readonly",
                "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            ],
            cwd=root,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def api(self, path: str, method: str = "GET") -> Any:
        req = urllib.request.Request(
            f"{self.base}{path}", method=method, headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(req, timeout=10) as resp:
            body = resp.read()
        return json.loads(body) if body else None

    def ready(self) -> bool:
        if self.proc.poll() is not None:
            raise AssertionError(f"jupyter lab exited: {(self.root / 'lab.log').read_text()}")
        try:
            return bool(self.api("/api/status"))
        except OSError:
            return False

    def kernel_ready(self, notebook_path: str) -> bool:
        """The notebook's kernel is started, idle and has the page connected."""
        for sess in self.api("/api/sessions"):
            kernel = sess.get("kernel") or {}
            if (
                sess.get("path") == notebook_path
                and kernel.get("execution_state") == "idle"
                and kernel.get("connections", 0) > 0
            ):
                return True
        return False

    def stop(self) -> None:
        try:
            self.api("/api/shutdown", method="POST")
            self.proc.wait(timeout=20)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.terminate()
            self.proc.wait(timeout=20)
        finally:
            self.log.close()


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[Lab]:
    server = Lab(tmp_path)
    try:
        wait_until(server.ready, START_TIMEOUT, "jupyter lab to answer /api/status")
        yield server
    finally:
        server.stop()


def notebook(cells: list[str]) -> dict[str, Any]:
    return {
        "cells": [
            {
                "cell_type": "code",
                "execution_count": None,
                "id": f"cell{i}",
                "metadata": {},
                "outputs": [],
                "source": src,
            }
            for i, src in enumerate(cells)
        ],
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def only_local(route: Route) -> None:
    if route.request.url.startswith(("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:")):
        route.continue_()
    else:
        route.abort()


def run_cell(page: Page, index: int) -> None:
    """Click into a cell's editor and run it with Shift+Enter."""
    cell = page.locator(".jp-Notebook .jp-Cell").nth(index)
    cell.locator(".jp-InputArea-editor").click()
    page.keyboard.press("Shift+Enter")


def test_click_reaches_the_kernel_and_python_selects(lab: Lab, chromium: Browser) -> None:
    session_path = datasets.synthetic_session(lab.root / "session.jsonl")
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

    context = chromium.new_context(viewport={"width": 1400, "height": 1000})
    context.route("**/*", only_local)
    page = context.new_page()
    page.set_default_timeout(90_000)
    try:
        page.goto(f"{lab.base}/lab/tree/test.ipynb?reset&token={lab.token}")
        page.wait_for_selector(".jp-Notebook .jp-Cell .jp-InputArea-editor")
        page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']")
        wait_until(lambda: lab.kernel_ready("test.ipynb"), START_TIMEOUT, "the kernel", page)
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
        expect(root).to_have_attribute("data-drawn", "1")
        panel = root.locator(".pnb-panel")
        for index in range(len(hostile.entries)):
            root.evaluate("(el, i) => el.pnbDebug.selectIndex(i)", index)
            expect(panel).to_have_attribute("data-loaded", str(index))
            for summary in panel.locator("summary").all():
                summary.click()
        assert page.evaluate("window.__pwned") is None
        assert panel.locator("script, iframe, svg, object, embed, [onerror], [onload]").count() == 0
    finally:
        context.close()
