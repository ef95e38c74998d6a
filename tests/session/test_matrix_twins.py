"""The matrix's twins load alike, so tests of a loaded Session may run over one of each.

``session_matrix.TWINS`` pairs cases whose files differ (a version 2 layout and header
against version 3) but whose loaded Sessions are the same. The tests that take a loaded
Session run over ``LOADED_CASES`` (the twins left out); this test is what makes that
lose nothing: if a twin ever loads differently, it fails and the twin must go back.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from session_matrix import CASES, LOADED_CASES, TWINS, write_case

import prime_nb

TABLES = (
    "entries",
    "leaves",
    "compactions",
    "tool_calls",
    "problems",
    "branch_summaries",
    "bash_runs",
    "custom_entries",
    "git_states",
    "child_usage",
)


@pytest.mark.parametrize(("twin", "kept"), sorted(TWINS.items()))
def test_a_twin_loads_to_the_session_its_kept_case_does(
    twin: str, kept: str, tmp_path: Path
) -> None:
    assert kept in LOADED_CASES and twin not in LOADED_CASES and twin in CASES
    a = prime_nb.load(write_case(twin, tmp_path / "twin"))
    b = prime_nb.load(write_case(kept, tmp_path / "kept"))
    assert a.file.read_bytes() != b.file.read_bytes()  # the reading differs: kept there
    assert a.version == 2 and b.version == 3
    for table in TABLES:
        pd.testing.assert_frame_equal(getattr(a, table), getattr(b, table), obj=table)
    assert (a.leaf_id, a.name, a.labels) == (b.leaf_id, b.name, b.labels)
    for leaf in [None, *b.leaves.index, *b.entries.index[:: max(1, len(b) // 20)]]:
        assert list(a.context(leaf)) == list(b.context(leaf)), leaf
        assert a.to_messages(leaf) == b.to_messages(leaf), leaf


def test_loaded_cases_keep_every_kind_of_session() -> None:
    kinds = {name.split("-")[0] for name in LOADED_CASES}
    assert kinds == {name.split("-")[0] for name in CASES}
    assert all(name in LOADED_CASES for name in CASES if name.startswith(("odd-", "fixture-")))
