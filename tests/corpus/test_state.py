"""The summary pass's saved state (what the corpus cache resumes a grown file from) reads
back as the pass left it, on every session of the shared matrix and the corpus's own."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from session_matrix import CASES, write_all
from test_summary import session_matrix

from prime_nb.corpus._state import dump, restore
from prime_nb.corpus._summary import SummaryColumns, read_summary
from prime_nb.errors import SessionFormatError

COLUMNS = ("ids", "parent_ids", "types", "roles", "lines", "offsets", "lengths", "stops")


def same(a: Any, b: Any) -> bool:
    """Equal, NaN equal to NaN (a missing time or cost)."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def columns(cols: SummaryColumns) -> dict[str, Any]:
    calls = cols.tool_calls
    return {
        **{name: list(getattr(cols, name)) for name in COLUMNS},
        "time_ms": list(cols.time_ms),
        "usage": [None if u is None else (type(u), tuple(u)) for u in cols.usage],
        "odd_fields": {row: odd.fields for row, odd in cols.usage.odd.items()},
        "tool_calls": [tuple(call) for call in calls],
        "kept_arguments": sorted(calls.arguments),
        "first_user_text": cols.first_user_text,
    }


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    root = tmp_path_factory.mktemp("state")
    return session_matrix(root / "m") + sorted(write_all(root / "cases").values())


def test_the_matrix_covers_odd_usage_and_read_tools(paths: list[Path]) -> None:
    assert {"odd-child-usage-odd-fields"} <= set(CASES)
    sessions = [read_summary(str(p)) for p in paths if _readable(p)]
    assert any(s.cols.usage.odd for s in sessions)
    assert any(s.cols.tool_calls.arguments for s in sessions)


def _readable(path: Path) -> bool:
    try:
        read_summary(str(path))
    except SessionFormatError:
        return False
    return True


def test_a_saved_state_reads_back_as_the_pass_left_it(paths: list[Path]) -> None:
    checked = 0
    for path in paths:
        if not _readable(path):
            continue
        session = read_summary(str(path))
        back = restore(str(path), dump(session))
        want, got = columns(session.cols), columns(back.cols)
        for name in want:
            assert same(got[name], want[name]), f"{path.name}: {name}"
        assert dump(back) == dump(session), path.name
        checked += 1
    assert checked > 40
