"""Run the quickstart notebook and store its outputs, so it opens showing results.

    python notebooks/store_outputs.py            # rewrite notebooks/01-quickstart.ipynb
    python notebooks/store_outputs.py --check    # exit 1 if its outputs are missing

The notebook runs the way ``prime-nb demo`` runs it: in a scratch folder holding a copy of
the demo session, so its outputs name only ``demo-session.jsonl``. Widget outputs keep
their text line and their static picture, not the widget view itself: a stored view
needs the widget state (the whole JavaScript bundle, stale at the next front-end change)
and, without it, JupyterLab shows "model not found" in its place. Running the cell brings
the live widget back. Timings and execution metadata are dropped, so reruns stay diffable.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent
QUICKSTART = HERE / "01-quickstart.ipynb"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def stored(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The executed notebook without widget views, widget state or run metadata."""
    nb.metadata.pop("widgets", None)
    nb.metadata["language_info"] = {"name": "python"}  # not this machine's Python version
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        for output in cell.get("outputs", []):
            output.get("data", {}).pop(WIDGET_VIEW, None)
            output.get("metadata", {}).pop(WIDGET_VIEW, None)
    return nb


def problems(nb: nbformat.NotebookNode, scratch: str = "") -> list[str]:
    """What is wrong with a stored quickstart: missing outputs, views, machine paths."""
    out = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        if not cell.outputs:
            out.append(f"cell {i} has no outputs")
        for output in cell.outputs:
            if output.get("output_type") == "error":
                out.append(f"cell {i} failed: {output.get('ename')}")
            if WIDGET_VIEW in output.get("data", {}):
                out.append(f"cell {i} stores a widget view")
    text = nbformat.writes(nb)
    for marker in filter(None, [scratch, tempfile.gettempdir() + os.sep, str(Path.home())]):
        if marker in text:
            out.append(f"the outputs name a machine path ({marker!r})")
    if "widgets" in nb.metadata:
        out.append("the notebook stores widget state")
    return out


def run(path: Path = QUICKSTART) -> nbformat.NotebookNode:
    """Execute the notebook in a scratch folder beside a copy of the demo session."""
    sys.path.insert(0, str(HERE.parent))
    from prime_nb.datasets import demo_session_path

    nb = nbformat.read(path, as_version=4)
    with tempfile.TemporaryDirectory(prefix="prime-nb-outputs-") as scratch:
        shutil.copyfile(demo_session_path(), Path(scratch) / "demo-session.jsonl")
        env_path = os.pathsep.join(filter(None, [str(HERE.parent), os.environ.get("PYTHONPATH")]))
        old = os.environ.get("PYTHONPATH")
        os.environ["PYTHONPATH"] = env_path  # the kernel imports this checkout
        try:
            NotebookClient(nb, timeout=120, kernel_name="python3").execute(cwd=scratch)
        finally:
            if old is None:
                os.environ.pop("PYTHONPATH", None)
            else:
                os.environ["PYTHONPATH"] = old
        nb = stored(nb)
        found = problems(nb, scratch)
    if found:
        raise SystemExit(f"{path.name}: " + "; ".join(found) + "; fix the notebook and rerun")
    return nb


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="only check the stored outputs")
    args = parser.parse_args()
    if args.check:
        found = problems(nbformat.read(QUICKSTART, as_version=4))
        for problem in found:
            print(f"{QUICKSTART.name}: {problem}", file=sys.stderr)
        return 1 if found else 0
    nbformat.write(run(), QUICKSTART)
    print(f"wrote {QUICKSTART}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
