"""Every benchmark script imports, and ``bench_corpus``'s "before" row still builds.

Why: the scripts are not run by CI (their figures are timings), so a rename inside the
package broke one unnoticed: ``bench_corpus`` read ``corpus._local`` as an attribute,
which only worked while the package imported its modules eagerly. No timing is asserted.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest
from fresh_python import run_fresh

from prime_nb.corpus import load_corpus
from prime_nb.datasets import demo_session_path

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
SCRIPTS = sorted(p for p in BENCHMARKS.glob("*.py"))


def import_script(path: Path) -> ModuleType:
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))  # the scripts import their ``machine`` helper
    name = f"benchmark_script_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while it runs
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.stem)
def test_every_benchmark_script_imports(path: Path) -> None:
    import_script(path)


def test_the_full_load_row_of_bench_corpus_matches_load_corpus() -> None:
    """The row ``bench_corpus`` times as "before" is the corpus row of the same file. Run
    in a fresh interpreter: here every module is imported already, which hid the break."""
    path = str(demo_session_path())
    keys = ["id", "entries", "leaves", "forks", "compactions", "tool_calls", "tokens"]
    out = run_fresh(
        """
        import json, sys
        sys.path.insert(0, sys.argv[1])
        import bench_corpus
        row = bench_corpus._full_row(sys.argv[2])
        print(json.dumps({k: row[k] for k in sys.argv[3:]}))
        """,
        str(BENCHMARKS),
        path,
        *keys,
    )
    before = json.loads(out)
    row = load_corpus(files=[path], workers=1, progress=False).iloc[0]
    for key in keys:
        assert before[key] == row[key], key
