"""pandas tables built straight from the column lists (vectorised, no per-row objects)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import repeat
from operator import is_
from typing import Any

import numpy as np
import pandas as pd

from ..format._reading import Problem
from ._columns import EntryColumns
from ._tree import Tree

PROBLEM_COLUMNS = ["line", "kind", "message", "entry_id"]


def _int64(values: Sequence[int]) -> np.ndarray:
    """``np.asarray(values, dtype=np.int64)`` of a list, without numpy's shape discovery
    (a third to half faster on long lists of Python ints).
    """
    return np.fromiter(values, dtype=np.int64, count=len(values))


def _ints(values: list[int], mask: np.ndarray | None = None) -> pd.api.extensions.ExtensionArray:
    data = _int64(values)
    missing = np.zeros(len(data), dtype=bool) if mask is None else mask
    return pd.arrays.IntegerArray(data, missing)


def _arrow_strings() -> Callable[[Any], pd.api.extensions.ExtensionArray | None] | None:
    """A fast builder of pandas' ``str`` arrays, when pandas keeps them in pyarrow (None
    when it doesn't: no pyarrow, other pandas versions).

    ``pd.array(values, dtype="str")`` first makes an object array of ``str(value)`` and
    then hands that to pyarrow. pyarrow can read the values directly, in one pass: its
    type inference says ``string`` only when every value is a str or None (``null``
    when all are None), and the array is then converted to the storage type pandas uses
    and wrapped without a copy. Any other values (numbers, NaN, bytes...) get None: the
    caller falls back to ``pd.array``, which turns them into text or NaN as it always did.
    """
    try:
        import pyarrow as pa

        dtype = pd.array([], dtype="str").dtype
        if not (isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow"):
            return None
        array_type: Any = dtype.construct_array_type()
        storage = pa.large_string()

        def build(values: Any) -> pd.api.extensions.ExtensionArray | None:
            try:
                arrow = pa.array(values)
            except Exception:  # mixed types, or text pyarrow can't encode
                return None
            kind = arrow.type
            if pa.types.is_null(kind):
                arrow = pa.nulls(len(arrow), type=storage)
            elif pa.types.is_string(kind) or pa.types.is_large_string(kind):
                arrow = arrow.cast(storage)
            else:
                return None
            return array_type(arrow, dtype=dtype)  # type: ignore[no-any-return]

        for sample in (["a", None, "é", ""], [None], []):
            expected: Any = pd.array(sample, dtype="str")
            got = build(sample)
            same = got is not None and type(got) is type(expected) and got.dtype == expected.dtype
            if not (same and expected.equals(got)):
                return None
        return build
    except Exception:  # any surprise in pandas' internals: keep the plain path
        return None


_FAST_STRS = _arrow_strings()


def _strs(values: Any) -> pd.api.extensions.ExtensionArray:
    """Text columns always get pandas' string dtype (missing = NaN), however few rows."""
    fast = _FAST_STRS(values) if _FAST_STRS is not None else None
    if fast is not None:
        return fast
    return pd.array(values, dtype="str")  # type: ignore[no-any-return]


def _times(time_ms: list[float]) -> pd.DatetimeIndex:
    ms = np.fromiter(time_ms, dtype=np.float64, count=len(time_ms))
    return pd.to_datetime(ms, unit="ms", utc=True)


def labels_by_row(cols: EntryColumns) -> dict[int, str]:
    """The label in force on each row (the latest label entry for a target wins)."""
    out: dict[int, str] = {}
    for _, target, label in cols.label_events:
        row = cols.index_of.get(target) if target is not None else None
        if row is None:
            continue
        if label is None:
            out.pop(row, None)
        else:
            out[row] = label
    return out


def active_path_mask(tree: Tree, leaf: int) -> np.ndarray:
    mask = np.zeros(len(tree), dtype=bool)
    if leaf >= 0:
        path = tree.path(leaf)
        mask[np.fromiter(path, dtype=np.intp, count=len(path))] = True
    return mask


def derived_columns(cols: EntryColumns, tree: Tree, leaf: int) -> dict[str, np.ndarray]:
    """Columns that can change for old rows when entries are appended."""
    n = len(cols)
    n_children = np.fromiter(map(len, tree.children), dtype=np.int64, count=n)
    label_col = np.full(n, None, dtype=object)
    for row, label in labels_by_row(cols).items():
        label_col[row] = label
    return {
        "children": n_children,
        "label": label_col,
        "is_leaf": n_children == 0,
        "on_active_path": active_path_mask(tree, leaf),
    }


def entries_frame(
    cols: EntryColumns,
    tree: Tree,
    leaf: int,
    start: int = 0,
    derived_all: dict[str, np.ndarray] | None = None,
) -> pd.DataFrame:
    """The entries table for rows ``start:`` (all rows by default), in file order."""
    n = len(cols)
    rows = slice(start, n)
    ids = cols.ids
    parent_ids = [ids[p] if p >= 0 else None for p in tree.parent[rows]]
    usage_rows = cols.usage[rows]
    no_usage = np.fromiter(map(is_, usage_rows, repeat(None)), dtype=bool, count=len(usage_rows))
    usage = EntryColumns(usage=usage_rows).usage_columns()
    cold = EntryColumns(rest=cols.rest[rows]).cold()
    if derived_all is None:
        derived_all = derived_columns(cols, tree, leaf)
    derived = {name: values[rows] for name, values in derived_all.items()}
    return pd.DataFrame(
        {
            "parent_id": _strs(parent_ids),
            "type": _strs(cols.types[rows]),
            "role": _strs(cols.roles[rows]),
            "timestamp": _times(cols.time_ms[rows]),
            "line": _int64(cols.lines[rows]),
            "depth": _int64(tree.depth[rows]),
            "children": derived["children"],
            "text": _strs(cold["text"]),
            "tool_name": _strs(cold["tool_name"]),
            "provider": _strs(cols.providers[rows]),
            "model": _strs(cols.models[rows]),
            "input_tokens": _ints(usage["input_tokens"], no_usage),
            "output_tokens": _ints(usage["output_tokens"], no_usage),
            "cache_read_tokens": _ints(usage["cache_read_tokens"], no_usage),
            "cache_write_tokens": _ints(usage["cache_write_tokens"], no_usage),
            "total_tokens": _ints(usage["total_tokens"], no_usage),
            "cost": np.fromiter(usage["cost"], dtype=np.float64, count=len(usage["cost"])),
            "stop_reason": _strs(cold["stop_reason"]),
            "is_error": np.asarray(cold["is_error"], dtype=bool),
            "has_text": np.asarray(cold["has_text"], dtype=bool),
            "has_thinking": np.asarray(cold["has_thinking"], dtype=bool),
            "has_image": np.asarray(cold["has_image"], dtype=bool),
            "n_tool_calls": _int64(cold["n_tool_calls"]),
            "custom_type": _strs(cold["custom_type"]),
            "label": _strs(derived["label"]),
            "is_leaf": derived["is_leaf"],
            "on_active_path": derived["on_active_path"],
            "byte_offset": _int64(cols.offsets[rows]),
            "byte_length": _int64(cols.lengths[rows]),
        },
        index=pd.Index(cols.ids[rows], name="id", dtype=object),
    )


def extend_entries_frame(
    frame: pd.DataFrame, cols: EntryColumns, tree: Tree, leaf: int
) -> pd.DataFrame:
    """``frame`` (the table as of an earlier read) with the rows appended since.

    Rows never change once read, except the derived columns, which are recomputed.
    """
    derived = derived_columns(cols, tree, leaf)
    new = entries_frame(cols, tree, leaf, start=len(frame), derived_all=derived)
    if not len(frame):
        return new
    combined = pd.concat([frame, new])
    combined.index = pd.Index(cols.ids, name="id", dtype=object)
    for name, values in derived.items():
        combined[name] = _strs(values) if name == "label" else values
    return combined


def problems_frame(problems: list[Problem]) -> pd.DataFrame:
    frame = pd.DataFrame(problems, columns=PROBLEM_COLUMNS)
    frame["line"] = frame["line"].astype(np.int64)
    return frame.sort_values("line", kind="stable").reset_index(drop=True)


def tool_calls_frame(cols: EntryColumns) -> pd.DataFrame:
    rows: list[dict[str, Any]] = []
    for call in cols.tool_calls:
        result = cols.tool_results.get(call.call_id) if call.call_id is not None else None
        latency = (result[2] - call.time_ms) / 1000.0 if result is not None else np.nan
        rows.append(
            {
                "call_id": call.call_id,
                "name": call.name,
                "arguments": call.arguments,
                "assistant_id": cols.ids[call.row],
                "result_id": cols.ids[result[0]] if result is not None else None,
                "is_error": result[1] if result is not None else None,
                "latency": latency,
                "timestamp": call.time_ms,
            }
        )
    frame = pd.DataFrame(
        rows,
        columns=[
            "call_id",
            "name",
            "arguments",
            "assistant_id",
            "result_id",
            "is_error",
            "latency",
            "timestamp",
        ],
    )
    frame["timestamp"] = _times(frame["timestamp"].astype(float).tolist())
    return frame


def _summarised(
    cols: EntryColumns, tree: Tree, row: int, kept_row: int | None, kept_of: dict[int, int | None]
) -> tuple[int, bool]:
    """Context entries a compaction summarised away, and whether its first kept entry is on
    its path. Walks only the span back to the previous compaction's cut, not the whole path.
    """
    parent, types = tree.parent, cols.types
    span: list[int] = []  # rows above the compaction, nearest first, up to the previous cut
    up = parent[row]
    while up >= 0 and types[up] != "compaction":
        span.append(up)
        up = parent[up]
    if up >= 0:  # a previous compaction: its kept entries were still in context
        prev_kept = kept_of.get(up)
        extra: list[int] = []
        walk = up
        while walk >= 0 and walk != prev_kept:
            extra.append(walk)
            walk = parent[walk]
        if walk >= 0:
            span.extend([*extra, walk])
    if kept_row is not None and kept_row in span:
        counted = span[span.index(kept_row) + 1 :]
        on_path = True
    else:
        on_path = kept_row is not None and kept_row in tree.path(row)
        counted = [] if on_path else span
    return sum(1 for r in counted if types[r] in _CONTEXT_TYPES), on_path


def compactions_frame(cols: EntryColumns, tree: Tree) -> pd.DataFrame:
    """One row per compaction, with how many entries it summarised away on its path."""
    kept_of: dict[int, int | None] = {
        c["index"]: cols.index_of.get(c["first_kept_entry_id"] or "") for c in cols.compactions
    }
    rows: list[dict[str, Any]] = []
    for item in cols.compactions:
        row = item["index"]
        summarised, on_path = _summarised(cols, tree, row, kept_of[row], kept_of)
        rows.append(
            {
                "id": cols.ids[row],
                "parent_id": cols.ids[tree.parent[row]] if tree.parent[row] >= 0 else None,
                "first_kept_entry_id": item["first_kept_entry_id"],
                "first_kept_on_path": on_path,
                "tokens_before": item["tokens_before"],
                "tokens_after": item["tokens_after"],
                "summary": item["summary"],
                "details": item["details"],
                "from_hook": item["from_hook"],
                "custom_instructions": item["custom_instructions"],
                "line": cols.lines[row],
                "timestamp": cols.time_ms[row],
                "entries_summarised": summarised,
            }
        )
    frame = pd.DataFrame(
        rows,
        columns=[
            "id",
            "parent_id",
            "first_kept_entry_id",
            "first_kept_on_path",
            "tokens_before",
            "tokens_after",
            "summary",
            "details",
            "from_hook",
            "custom_instructions",
            "line",
            "timestamp",
            "entries_summarised",
        ],
    )
    frame["timestamp"] = _times(frame["timestamp"].astype(float).tolist())
    for column in ("tokens_before", "tokens_after"):
        frame[column] = pd.array([_whole(c[column]) for c in cols.compactions], dtype="Int64")
    return frame.set_index("id")


def _whole(value: Any) -> int | None:
    """A token count from the file: ints and whole finite floats; anything else is missing."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


_CONTEXT_TYPES = frozenset({"message", "custom_message", "branch_summary"})


def path_sums(tree: Tree, values: np.ndarray) -> np.ndarray:
    """For every row, the sum of ``values`` from its root down to it (shared prefixes once)."""
    out = values.astype(np.float64, copy=True)
    order = np.argsort(np.asarray(tree.depth, dtype=np.int64), kind="stable")
    parent = tree.parent
    for row in order.tolist():
        p = parent[row]
        if p >= 0:
            out[row] += out[p]
    return out


def leaves_frame(cols: EntryColumns, tree: Tree, leaf: int) -> pd.DataFrame:
    """One row per leaf: path length and the tokens and cost spent along it."""
    usage = cols.usage_columns()
    tokens = path_sums(tree, np.asarray(usage["total_tokens"], dtype=np.int64))
    cost = path_sums(tree, np.nan_to_num(np.asarray(usage["cost"], dtype=np.float64)))
    rows = [
        {
            "leaf_id": cols.ids[row],
            "depth": tree.depth[row],
            "path_length": tree.depth[row] + 1,
            "tokens": int(tokens[row]),
            "cost": float(cost[row]),
            "last_timestamp": cols.time_ms[row],
            "type": cols.types[row],
            "role": cols.roles[row],
            "is_active": row == leaf,
        }
        for row, kids in enumerate(tree.children)
        if not kids
    ]
    frame = pd.DataFrame(
        rows,
        columns=[
            "leaf_id",
            "depth",
            "path_length",
            "tokens",
            "cost",
            "last_timestamp",
            "type",
            "role",
            "is_active",
        ],
    )
    frame["last_timestamp"] = _times(frame["last_timestamp"].astype(float).tolist())
    return frame.set_index("leaf_id")
