"""The summary pass: one read of a session file, keeping only what the corpus tables need.

Why: a corpus row needs counts, spend, the first prompt and the tree's shape, never the
entries table or a graph, whose pandas and networkx objects cost more than the parse
itself for a file of a few hundred entries. The pass is
``read_columns(path, columns="summary")``: the loader's own reading with a lighter
per-entry extraction, keeping the read tools' arguments for the compaction forensics.
``tests/corpus/test_summary.py`` compares every column with the full ``load()`` path.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..analysis import READ_TOOLS
from ..session import ColumnsRead, Session, read_columns


def read_summary(path: str, state: ColumnsRead | None = None) -> ColumnsRead:
    """The summary pass over one file (raises as ``load`` does on a file that is no
    session); from ``state``: only what was appended since (or all of a replaced file)."""
    return read_columns(path, columns="summary", state=state, arguments=READ_TOOLS)


def row_of(read: ColumnsRead, path: str) -> dict[str, Any]:
    """The corpus row (``load_corpus``'s columns); times as float ms, made datetimes later."""
    session = Session.from_read(read)
    cols = read.columns
    usage = cols.usage
    tokens = np.frombuffer(usage.tokens, dtype=np.int64).reshape(-1, 5)[:, 4]
    cost = np.frombuffer(usage.cost, dtype=np.float64)
    children = read.tree.children.counts()
    stamps = np.frombuffer(cols.time_ms, dtype=np.float64)
    known = stamps[~np.isnan(stamps)]
    header = session.header
    return {
        "id": session.id,
        "path": path,
        "cwd": header.get("cwd"),
        "name": session.name,
        "version": session.version,
        "dialect": session.dialect,
        "entries": len(cols),
        "leaves": int((children == 0).sum()),
        "forks": int((children > 1).sum()),
        "compactions": len(cols.compactions),
        "tool_calls": len(cols.tool_calls),
        "tokens": int(tokens.sum()),
        # summed as pandas sums a float column: NaN left out, numpy's pairwise sum
        "cost": float(np.where(np.isnan(cost), 0.0, cost).sum()),
        "started": float(known.min()) if len(known) else np.nan,
        "ended": float(known.max()) if len(known) else np.nan,
        "first_user_message": getattr(cols, "first_user_text", None),
        "problems": read.problem_count,
        "error": None,
    }
