"""Per-row nearest ancestors, so that a context costs what it holds, not its path's length.

``build_context`` walks the whole path root..leaf to find the model, the settings and
the last compaction in force. In a long session that walk is most of the cost: at 100k
entries a leaf's path holds 80k rows, so each context took ~50 ms whatever its size,
and an HTML export carrying dozens of contexts spent seconds there. One pass over the
tree (parents before children) records, for every row, the nearest row at or above it
that sets each of those; a leaf's facts then need only the rows from its first kept
entry down, which is what its context holds anyway.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence

import numpy as np

from ._columns import EntryColumns
from ._context import NO_PATH, SETTING_TYPES, PathFacts, first_kept_row, sets_model
from ._tree import Tree

#: what each per-row array records: the nearest row at or above that ...
_KINDS = ("model", "compaction", *SETTING_TYPES)


class ContextIndex:
    """For every row, the nearest row at or above it (on its path) that sets the model,
    each setting, and the last compaction; -1 where none. Built once per tree."""

    def __init__(self, cols: EntryColumns, tree: Tree, *, spec_dialect: bool) -> None:
        self._cols, self._tree = cols, tree
        n = len(tree.parent)
        nearest = {kind: array("i", bytes(4 * n)) for kind in _KINDS}
        setters: dict[str, Sequence[bool]] = {
            "model": [sets_model(cols, row, spec_dialect) for row in range(n)],
            **{kind: [t == kind for t in cols.types] for kind in ("compaction", *SETTING_TYPES)},
        }
        parent = tree.parent
        order = np.argsort(np.asarray(tree.depth, dtype=np.int64), kind="stable").tolist()
        for kind in _KINDS:
            near, sets = nearest[kind], setters[kind]
            for row in order:
                if sets[row]:
                    near[row] = row
                else:
                    up = parent[row]
                    near[row] = near[up] if up >= 0 else -1
        self._nearest = nearest

    def facts(self, leaf: int) -> PathFacts:
        """The same facts as ``walk_path(tree.path(leaf))``, from the leaf upwards only."""
        if leaf < 0:
            return NO_PATH
        near = self._nearest
        settings = {kind: near[kind][leaf] for kind in SETTING_TYPES if near[kind][leaf] >= 0}
        compaction = near["compaction"][leaf]
        if compaction < 0:
            return PathFacts(leaf, self._tree.path(leaf), 0, -1, near["model"][leaf], settings)
        tail = self._up(leaf, compaction)
        retained = self._retained(compaction)
        return PathFacts(
            leaf, [*retained, *tail], len(retained), compaction, near["model"][leaf], settings
        )

    def _up(self, row: int, stop: int) -> list[int]:
        """Rows below ``stop`` down to ``row``, in path order."""
        parent = self._tree.parent
        out: list[int] = []
        while row != stop:
            out.append(row)
            row = parent[row]
        out.reverse()
        return out

    def _retained(self, compaction: int) -> list[int]:
        """The path from the compaction's first kept entry to just above it; empty when
        that entry is not above it (then nothing before the compaction is kept)."""
        kept = first_kept_row(self._cols, compaction)
        depth, parent = self._tree.depth, self._tree.parent
        if kept is None or depth[kept] >= depth[compaction]:
            return []
        out: list[int] = []
        row = parent[compaction]
        for _ in range(depth[compaction] - depth[kept]):
            if row < 0:
                return []
            out.append(row)
            row = parent[row]
        if out[-1] != kept:
            return []
        out.reverse()
        return out
