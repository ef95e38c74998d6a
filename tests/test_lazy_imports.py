"""The packages load their names on first use, and the corpus workers never import pandas.

Why it matters: the corpus tables and the parallel loader run in workers forked from a
server that imports their code first. When that code imported pandas, the server took
0.55 s to start instead of about 0.2 s, and a notebook's first corpus call waited for
it. Each check runs in a fresh interpreter, since this one has imported everything.
"""

from __future__ import annotations

import importlib
import types
from pathlib import Path

import pytest
from fresh_python import run_fresh
from session_matrix import CASES, write_case

import prime_nb

PACKAGES = ["prime_nb", "prime_nb.session", "prime_nb.analysis", "prime_nb.corpus"]


def test_importing_the_package_imports_no_pandas() -> None:
    out = run_fresh(
        """
        import sys
        import prime_nb, prime_nb.session, prime_nb.analysis, prime_nb.corpus
        print("pandas" in sys.modules)
        """
    )
    assert out.split() == ["False"]


@pytest.mark.parametrize("package", PACKAGES)
def test_every_listed_name_resolves_to_its_object(package: str) -> None:
    """``__all__`` and ``dir()`` list the names, and each resolves (on first use) to the
    object its module defines."""
    module = importlib.import_module(package)
    assert module.__all__, package
    assert set(module.__all__) <= set(dir(module))
    for name in module.__all__:
        value = getattr(module, name)
        assert value is not None, name
        owner = getattr(value, "__module__", None)
        # a module, or a type alias such as SessionLike (a union), has no owner of its own
        if owner is not None and not isinstance(value, type(prime_nb) | types.UnionType):
            assert owner.startswith("prime_nb"), (name, owner)
    with pytest.raises(AttributeError):
        _ = module.no_such_name


def test_same_named_function_is_not_shadowed_by_its_module() -> None:
    """``prime_nb.redact`` is the function, even after ``prime_nb.redact``'s module loads."""
    out = run_fresh(
        """
        import prime_nb
        import prime_nb.redact._file
        print(callable(prime_nb.redact), prime_nb.redact.__module__)
        """
    )
    assert out.split() == ["True", "prime_nb.redact._file"]


def test_the_summary_pass_of_every_matrix_session_imports_no_pandas(tmp_path: Path) -> None:
    """What a corpus worker runs, over the whole session matrix: every fixture, version
    and dialect, 0/1/many compactions and forks, empty and hostile sessions."""
    paths = [str(write_case(name, tmp_path / "m")) for name in CASES]
    out = run_fresh(
        """
        import sys
        from prime_nb.corpus._work import ALL_PARTS, summarise
        import prime_nb.session._chunks
        rows = 0
        for path in sys.argv[1:]:
            result = summarise(path, ALL_PARTS)
            rows += 1 + len(result.compactions) + len(result.branches)
        print(rows, "pandas" in sys.modules)
        """,
        *paths,
    )
    rows, loaded = out.split()
    assert int(rows) > len(paths)
    assert loaded == "False"


def test_reading_sessions_imports_no_file_lock(tmp_path: Path) -> None:
    """filelock is for the writers (18 ms to import): loading sessions, and the corpus
    workers' server, never take a lock. The writers' tests take it, in this process."""
    paths = [str(write_case(name, tmp_path / "m")) for name in CASES]
    out = run_fresh(
        """
        import sys
        import prime_nb
        loaded = 0
        for path in sys.argv[1:]:
            try:
                prime_nb.load(path).summary()
                loaded += 1
            except Exception:  # the hostile cases that are no session at all
                pass
        import prime_nb.corpus._work
        print(loaded, "filelock" in sys.modules)
        """,
        *paths,
    )
    loaded, imported = out.split()
    assert int(loaded) > len(paths) // 2
    assert imported == "False"


def test_corpus_workers_run_without_pandas(tmp_path: Path) -> None:
    """The forkserver's workers (the corpus's and the parallel loader's share it) are
    forked from a server that never imported pandas; the calling process builds the
    tables and has it. The workers still import it if a task needs it (the entries
    table does)."""
    paths = [str(write_case(name, tmp_path / "m")) for name in CASES[:12]]
    out = run_fresh(
        """
        import sys
        from prime_nb.corpus import corpus_entries, load_corpus
        from prime_nb.corpus._pool import shared
        table = load_corpus(files=sys.argv[1:], workers=2, progress=False)
        asked = "'pandas' in __import__('sys').modules"
        with shared.use(2) as pool:
            before = set(pool.map(eval, [asked] * 8))
        entries = corpus_entries(files=sys.argv[1:], workers=2, progress=False)
        print(len(table), before == {False}, len(entries) > 0)
        """,
        *paths,
    )
    assert out.split() == [str(len(paths)), "True", "True"]


def test_a_function_that_uses_the_package_pickles_for_workers() -> None:
    """cloudpickle sends a notebook's function to Dask workers with the modules it uses;
    the package module must pickle (by name), as a plain module does."""
    import cloudpickle  # with distributed, in the test extras (the Dask tests need it)

    def rows(path: str) -> int:
        return len(prime_nb.load(path))

    again = cloudpickle.loads(cloudpickle.dumps(rows))
    assert again.__globals__["prime_nb"] is prime_nb
    assert cloudpickle.loads(cloudpickle.dumps(prime_nb)) is prime_nb
    for package in PACKAGES:
        module = importlib.import_module(package)
        assert cloudpickle.loads(cloudpickle.dumps(module)) is module
