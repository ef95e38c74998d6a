"""The session generators left ``prime_nb.datasets``: asking for one there says where.

Why: code and notebooks written against the old address must learn the new one from the
error, and the library must not quietly keep a second copy of the generators.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

import sessiongen
from prime_nb import datasets

MOVED = [
    "SHAPES",
    "large_session_entries",
    "main",
    "shape_entries",
    "synthetic_entries",
    "synthetic_family",
    "synthetic_session",
    "write_jsonl",
    "write_large_session",
    "write_shape",
]


def test_the_moved_names_are_exactly_the_generators() -> None:
    assert sorted(datasets.MOVED) == MOVED
    # sessiongen has grown one name since the move, which the package never had
    assert sorted(set(sessiongen.__all__) - {"use_local_tokenizer"}) == MOVED
    assert datasets.__all__ == ["demo_session_path", "from_sessions", "write_dataset"]


@pytest.mark.parametrize("name", MOVED)
def test_an_attribute_says_where_it_went(name: str) -> None:
    with pytest.raises(ImportError, match=rf"use `from sessiongen import {name}`"):
        getattr(datasets, name)


def test_from_import_keeps_the_message() -> None:
    with pytest.raises(ImportError, match=r"left the package for the repository's sessiongen"):
        from prime_nb.datasets import synthetic_session  # noqa: F401


def test_an_unknown_name_is_a_plain_attribute_error() -> None:
    with pytest.raises(AttributeError, match=r"has no attribute 'no_such_name'"):
        datasets.no_such_name  # noqa: B018


def test_the_old_demo_command_says_the_new_one() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "prime_nb.datasets"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 1
    assert "python -m sessiongen" in done.stderr
