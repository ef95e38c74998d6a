"""The loader's per-row usage and its tool calls, with the numpy arrays the tables read."""

from __future__ import annotations

from array import array
from itertools import chain
from typing import Any

import numpy as np


def view(values: Any, dtype: Any) -> np.ndarray:
    """A numpy view of an ``array.array`` (a copy of any other sequence)."""
    if isinstance(values, array):
        return np.frombuffer(values, dtype=dtype) if len(values) else np.zeros(0, dtype)
    return np.asarray(values, dtype=dtype)


class UsageColumn(list[Any]):
    """Per-row usage as ``(input, output, cacheRead, cacheWrite, total, cost)`` or None.

    A usage with fields out of range is an ``OddUsage`` whose missing fields are None.
    """

    def table(self, start: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Rows ``start:`` as arrays: tokens (n x 5 int64, 0 where missing), their missing
        mask (n x 5), cost (float64, NaN without usage) and whether the row has usage."""
        rows = self[start:]
        present = np.fromiter((u is not None for u in rows), dtype=bool, count=len(rows))
        missing = np.repeat(~present[:, None], 5, axis=1)
        tokens = np.zeros((len(rows), 5), dtype=np.int64)
        cost = np.full(len(rows), np.nan)
        used = np.flatnonzero(present)
        if len(used):
            found = [rows[k] for k in used]
            fine = [u[:5] for u in found]
            for j, usage in enumerate(found):
                if usage.__class__ is not tuple:  # an OddUsage (rare): None fields missing
                    missing[used[j]] = [v is None for v in usage[:5]]
                    fine[j] = [0 if v is None else v for v in usage[:5]]
            flat = np.fromiter(chain.from_iterable(fine), dtype=np.int64, count=5 * len(fine))
            tokens[used] = flat.reshape(-1, 5)
            cost[used] = np.fromiter((u[5] for u in found), dtype=np.float64, count=len(found))
        return tokens, missing, cost, present

    @property
    def tokens(self) -> np.ndarray:
        """Every row's five token fields (n x 5 int64; 0 without usage or where missing)."""
        return self.table()[0]

    @property
    def cost(self) -> np.ndarray:
        """Every row's cost (float64; NaN without usage)."""
        return self.table()[2]


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
