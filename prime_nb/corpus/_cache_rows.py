"""Whether a row read back from the corpus cache is one the summary pass could have made.

Why: a cache record is used when its file's stat key and ends still match, and then its
rows go straight into the typed tables. The cache file is a file like any other (damaged,
hand-edited, hostile): a row whose value is not of its column's kind (a dict where a count
goes, a count past 64 bits) would make the table's conversion raise, long after the cache
was read. Checked when the record is used, such a row counts as damage: the file is read
again (``_cache``), as for any other damaged record.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from ._dtypes import CORPUS_DTYPES, RESEARCH_DTYPES
from ._work import ROW

#: raw values of the time columns (milliseconds; the tables make them datetimes), and the
#: compaction rows' time of the compaction before them, which no table column names
_TIMES = ("datetime64", "timedelta64")
_EXTRA = {"previous_ms": "float64"}
_INT64 = range(-(2**63), 2**63)


@cache
def _dtypes(part: str) -> dict[str, str]:
    dtypes = CORPUS_DTYPES if part == ROW else RESEARCH_DTYPES[part]
    kinds = {name: str(dtype) for name, dtype in dtypes.items()}
    return {**kinds, **_EXTRA}


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _fits(value: Any, dtype: str) -> bool:
    """Is ``value`` (as JSON gave it; a float's NaN as None) of a column of ``dtype``?"""
    if dtype in ("int64", "Int64"):
        whole = isinstance(value, int) and not isinstance(value, bool) and value in _INT64
        return whole or (value is None and dtype == "Int64")
    if dtype == "float64" or dtype.startswith(_TIMES):
        return value is None or _number(value)
    if dtype == "bool":
        return isinstance(value, bool)
    if dtype == "object":  # lists of ids or paths
        return value is None or (isinstance(value, list) and all(isinstance(v, str) for v in value))
    return value is None or isinstance(value, str)


def check_rows(part: str, rows: list[dict[str, Any]]) -> None:
    """Raise ValueError when a value of ``rows`` (of ``part``: the summary row or a
    research table's) is not of its column's kind; keys of no column are left alone
    (the tables drop them)."""
    dtypes = _dtypes(part)
    for row in rows:
        for name, value in row.items():
            dtype = dtypes.get(name)
            if dtype is not None and not _fits(value, dtype):
                raise ValueError(f"the cache's {part} rows hold a {type(value).__name__} in {name}")
