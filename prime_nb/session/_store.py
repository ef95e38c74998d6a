"""Compact per-row containers for the loader's columns: typed arrays, not Python objects.

Why: a session of a million entries must not cost a million tuples. A Python ``int`` or
``float`` in a list costs 32 bytes plus its 8-byte slot; in an :class:`array.array` it
costs 8 bytes, reads back as a plain ``int``/``float``, appends in O(1) (``refresh()``
stays proportional to the new bytes), and hands numpy its buffer without a copy.

- :class:`UsageColumn`: per-row usage (or None) in two arrays, read back as the tuples
  :func:`prime_nb.session._columns.usage_tuple` makes.
- :class:`ToolCalls`: one row per tool call, columnar, read back as ``ToolCallRow``.
"""

from __future__ import annotations

import math
import struct
from array import array
from collections.abc import Iterable, Iterator, Sequence
from itertools import pairwise
from typing import Any, NamedTuple

import numpy as np

NAN = math.nan
_ZERO5 = (0, 0, 0, 0, 0)
#: a row without usage, as the tokens array's bytes
_NO_TOKENS = bytes(5 * 8)
#: five tokens fields as the tokens array's bytes (the array's own C type and byte order):
#: ``frombytes`` of a packed row is a copy of bytes, where ``extend`` from a tuple walks it
#: as a generic iterable (a row of every session goes through here)
_pack_tokens = struct.Struct("5q").pack


def int_array(values: Iterable[int] = ()) -> array[int]:
    return array("q", values)


def float_array(values: Iterable[float] = ()) -> array[float]:
    return array("d", values)


def view(values: Any, dtype: Any) -> np.ndarray:
    """A numpy view of an ``array.array`` (a copy of any other sequence)."""
    if isinstance(values, array):
        return np.frombuffer(values, dtype=dtype) if len(values) else np.zeros(0, dtype)
    return np.asarray(values, dtype=dtype)


class UsageColumn:
    """Per-row usage as ``(input, output, cacheRead, cacheWrite, total, cost)`` or None.

    Tokens sit five per row in one int64 array, cost in a float64 array (NaN without
    usage), and a byte per row says whether the row has usage. A usage with fields out
    of range (an ``OddUsage``, fields None) keeps its object in ``odd``: rare.
    """

    __slots__ = ("cost", "odd", "present", "tokens")

    def __init__(self, values: Iterable[Any] = ()) -> None:
        self.tokens = int_array()
        self.cost = float_array()
        self.present = bytearray()
        self.odd: dict[int, Any] = {}
        for value in values:
            self.append(value)

    def __len__(self) -> int:
        return len(self.present)

    def append(self, usage: Any) -> None:
        if usage is None:
            self.tokens.frombytes(_NO_TOKENS)
            self.cost.append(NAN)
            self.present.append(0)
            return
        if usage.__class__ is not tuple:
            self.odd[len(self.present)] = usage
            self.tokens.extend([0 if v is None else v for v in usage[:5]])
            self.cost.append(usage[5])
        else:
            inp, out, read, write, total, cost = usage
            self.tokens.frombytes(_pack_tokens(inp, out, read, write, total))
            self.cost.append(cost)
        self.present.append(1)

    def __setitem__(self, row: int, usage: Any) -> None:
        self.odd.pop(row, None)
        if usage is None:
            self.tokens[5 * row : 5 * row + 5] = int_array(_ZERO5)
            self.cost[row] = NAN
            self.present[row] = 0
            return
        if usage.__class__ is not tuple:
            self.odd[row] = usage
        self.tokens[5 * row : 5 * row + 5] = int_array(0 if v is None else v for v in usage[:5])
        self.cost[row] = usage[5]
        self.present[row] = 1

    def _one(self, row: int) -> Any:
        if not self.present[row]:
            return None
        odd = self.odd.get(row)
        if odd is not None:
            return odd
        return (*self.tokens[5 * row : 5 * row + 5], self.cost[row])

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self._one(row) for row in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("usage row out of range")
        return self._one(index)

    def __iter__(self) -> Iterator[Any]:
        return (self._one(row) for row in range(len(self)))

    def extend_from(self, other: UsageColumn) -> None:
        base = len(self)
        self.tokens.extend(other.tokens)
        self.cost.extend(other.cost)
        self.present.extend(other.present)
        for row, value in other.odd.items():
            self.odd[base + row] = value

    def table(self, start: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Rows ``start:`` for tables, as arrays of their own: tokens (n x 5 int64), their
        missing mask (n x 5), cost (float64, NaN without usage) and whether the row has
        usage at all."""
        tokens = view(self.tokens, np.int64).reshape(-1, 5)[start:].copy()
        present = view(self.present, np.uint8)[start:].astype(bool)
        missing = np.repeat(~present[:, None], 5, axis=1)
        for row, odd in self.odd.items():
            if row >= start:
                missing[row - start] = [v is None for v in odd[:5]]
        return tokens, missing, view(self.cost, np.float64)[start:].copy(), present


class ToolCallRow(NamedTuple):
    call_id: str | None
    name: Any
    #: the arguments, or ON_DISK (read them from the entry when needed)
    arguments: Any
    #: the assistant entry's row
    row: int
    time_ms: float
    #: the toolCall block's position in the message content
    block: int = 0


class OnDisk:
    """Stands for tool-call arguments left on disk: read when the table asks for them."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<on disk>"


ON_DISK = OnDisk()


class ToolCalls:
    """The tool calls of a session, one row per call, columnar.

    Reads back as :class:`ToolCallRow` (indexing, iteration). Arguments are left on disk
    (``ON_DISK``) unless a row was appended with them (the corpus summary keeps those of
    the read tools): only those sit in ``arguments``, by position.
    """

    __slots__ = ("arguments", "blocks", "call_ids", "names", "rows", "times")

    def __init__(self, calls: Iterable[ToolCallRow] = ()) -> None:
        self.call_ids: list[str | None] = []
        self.names: list[Any] = []
        self.rows = int_array()
        self.times = float_array()
        self.blocks = int_array()
        self.arguments: dict[int, Any] = {}
        for call in calls:
            self.append(call)

    def __len__(self) -> int:
        return len(self.call_ids)

    def add(self, call_id: str | None, name: Any, row: int, time_ms: float, block: int) -> None:
        """One call whose arguments stay on disk (the loader's hot path: no tuple)."""
        self.call_ids.append(call_id)
        self.names.append(name)
        self.rows.append(row)
        self.times.append(time_ms)
        self.blocks.append(block)

    def append(self, call: ToolCallRow) -> None:
        if call.arguments is not ON_DISK:
            self.arguments[len(self.call_ids)] = call.arguments
        self.add(call.call_id, call.name, call.row, call.time_ms, call.block)

    def _one(self, k: int) -> ToolCallRow:
        return ToolCallRow(
            self.call_ids[k],
            self.names[k],
            self.arguments.get(k, ON_DISK),
            self.rows[k],
            self.times[k],
            self.blocks[k],
        )

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self._one(k) for k in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("tool call out of range")
        return self._one(index)

    def __iter__(self) -> Iterator[ToolCallRow]:
        return (self._one(k) for k in range(len(self)))


#: rows per packed block of :class:`TextColumn`
TEXT_BLOCK = 1 << 15
_SEPARATOR = "\x00"


def pack_texts(values: Sequence[str]) -> tuple[bytes, np.ndarray]:
    """Strings as one UTF-8 blob and their ``len + 1`` byte offsets (Arrow's layout)."""
    n = len(values)
    offsets = np.zeros(n + 1, dtype=np.int64)
    if not n:
        return b"", offsets
    joined = _SEPARATOR.join(values)
    data = joined.encode("utf-8", "surrogatepass")
    if data.count(b"\0") == n - 1:  # no text holds the separator: find them at C speed
        separators = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 0)
        offsets[1:n] = separators - np.arange(n - 1)
        offsets[n] = len(data) - (n - 1)
        return data.replace(b"\0", b""), offsets
    sizes = [len(v.encode("utf-8", "surrogatepass")) for v in values]
    offsets[1:] = np.cumsum(sizes)
    return "".join(values).encode("utf-8", "surrogatepass"), offsets


class TextColumn:
    """Per-row texts (the previews), packed: blocks of UTF-8 bytes with byte offsets.

    A preview as a Python ``str`` costs 57 bytes besides its text, and the entries
    table would copy it once more; packed it costs 8, and the table wraps the blocks
    without a copy (:meth:`arrow`). New rows wait in ``tail`` as strings (the loader
    appends to it directly) until :meth:`seal` packs them.
    """

    __slots__ = ("blocks", "sealed", "tail")

    def __init__(self, values: Iterable[str] = ()) -> None:
        self.blocks: list[tuple[bytes, np.ndarray]] = []
        self.sealed = 0
        self.tail: list[str] = list(values)

    def __len__(self) -> int:
        return self.sealed + len(self.tail)

    def seal(self) -> None:
        """Pack the rows waiting in ``tail`` into a block (``tail`` stays the same list)."""
        if self.tail:
            self.blocks.append(pack_texts(self.tail))
            self.sealed += len(self.tail)
            self.tail.clear()

    def strings(self, start: int = 0) -> list[str]:
        """Rows ``start:`` as Python strings."""
        out: list[str] = []
        first = 0
        for data, offsets in self.blocks:
            count = len(offsets) - 1
            if first + count > start:
                out.extend(_unpack(data, offsets, max(start - first, 0), count))
            first += count
        out.extend(self.tail[max(start - first, 0) :])
        return out

    def arrow(self, start: int = 0) -> Any:
        """Rows ``start:`` as a pyarrow ``large_string`` ChunkedArray over the blocks'
        own bytes (no copy); raises ImportError without pyarrow."""
        import pyarrow as pa

        chunks = []
        first = 0
        for data, offsets in self.blocks:
            count = len(offsets) - 1
            if first + count > start:
                block = pa.LargeStringArray.from_buffers(
                    count, pa.py_buffer(offsets), pa.py_buffer(data)
                )
                chunks.append(block.slice(max(start - first, 0)))
            first += count
        chunks.append(pa.array(self.tail[max(start - first, 0) :], type=pa.large_string()))
        return pa.chunked_array(chunks, type=pa.large_string())

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return self.strings()[index]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("text row out of range")
        if index >= self.sealed:
            return self.tail[index - self.sealed]
        first = 0
        for data, offsets in self.blocks:
            count = len(offsets) - 1
            if index < first + count:
                return _unpack(data, offsets, index - first, index - first + 1)[0]
            first += count
        raise IndexError("text row out of range")  # pragma: no cover - counted above

    def __iter__(self) -> Iterator[str]:
        return iter(self.strings())


def _unpack(data: bytes, offsets: np.ndarray, start: int, stop: int) -> list[str]:
    """Rows ``start:stop`` of a packed block as strings."""
    bounds = offsets[start : stop + 1].tolist()
    if data.isascii():  # bytes are characters: decode once, cut the text
        text = data[bounds[0] : bounds[-1]].decode("ascii")
        base = bounds[0]
        return [text[a - base : b - base] for a, b in pairwise(bounds)]
    view_ = memoryview(data)
    return [str(view_[a:b], "utf-8", "surrogatepass") for a, b in pairwise(bounds)]
