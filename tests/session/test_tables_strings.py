"""The entries table's columns are what the plain pandas and numpy constructions make of
the loader's columns: same dtype, array class and values (text columns built by pyarrow
equal ``pd.array``'s); times always in microseconds.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import prime_nb
from prime_nb.session import _tables as tables
from sessiongen import synthetic_session

NAN = float("nan")


CASES: dict[str, Any] = {
    "empty": [],
    "one None": [None],
    "all None": [None] * 5,
    "empty strings": ["", "", None],
    "ascii": ["message", "assistant", None, "user"],
    "non-ascii": ["café", "naïve ✓", "日本語のテキスト", "emoji 🎉👍🏽", "e\u0301", "\u00a0\t\n"],
    "nul and controls": ["a\x00b", "\x1b[31mred\x1b[0m"],
    "long": ["x" * 300 + "é" * 300, None, "y" * 10_000],
    "object ndarray": np.asarray(["a", None, "b"], dtype=object),
    "object ndarray all None": np.full(4, None, dtype=object),
    "empty ndarray": np.asarray([], dtype=object),
    "NaN": [NAN, "a", None],
    "only NaN": [NAN, NAN],
    "NaN ndarray": np.asarray(["a", NAN, None], dtype=object),
    "pd.NA": ["a", pd.NA],
    "only pd.NA": [pd.NA],
    "numbers": [1, "a", 2.5, None],
    "bools": [True, False, None],
    "bytes": [b"x", "y"],
    "bytearray": [bytearray(b"x"), "y"],
    "str subclass": [np.str_("x"), "y"],
    "containers": [["x"], {"a": 1}, "y"],
}


def same_strings(new: Any, old: Any) -> None:
    assert type(new) is type(old)
    assert new.dtype == old.dtype
    assert len(new) == len(old)
    assert old.equals(new)
    for a, b in zip(new, old, strict=True):
        assert type(a) is type(b)
        assert a == b or (isinstance(a, float) and math.isnan(a) and math.isnan(b))


@pytest.mark.parametrize("values", list(CASES.values()), ids=list(CASES))
def test_strs_is_pd_array_str(values: Any) -> None:
    same_strings(tables._strs(values), pd.array(values, dtype="str"))


def test_lone_surrogates_fail_as_before() -> None:
    with pytest.raises(
        UnicodeEncodeError, match=r"codec can't encode character .* surrogates not allowed"
    ):
        pd.array(["a", "\ud800"], dtype="str")
    with pytest.raises(
        UnicodeEncodeError, match=r"codec can't encode character .* surrogates not allowed"
    ):
        tables._strs(["a", "\ud800"])


def test_text_columns_are_built_by_pyarrow() -> None:
    """pandas keeps its str dtype in pyarrow here (the test extras install it), so the
    text columns take the one-pass path: a large_string array, not pd.array's."""
    for values in (["a", None, "é"], [None, None], []):
        assert tables._strs(values)._pa_array.type == pa.large_string()  # type: ignore[attr-defined]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.none(), st.text(max_size=40)), max_size=30))
def test_strs_matches_pd_array_on_any_text(values: list[str | None]) -> None:
    same_strings(tables._strs(values), pd.array(values, dtype="str"))


def test_times_keep_their_values_in_microseconds() -> None:
    """Same instants as pandas' own conversion, but always in µs (pandas picks ns when a
    value has sub-millisecond digits), and NaT, not an error, past the range."""
    ms = [0.0, 1.5, NAN, 1_767_607_200_123.0, -1.0, 1_767_607_200_000.25]
    new = tables.utc_times(ms)
    old = pd.to_datetime(np.asarray(ms, dtype=np.float64), unit="ms", utc=True)
    assert str(new.dtype) == "datetime64[us, UTC]"
    assert new.equals(old.as_unit("us"))
    assert str(tables.utc_times(ms[:4]).dtype) == "datetime64[us, UTC]"
    far = tables.utc_times([1e20, float(2**63), -1e20, float("inf"), 9e15])
    assert far[:4].isna().all() and far[4].year > 200_000


@pytest.mark.parametrize("seed", [1, 3])
def test_entries_table_columns(tmp_path: Path, seed: int) -> None:
    """The table's columns are what the plain constructions make of the column lists."""
    session = prime_nb.load(synthetic_session(tmp_path / "s.jsonl", seed=seed))
    entries, cols, tree = session.entries, session._cols, session._tree
    ids = np.asarray(cols.ids, dtype=object)
    parent = np.asarray(tree.parent, dtype=np.int64)
    parent_ids = ids[np.maximum(parent, 0)]
    parent_ids[parent < 0] = None
    same_strings(entries["parent_id"].array, pd.array(parent_ids, dtype="str"))
    for name, values in (("type", cols.types), ("role", cols.roles), ("model", cols.models)):
        same_strings(entries[name].array, pd.array(values, dtype="str"))
    for name, texts in (
        ("text", cols.texts),
        ("tool_name", cols.tool_names),
        ("stop_reason", cols.stop_reasons),
        ("custom_type", cols.custom_types),
    ):
        same_strings(entries[name].array, pd.array(texts, dtype="str"))
    for name in ("is_error", "has_text", "has_thinking", "has_image"):
        assert entries[name].tolist() == getattr(cols, name)
    for name, ints in (("line", cols.lines), ("byte_offset", cols.offsets)):
        assert entries[name].dtype == np.int64
        assert np.array_equal(entries[name].to_numpy(), np.asarray(ints, dtype=np.int64))
    cost = np.asarray([NAN if u is None else u[5] for u in cols.usage], dtype=np.float64)
    assert np.array_equal(entries["cost"].to_numpy(), cost, equal_nan=True)
    no_usage = np.asarray([u is None for u in cols.usage], dtype=bool)
    assert np.array_equal(entries["input_tokens"].isna().to_numpy(), no_usage)
    n_children = np.asarray([len(c) for c in tree.children], dtype=np.int64)
    assert np.array_equal(entries["children"].to_numpy(), n_children)
    on_path = np.zeros(len(entries), dtype=bool)
    on_path[tree.path(len(entries) - 1)] = True
    assert np.array_equal(entries["on_active_path"].to_numpy(), on_path)
