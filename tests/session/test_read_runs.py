"""Rows read back from disk in runs give the same entries as one read per row."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from session_matrix import CASES, write_case

import prime_nb
from prime_nb.session import _read_runs
from prime_nb.session._read_runs import byte_runs

LENGTHS = st.lists(st.integers(min_value=1, max_value=300), min_size=1, max_size=60)


@settings(max_examples=300, deadline=None)
@given(LENGTHS, st.data(), st.integers(min_value=0, max_value=400), st.integers(0, 900))
def test_runs_cover_each_row_once_within_their_limits(
    lengths: list[int], data: st.DataObject, gap: int, run: int
) -> None:
    """Every asked row lands in exactly one run, in file order; a run never spans more
    than READ_RUN unless it is a single row, and never skips READ_GAP bytes or more."""
    offsets = [sum(lengths[:k]) for k in range(len(lengths))]
    rows = sorted(data.draw(st.sets(st.integers(0, len(lengths) - 1), min_size=1)))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_read_runs, "READ_GAP", gap)
        mp.setattr(_read_runs, "READ_RUN", run)
        runs = list(byte_runs(rows, offsets, lengths))
    assert [row for _, part in runs for row in part] == rows
    for start, part in runs:
        assert start == offsets[part[0]]
        end = offsets[part[-1]] + lengths[part[-1]]
        assert len(part) == 1 or end - start <= run
        for before, after in itertools.pairwise(part):
            assert offsets[after] - (offsets[before] + lengths[before]) <= gap


@pytest.mark.parametrize("case", CASES)
def test_runs_read_the_same_entries_as_one_read_per_row(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every row of every session in the matrix (bad lines, deep nesting, huge lines,
    CRLF, BOM) reads back equal, whether runs are as large as allowed or one row each."""
    session = prime_nb.load(write_case(case, tmp_path))
    rows = list(range(len(session._cols.offsets)))[::-1]  # any order comes back as asked
    together = session._read_rows(rows)
    monkeypatch.setattr(_read_runs, "READ_RUN", 0)
    monkeypatch.setattr(_read_runs, "READ_GAP", -1)
    assert session._read_rows(rows) == together
    assert session._read_rows(rows, trim=False) == [
        session._read_rows([row], trim=False)[0] for row in rows
    ]
