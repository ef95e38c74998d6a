"""The notebooks: each runs top to bottom under nbval in < 1 min; the quickstart is stored
with its outputs (``notebooks/store_outputs.py``) so that it opens showing results, the
others without.

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


def test_the_notebooks_exist() -> None:
    assert [p.stem for p in NOTEBOOKS] == [
        "01-quickstart",
        "02-compaction-research",
        "03-branching-and-forks",
        "04-families-and-datasets",
        "05-search",
    ]


@pytest.mark.parametrize("notebook", NOTEBOOKS[1:], ids=lambda p: p.stem)
def test_notebook_is_stored_without_outputs(notebook: Path) -> None:
    data = json.loads(notebook.read_text("utf-8"))
    assert data["nbformat"] == 4
    for cell in data["cells"]:
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None


def test_quickstart_is_stored_with_its_outputs() -> None:
    proc = subprocess.run(
        [sys.executable, str(REPO / "notebooks" / "store_outputs.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(NOTEBOOKS[0].read_text("utf-8"))
    code = [c for c in data["cells"] if c["cell_type"] == "code"]
    assert all(c["outputs"] and c["execution_count"] for c in code)
    widget = next(c for c in code if "show(session)" in "".join(c["source"]))
    kinds = [sorted(o["data"]) for o in widget["outputs"]]
    assert kinds == [["text/plain"], ["text/html", "text/plain"]]
    assert "".join(widget["outputs"][0]["data"]["text/plain"]).startswith("SessionWidget: ")
    assert "data:image/svg+xml;base64," in "".join(widget["outputs"][1]["data"]["text/html"])


def test_store_outputs_finds_what_is_wrong() -> None:
    sys.path.insert(0, str(REPO / "notebooks"))
    try:
        from store_outputs import WIDGET_VIEW, problems
    finally:
        sys.path.pop(0)
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("1"), nbformat.v4.new_code_cell("w")]
    nb.cells[1].outputs = [
        nbformat.v4.new_output("display_data", data={WIDGET_VIEW: {}, "text/plain": "/scratch/x"})
    ]
    nb.metadata["widgets"] = {}
    assert problems(nb, "/scratch/") == [
        "cell 0 has no outputs",
        "cell 1 stores a widget view",
        "the outputs name a machine path ('/scratch/')",
        "the notebook stores widget state",
    ]


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
