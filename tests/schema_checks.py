"""How a table differs from its schema, for the tests that check every table.

Only tests ask this (the package conforms its tables and never checks them), so it sits
here rather than in ``prime_nb.analysis`` or ``prime_nb.session``.
"""

from __future__ import annotations

import pandas as pd

from prime_nb.analysis._schemas import INDEX, SCHEMAS
from prime_nb.session import dtype_of


def frame_mismatches(
    frame: pd.DataFrame, schema: dict[str, str], index: tuple[str, str] | None
) -> list[str]:
    """How ``frame`` differs from ``schema`` and its ``index`` (None: a RangeIndex)."""
    out: list[str] = []
    if list(frame.columns) != list(schema):
        out.append(f"columns {list(frame.columns)} != {list(schema)}")
    for column, spec in schema.items():
        if column in frame.columns and frame[column].dtype != dtype_of(spec):
            out.append(f"{column}: {frame[column].dtype} != {spec}")
    if index is None:
        if not isinstance(frame.index, pd.RangeIndex):
            out.append(f"index {type(frame.index).__name__} is not a RangeIndex")
    elif frame.index.name != index[0] or frame.index.dtype != dtype_of(index[1]):
        out.append(f"index {frame.index.name}:{frame.index.dtype} != {index[0]}:{index[1]}")
    return out


def mismatches(name: str, frame: pd.DataFrame) -> list[str]:
    """How ``frame`` differs from the schema of research table ``name`` (empty: it
    conforms)."""
    return frame_mismatches(frame, SCHEMAS[name], INDEX[name])
