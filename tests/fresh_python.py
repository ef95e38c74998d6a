"""Run a few lines of Python in a new interpreter, for the checks of what a fresh process
imports or does: the test process itself has imported every module already.

Nothing here imports ``conftest``; the repository and ``tests/`` come first on the
child's path, so it can import the package and the test helpers.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run_fresh(code: str, *args: str) -> str:
    """Run ``code`` (dedented) with ``args`` as ``sys.argv[1:]``; its stdout. A child that
    fails fails the test with the end of its stderr."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(REPO), str(REPO / "tests"), *filter(None, [env.get("PYTHONPATH")])]
    )
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout
