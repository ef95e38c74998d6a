"""The loader's per-row usage and its tool calls, with the numpy arrays the tables read."""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

_ZERO5 = (0, 0, 0, 0, 0)


def view(values: Any, dtype: Any) -> np.ndarray:
    """A numpy view of an ``array.array`` or ``bytearray`` (a copy of any other sequence)."""
    if isinstance(values, array | bytearray):
        return np.frombuffer(values, dtype=dtype) if len(values) else np.zeros(0, dtype)
    return np.asarray(values, dtype=dtype)


class UsageColumn:
    """Per-row usage (``usage_tuple``'s, or None) in arrays the tables and the corpus read
    with no conversion per row: tokens (five int64 a row), cost (NaN without usage), and
    whether a row has usage; an ``OddUsage`` (fields out of range) is kept in ``odd``."""

    def __init__(self, values: Iterable[Any] = ()) -> None:
        self.tokens = array("q")
        self.cost = array("d")
        self.present = bytearray()
        self.odd: dict[int, Any] = {}
        for value in values:
            self.append(value)

    def __len__(self) -> int:
        return len(self.present)

    def append(self, usage: Any) -> None:
        self.present.append(usage is not None)
        if usage is None:
            self.tokens.extend(_ZERO5)
            self.cost.append(math.nan)
            return
        if usage.__class__ is not tuple:
            self.odd[len(self.present) - 1] = usage
            usage = (*[0 if v is None else v for v in usage[:5]], usage[5])
        self.tokens.extend(usage[:5])
        self.cost.append(usage[5])

    def __setitem__(self, row: int, usage: Any) -> None:
        """A row's usage replaced (a child usage entry's aggregate, on its target)."""
        one = UsageColumn([usage])
        self.present[row], self.cost[row] = one.present[0], one.cost[0]
        self.tokens[5 * row : 5 * row + 5] = one.tokens
        self.odd.pop(row, None)
        if one.odd:
            self.odd[row] = one.odd[0]

    def __getitem__(self, row: int) -> Any:
        if not self.present[row]:
            return None
        return self.odd.get(row) or (*self.tokens[5 * row : 5 * row + 5], self.cost[row])

    def __iter__(self) -> Iterator[Any]:
        return (self[row] for row in range(len(self)))

    def table(self, start: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Rows ``start:`` as arrays of their own: tokens (n x 5 int64), their missing
        mask (n x 5), cost (float64, NaN without usage) and whether the row has usage."""
        tokens = view(self.tokens, np.int64).reshape(-1, 5)[start:].copy()
        present = view(self.present, np.uint8)[start:].astype(bool)
        missing = np.repeat(~present[:, None], 5, axis=1)
        for row, odd in self.odd.items():
            if row >= start:
                missing[row - start] = [v is None for v in odd[:5]]
        return tokens, missing, view(self.cost, np.float64)[start:].copy(), present


class ToolCalls:
    """The tool calls of a session, one row per call, columnar: call id, name, the
    assistant entry's row, its time and the toolCall block's position in its content;
    ``arguments`` holds, by position, only those a read kept (the rest stay on disk)."""

    __slots__ = ("arguments", "blocks", "call_ids", "names", "rows", "times")

    def __init__(self) -> None:
        self.call_ids: list[str | None] = []
        self.names: list[Any] = []
        self.rows: list[int] = []
        self.times: list[float] = []
        self.blocks: list[int] = []
        self.arguments: dict[int, Any] = {}

    def __len__(self) -> int:
        return len(self.call_ids)

    def add(self, call_id: str | None, name: Any, row: int, time_ms: float, block: int) -> None:
        self.call_ids.append(call_id)
        self.names.append(name)
        self.rows.append(row)
        self.times.append(time_ms)
        self.blocks.append(block)
