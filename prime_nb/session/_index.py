"""Pointers over the tree so that a question about one entry's path costs what it returns.

Why: the context at an entry, the compaction in force there and the entries a compaction
summarised are all facts about one root-to-entry path; walking it per question is
quadratic for a question per entry (forensics of chained compactions, an export of the
context of every leaf). One pass over the tree answers them all instead:

- ``enter``/``size`` (``_spans``): each row's preorder position and subtree size, so "is
  ``a`` above ``d``" is two comparisons;
- for a kind of entry, the nearest row of that kind on each row's path (``nearest``): the
  model, thinking level, service tier, git state and compaction in force, and the context
  entry above each row, so the context's messages are collected by jumping from one to
  the next without visiting the rows between.

The pointers are found by pointer jumping in numpy (O(n log depth)); the preorder is one
Python walk, made when first needed. A Session drops its index when entries are appended.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import Any

import numpy as np

from ._columns import EntryColumns
from ._tree import Tree, preorder_of, preorder_spans

#: entry types the model sees as messages (the agent's ``buildSessionContext``)
CONTEXT_TYPES = frozenset({"message", "custom_message", "branch_summary"})
#: entry types whose latest one on the path is a setting in force
SETTING_TYPES = ("thinking_level_change", "service_tier_change", "git_state")


def nearest(pointer: np.ndarray, hit: np.ndarray) -> np.ndarray:
    """Per row, the first row that is ``hit`` on the chain row, pointer[row], ... (-1: none;
    ``pointer`` has no cycle). Pointer jumping: each round, each unresolved row looks twice
    as far, so there are log2 of the longest gap between hits rounds of numpy."""
    n = len(pointer)
    out = np.where(hit, np.arange(n, dtype=np.int64), -1)
    resolved = hit | (pointer < 0)
    jump = pointer.astype(np.int64, copy=True)
    todo = np.flatnonzero(~resolved)
    while todo.size:
        ahead = jump[todo]
        done = resolved[ahead]
        finished = todo[done]
        out[finished] = out[ahead[done]]
        resolved[finished] = True
        todo = todo[~done]
        jump[todo] = jump[ahead[~done]]
    return out


def objects(values: Sequence[Any]) -> np.ndarray:
    """An object column holding ``values`` as they are (lists and dicts stay whole)."""
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out


class TreeIndex:
    """Preorder spans and nearest-of-a-kind pointers for every row of one session; those
    for the model and the settings are made when first read (the compaction forensics
    need only the compaction and context pointers)."""

    def __init__(self, cols: EntryColumns, tree: Tree, *, spec_dialect: bool = False) -> None:
        n = len(tree)
        self.parent = np.fromiter(tree.parent, dtype=np.int64, count=n)
        self.depth = tree.depths()
        self._children = tree.children  # the spans are made from them when first needed
        self._cols, self._spec_dialect = cols, spec_dialect
        self._types = types = objects(cols.types)
        self._assistant = objects(cols.roles) == "assistant"
        self._model_change = types == "model_change"
        other = self._other = ~(self._model_change | self._assistant)
        self.is_compaction = other & (types == "compaction")
        self.compaction_at = nearest(self.parent, self.is_compaction)
        is_context = np.zeros(n, dtype=bool)
        for kind in CONTEXT_TYPES:
            is_context |= types == kind
        self.context_at = nearest(self.parent, is_context)
        self.compaction_of: dict[int, dict[str, Any]] = {c["index"]: c for c in cols.compactions}

    @cached_property
    def model_at(self) -> np.ndarray:
        """The row whose model is in force at each row: a model change or an assistant
        message. In the specification's dialect a tool call is an assistant message
        without a model, which leaves the model as it was (the agent's rule, see
        ``build_context``)."""
        sets_model = self._model_change | self._assistant
        if self._spec_dialect:
            models = objects(self._cols.models[: len(self.parent)])
            sets_model &= self._model_change | (models != None)  # noqa: E711
        return nearest(self.parent, sets_model)

    @cached_property
    def setting_at(self) -> dict[str, np.ndarray]:
        """Per kind of setting entry, the one in force at each row."""
        other, types = self._other, self._types
        return {kind: nearest(self.parent, other & (types == kind)) for kind in SETTING_TYPES}

    @cached_property
    def _spans(self) -> tuple[list[int], list[int]]:
        """Each row's preorder position and subtree size (one walk over the whole tree)."""
        parent = self.parent.tolist()
        return preorder_spans(parent, preorder_of(parent, self._children))

    def above_or_self(self, a: int, d: int) -> bool:
        """Is ``a`` on the path from the root to ``d`` (``d`` itself included)?"""
        enter, size = self._spans
        return 0 <= enter[d] - enter[a] < size[a]

    def strictly_above(self, a: int, d: int) -> bool:
        return a != d and self.above_or_self(a, d)

    def above(self, pointers: np.ndarray, row: int) -> int:
        """``pointers`` (one of the ``*_at`` arrays) for the rows strictly above ``row``."""
        up = int(self.parent[row])
        return int(pointers[up]) if up >= 0 else -1

    def context_rows(self, row: int, min_depth: int, skip: int = -1) -> list[int]:
        """Context entries on the path to ``row`` at depth ``min_depth`` or deeper, root
        first, without ``skip``: a jump per entry returned."""
        out: list[int] = []
        at, depth = self.context_at, self.depth
        found = int(at[row])
        while found >= 0 and depth[found] >= min_depth:
            if found != skip:
                out.append(found)
            found = self.above(at, found)
        out.reverse()
        return out

    def path_between(self, row: int, min_depth: int) -> list[int]:
        """The rows on the path to ``row`` (itself included) at depth ``min_depth`` or
        deeper, root first."""
        out: list[int] = []
        parent, depth = self.parent, self.depth
        while row >= 0 and depth[row] >= min_depth:
            out.append(row)
            row = int(parent[row])
        out.reverse()
        return out
