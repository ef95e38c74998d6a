"""Notebook servers for the browser tests: Jupyter (Lab or Notebook 7) and marimo.

Each runs on 127.0.0.1 on a free port, with a random token, in the test's own folder and
config dirs, with this checkout first on the kernel's PYTHONPATH. Every wait polls state
(an HTTP answer, the server's sessions), never a fixed sleep.
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
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from browser import CHROMIUM, CHROMIUM_ARGS
from playwright.sync_api import Browser, Page, Route

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
    only while the sync API is called). The pauses start at a hundredth of a second, about
    a frame, and double up to a tenth: a state that comes soon is seen soon, and a long
    wait polls no more often than before.
    """
    deadline = time.monotonic() + timeout
    pause = 0.01
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        if page is not None:
            page.wait_for_timeout(pause * 1000)
        else:
            time.sleep(pause)
        pause = min(2 * pause, 0.1)


def only_local(route: Route) -> None:
    """Let the page reach 127.0.0.1 only."""
    if route.request.url.startswith(("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:")):
        route.continue_()
    else:
        route.abort()


def notebook(cells: Sequence[str]) -> dict[str, Any]:
    """An nbformat 4 notebook of code cells, without outputs."""
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


def child_env(root: Path) -> dict[str, str]:
    """Environment for a server in ``root``: own config and runtime dirs, this checkout."""
    home = root / ".home"
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
        "JUPYTER_CONFIG_DIR": str(home / "config"),
        "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
        "JUPYTER_DATA_DIR": str(home / "data"),
        "IPYTHONDIR": str(home / "ipython"),
        "JUPYTER_PLATFORM_DIRS": "1",
    }


class Server:
    """A server process with its log, stopped by :meth:`stop`."""

    def __init__(self, root: Path, argv: list[str], env: dict[str, str]) -> None:
        self.root = root
        self.log_path = root / f"{Path(argv[2]).name}.log"
        self.log = open(self.log_path, "wb")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            argv, cwd=root, env=env, stdout=self.log, stderr=subprocess.STDOUT
        )

    def alive(self) -> None:
        if self.proc.poll() is not None:
            raise AssertionError(f"the server exited: {self.log_path.read_text()[-3000:]}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=20)
        self.log.close()


class Jupyter(Server):
    """``jupyter lab`` or ``jupyter notebook`` (module ``jupyterlab`` or ``notebook``)."""

    def __init__(self, root: Path, module: str, *extra: str) -> None:
        self.port = free_port()
        self.token = secrets.token_hex(16)
        argv = [
            sys.executable,
            "-m",
            module,
            "--no-browser",
            "--ip=127.0.0.1",
            f"--port={self.port}",
            "--port-retries=0",
            "--allow-root",
            f"--IdentityProvider.token={self.token}",
            f"--ServerApp.root_dir={root}",
            "--ServerApp.open_browser=False",
            *extra,
        ]
        super().__init__(root, argv, child_env(root))

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def api(self, path: str, method: str = "GET", body: Any = None) -> Any:
        headers = {"Authorization": f"token {self.token}"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        req = urllib.request.Request(f"{self.base}{path}", data, headers, method=method)
        with urllib.request.urlopen(req, timeout=10) as resp:
            body = resp.read()
        return json.loads(body) if body else None

    def ready(self) -> bool:
        self.alive()
        try:
            return bool(self.api("/api/status"))
        except OSError:
            return False

    def stop_kernels(self, notebook_path: str) -> None:
        """End the notebook's sessions and their kernels: a server shared by several tests
        keeps no kernel (and the sessions it loaded) past the test that started it."""
        for sess in self.api("/api/sessions"):
            if sess.get("path") == notebook_path:
                self.api(f"/api/sessions/{sess['id']}", method="DELETE")

    def start_kernel(self, notebook_path: str, timeout: float = START_TIMEOUT) -> None:
        """Start the notebook's session and kernel (as JupyterLab does when it opens the
        notebook), and return once the kernel answers a request: a page opened then
        connects to a kernel that answers at once. (The server's own account says
        "starting" until a client talks to the kernel.) jupyter_client is imported here,
        by the one test that needs it."""
        from jupyter_client.blocking.client import BlockingKernelClient

        started = self.api(
            "/api/sessions",
            "POST",
            {"path": notebook_path, "type": "notebook", "kernel": {"name": "python3"}},
        )
        runtime = Path(child_env(self.root)["JUPYTER_RUNTIME_DIR"])
        connection = runtime / f"kernel-{started['kernel']['id']}.json"
        wait_until(connection.is_file, timeout, f"the connection file of {notebook_path}")
        client = BlockingKernelClient(connection_file=str(connection))
        client.load_connection_file()
        # the shell channel alone: a request waits in it until the kernel takes it, and
        # no heartbeat (which a loaded machine can miss) is taken for a dead kernel
        client.start_channels(iopub=False, stdin=False, hb=False, control=False)
        try:
            reply = client.kernel_info(reply=True, timeout=timeout)
        finally:
            client.stop_channels()
        assert reply["content"]["status"] == "ok", reply["content"]

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


def run_cell(page: Page, index: int) -> None:
    """Click into a cell's editor and run it with Shift+Enter (JupyterLab, Notebook 7)."""
    cell = page.locator(".jp-Notebook .jp-Cell").nth(index)
    cell.locator(".jp-InputArea-editor").click()
    page.keyboard.press("Shift+Enter")


#: JupyterLab as the tests run it: no news fetched, no extension manager, no update check
LAB_OPTIONS = (
    "--LabApp.news_url=",
    "--LabApp.extension_manager=readonly",
    "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    # ``window.jupyterapp``: a test opens its notebook in the run's page (open_notebook)
    "--LabApp.expose_app_in_browser=True",
)

#: The one JupyterLab of this pytest process, started by the first test that asks for it.
_LAB: list[Jupyter] = []


def shared_lab(tmp_path_factory: pytest.TempPathFactory, config: pytest.Config) -> Jupyter:
    """One JupyterLab for every test of this process (each xdist worker has its own):
    starting one, and loading its extensions, took longer than most tests' clicks. Each
    test writes files of its own names under ``lab.root``, opens its own notebook in a
    new browser context and ends its kernels (:meth:`Jupyter.stop_kernels`); the server
    stops when pytest ends."""
    if not _LAB:
        server = Jupyter(tmp_path_factory.mktemp("lab"), "jupyterlab", *LAB_OPTIONS)
        config.add_cleanup(server.stop)
        wait_until(server.ready, START_TIMEOUT, "jupyter lab to answer /api/status")
        _LAB.append(server)
    _LAB[0].alive()
    return _LAB[0]


@pytest.fixture(scope="session", name="lab")
def lab_fixture(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Jupyter:
    """The run's JupyterLab as a fixture: ``from servers import lab_fixture  # noqa: F401``.
    Notebook 7's pages are served by the same server."""
    return shared_lab(tmp_path_factory, request.config)


#: The one JupyterLab page of this pytest process: the shared Chromium whose Playwright
#: launched its own, that one, and the page.
_LAB_PAGE: list[tuple[Browser, Browser, Page]] = []


def jupyterlab_page(lab: Jupyter, chromium: Browser) -> Page:
    """One JupyterLab page, 1400x1000, for every test of this process that opens notebooks
    in JupyterLab: loading JupyterLab in a page took more CPU than most of those tests'
    checks. Each test opens its own notebook in it (:func:`open_notebook`), with a kernel
    of its own, and closes it (:func:`close_notebook`), so the page holds one notebook at
    a time. The browser modules' Chromium closes every context after each module, so the
    page lives in a Chromium of its own, launched by the same Playwright: it ends with
    that Playwright (``browser.stop_shared_chromium``), and the next test that asks
    starts another."""
    if _LAB_PAGE:
        launcher, browser, page = _LAB_PAGE[0]
        if launcher is not chromium or not browser.is_connected() or page.is_closed():
            _LAB_PAGE.clear()  # its Playwright ended: so did it
    if not _LAB_PAGE:
        browser = chromium.browser_type.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        context.route("**/*", only_local)
        page = context.new_page()
        page.set_default_timeout(90_000)
        page.goto(f"{lab.base}/lab?reset&token={lab.token}")
        page.wait_for_function("() => window.jupyterapp !== undefined")
        page.evaluate("async () => { await window.jupyterapp.restored; }")
        _LAB_PAGE.append((chromium, browser, page))
    return _LAB_PAGE[0][2]


def open_notebook(page: Page, lab: Jupyter, notebook_path: str) -> None:
    """Open the notebook in JupyterLab's page (:func:`jupyterlab_page`), as the file browser does;
    return once its kernel is idle and connected to the page."""
    page.evaluate(
        "async (path) => { await window.jupyterapp.commands.execute('docmanager:open', {path}); }",
        notebook_path,
    )
    page.wait_for_selector(".jp-Notebook .jp-Cell .jp-InputArea-editor")
    page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']")
    wait_until(lambda: lab.kernel_ready(notebook_path), START_TIMEOUT, "the kernel", page)


#: the widgets of JupyterLab's main area (documents have a ``context``)
_PANELS = "Array.from(window.jupyterapp.shell.widgets('main'))"


def close_notebook(page: Page, lab: Jupyter, notebook_path: str) -> None:
    """Close every document of the page (without the prompt to save: the notebook is the
    test's), and end the notebook's kernel: the next test finds the page as it was."""
    if not page.is_closed():
        page.evaluate(f"() => {{ for (const w of {_PANELS}) if (w.context) w.dispose(); }}")
        page.wait_for_function("() => !document.querySelector('.jp-Notebook')")
    lab.stop_kernels(notebook_path)
