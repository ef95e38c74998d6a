"""What a notebook's completion lists after ``prime_nb.``, ``prime_nb.plots.`` and the
other public namespaces: their public names, each of which resolves, and nothing that
the module merely imports (numpy, plotly, typing's ``Any``...)."""

from __future__ import annotations

import importlib

import pytest

PUBLIC = [
    "prime_nb",
    "prime_nb.analysis",
    "prime_nb.corpus",
    "prime_nb.datasets",
    "prime_nb.errors",
    "prime_nb.family",
    "prime_nb.format",
    "prime_nb.interop",
    "prime_nb.plots",
    "prime_nb.redact",
    "prime_nb.session",
    "prime_nb.widget",
    "prime_nb.write",
]


@pytest.mark.parametrize("name", PUBLIC)
def test_completion_lists_the_public_names_alone(name: str) -> None:
    module = importlib.import_module(name)
    public = sorted(n for n in module.__all__ if not n.startswith("_"))
    assert public, f"{name} names nothing public"
    assert [n for n in dir(module) if not n.startswith("_")] == public
    for attribute in module.__all__:
        assert getattr(module, attribute) is not None, f"{name}.{attribute}"
