"""The loader's compact containers read back exactly what was put in."""

from __future__ import annotations

import math

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prime_nb.session._columns import OddUsage
from prime_nb.session._store import ON_DISK, TextColumn, ToolCallRow, ToolCalls, UsageColumn

TEXTS = st.lists(st.text(max_size=12), max_size=40)


@settings(max_examples=200, deadline=None)
@given(TEXTS, TEXTS, TEXTS, st.integers(min_value=0, max_value=130))
def test_texts_in_blocks_and_tail_read_back(
    first: list[str], second: list[str], tail: list[str], start: int
) -> None:
    """Blocks sealed from the tail (two of them, as two refreshes leave them), and rows
    still waiting: every way of reading gives the rows in order (NUL, non-ASCII and all)."""
    column = TextColumn(first)
    column.seal()
    column.tail.extend(second)
    column.seal()
    column.tail.extend(tail)
    rows = [*first, *second, *tail]
    assert len(column) == len(rows)
    assert column.strings() == rows == list(column)
    assert column.strings(start) == rows[start:]
    assert column.arrow(start).to_pylist() == rows[start:]
    assert column.arrow(start).type == pa.large_string()
    for k, row in enumerate(rows):
        assert column[k] == row
    assert column[-1:] == rows[-1:]
    with pytest.raises(IndexError, match=r"^text row out of range$"):
        column[len(rows)]


def test_usage_column_keeps_none_tuples_and_odd_usage() -> None:
    odd = OddUsage((None, 5, 0, 0, 5, 0.5))
    odd.fields = ("input",)
    values = [None, (1, 2, 3, 4, 10, 0.25), odd, (0, 0, 0, 0, 0, math.nan)]
    column = UsageColumn(values)
    got = list(column)
    assert got[:3] == values[:3] and got[2] is odd
    assert got[3][:5] == (0, 0, 0, 0, 0) and math.isnan(got[3][5])
    column[0] = (7, 7, 7, 7, 28, 1.0)
    column[2] = None
    assert column[0] == (7, 7, 7, 7, 28, 1.0) and column[2] is None and not column.odd
    tokens, missing, cost, present = column.table(1)
    assert cost.tolist()[0] == 0.25 and math.isnan(cost.tolist()[1])
    assert tokens.tolist()[0] == [1, 2, 3, 4, 10]
    assert present.tolist() == [True, False, True]
    assert missing[1].all() and not missing[0].any()


def test_tool_calls_read_back_as_rows() -> None:
    calls = ToolCalls()
    calls.add("k1", "read", 3, 1.5, 1)
    calls.append(ToolCallRow("k2", ["odd", "name"], {"path": "a"}, 4, 2.5, 0))
    assert list(calls) == [
        ToolCallRow("k1", "read", ON_DISK, 3, 1.5, 1),
        ToolCallRow("k2", ["odd", "name"], {"path": "a"}, 4, 2.5, 0),
    ]
    assert calls[-1].arguments == {"path": "a"} and len(calls) == 2
