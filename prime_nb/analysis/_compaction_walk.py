"""The tree walk of compaction forensics, shared with the corpus's summary pass.

Why its own module: the corpus workers run this walk on the pass's columns and never
build a table, so it must not import pandas (``prime_nb``'s package docstring says why);
the rest of :mod:`prime_nb.analysis._compaction` builds the forensics DataFrame.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..session import TreeIndex
from ._common import relative_path


def _count(value: Any) -> int | None:
    """A token count from the file; None unless a whole number in 0..2**63-1 (Int64)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not np.isfinite(value):
        return None
    return int(value) if 0 <= value < 2**63 else None


def _files(details: Any, key: str, cwd: str | None) -> list[str]:
    values = details.get(key) if isinstance(details, dict) else None
    if not isinstance(values, list):
        return []
    return sorted({relative_path(v, cwd) for v in values if isinstance(v, str) and v})


@dataclass
class Walked:
    """What one compaction's path and continuation hold (rows of the session)."""

    #: the nearest compaction above it on its path (-1: none)
    previous: int
    #: the entries it folded into its summary, root first
    summarised: list[int]
    #: the last leaf in file order below it: the branch the agent resumes
    leaf: int
    #: the first of ``turns`` below it on the way to ``leaf`` (-1: none)
    first_turn: int
    #: the ``known`` files that ``reads`` below it on the way to ``leaf`` opened, sorted
    reread: list[str]


def walk_compactions(
    index: TreeIndex,
    last_leaf: np.ndarray,
    comps: Sequence[int],
    kept_of: Mapping[int, int],
    turns: Iterable[int],
    reads: Mapping[int, Sequence[str]],
    known: Sequence[set[str]],
) -> list[Walked]:
    """The tree facts of forensics for the compaction rows ``comps``, in linear time.

    ``kept_of`` maps every compaction row to its first kept entry's row (-1: none);
    ``turns`` are the rows that count as a turn (assistant rows with input usage);
    ``reads`` the files each row's read tools opened; ``known[k]`` the files that
    ``comps[k]``'s details list.

    Positions on a path are depths, so the previous compaction, the summarised span and
    "below it on its continuation" need no path: the rows below a compaction on the way
    to its last leaf are exactly the deeper rows with the same last leaf, so turns and
    reads are grouped by last leaf and met in one sweep up each group.
    """
    depth: list[int] = index.depth.tolist()  # lists: a numpy item read costs more
    leaf_of: list[int] = last_leaf.tolist()
    groups: dict[int, list[tuple[int, int, int]]] = {}  # leaf -> (depth, kind, row or k)
    for row in turns:
        groups.setdefault(leaf_of[row], []).append((depth[row], 0, row))
    for row in reads:
        groups.setdefault(leaf_of[row], []).append((depth[row], 1, row))
    for k, row in enumerate(comps):
        groups.setdefault(leaf_of[row], []).append((depth[row], 2, k))
    first_turn = [-1] * len(comps)
    reread: list[list[str]] = [[] for _ in comps]
    for events in groups.values():
        events.sort(reverse=True)  # deepest first: one row per depth on a leaf's path
        turn = -1
        opened: set[str] = set()
        for _, kind, value in events:
            if kind == 0:
                turn = value
            elif kind == 1:
                opened.update(reads[value])
            else:
                first_turn[value] = turn
                reread[value] = sorted(f for f in known[value] if f in opened)
    out: list[Walked] = []
    for k, row in enumerate(comps):
        previous = index.above(index.compaction_at, row)
        boundary = 0
        if previous >= 0:
            prev_kept = kept_of.get(previous, -1)
            if prev_kept >= 0 and index.strictly_above(prev_kept, previous):
                boundary = depth[prev_kept]
            else:
                boundary = depth[previous] + 1
        kept = kept_of.get(row, -1)
        above_cut = row
        if kept >= 0 and index.strictly_above(kept, row):
            above_cut = kept
        summarised = index.path_between(int(index.parent[above_cut]), boundary)
        out.append(Walked(previous, summarised, leaf_of[row], first_turn[k], reread[k]))
    return out
