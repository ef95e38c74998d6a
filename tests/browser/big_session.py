"""The 100k-entry sessions and their exported pages, made once per test run for every
browser module that opens them (``tests/run_cache.py``): read-only.

A page with an initial view state is the plain page with that state written into its
data element (:func:`with_state`): what ``export_html(..., **state)`` writes, byte for
byte (``test_test_support`` checks it), for a fraction of the cost of a second export."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from run_cache import built_once

from prime_nb.widget._export import export_html
from prime_nb.widget._page import json_for_html
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
    plain = built_once(
        tmp_path_factory,
        f"export_html({source}, [])",
        "big.html",
        lambda path: export_html(source, path, progress=False),
    )
    if not state:
        return plain
    return built_once(
        tmp_path_factory,
        f"export_html({source}, {sorted(state.items())!r})",
        "big.html",
        lambda path: with_state(plain, path, state),
    )


#: the element of an exported page that holds its tree and initial view state
_DATA = re.compile(r'(<script type="application/json" id="pnb-data">)([^<]*)(</script>)')


def with_state(page: Path, out: Path, state: dict[str, Any]) -> Path:
    """``page`` (exported without a view state) with the initial view ``state``, at
    ``out``."""
    text = page.read_text("utf-8")
    found = _DATA.search(text)
    assert found is not None, f"{page}: no data element"
    head = json.loads(found.group(2))
    assert "state" not in head, f"{page}: exported with a view state already"
    data = json_for_html({**head, "state": state})
    out.write_text(text[: found.start(2)] + data + text[found.end(2) :], "utf-8")
    return out
