"""What ``import prime_nb`` loads, and what it leaves for first use.

The reading, analysis and corpus names come with the package; the widget stack
(anywidget, ipywidgets), plotly and Dask are imported only when a name that needs them
is used (PEP 562 ``__getattr__`` in ``prime_nb`` and ``prime_nb.corpus``). Each check
runs in a fresh interpreter, since this one has imported everything.
"""

from __future__ import annotations

import importlib
from types import UnionType

import pytest
from fresh_python import run_fresh

import prime_nb

PACKAGES = ["prime_nb", "prime_nb.session", "prime_nb.analysis", "prime_nb.corpus"]
HEAVY = ["anywidget", "ipywidgets", "plotly", "dask"]


@pytest.fixture(scope="module")
def fresh() -> list[str]:
    """One fresh interpreter's answers for the checks below, in the order they need:
    what a bare import loads, what reading loads, then each lazy name's first use (one
    child rather than one per check: each starts by importing the package)."""
    return run_fresh(
        f"""
        import sys
        import prime_nb, prime_nb.session, prime_nb.analysis, prime_nb.corpus
        print([name for name in {HEAVY!r} if name in sys.modules])
        prime_nb.load
        prime_nb.corpus.load_corpus
        print([name for name in {HEAVY!r} if name in sys.modules])
        before = "dask" in sys.modules
        prime_nb.corpus.sessions_dask
        print(before, "dask" in sys.modules)
        before = "anywidget" in sys.modules or "prime_nb.widget" in sys.modules
        prime_nb.show
        print(before, "anywidget" in sys.modules, "prime_nb.widget" in sys.modules)
        import prime_nb.redact._file
        print(callable(prime_nb.redact), prime_nb.redact.__module__)
        """
    ).splitlines()


def test_importing_the_package_leaves_the_widget_stack_plotly_and_dask_out(
    fresh: list[str],
) -> None:
    assert fresh[:2] == ["[]", "[]"]
    assert fresh[3] == "False True True"  # the widget stack on the first use of show


def test_a_dask_name_imports_dask_on_first_use(fresh: list[str]) -> None:
    assert fresh[2] == "False True"


@pytest.mark.parametrize("package", PACKAGES)
def test_every_listed_name_resolves_to_its_object(package: str) -> None:
    """``__all__`` and ``dir()`` list the names, and each resolves to the object its
    module defines."""
    module = importlib.import_module(package)
    assert module.__all__, package
    assert set(module.__all__) <= set(dir(module))
    for name in module.__all__:
        value = getattr(module, name)
        assert value is not None, name
        owner = getattr(value, "__module__", None)
        # a module, or a type alias such as SessionLike (a union), has no owner of its own
        if owner is not None and not isinstance(value, type(prime_nb) | UnionType):
            assert owner.startswith("prime_nb"), (name, owner)
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        _ = module.no_such_name


def test_same_named_function_is_not_shadowed_by_its_module(fresh: list[str]) -> None:
    """``prime_nb.redact`` is the function, even after ``prime_nb.redact``'s module loads."""
    assert fresh[4].split() == ["True", "prime_nb.redact._file"]


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
