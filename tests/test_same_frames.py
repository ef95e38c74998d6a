"""``assert_same_frame`` passes exactly where ``pd.testing.assert_frame_equal`` does."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from same_frames import assert_same_frame


def _base() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "id": pd.Series(["a", "b", None], dtype="str"),
            "n": pd.Series([1, None, 3], dtype="Int64"),
            "x": [0.5, np.nan, 1.0],
            "when": pd.to_datetime(["2026-01-05", None, "2026-01-06"], utc=True),
            "kind": pd.Categorical(["u", "v", "u"], categories=["u", "v"]),
            "files": [["a"], [], None],
        },
        index=pd.Index(["e1", "e2", "e3"], name="entry_id"),
    )


def _changed(change: str) -> pd.DataFrame:
    frame = _base()
    if change == "none for nan in an object column":
        frame["files"] = pd.Series([["a"], [], np.nan], index=frame.index, dtype=object)
    elif change == "category order":
        frame["kind"] = pd.Categorical(["u", "v", "u"], categories=["v", "u"])
    elif change == "int for Int64":
        frame["n"] = pd.Series([1, 2, 3], index=frame.index, dtype="int64")
    elif change == "float off by a bit":
        frame["x"] = [0.5 + 1e-9, np.nan, 1.0]
    elif change == "float off by much":
        frame["x"] = [0.6, np.nan, 1.0]
    elif change == "a missing string":
        frame["id"] = pd.Series(["a", None, None], index=frame.index, dtype="str")
    elif change == "index name":
        frame.index.name = "id"
    elif change == "index as categories":
        frame.index = pd.CategoricalIndex(frame.index, name="entry_id")
    elif change == "column order":
        frame = frame[["n", "id", "x", "when", "kind", "files"]]
    elif change == "a list's item":
        frame["files"] = pd.Series([["b"], [], None], index=frame.index, dtype=object)
    return frame


CHANGES = [
    "nothing",
    "none for nan in an object column",
    "category order",
    "int for Int64",
    "float off by a bit",
    "float off by much",
    "a missing string",
    "index name",
    "index as categories",
    "column order",
    "a list's item",
]


@pytest.mark.parametrize("change", CHANGES)
def test_same_verdict_as_assert_frame_equal(change: str) -> None:
    left, right = _base(), _changed(change)
    try:
        pd.testing.assert_frame_equal(left, right)
    except AssertionError:
        with pytest.raises(AssertionError, match="different"):
            assert_same_frame(left, right)
    else:
        assert_same_frame(left, right)


def test_the_changes_are_not_all_alike() -> None:
    """The cases hold both verdicts, so that each side is exercised."""
    verdicts = set()
    for change in CHANGES:
        try:
            pd.testing.assert_frame_equal(_base(), _changed(change))
            verdicts.add(True)
        except AssertionError:
            verdicts.add(False)
    assert verdicts == {True, False}
