"""The notebooks: each runs top to bottom under nbval in < 1 min; the quickstart is stored
with its outputs (``notebooks/store_outputs.py``) so that it opens showing results, the
others without.

The notebooks run as ``pytest --nbval-lax notebooks/*.ipynb`` in one subprocess, exactly as a
person would check them, with this checkout on the kernel's PYTHONPATH so that a source tree
that is not pip-installed works too; each notebook's test reads its cells' results.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

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
        "05-research-recipes",
        "06-compaction-probes",
    ]


@pytest.mark.parametrize("notebook", NOTEBOOKS[1:], ids=lambda p: p.stem)
def test_notebook_is_stored_without_outputs(notebook: Path) -> None:
    data = json.loads(notebook.read_text("utf-8"))
    assert data["nbformat"] == 4
    for cell in data["cells"]:
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None


def test_quickstart_is_stored_with_its_outputs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``store_outputs.py --check`` passes; run in this process, which has nbformat
    loaded already (a subprocess would spend its time importing it)."""
    sys.path.insert(0, str(REPO / "notebooks"))
    try:
        from store_outputs import main
    finally:
        sys.path.pop(0)
    monkeypatch.setattr(sys, "argv", ["store_outputs.py", "--check"])
    assert main() == 0, capsys.readouterr().err
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


@pytest.fixture(scope="module")
def nbval(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[tuple[float, str]]]:
    """Every notebook through nbval in one ``pytest --nbval-lax`` subprocess (one pytest
    start-up, not one per notebook; each notebook still gets a fresh kernel of its own):
    for each notebook, its cells' (seconds, failure text or "")."""
    root = tmp_path_factory.mktemp("nbval")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p),
        # nbval alone (``-p nbval``): the test stack's other plugins only add start-up time
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
    }
    report = root / "cells.xml"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "nbval",  # the project's addopts leave it out of every other pytest process
            "--nbval-lax",
            "-q",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(root),
            "-o",
            "junit_family=xunit1",  # each cell's row names its notebook (file=)
            f"--junitxml={report}",
            *map(str, NOTEBOOKS),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=root,
        timeout=300 * len(NOTEBOOKS),
    )
    assert report.is_file(), proc.stdout[-4000:] + proc.stderr[-2000:]
    cells: dict[str, list[tuple[float, str]]] = {p.stem: [] for p in NOTEBOOKS}
    for case in ElementTree.parse(report).iter("testcase"):
        stem = Path(case.get("file", "")).stem
        failed = [
            f.text or f.get("message", "failed") for f in case if f.tag in ("failure", "error")
        ]
        cells.setdefault(stem, []).append((float(case.get("time", 0)), "\n".join(failed)))
    return cells


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_under_nbval(
    notebook: Path, nbval: dict[str, list[tuple[float, str]]]
) -> None:
    cells = nbval[notebook.stem]
    code = [c for c in json.loads(notebook.read_text("utf-8"))["cells"] if c["cell_type"] == "code"]
    assert len(cells) == len(code), f"nbval ran {len(cells)} of {len(code)} code cells"
    failed = [text for _, text in cells if text]
    assert not failed, failed[0][-4000:]
    took = sum(seconds for seconds, _ in cells)
    assert took < LIMIT_SECONDS, f"{notebook.name} took {took:.0f} s"
