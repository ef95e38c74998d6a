"""The conversation tree as row indexes: parents, ordered children, depths.

A refresh adds its rows to the tree; it is rebuilt when an append resolves an earlier
orphan. Children are in time order, missing times last, ties by file order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..format import Problem
from ._columns import EntryColumns


def order_key(time_ms: Sequence[float], row: int) -> tuple[float, int]:
    """Where a child sits among its siblings: its time (missing last), then its row."""
    t = time_ms[row]
    return (t if t == t else float("inf"), row)


class Children(list[list[int]]):
    """``children[r]``: the rows whose parent is ``r``, in ``order_key`` order."""

    def counts(self) -> np.ndarray:
        """How many children each row has (int64)."""
        return np.array([len(kids) for kids in self], dtype=np.int64)


@dataclass
class Tree:
    parent: list[int] = field(default_factory=list)
    children: Children = field(default_factory=Children)
    depth: list[int] = field(default_factory=list)
    #: orphans, cycles and self-parents
    problems: list[Problem] = field(default_factory=list)
    #: parent ids not (yet) in the file
    waiting: set[str] = field(default_factory=set)

    def __len__(self) -> int:
        return len(self.parent)

    @classmethod
    def build(cls, cols: EntryColumns) -> Tree:
        tree = cls()
        tree.extend(cols, 0, full=True)
        return tree

    def extend(self, cols: EntryColumns, start: int, full: bool = False) -> bool:
        """Add the rows ``start:`` of ``cols`` (``full``: resolve forward references too).

        Returns True when earlier rows changed (an orphan's parent arrived: rebuilt).
        """
        ids, parent_ids, lines = cols.ids, cols.parent_ids, cols.lines
        if not full and any(ids[i] in self.waiting for i in range(start, len(ids))):
            rebuilt = Tree.build(cols)
            self.__dict__.update(rebuilt.__dict__)
            return True
        # each row's parent row (-1: a root), -2 while its parent is not in the file;
        # the rare rows that need more (orphans, self-parents, parents further down the
        # file) are picked out after, in file order, so the common row costs two
        # comprehension steps instead of a loop iteration
        get = cols.index_of.get
        parents = [-1 if pid is None else get(pid, -2) for pid in parent_ids[start:]]
        odd = [k for k, j in enumerate(parents, start) if j == -2 or j >= k]
        forward = False
        for i in odd:
            j = parents[i - start]
            if j == -2:
                self.waiting.add(str(parent_ids[i]))
                message = f"parent {parent_ids[i]} is not in the file; loaded as a root"
                self.problems.append(Problem(lines[i], "orphan", message, ids[i]))
                parents[i - start] = -1
            elif j == i:
                self.problems.append(
                    Problem(
                        lines[i], "self_parent", "entry is its own parent; loaded as a root", ids[i]
                    )
                )
                parents[i - start] = -1
            else:
                forward = True
        self.parent.extend(parents)
        if forward:
            self._break_cycles(ids, lines)
        if full or forward:
            self.children = Children([] for _ in self.parent)
            self.depth = []
            start = 0
        self._link(cols.time_ms, start)
        if forward:  # a parent may come after its child: depths from the roots down
            depth, stack = self.depth, [r for r, p in enumerate(self.parent) if p < 0]
            while stack:
                row = stack.pop()
                for child in self.children[row]:
                    depth[child] = depth[row] + 1
                    stack.append(child)
        return forward

    def _link(self, time_ms: Sequence[float], start: int) -> None:
        """Rows ``start:`` join their parents' children and get a depth (from their
        parent's, when it came before them)."""
        parent, children, depth = self.parent, self.children, self.depth
        children.extend([] for _ in range(len(children), len(parent)))
        unsorted: set[int] = set()  # parents whose children arrived out of time order
        for i in range(start, len(parent)):
            j = parent[i]
            if j < 0:
                depth.append(0)
                continue
            kids = children[j]
            kids.append(i)
            if len(kids) > 1 and order_key(time_ms, i) < order_key(time_ms, kids[-2]):
                unsorted.add(j)
            depth.append(depth[j] + 1 if j < i else 0)
        for j in unsorted:  # once each, at the end: sorting at each arrival is quadratic
            children[j].sort(key=lambda r: order_key(time_ms, r))

    def depths(self) -> np.ndarray:
        """Every row's depth as an int64 array."""
        return np.array(self.depth, dtype=np.int64)

    def _break_cycles(self, ids: Sequence[str], lines: Sequence[int]) -> None:
        """Cut each parent cycle at its earliest entry in file order."""
        parent = self.parent
        state = [0] * len(parent)  # 0 new, 1 on the current walk, 2 done
        for first in range(len(parent)):
            walk: list[int] = []
            row = first
            while row >= 0 and state[row] == 0:
                state[row] = 1
                walk.append(row)
                row = parent[row]
            if row >= 0 and state[row] == 1:
                cycle = walk[walk.index(row) :]
                cut = min(cycle)
                parent[cut] = -1
                self.problems.append(
                    Problem(
                        lines[cut],
                        "cycle",
                        f"parent cycle through {len(cycle)} entries; cut here, loaded as a root",
                        ids[cut],
                    )
                )
            for r in walk:
                state[r] = 2

    def path(self, row: int) -> list[int]:
        """Rows from the root down to ``row``."""
        out: list[int] = []
        while row >= 0:
            out.append(row)
            row = self.parent[row]
        out.reverse()
        return out


def active_path_mask(tree: Tree, leaf: int) -> np.ndarray:
    """True for the rows on the path from the root down to ``leaf`` (none when -1)."""
    mask = np.zeros(len(tree), dtype=bool)
    if leaf >= 0:
        mask[tree.path(leaf)] = True
    return mask


def preorder_of(parent: Sequence[int], children: Sequence[list[int]]) -> list[int]:
    """Rows in depth-first order: roots in file order, children in theirs."""
    order: list[int] = []
    stack = [r for r in range(len(parent) - 1, -1, -1) if parent[r] < 0]
    while stack:
        row = stack.pop()
        order.append(row)
        stack.extend(reversed(children[row]))
    return order


def preorder_spans(parent: Sequence[int], order: Sequence[int]) -> tuple[list[int], list[int]]:
    """Each row's position in ``order`` (a preorder) and the size of its subtree: ``a`` is
    ``d`` or above it when ``0 <= enter[d] - enter[a] < size[a]``."""
    enter = [0] * len(parent)
    size = [1] * len(parent)
    for position, row in enumerate(order):
        enter[row] = position
    for row in reversed(order):
        up = parent[row]
        if up >= 0:
            size[up] += size[row]
    return enter, size
