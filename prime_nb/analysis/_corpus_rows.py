"""The corpus's research rows (branches, compaction forensics, retention) of one summary read.

Why not :func:`branches` and :func:`compaction_forensics` per file: they read the
entries table, and building that table costs more than the whole summary pass
(``read_columns(path, columns="summary")``). These are the same definitions on the
read's columns and tree, and ``tests/corpus/test_summary.py`` holds them equal to
``branches`` and ``compaction_forensics`` on every fixture and a generated corpus.
Times stay float ms here; the corpus's table builder turns whole columns into datetimes.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..session import CONTEXT_TYPES, ColumnsRead, EntryColumns, Session, active_path_mask, view
from ._common import (
    READ_TOOLS,
    TreeArrays,
    estimate_tokens,
    relative_path,
    tool_path,
)
from ._compaction_walk import _count, _files, walk_compactions
from ._retention_walk import retention_counts, retention_details


def spend(cols: EntryColumns) -> tuple[np.ndarray, np.ndarray]:
    """Per row: total tokens (0 without usage) and cost (NaN without usage); an odd value
    the loader kept as missing counts as no usage, as in the entries table. Read straight
    from the usage column's arrays (a field the loader kept as missing is 0 there)."""
    usage = cols.usage
    tokens = view(usage.tokens, np.int64).reshape(-1, 5)[:, 4].copy()
    return tokens, view(usage.cost, np.float64).copy()


def input_tokens(cols: EntryColumns) -> np.ndarray:
    """Per row: the prompt's tokens (input + cache read + cache write; 0 without usage),
    as the analysis layer sums the entries table's columns with missing values as 0."""
    tokens: np.ndarray = view(cols.usage.tokens, np.int64).reshape(-1, 5)
    total: np.ndarray = tokens[:, 0] + tokens[:, 2] + tokens[:, 3]
    return total


def tree_arrays(session: Session) -> TreeArrays:
    """The analysis layer's tree arrays, straight from the pass (no entries table)."""
    cols, tree = session._cols, session._tree
    n = len(cols)
    tokens, cost = spend(cols)
    return TreeArrays(
        ids=cols.ids,
        parent=np.fromiter(tree.parent, dtype=np.int64, count=n),
        depth=tree.depths(),
        tokens=tokens.astype(np.float64),
        cost=np.nan_to_num(cost),
        row_of=cols.index_of,
    )


def corpus_branch_rows(read: ColumnsRead, path: str) -> list[dict[str, Any]]:
    """:func:`branches` of a read (``read_columns(path, columns="summary")``, see the
    module docstring), as the corpus's rows: with ``session`` and ``path``."""
    session = Session.from_read(read)
    children = session._tree.children.counts()
    forks = np.flatnonzero(children > 1).tolist()
    if not forks:
        return []
    cols, tree = session._cols, session._tree
    n = len(cols)
    tokens_row, cost_row = spend(cols)
    depth = tree.depths()
    size, tokens, cost, leaves, last_leaf = _subtree_figures(
        tree.parent,
        np.argsort(-depth, kind="stable").tolist(),
        tokens_row.astype(np.float64).tolist(),
        np.nan_to_num(cost_row).tolist(),
        (children == 0).tolist(),
    )
    active = active_path_mask(tree, n - 1)
    ids, types, roles, stamps = cols.ids, cols.types, cols.roles, cols.time_ms
    stops = getattr(cols, "stops", cols.stop_reasons)  # a summary read's, or the loader's
    rows: list[dict[str, Any]] = []
    for fork in forks:
        for row in tree.children[fork]:
            leaf = int(last_leaf[row])
            rows.append(
                {
                    "session": session.id,
                    "path": path,
                    "fork_id": ids[fork],
                    "branch_id": ids[row],
                    "leaf_id": ids[leaf],
                    "entries": int(size[row]),
                    "leaves": int(leaves[row]),
                    "path_length": int(depth[leaf] - depth[row] + 1),
                    "tokens": int(tokens[row]),
                    "cost": float(cost[row]),
                    "last_type": types[leaf],
                    "last_role": roles[leaf],
                    "stop_reason": stops[leaf],
                    "is_active": bool(active[row]),
                    "started": stamps[row],
                    "ended": stamps[leaf],
                }
            )
    return rows


def _subtree_figures(
    parent: list[int], order: list[int], tokens: list[float], cost: list[float], leaf: list[bool]
) -> tuple[list[float], list[float], list[float], list[float], list[int]]:
    """Per row, over its subtree: entries, tokens, cost, leaves, and the last leaf in file
    order. One walk for all five, in the order (and so with the float sums) of
    ``TreeArrays.subtree_sum`` and ``TreeArrays.last_leaf``.
    """
    n = len(parent)
    size = [1.0] * n
    leaves = [1.0 if is_leaf else 0.0 for is_leaf in leaf]
    last = [row if is_leaf else -1 for row, is_leaf in enumerate(leaf)]
    for row in order:
        up = parent[row]
        if up >= 0:
            size[up] += size[row]
            tokens[up] += tokens[row]
            cost[up] += cost[row]
            leaves[up] += leaves[row]
            if last[row] > last[up]:
                last[up] = last[row]
    return size, tokens, cost, leaves, last


def _read_paths(session: Session, cwd: str | None) -> dict[int, list[str]]:
    """Files opened by read tools, per assistant row. The pass keeps the arguments of
    the read tools' calls alone (a call without kept arguments names no file), so only
    those calls are visited, in file order."""
    calls = session._cols.tool_calls
    names, rows, arguments = calls.names, calls.rows, calls.arguments
    out: dict[int, list[str]] = {}
    for k in sorted(arguments):
        name = names[k]
        if name.__class__ is str and name in READ_TOOLS:
            target = tool_path(arguments[k])
            if target is not None:
                out.setdefault(rows[k], []).append(relative_path(target, cwd))
    return out


def corpus_compaction_rows(read: ColumnsRead, path: str) -> list[dict[str, Any]]:
    """:func:`compaction_forensics` of a read (``read_columns(path, columns="summary",
    arguments=READ_TOOLS)``: the read tools' arguments name the files read), as the
    corpus's rows: with ``session`` and ``path``; ``since_previous`` is carried as the
    previous compaction's time (``previous_ms``)."""
    session = Session.from_read(read)
    cols, tree = session._cols, session._tree
    if not cols.compactions:
        return []
    cwd = session.header.get("cwd")
    cwd = cwd if isinstance(cwd, str) else None
    arrays = tree_arrays(session)
    last_leaf = arrays.last_leaf()
    ids, types, roles, stamps = cols.ids, cols.types, cols.roles, cols.time_ms
    active = active_path_mask(tree, len(cols) - 1)
    usage_in = input_tokens(cols).tolist()
    read_paths = _read_paths(session, cwd)
    comp_rows = [c["index"] for c in cols.compactions]
    kept_of = {c["index"]: _row(cols.index_of, c["first_kept_entry_id"]) for c in cols.compactions}
    read_files = [_files(c["details"], "readFiles", cwd) for c in cols.compactions]
    modified_files = [_files(c["details"], "modifiedFiles", cwd) for c in cols.compactions]
    known = [set(r) | set(m) for r, m in zip(read_files, modified_files, strict=True)]
    turns = [r for r, role in enumerate(roles) if role == "assistant" and usage_in[r] > 0]
    walked = walk_compactions(
        session._index, last_leaf, comp_rows, kept_of, turns, read_paths, known
    )
    contexts = session._contexts_messages(comp_rows)  # the compactions' entries among them
    rows: list[dict[str, Any]] = []
    for k, comp in enumerate(cols.compactions):
        crow = comp["index"]
        walk = walked[k]
        previous = walk.previous if walk.previous >= 0 else None
        summarised = walk.summarised
        kept = comp["first_kept_entry_id"]
        leaf_row = walk.leaf
        context, entries = contexts[k]
        estimate = sum(estimate_tokens(m) for m in context)
        raw = entries[crow]
        recorded = _count(raw.get("tokensAfter"))
        after = recorded if recorded is not None else estimate
        before_value = _count(raw.get("tokensBefore"))
        summary = comp["summary"] if isinstance(comp["summary"], str) else ""
        first_turn = usage_in[walk.first_turn] if walk.first_turn >= 0 else None
        reread = walk.reread
        rows.append(
            {
                "session": session.id,
                "path": path,
                "id": ids[crow],
                "timestamp": stamps[crow],
                "tokens_before": before_value,
                "tokens_after": after,
                "tokens_after_source": "recorded" if recorded is not None else "estimated",
                "compression_ratio": before_value / after if before_value and after else math.nan,
                "first_turn_context_tokens": first_turn,
                "first_kept_entry_id": kept if isinstance(kept, str) else None,
                "summarised_ids": [ids[r] for r in summarised],
                "summarised_entries": len(summarised),
                "summarised_messages": sum(1 for r in summarised if types[r] in CONTEXT_TYPES),
                "kept_messages": max(len(context) - 1, 0),
                "summary_chars": len(summary),
                "summary_tokens": estimate_tokens(
                    {"role": "compactionSummary", "summary": summary}
                ),
                "previous_compaction_id": ids[previous] if previous is not None else None,
                "previous_ms": stamps[previous] if previous is not None else math.nan,
                "read_files": read_files[k],
                "modified_files": modified_files[k],
                "reread_files": reread,
                "reread_count": len(reread),
                "continued_to": ids[leaf_row],
                "from_hook": bool(comp["from_hook"]),
                "on_active_path": bool(active[crow]),
            }
        )
    return rows


def _row(index_of: dict[str, int], entry_id: Any) -> int:
    """The row of a first-kept id; -1 when it is missing, not text, or not in the file."""
    return index_of.get(entry_id, -1) if isinstance(entry_id, str) else -1


def corpus_retention_rows(read: ColumnsRead, path: str) -> list[dict[str, Any]]:
    """``prime_nb.analysis.compaction_retention`` of the file, with ``session`` and ``path``
    (the same walk and fact rules; the spans and continuations read as whole entries)."""
    session = Session.from_read(read)
    cols = session._cols
    if not cols.compactions:
        return []
    cwd = session.header.get("cwd")
    cwd = cwd if isinstance(cwd, str) else None
    arrays = tree_arrays(session)
    comp_rows = [c["index"] for c in cols.compactions]
    kept_of = {c["index"]: _row(cols.index_of, c["first_kept_entry_id"]) for c in cols.compactions}
    walked = walk_compactions(
        session._index, arrays.last_leaf(), comp_rows, kept_of, [], {}, [set() for _ in comp_rows]
    )
    summaries = [c["summary"] if isinstance(c["summary"], str) else "" for c in cols.compactions]
    details = retention_details(
        session,
        cols.ids,
        comp_rows,
        summaries,
        [w.summarised for w in walked],
        [w.leaf for w in walked],
        cwd,
    )
    counts = retention_counts(details, [cols.ids[r] for r in comp_rows])
    return [{"session": session.id, "path": path, **row} for row in counts]
