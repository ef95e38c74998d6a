"""``prime-nb demo``: the quickstart notebook on the demo session, in JupyterLab.

Apart from the other commands because it is of another kind: it copies files to a
writable folder and runs a JupyterLab server until Ctrl-C, where the others read or
write session files and return.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from importlib.util import find_spec
from pathlib import Path
from types import FrameType
from typing import Any

from ._output import CliError, _say

QUICKSTART = "01-quickstart.ipynb"
DEMO_SESSION = "demo-session.jsonl"
SERVER_START_TIMEOUT = 120.0
SERVER_STOP_TIMEOUT = 20.0
#: the one line ``prime-nb demo`` prints when JupyterLab is not installed
LAB_MISSING = (
    "demo: JupyterLab is not installed; pip install 'prime-nb[lab]' "
    "(in a checkout: pip install -e '.[lab]')"
)


# -- demo ----------------------------------------------------------------------------------


def quickstart_notebook() -> Path | None:
    """The quickstart notebook: inside the installed package, else in the source tree."""
    here = Path(__file__).resolve().parents[1]  # the package (prime_nb/cli/..)
    for candidate in (here / "notebooks" / QUICKSTART, here.parent / "notebooks" / QUICKSTART):
        if candidate.is_file():
            return candidate
    return None


def prepare_demo_folder(folder: Path) -> Path:
    """Writable copies of the demo session and the quickstart notebook; returns the notebook."""
    from ..datasets import demo_session_path

    folder.mkdir(parents=True, exist_ok=True)
    session = folder / DEMO_SESSION
    if not session.exists():
        shutil.copyfile(demo_session_path(), session)
    notebook = folder / QUICKSTART
    if not notebook.exists():
        source = quickstart_notebook()
        if source is None:  # the wheel ships it and a checkout has it: a broken install
            raise CliError(
                f"the quickstart notebook ({QUICKSTART}) is missing from this install; "
                "reinstall prime-nb"
            )
        shutil.copyfile(source, notebook)
    return notebook


# JupyterLab asks "Get notified about Jupyter news?" until the setting is chosen; the news
# URL alone does not stop the question. The demo changes the setting's *default* (a user's
# own choice still wins), through a config folder of its own on JUPYTER_CONFIG_PATH.
QUIET_LAB = {"@jupyterlab/apputils-extension:notification": {"fetchNews": "false"}}


def quiet_lab_config(config: Path) -> Path:
    """A Jupyter config folder whose lab settings turn the news prompt off; returns it."""
    labconfig = config / "labconfig"
    labconfig.mkdir(parents=True, exist_ok=True)
    (labconfig / "default_setting_overrides.json").write_text(json.dumps(QUIET_LAB), "utf-8")
    return config


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _answers(url: str, token: str) -> bool:
    request = urllib.request.Request(url, headers={"Authorization": f"token {token}"})
    try:
        with urllib.request.urlopen(request, timeout=2) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def _last_line(log: Path) -> str:
    try:
        lines = [ln.strip() for ln in log.read_text("utf-8", "replace").splitlines() if ln.strip()]
    except OSError:
        return "no log"
    return lines[-1] if lines else "no output"


class _Stop(Exception):
    """Raised by the signal handlers so that the server is shut down in one place."""


def _raise_stop(signum: int, frame: FrameType | None) -> None:
    raise _Stop(signum)


def stop_server(proc: subprocess.Popen[bytes], timeout: float = SERVER_STOP_TIMEOUT) -> None:
    """Ask the server to stop (SIGTERM shuts Jupyter down with its kernels), then insist."""
    if proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def cmd_demo(args: argparse.Namespace) -> int:
    """open the quickstart notebook on the demo session

    Copy the bundled demo session and the quickstart notebook to a writable folder, start
    JupyterLab on 127.0.0.1 and print its URL.
    """
    if find_spec("jupyterlab") is None:  # an extra: the library itself needs no JupyterLab
        raise CliError(LAB_MISSING)
    folder = (
        Path(args.dir).expanduser() if args.dir else Path(tempfile.mkdtemp(prefix="prime-nb-demo-"))
    )
    notebook = prepare_demo_folder(folder)
    port = args.port or free_port()
    token = secrets.token_urlsafe(24)
    log = folder / ".jupyter-server.log"
    command = [
        sys.executable,
        "-m",
        "jupyter",
        "lab",
        "--no-browser",
        "--ip=127.0.0.1",
        f"--port={port}",
        "--ServerApp.port_retries=0",
        f"--ServerApp.root_dir={folder}",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.news_url=None",  # no news feed (the prompt: see QUIET_LAB)
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")  # containers and CI often run as root
    config = quiet_lab_config(Path(tempfile.mkdtemp(prefix="prime-nb-demo-config-")))
    env = {**os.environ, "JUPYTER_TOKEN": token}
    # the kernel must import this very prime_nb, installed or not (a source checkout)
    for name, first in (
        ("PYTHONPATH", Path(__file__).resolve().parents[1]),
        ("JUPYTER_CONFIG_PATH", config),
    ):
        env[name] = os.pathsep.join(p for p in (str(first), os.environ.get(name)) if p)
    handlers: dict[signal.Signals, Callable[..., Any] | int | None] = {}
    for signum in (signal.SIGINT, signal.SIGTERM):
        handlers[signum] = signal.signal(signum, _raise_stop)
    proc: subprocess.Popen[bytes] | None = None
    try:
        with open(log, "wb") as log_file:
            # a session of its own: the terminal's Ctrl-C reaches us, and we stop the server
            proc = subprocess.Popen(
                command,
                cwd=folder,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log_file,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + args.timeout
        while not _answers(f"{base}/api/status", token):
            if proc.poll() is not None:
                raise CliError(f"JupyterLab exited at start ({_last_line(log)}); log: {log}")
            if time.monotonic() > deadline:
                raise CliError(f"JupyterLab did not answer within {args.timeout:.0f} s; log: {log}")
            time.sleep(0.1)
        url = f"{base}/lab/tree/{notebook.name}?token={token}"
        _say("JupyterLab is running the prime_nb demo:")
        _say(f"    {url}")
        _say(f"Folder (writable copies of the demo session and notebook): {folder}")
        _say("Press Ctrl-C to stop the server.")
        if not args.no_browser:
            import webbrowser

            webbrowser.open(url)
        code = proc.wait()
        if code:
            raise CliError(f"JupyterLab stopped with exit code {code}; log: {log}")
        return 0
    except _Stop:
        _say("Stopping JupyterLab...")
        return 0
    finally:
        if proc is not None:
            stop_server(proc)
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
        shutil.rmtree(config, ignore_errors=True)
