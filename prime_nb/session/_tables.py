"""pandas tables built straight from the column lists (vectorised, no per-row objects)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..format import Problem, trim_depth
from ._columns import FLAG_BITS, EntryColumns
from ._schema import INDEX, SCHEMAS
from ._store import ON_DISK, TextColumn, view
from ._tree import Tree, active_path_mask, preorder_spans

PROBLEM_COLUMNS = list(SCHEMAS["problems"])
INT64_MAX = np.iinfo(np.int64).max


def _int64(values: Sequence[int]) -> np.ndarray:
    """``np.asarray(values, dtype=np.int64)`` of a list, without numpy's shape discovery
    (``fromiter`` with a known count fills the array in one pass over long lists of ints).
    """
    return np.fromiter(values, dtype=np.int64, count=len(values))


def _copy(values: Any, dtype: Any, start: int = 0) -> np.ndarray:
    """Rows ``start:`` of a column as a numpy array of its own (never a view: the
    column's ``array.array`` must stay free to grow when ``refresh()`` appends)."""
    out: np.ndarray = np.array(view(values, dtype)[start:], dtype=dtype)
    return out


def _ints(
    values: list[int | None], mask: np.ndarray | None = None
) -> pd.api.extensions.ExtensionArray:
    """Nullable Int64; ``mask`` marks missing rows, and so does a None among ``values``."""
    try:
        data = _int64(values)  # type: ignore[arg-type]
    except (TypeError, OverflowError):  # the slow path: a usage field kept as missing
        missing = np.fromiter((v is None for v in values), dtype=bool, count=len(values))
        data = _int64([0 if v is None else v for v in values])
        return pd.arrays.IntegerArray(data, missing if mask is None else missing | mask)
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


def _texts(texts: TextColumn, start: int) -> pd.api.extensions.ExtensionArray:
    """The packed previews as a ``str`` column: wrapped without a copy when pandas keeps
    its strings in pyarrow (the fast path's check passed), else decoded."""
    if _FAST_STRS is not None:
        dtype = pd.array([], dtype="str").dtype
        array_type: Any = dtype.construct_array_type()
        return array_type(texts.arrow(start), dtype=dtype)  # type: ignore[no-any-return]
    return _strs(texts.strings(start))


def _strs(values: Any) -> pd.api.extensions.ExtensionArray:
    """Text columns always get pandas' string dtype (missing = NaN), however few rows."""
    fast = _FAST_STRS(values) if _FAST_STRS is not None else None
    if fast is not None:
        return fast
    return pd.array(values, dtype="str")  # type: ignore[no-any-return]


def _times(time_ms: Sequence[float] | np.ndarray) -> pd.DatetimeIndex:
    """Unix ms (NaN: missing) as UTC microseconds, whatever the values (see ``_schema``).

    ``pd.to_datetime(unit="ms")`` picks the unit from the values (µs, or ns when a value
    has sub-millisecond digits) and raises past its range; this never does either: the
    loader keeps times beyond ±292,000 years as missing.
    """
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
    flags = _copy(cols.flags, np.uint8, start)
    if derived_all is None:
        derived_all = derived_columns(cols, tree, leaf)
    derived = {name: values[rows] for name, values in derived_all.items()}

    def tokens_of(k: int) -> pd.api.extensions.ExtensionArray:
        return pd.arrays.IntegerArray(tokens[:, k].copy(), missing[:, k].copy())

    def flag(name: str) -> np.ndarray:
        out: np.ndarray = (flags & FLAG_BITS[name]) != 0
        return out

    return pd.DataFrame(
        {
            "parent_id": _strs(parent_ids),
            "type": _strs(cols.types[rows]),
            "role": _strs(cols.roles[rows]),
            "timestamp": _times(_copy(cols.time_ms, np.float64, start)),
            "line": _copy(cols.lines, np.int64, start),
            "depth": tree.depths()[rows],
            "children": derived["children"],
            "text": _texts(cols.texts, start),
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
            "is_error": flag("is_error"),
            "has_text": flag("has_text"),
            "has_thinking": flag("has_thinking"),
            "has_image": flag("has_image"),
            "n_tool_calls": _copy(cols.n_tool_calls, np.int64, start),
            "custom_type": _strs(cols.custom_types[rows]),
            "label": _strs(derived["label"]),
            "is_leaf": derived["is_leaf"],
            "on_active_path": derived["on_active_path"],
            "byte_offset": _copy(cols.offsets, np.int64, start),
            "byte_length": _copy(cols.lengths, np.int64, start),
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


def _objects(values: Sequence[Any]) -> np.ndarray:
    """An object column holding ``values`` as they are (lists and dicts stay whole)."""
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out


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


def problems_frame(
    problems: list[Problem], orphans: tuple[list[int], list[str], list[str]] | None = None
) -> pd.DataFrame:
    """The problems by line (ties keep their order); ``orphans``: columns of orphan
    problems (line, message, entry id), which may be a million and come without objects."""
    lines = [p.line for p in problems]
    kinds: list[str] = [p.kind for p in problems]
    messages = [p.message for p in problems]
    entry_ids = [p.entry_id for p in problems]
    if orphans is not None and orphans[0]:
        lines += orphans[0]
        kinds += ["orphan"] * len(orphans[0])
        messages += orphans[1]
        entry_ids += orphans[2]
    line_array = _int64(lines)
    order = np.argsort(line_array, kind="stable")
    if not (order[:-1] < order[1:]).all():  # already in order: the usual case
        kinds = [kinds[i] for i in order]
        messages = [messages[i] for i in order]
        entry_ids = [entry_ids[i] for i in order]
        line_array = line_array[order]
    return _frame(
        "problems",
        {
            "line": line_array,
            "kind": _strs(kinds),
            "message": _strs(messages),
            "entry_id": _strs(entry_ids),
        },
    )


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def tool_calls_frame(
    cols: EntryColumns, read_rows: Callable[[Sequence[int]], list[dict[str, Any]]]
) -> pd.DataFrame:
    """One row per tool call; arguments left on disk are read here (``read_rows`` must
    give the entries without trimming their depth: the arguments are trimmed alone)."""
    calls = list(cols.tool_calls)
    results = [cols.tool_results.get(c.call_id) if c.call_id is not None else None for c in calls]
    far = sorted({c.row for c in calls if c.arguments is ON_DISK})
    full = dict(zip(far, read_rows(far), strict=True)) if far else {}
    arguments = [
        _shallow(_block_arguments(full[c.row], c.block) if c.arguments is ON_DISK else c.arguments)
        for c in calls
    ]
    return _frame(
        "tool_calls",
        {
            "call_id": _strs([c.call_id for c in calls]),
            "name": _strs([_str_or_none(c.name) for c in calls]),
            "arguments": _objects(arguments),
            "assistant_id": _strs([cols.ids[c.row] for c in calls]),
            "result_id": _strs([cols.ids[r[0]] if r is not None else None for r in results]),
            "is_error": pd.array([r[1] if r is not None else None for r in results], "boolean"),
            "latency": np.array(
                [
                    (r[2] - c.time_ms) / 1000.0 if r is not None else np.nan
                    for c, r in zip(calls, results, strict=True)
                ],
                dtype=np.float64,
            ),
            "timestamp": _times([c.time_ms for c in calls]),
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


class _Ancestry:
    """O(1) ancestor tests and per-path counts for the compactions table (linear in rows).

    ``enter``/``size`` come from one preorder walk: ``a`` is an ancestor-or-self of ``d``
    when ``d``'s preorder position falls in ``a``'s subtree span. ``context[r]`` counts
    the context entries (messages, custom messages, branch summaries) on root..r, and
    ``compaction_above[r]`` is the nearest compaction strictly above ``r`` (-1: none).
    """

    def __init__(self, cols: EntryColumns, tree: Tree) -> None:
        n = len(tree)
        parent, types = tree.parent, cols.types
        order = tree.preorder()
        self.enter, self.size = preorder_spans(parent, order)
        self.context = [0] * n
        self.compaction_above = [-1] * n
        for row in order:
            up = parent[row]
            own = 1 if types[row] in _CONTEXT_TYPES else 0
            if up >= 0:
                self.context[row] = self.context[up] + own
                self.compaction_above[row] = (
                    up if types[up] == "compaction" else self.compaction_above[up]
                )
            else:
                self.context[row] = own
        self.parent = parent
        self.depth = tree.depth

    def above_or_self(self, a: int, d: int) -> bool:
        return 0 <= self.enter[d] - self.enter[a] < self.size[a]

    def count_to(self, row: int) -> int:
        """Context entries on root..row (0 above a root)."""
        return self.context[row] if row >= 0 else 0


def _summarised(
    row: int, kept_row: int | None, kept_of: dict[int, int | None], anc: _Ancestry
) -> tuple[int, bool]:
    """Context entries a compaction summarised away, and whether its first kept entry is on
    its path.

    Before the compaction, the context on its path began at the previous compaction's
    first kept entry (or just after the previous compaction when that entry is not on the
    path, or at the root when there is none); the entries from there up to this
    compaction's first kept entry were summarised, or all of them when the first kept
    entry is not on the span.
    """
    parent = anc.parent[row]
    prev = anc.compaction_above[row]
    if prev < 0:
        start_depth, base = 0, 0
    else:
        prev_kept = kept_of.get(prev)
        if prev_kept is not None and anc.above_or_self(prev_kept, prev):
            start_depth, base = anc.depth[prev_kept], anc.count_to(anc.parent[prev_kept])
        else:
            start_depth, base = anc.depth[prev] + 1, anc.count_to(prev)
    if (
        kept_row is not None
        and kept_row != row
        and anc.above_or_self(kept_row, row)
        and anc.depth[kept_row] >= start_depth
    ):
        return anc.count_to(anc.parent[kept_row]) - base, True
    on_path = kept_row is not None and anc.above_or_self(kept_row, row)
    return (0 if on_path else max(anc.count_to(parent) - base, 0)), on_path


def compactions_frame(cols: EntryColumns, tree: Tree) -> pd.DataFrame:
    """One row per compaction, with how many entries it summarised away on its path."""
    comps = cols.compactions
    kept_of: dict[int, int | None] = {
        c["index"]: cols.index_of.get(c["first_kept_entry_id"] or "") for c in comps
    }
    anc = _Ancestry(cols, tree) if comps else None
    summarised: list[int] = []
    on_path: list[bool] = []
    for item in comps:
        assert anc is not None
        count, on = _summarised(item["index"], kept_of[item["index"]], kept_of, anc)
        summarised.append(count)
        on_path.append(on)
    rows = [c["index"] for c in comps]
    parents = [tree.parent[r] for r in rows]
    return _frame(
        "compactions",
        {
            "parent_id": _strs([cols.ids[p] if p >= 0 else None for p in parents]),
            "first_kept_entry_id": _strs([c["first_kept_entry_id"] for c in comps]),
            "first_kept_on_path": np.array(on_path, dtype=bool),
            "tokens_before": pd.array([_whole(c["tokens_before"]) for c in comps], "Int64"),
            "tokens_after": pd.array([_whole(c["tokens_after"]) for c in comps], "Int64"),
            "summary": _strs([_str_or_none(c["summary"]) for c in comps]),
            "details": _objects([c["details"] for c in comps]),
            "from_hook": np.array([c["from_hook"] for c in comps], dtype=bool),
            "custom_instructions": _strs([_str_or_none(c["custom_instructions"]) for c in comps]),
            "line": _int64([cols.lines[r] for r in rows]),
            "timestamp": _times([cols.time_ms[r] for r in rows]),
            "entries_summarised": _int64(summarised),
        },
        index=[cols.ids[r] for r in rows],
    )


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
    order = np.argsort(tree.depths(), kind="stable")
    parent = tree.parent
    for row in order.tolist():
        p = parent[row]
        if p >= 0:
            out[row] += out[p]
    return out


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
            "last_timestamp": _times([cols.time_ms[r] for r in rows]),
            "type": _strs([cols.types[r] for r in rows]),
            "role": _strs([cols.roles[r] for r in rows]),
            "is_active": np.array([r == leaf for r in rows], dtype=bool),
        },
        index=[cols.ids[r] for r in rows],
    )
