"""pandas tables built straight from the column lists (vectorised, no per-row objects)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..format import Problem, trim_depth
from ._columns import EntryColumns
from ._index import CONTEXT_TYPES, TreeIndex, objects
from ._schema import INDEX, SCHEMAS
from ._tree import Tree, active_path_mask

INT64_MAX = np.iinfo(np.int64).max


def _int64(values: Sequence[int]) -> np.ndarray:
    return np.asarray(values, dtype=np.int64)


_STR: Any = pd.array([], dtype="str").dtype


def _strs(values: Any) -> pd.api.extensions.ExtensionArray:
    """Text columns always get pandas' string dtype (missing = NaN), however few rows.

    When pandas keeps it in pyarrow, values all str or None are read by pyarrow in one
    pass (``pd.array`` first makes an object array: half the entries table's cost)."""
    if getattr(_STR, "storage", None) == "pyarrow":
        import pyarrow as pa

        try:
            arrow = pa.array(values)
        except Exception:  # mixed types, or text pyarrow can't encode: pandas' own way
            arrow = None
        if arrow is not None and pa.types.is_null(arrow.type):
            arrow = pa.nulls(len(arrow), type=pa.large_string())
        if arrow is not None and pa.types.is_string(arrow.type):
            arrow = arrow.cast(pa.large_string())
        if arrow is not None and pa.types.is_large_string(arrow.type):
            return _STR.construct_array_type()(arrow, dtype=_STR)  # type: ignore[no-any-return]
    return pd.array(values, dtype="str")  # type: ignore[no-any-return]


def utc_times(time_ms: Sequence[float] | np.ndarray) -> pd.DatetimeIndex:
    """Unix ms (NaN: missing) as UTC microseconds, whatever the values: unlike
    ``pd.to_datetime(unit="ms")``, never ns for sub-millisecond digits, and NaT (not an
    error) beyond ±292,000 years."""
    ms = np.fromiter(time_ms, dtype=np.float64, count=len(time_ms))
    us = np.round(ms * 1000.0)
    bad = ~(np.abs(us) < 9.2e18)  # NaN, inf, or past int64 microseconds
    if bad.any():
        us[bad] = 0.0
    raw = us.astype(np.int64)
    if bad.any():
        raw[bad] = np.iinfo(np.int64).min  # NaT
    return pd.DatetimeIndex(raw.view("datetime64[us]")).tz_localize("UTC")


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


def derived_columns(cols: EntryColumns, tree: Tree, leaf: int) -> dict[str, np.ndarray]:
    """Columns that can change for old rows when entries are appended."""
    n = len(cols)
    n_children = tree.children.counts()
    label_col = np.full(n, None, dtype=object)
    for row, label in labels_by_row(cols).items():
        label_col[row] = label
    return {
        "children": n_children,
        "label": label_col,
        "is_leaf": n_children == 0,
        "on_active_path": active_path_mask(tree, leaf),
    }


def empty_entries() -> pd.DataFrame:
    """The entries table of a session without entries: every column, index and dtype
    of ``Session.entries`` (what Dask needs to know of a table before it reads one)."""
    return entries_frame(EntryColumns(), Tree(), -1)


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
    tokens, missing, cost, _ = cols.usage.table(start)
    if derived_all is None:
        derived_all = derived_columns(cols, tree, leaf)
    derived = {name: values[rows] for name, values in derived_all.items()}

    def tokens_of(k: int) -> pd.api.extensions.ExtensionArray:
        return pd.arrays.IntegerArray(tokens[:, k].copy(), missing[:, k].copy())

    return pd.DataFrame(
        {
            "parent_id": _strs(parent_ids),
            "type": _strs(cols.types[rows]),
            "role": _strs(cols.roles[rows]),
            "timestamp": utc_times(cols.time_ms[rows]),
            "line": _int64(cols.lines[rows]),
            "depth": tree.depths()[rows],
            "children": derived["children"],
            "text": _strs(cols.texts[rows]),
            "tool_name": _strs(cols.tool_names[rows]),
            "provider": _strs(cols.providers[rows]),
            "model": _strs(cols.models[rows]),
            "input_tokens": tokens_of(0),
            "output_tokens": tokens_of(1),
            "cache_read_tokens": tokens_of(2),
            "cache_write_tokens": tokens_of(3),
            "total_tokens": tokens_of(4),
            "cost": cost,
            "stop_reason": _strs(cols.stop_reasons[rows]),
            "is_error": np.array(cols.is_error[rows], dtype=bool),
            "has_text": np.array(cols.has_text[rows], dtype=bool),
            "has_thinking": np.array(cols.has_thinking[rows], dtype=bool),
            "has_image": np.array(cols.has_image[rows], dtype=bool),
            "n_tool_calls": _int64(cols.n_tool_calls[rows]),
            "custom_type": _strs(cols.custom_types[rows]),
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
    """``frame`` (the table as of an earlier read) with the rows appended since; rows
    never change once read, but the derived columns, which are recomputed."""
    derived = derived_columns(cols, tree, leaf)
    new = entries_frame(cols, tree, leaf, start=len(frame), derived_all=derived)
    if not len(frame):
        return new
    combined = pd.concat([frame, new])
    combined.index = pd.Index(cols.ids, name="id", dtype=object)
    for name, values in derived.items():
        combined[name] = _strs(values) if name == "label" else values
    return combined


def _frame(name: str, columns: dict[str, Any], index: Any = None) -> pd.DataFrame:
    """A table built to its schema; ``index``: the values of the schema's index."""
    spec = INDEX[name]
    if spec is not None:
        index = pd.Index(list(index), name=spec[0], dtype=spec[1])
    schema = SCHEMAS[name]
    frame = pd.DataFrame({c: columns[c] for c in schema}, index=index)
    for column, dtype in schema.items():
        if dtype == "object" and frame[column].dtype != object:
            # pandas reads a column of strings alone as its string dtype; values of any
            # JSON type (arguments, details) stay objects, whatever this file holds
            frame[column] = pd.Series(columns[column], index=frame.index, dtype=object)
    return frame


def problems_frame(problems: list[Problem]) -> pd.DataFrame:
    """The problems by line (ties keep their order)."""
    ordered = sorted(problems, key=lambda p: p.line)
    return _frame(
        "problems",
        {
            "line": _int64([p.line for p in ordered]),
            "kind": _strs([p.kind for p in ordered]),
            "message": _strs([p.message for p in ordered]),
            "entry_id": _strs([p.entry_id for p in ordered]),
            "severity": _strs([p.severity for p in ordered]),
        },
    )


def str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def tool_calls_frame(
    cols: EntryColumns, read_rows: Callable[[Sequence[int]], list[dict[str, Any]]]
) -> pd.DataFrame:
    """One row per tool call; arguments left on disk are read here (``read_rows`` must
    give the entries without trimming their depth: the arguments are trimmed alone)."""
    calls = cols.tool_calls
    kept = calls.arguments
    results = [cols.tool_results.get(c) if c is not None else None for c in calls.call_ids]
    far = sorted({row for k, row in enumerate(calls.rows) if k not in kept})
    full = dict(zip(far, read_rows(far), strict=True)) if far else {}
    arguments = [
        _shallow(kept[k] if k in kept else _block_arguments(full[row], block))
        for k, (row, block) in enumerate(zip(calls.rows, calls.blocks, strict=True))
    ]
    return _frame(
        "tool_calls",
        {
            "call_id": _strs(calls.call_ids),
            "name": _strs([str_or_none(name) for name in calls.names]),
            "arguments": objects(arguments),
            "assistant_id": _strs([cols.ids[row] for row in calls.rows]),
            "result_id": _strs([cols.ids[r[0]] if r is not None else None for r in results]),
            "is_error": pd.array([r[1] if r is not None else None for r in results], "boolean"),
            "latency": np.array(
                [
                    (r[2] - t) / 1000.0 if r is not None else np.nan
                    for t, r in zip(calls.times, results, strict=True)
                ],
                dtype=np.float64,
            ),
            "timestamp": utc_times(calls.times),
        },
    )


def _shallow(arguments: Any) -> Any:
    """Arguments with nesting past ``KEEP_DEPTH`` cut (as entries read from disk are);
    flat ones, the usual kind, are returned as they are without a walk."""
    if arguments.__class__ is dict and not any(
        v.__class__ is dict or v.__class__ is list for v in arguments.values()
    ):
        return arguments
    return trim_depth(arguments)[0]


def _block_arguments(entry: dict[str, Any], block: int) -> Any:
    """The arguments of content block ``block`` of a re-read entry (None if it is gone)."""
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list) and 0 <= block < len(content):
        item = content[block]
        if isinstance(item, dict) and item.get("type") == "toolCall":
            return item.get("arguments")
    return None


def compactions_frame(cols: EntryColumns, tree: Tree, index: TreeIndex) -> pd.DataFrame:
    """One row per compaction, with how many context entries it summarised away on its
    path, and whether its first kept entry is on that path.

    Before the compaction, the context on its path began at the previous compaction's
    first kept entry (or just after the previous compaction when that entry is not on the
    path, or at the root when there is none); the entries from there up to this
    compaction's first kept entry were summarised, or all of them when the first kept
    entry is not on the span. ``counted[r]``: context entries on root..r.
    """
    comps = cols.compactions
    kept_of: dict[int, int | None] = {
        c["index"]: cols.index_of.get(c["first_kept_entry_id"] or "") for c in comps
    }
    is_context = np.isin(np.array(cols.types, dtype=object), list(CONTEXT_TYPES))
    counted = path_sums(tree, is_context).astype(np.int64).tolist() if comps else []
    depth, parent = tree.depth, tree.parent

    def count_to(row: int) -> int:
        return counted[row] if row >= 0 else 0

    summarised: list[int] = []
    on_path: list[bool] = []
    for row, kept in kept_of.items():
        prev = index.above(index.compaction_at, row)
        start_depth, base = 0, 0
        if prev >= 0:
            prev_kept = kept_of.get(prev)
            if prev_kept is not None and index.above_or_self(prev_kept, prev):
                start_depth, base = depth[prev_kept], count_to(parent[prev_kept])
            else:
                start_depth, base = depth[prev] + 1, count_to(prev)
        on = kept is not None and index.above_or_self(kept, row)
        if kept is not None and on and kept != row and depth[kept] >= start_depth:
            summarised.append(count_to(parent[kept]) - base)
        else:
            summarised.append(0 if on else max(count_to(parent[row]) - base, 0))
        on_path.append(on)
    rows = [c["index"] for c in comps]
    parents = [tree.parent[r] for r in rows]
    return _frame(
        "compactions",
        {
            "parent_id": _strs([cols.ids[p] if p >= 0 else None for p in parents]),
            "first_kept_entry_id": _strs([c["first_kept_entry_id"] for c in comps]),
            "first_kept_on_path": np.array(on_path, dtype=bool),
            "tokens_before": pd.array([c["tokens_before"] for c in comps], "Int64"),
            "tokens_after": pd.array([c["tokens_after"] for c in comps], "Int64"),
            "summary": _strs([str_or_none(c["summary"]) for c in comps]),
            "details": objects([c["details"] for c in comps]),
            "from_hook": np.array([c["from_hook"] for c in comps], dtype=bool),
            "custom_instructions": _strs([str_or_none(c["custom_instructions"]) for c in comps]),
            "line": _int64([cols.lines[r] for r in rows]),
            "timestamp": utc_times([cols.time_ms[r] for r in rows]),
            "entries_summarised": _int64(summarised),
        },
        index=[cols.ids[r] for r in rows],
    )


def path_sums(tree: Tree, values: np.ndarray) -> np.ndarray:
    """For every row, the sum of ``values`` from its root down to it (shared prefixes once)."""
    out: list[float] = values.astype(np.float64).tolist()
    parent = tree.parent
    for row in np.argsort(tree.depths(), kind="stable").tolist():
        up = parent[row]
        if up >= 0:
            out[row] += out[up]
    return np.array(out, dtype=np.float64)


def leaves_frame(cols: EntryColumns, tree: Tree, leaf: int) -> pd.DataFrame:
    """One row per leaf: path length and the tokens and cost spent along it.

    ``tokens`` is clipped at 2**63-1 (a path of absurd usage numbers cannot overflow it).
    """
    usage_tokens, _, usage_cost, _ = cols.usage.table()
    # a total kept as missing (None) is stored as 0, and counts as 0
    per_row = usage_tokens[:, 4].astype(np.float64)
    tokens = np.minimum(path_sums(tree, per_row), float(INT64_MAX))
    cost = path_sums(tree, np.nan_to_num(usage_cost))
    rows: list[int] = np.flatnonzero(tree.children.counts() == 0).tolist()
    depth = _int64([tree.depth[r] for r in rows])
    return _frame(
        "leaves",
        {
            "depth": depth,
            "path_length": depth + 1,
            "tokens": np.array([min(int(tokens[r]), INT64_MAX) for r in rows], dtype=np.int64),
            "cost": np.array([cost[r] for r in rows], dtype=np.float64),
            "last_timestamp": utc_times([cols.time_ms[r] for r in rows]),
            "type": _strs([cols.types[r] for r in rows]),
            "role": _strs([cols.roles[r] for r in rows]),
            "is_active": np.array([r == leaf for r in rows], dtype=bool),
        },
        index=[cols.ids[r] for r in rows],
    )
