"""The 100k-entry sessions and their exported pages, made once per test run for every
browser module that opens them (``tests/run_cache.py``): read-only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from run_cache import built_once

from prime_nb.widget._export import export_html
from sessiongen import large_session_entries, write_jsonl, write_shape

SHAPE, ENTRIES = "branchy", 100_000


def big_session(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``write_shape(path, "branchy", 100_000)``, as a file named big.jsonl."""
    return built_once(
        tmp_path_factory,
        f"sessiongen.write_shape({SHAPE!r}, {ENTRIES})",
        "big.jsonl",
        lambda path: write_shape(path, SHAPE, ENTRIES),
    )


def large_session(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``large_session_entries(100_000, seed=3)``: the realistic one (tool calls, long
    lines, compactions), whose active branch is most of it; as a file named large.jsonl."""
    return built_once(
        tmp_path_factory,
        f"sessiongen.large_session_entries({ENTRIES}, seed=3)",
        "large.jsonl",
        lambda path: write_jsonl(path, large_session_entries(ENTRIES, seed=3)),
    )


def big_page(tmp_path_factory: pytest.TempPathFactory, **state: Any) -> Path:
    """``export_html`` of :func:`big_session` with the view ``state`` given."""
    source = big_session(tmp_path_factory)
    return built_once(
        tmp_path_factory,
        f"export_html({source}, {sorted(state.items())!r})",
        "big.html",
        lambda path: export_html(source, path, progress=False, **state),
    )
