"""The notebooks: stored without outputs, and each runs top to bottom under nbval in < 1 min.

Each notebook runs as ``pytest --nbval-lax notebooks/NAME.ipynb`` in a subprocess, exactly as a
person would check it, with this checkout on the kernel's PYTHONPATH so that a source tree
that is not pip-installed works too.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))
LIMIT_SECONDS = 60


def test_the_three_notebooks_exist() -> None:
    assert [p.stem for p in NOTEBOOKS] == [
        "01-quickstart",
        "02-compaction-research",
        "03-branching-and-forks",
    ]


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_stored_without_outputs(notebook: Path) -> None:
    data = json.loads(notebook.read_text("utf-8"))
    assert data["nbformat"] == 4
    for cell in data["cells"]:
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_under_nbval(notebook: Path, tmp_path: Path) -> None:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p),
    }
    started = time.monotonic()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--nbval-lax",
            "-q",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(tmp_path),
            str(notebook),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    took = time.monotonic() - started
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert took < LIMIT_SECONDS, f"{notebook.name} took {took:.0f} s"
