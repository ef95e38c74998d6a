"""Branching: where the session forked, what each branch cost, and what was abandoned.

A fork is an entry with more than one child (the user rewound, or forked, and tried again).
Every sum here counts each entry once: a branch's tokens and cost are those of the entries
below its first entry (its subtree), never the prefix it shares with its siblings.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..session import ColumnsRead, Session, SessionLike, active_path_mask, as_session
from ._common import tree_arrays
from ._schemas import SCHEMAS, conform

BRANCH_COLUMNS = list(SCHEMAS["branches"])
SEGMENT_COLUMNS = list(SCHEMAS["branch_segments"])


def _outcome(
    session: Session, leaf: int, tokens: float, cost: float, active: bool
) -> dict[str, Any]:
    """The spend of a branch or segment and how it ended at its last leaf (``OUTCOME`` in
    the schemas), read from the session's columns alike for both tables."""
    cols = session._cols
    return {
        "tokens": int(tokens),
        "cost": float(cost),
        "last_type": cols.types[leaf],
        "last_role": cols.roles[leaf],
        "stop_reason": cols.stop_reasons[leaf],
        "is_active": bool(active),
    }


def branch_rows(session: Session, stamps: Sequence[Any]) -> list[dict[str, Any]]:
    """The rows of :func:`branches` from the session's read alone (the corpus's summary
    read has no entries table); ``stamps`` are the rows' times as the caller shows them."""
    cols, tree = session._cols, session._tree
    children = tree.children.counts()
    forks = np.flatnonzero(children > 1).tolist()
    if not forks:
        return []
    arrays = tree_arrays(session)
    size, tokens, cost, leaves, last_leaf = arrays.subtree_figures()
    active = active_path_mask(tree, len(cols) - 1)
    ids, depth = cols.ids, arrays.depth
    rows: list[dict[str, Any]] = []
    for fork in forks:
        for row in tree.children[fork]:
            leaf = last_leaf[row]
            rows.append(
                {
                    "fork_id": ids[fork],
                    "branch_id": ids[row],
                    "leaf_id": ids[leaf],
                    "entries": int(size[row]),
                    "leaves": int(leaves[row]),
                    "path_length": int(depth[leaf] - depth[row] + 1),
                    **_outcome(session, leaf, tokens[row], cost[row], active[row]),
                    "started": stamps[row],
                    "ended": stamps[leaf],
                }
            )
    return rows


def branches(session: SessionLike) -> pd.DataFrame:
    """One row per branch of every fork: (fork_id, branch_id = the fork's child).

    ``leaf_id`` is the branch's outcome: the last leaf in file order below the branch (the
    one the agent would resume there), with its ``last_role`` and ``stop_reason``.
    ``entries``/``tokens``/``cost`` cover the whole subtree (nested forks included, once).
    ``is_active``: the branch holds the session's active leaf.
    """
    session = as_session(session, "analysis.branches")
    rows = branch_rows(session, session.entries["timestamp"].tolist())
    return conform(pd.DataFrame(rows, columns=BRANCH_COLUMNS), "branches")


def corpus_branch_rows(read: ColumnsRead, path: str) -> list[dict[str, Any]]:
    """:func:`branches` of a summary read (``read_columns(path, columns="summary")``), as
    the corpus's rows: with ``session`` and ``path``, times in float ms."""
    session = Session.from_read(read)
    rows = branch_rows(session, session._cols.time_ms)
    return [{"session": session.id, "path": path, **row} for row in rows]


def fork_points(session: SessionLike) -> pd.DataFrame:
    """One row per fork (index: its id): spend below it and the share that was abandoned.

    ``abandoned_cost_share`` = cost of the branches without the active leaf / cost of all
    its branches (1.0 for a fork that is itself on an abandoned branch; NaN when nothing
    below it cost anything).
    """
    session = as_session(session, "analysis.fork_points")
    table = branches(session)
    entries = session.entries
    abandoned = ~table["is_active"].astype(bool)
    grouped = table.assign(
        abandoned_tokens=table["tokens"].where(abandoned, 0),
        abandoned_cost=table["cost"].where(abandoned, 0.0),
    ).groupby("fork_id", sort=False)
    frame = grouped.agg(
        branches=("branch_id", "size"),
        tokens=("tokens", "sum"),
        cost=("cost", "sum"),
        abandoned_tokens=("abandoned_tokens", "sum"),
        abandoned_cost=("abandoned_cost", "sum"),
    )
    frame.index = pd.Index(frame.index.astype(object), name="fork_id", dtype=object)
    active = table[~abandoned].groupby("fork_id", sort=False)["branch_id"].first()
    frame["active_branch_id"] = active.reindex(frame.index).to_numpy(dtype=object)
    frame["depth"] = entries["depth"].reindex(frame.index).to_numpy(dtype=np.int64)
    frame["on_active_path"] = entries["on_active_path"].reindex(frame.index).to_numpy(dtype=bool)
    cost = frame["cost"].to_numpy(dtype=np.float64)
    share = np.full(len(frame), np.nan)
    np.divide(frame["abandoned_cost"].to_numpy(dtype=np.float64), cost, out=share, where=cost > 0)
    frame["abandoned_cost_share"] = share
    return conform(frame, "fork_points")


def branch_segments(session: SessionLike) -> pd.DataFrame:
    """Split the whole tree into one segment per leaf (index: leaf id), each entry once.

    An entry belongs to the segment of the last leaf in file order below it, so the active
    leaf's segment is the whole active path and every other segment starts where it left a
    branch that continued (``fork_id``). Segment sums add up to the session's totals.
    """
    session = as_session(session, "analysis.branch_segments")
    arrays = tree_arrays(session)
    owner = arrays.last_leaf()
    n = len(arrays.ids)
    if n == 0:
        return conform(pd.DataFrame(), "branch_segments")
    counts = np.bincount(owner, minlength=n)
    tokens = np.bincount(owner, weights=arrays.tokens, minlength=n)
    cost = np.bincount(owner, weights=arrays.cost, minlength=n)
    start: dict[int, int] = {}
    for row in np.argsort(arrays.depth, kind="stable").tolist():
        start.setdefault(int(owner[row]), row)
    active = active_path_mask(session._tree, n - 1)
    rows = []
    for leaf in sorted(start):
        first = start[leaf]
        parent = int(arrays.parent[first])
        rows.append(
            {
                "leaf_id": arrays.ids[leaf],
                "start_id": arrays.ids[first],
                "fork_id": arrays.ids[parent] if parent >= 0 else None,
                "entries": int(counts[leaf]),
                **_outcome(session, leaf, tokens[leaf], cost[leaf], active[leaf]),
            }
        )
    frame = pd.DataFrame(rows, columns=["leaf_id", *SEGMENT_COLUMNS]).set_index("leaf_id")
    return conform(frame, "branch_segments")


def abandoned_share(session: SessionLike) -> float:
    """Share of the session's cost spent off the active path (NaN if nothing cost anything)."""
    session = as_session(session, "analysis.abandoned_share")
    arrays = tree_arrays(session)
    total = float(arrays.cost.sum())
    if total <= 0:
        return float("nan")
    active = active_path_mask(session._tree, len(arrays.ids) - 1)
    return float(arrays.cost[~active].sum()) / total
