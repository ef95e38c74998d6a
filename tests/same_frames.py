"""``pd.testing.assert_frame_equal``'s verdict, quickly when the frames are the same.

Comparing a session's tables with those of a fresh load column by column through
pandas' asserters costs more than building them. :func:`assert_same_frame` first asks
whether the frames are identical: same class, index (values, dtype, names, and the type
of each label of an object index), columns, dtypes, flags, the categories of each
categorical column in order, and equal values with missing ones in the same places
(``DataFrame.equals``, exact, where the asserter allows floats a relative 1e-5), with
the type of each value of an object column the same (``equals`` takes ``None`` for
``NaN`` there; the asserter does not). Anything else, it asks ``assert_frame_equal``,
whose verdict and message are then the test's: a pass here is one the asserter gives.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd


def _types(values: Any) -> list[type]:
    return [type(value) for value in values]


def _identical(left: pd.DataFrame, right: pd.DataFrame) -> bool:
    if type(left) is not type(right) or type(left.index) is not type(right.index):
        return False
    if not (
        left.index.equals(right.index)
        and left.index.dtype == right.index.dtype
        and left.index.names == right.index.names
        and left.columns.equals(right.columns)
        and left.columns.dtype == right.columns.dtype
        and left.columns.names == right.columns.names
        and left.flags == right.flags
        and left.dtypes.equals(right.dtypes)
    ):
        return False
    if isinstance(left.index, pd.DatetimeIndex | pd.TimedeltaIndex | pd.PeriodIndex):
        return False  # the asserter checks their frequency too
    if left.index.dtype == np.dtype(object) and _types(left.index) != _types(right.index):
        return False
    for column in range(left.shape[1]):
        dtype = left.dtypes.iloc[column]
        if isinstance(dtype, pd.CategoricalDtype):
            a, b = left.iloc[:, column].cat, right.iloc[:, column].cat
            if not a.categories.equals(b.categories) or a.ordered != b.ordered:
                return False
        elif dtype == np.dtype(object) and _types(left.iloc[:, column]) != _types(
            right.iloc[:, column]
        ):
            return False
    return bool(left.equals(right))


def assert_same_frame(left: pd.DataFrame, right: pd.DataFrame) -> None:
    """Pass where ``pd.testing.assert_frame_equal(left, right)`` passes, fail as it does."""
    if not _identical(left, right):
        pd.testing.assert_frame_equal(left, right)
