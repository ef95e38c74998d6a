"""Each row's children, in time order, as two int arrays: no list per row.

Why: a list per row (most rows have one child or none) costs about 120 bytes a row with
its int objects, more than the row's own columns on sessions of short entries. Here the
rows of a load sit in compressed sparse rows (the children of ``r`` are
``flat[starts[r]:starts[r + 1]]``), sorted at numpy speed; only parents that gain
children later (a refresh) keep a list of their own, so a refresh stays O(new rows).

Order: by time, missing times last, ties by file order (``order_key``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import overload

import numpy as np

INF = float("inf")


def order_key(time_ms: Sequence[float], row: int) -> tuple[float, int]:
    """Where a child sits among its siblings: its time (missing last), then its row."""
    t = time_ms[row]
    return (t if t == t else INF, row)


class Children(Sequence[list[int]]):
    """``children[r]``: the rows whose parent is ``r``, in ``order_key`` order (a new
    list each time: changing it changes nothing here)."""

    __slots__ = ("_built", "_changed", "_flat", "_length", "_starts")

    def __init__(self) -> None:
        self._starts = np.zeros(1, dtype=np.int64)
        self._flat = np.zeros(0, dtype=np.int32)
        self._built = 0  # rows covered by the arrays
        self._length = 0
        #: rows whose children changed since the arrays were built (or that are newer)
        self._changed: dict[int, list[int]] = {}

    @classmethod
    def of(cls, parent: Sequence[int], time_ms: Sequence[float]) -> Children:
        """Every row's children at once: ``parent[r]`` is ``r``'s parent row (-1: none)."""
        out = cls()
        n = len(parent)
        up = np.fromiter(parent, dtype=np.int64, count=n)
        rows = np.flatnonzero(up >= 0)
        stamps = np.asarray(time_ms, dtype=np.float64)[:n]
        key = np.where(np.isnan(stamps), np.inf, stamps)
        order = rows[np.lexsort((rows, key[rows], up[rows]))]  # parent, then time, then row
        counts = np.bincount(up[rows], minlength=n)
        starts = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(counts, out=starts[1:])
        out._starts = starts
        out._flat = order.astype(np.int32)
        out._built = out._length = n
        return out

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> list[int]: ...

    @overload
    def __getitem__(self, index: slice) -> list[list[int]]: ...

    def __getitem__(self, index: int | slice) -> list[int] | list[list[int]]:
        if isinstance(index, slice):
            return [self[row] for row in range(*index.indices(self._length))]
        row = index + self._length if index < 0 else index
        if not 0 <= row < self._length:
            raise IndexError("children: row out of range")
        changed = self._changed.get(row)
        if changed is not None:
            return list(changed)
        if row < self._built:
            starts = self._starts
            kids: list[int] = self._flat[starts[row] : starts[row + 1]].tolist()
            return kids
        return []

    def __iter__(self) -> Iterator[list[int]]:
        starts, flat = self.lists()
        for row in range(self._length):
            yield flat[starts[row] : starts[row + 1]]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or len(other) != self._length:
            return False
        return all(a == list(b) for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Children({list(self)!r})"

    def counts(self) -> np.ndarray:
        """How many children each row has (int64)."""
        out = np.zeros(self._length, dtype=np.int64)
        out[: self._built] = np.diff(self._starts)
        for row, kids in self._changed.items():
            out[row] = len(kids)
        return out

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """(starts, flat) over every row, the changed rows folded in (a copy when any)."""
        if not self._changed and self._built == self._length:
            return self._starts, self._flat
        counts = self.counts()
        starts = np.zeros(self._length + 1, dtype=np.int64)
        np.cumsum(counts, out=starts[1:])
        flat = np.empty(int(starts[-1]), dtype=np.int32)
        old, old_flat = self._starts, self._flat
        changed = self._changed
        for row in range(self._length):
            kids = changed.get(row)
            if kids is not None:
                flat[starts[row] : starts[row + 1]] = kids
            elif row < self._built:
                flat[starts[row] : starts[row + 1]] = old_flat[old[row] : old[row + 1]]
        return starts, flat

    def lists(self) -> tuple[list[int], list[int]]:
        """:meth:`arrays` as Python lists, for a walk over the whole tree in Python
        (a slice of a list is cheaper than one of an array)."""
        starts, flat = self.arrays()
        return starts.tolist(), flat.tolist()

    def grow(self, length: int) -> None:
        """Rows up to ``length`` exist (the new ones without children yet)."""
        self._length = length

    def add(self, parent: int, child: int, time_ms: Sequence[float]) -> bool:
        """Append ``child`` (a new row) to ``parent``'s children; True when it belongs
        before the last of them (then :meth:`sort` the parent once all are added: sorting
        at each arrival is quadratic for siblings written newest first)."""
        kids = self._changed.get(parent)
        if kids is None:
            if parent < self._built:
                starts = self._starts
                kids = self._flat[starts[parent] : starts[parent + 1]].tolist()
                kids.append(child)
            else:  # a row newer than the arrays: its first child
                kids = [child]
            self._changed[parent] = kids
            if len(kids) == 1:
                return False
        else:
            kids.append(child)
        return order_key(time_ms, child) < order_key(time_ms, kids[-2])

    def sort(self, parent: int, time_ms: Sequence[float]) -> None:
        """Put ``parent``'s children (changed since the arrays were built) in order."""
        self._changed[parent].sort(key=lambda r: order_key(time_ms, r))
