"""``prime-nb demo`` in a real browser: the quickstart opens showing results, and no news prompt.

The command runs as a newcomer would start it (``--no-browser``, then its URL opened in
headless Chromium). It serves the quickstart beside a writable copy of the demo session,
and Ctrl-C stops it: exit 0, its port closed. Before any cell runs, the stored outputs
show: the session summary and the static picture of the tree. JupyterLab's "Get notified
about Jupyter news?" question never comes: the setting's default is "never" in the demo's
lab (checked at the source, the settings API, and in the page). One server for all of it:
starting JupyterLab costs more than the checks.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from browser import chromium_fixture  # noqa: F401
from playwright.sync_api import Browser, expect
from servers import START_TIMEOUT, child_env, free_port, only_local, wait_until

DEMO = [sys.executable, "-m", "prime_nb.cli", "demo", "--no-browser"]
NEWS = "official Jupyter news"
SETTINGS = "/lab/api/settings/@jupyterlab/apputils-extension:notification"


def start_demo(folder: Path, port: int) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [*DEMO, "--port", str(port), "--dir", str(folder)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=child_env(folder.parent),
    )
    assert proc.stdout is not None
    deadline = time.monotonic() + START_TIMEOUT
    seen = []
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        seen.append(line)
        match = re.search(r"(http://127\.0\.0\.1:\d+/\S+)", line)
        if match:
            return proc, match.group(1)
    proc.kill()
    raise AssertionError("prime-nb demo printed no URL: " + "".join(seen)[-3000:])


def port_open(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def api(port: int, token: str, path: str) -> tuple[int, object]:
    """The demo server's answer to ``GET path``, its status and its JSON."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", headers={"Authorization": f"token {token}"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, json.load(response)


def test_demo_opens_with_outputs_and_no_news_prompt(tmp_path: Path, chromium: Browser) -> None:
    port = free_port()
    folder = tmp_path / "demo"
    proc, url = start_demo(folder, port)
    try:
        serves_the_quickstart(folder, port, url)
        opens_with_outputs_and_no_news_prompt(chromium, url)
    finally:
        proc.send_signal(signal.SIGINT)
        code = proc.wait(timeout=60)
    assert code == 0
    assert not port_open(port)


def serves_the_quickstart(folder: Path, port: int, url: str) -> None:
    """The URL opens the quickstart; the server holds it and a copy of the demo session,
    writable (the bundled original is untouched)."""
    assert url.startswith(f"http://127.0.0.1:{port}/lab/tree/01-quickstart.ipynb?token=")
    token = url.split("token=", 1)[1]
    assert api(port, token, "/api/status")[0] == 200
    status, contents = api(port, token, "/api/contents")
    assert status == 200 and isinstance(contents, dict)
    names = {item["name"] for item in contents["content"]}
    assert {"01-quickstart.ipynb", "demo-session.jsonl"} <= names
    assert os.access(folder / "demo-session.jsonl", os.W_OK)


def opens_with_outputs_and_no_news_prompt(chromium: Browser, url: str) -> None:
    token = url.split("token=", 1)[1]
    context = chromium.new_context(viewport={"width": 1400, "height": 1000})
    context.route("**/*", only_local)
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        page.goto(url)
        # a code cell's editor: a rendered markdown cell hides its own (lm-mod-hidden)
        page.wait_for_selector(".jp-Notebook .jp-CodeCell .jp-InputArea-editor")
        # the stored outputs, before anything runs: tables, the text line, the picture
        figure = page.locator(".jp-OutputArea-output .pnb-static")
        expect(figure).to_be_visible()
        picture = figure.locator("img")
        expect(picture).to_be_visible()
        wait_until(
            lambda: picture.evaluate("(el) => el.complete && el.naturalWidth > 200"),
            20,
            "the tree picture to load",
            page,
        )
        expect(page.locator(".jp-OutputArea-output", has_text="SessionWidget: ")).not_to_have_count(
            0
        )
        expect(page.locator(".jp-RenderedHTMLCommon table").first).to_be_visible()
        assert page.get_by_text("Error displaying widget").count() == 0
        figure.scroll_into_view_if_needed()

        # the setting the prompt depends on defaults to "never" in the demo's lab
        def settings() -> Any:
            return page.evaluate(
                "async ([path, token]) => (await fetch(path,"
                " {headers: {Authorization: `token ${token}`}})).json()",
                [SETTINGS, token],
            )

        schema = wait_until(settings, 30, "the notification settings", page)["schema"]
        assert schema["properties"]["fetchNews"]["default"] == "false"
        # the app has restored (the notebook shows) and the kernel is idle: the prompt
        # would be up by now; it is neither a toast nor in the notification centre
        page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']")
        assert page.get_by_text(NEWS).count() == 0
        page.locator(".jp-Notification-Status").click()
        expect(page.locator(".jp-Notification-Header")).to_be_visible()
        assert page.get_by_text(NEWS).count() == 0
    finally:
        context.close()
