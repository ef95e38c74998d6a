"""The report of a redaction, kept as compact columns while the file is walked.

Why: a line dense with secrets (a list of thousands of ``password=...`` strings, prose
with a secret every few lines) gives a report row per replacement. As objects (a hit,
its field path, a row tuple) each row cost a couple of hundred bytes, several times the
text it replaced, so the report, not the line, set the peak. Here a row is the field
path's UTF-8 bytes in one buffer, a code for its rule and its placeholder (each distinct
one kept once) and its line's number and entry id: the rows become the report's
DataFrame only when the walk is done. Where pandas keeps its text columns in Arrow (pandas
3 with pyarrow installed), the columns are built as Arrow arrays straight from these
buffers (a row then costs its text's bytes and an offset per column, not a Python
string per cell on the way).
"""

from __future__ import annotations

import functools
from array import array
from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from ._scrub import Hit
from ._suspects import SUSPECT


class _Table:
    """Rows of (field, rule, placeholder) and, once their line is closed, its number
    and entry id."""

    def __init__(self) -> None:
        self.fields = bytearray()
        self.ends = array("Q")  # where each row's field ends in ``fields``
        # codes of distinct texts: 4 bytes a row each ("L" is 8 on 64-bit Linux)
        self.rules = array("I")
        self.placeholders = array("I")
        self.lines = array("Q")
        self.ids = array("I")

    def __len__(self) -> int:
        return len(self.ends)

    def truncate(self, rows: int) -> None:
        del self.fields[self.ends[rows - 1] if rows else 0 :]
        for column in (self.ends, self.rules, self.placeholders):
            del column[rows:]


class HitColumns:
    """Where the scrubber appends its hits during a redaction (``append``/``extend``, as
    to a list); the replacements and the suspects apart."""

    def __init__(self) -> None:
        self.replaced = _Table()
        self.suspects = _Table()
        self._codes: dict[str | None, int] = {}
        self._values: list[str | None] = []
        self._line_start = (0, 0)

    def _code(self, value: str | None) -> int:
        code = self._codes.get(value)
        if code is None:
            code = self._codes[value] = len(self._values)
            self._values.append(value)
        return code

    def append(self, hit: Hit, /) -> None:
        table = self.suspects if hit.rule == SUSPECT else self.replaced
        table.fields += hit.field.encode("utf-8", "surrogatepass")
        table.ends.append(len(table.fields))
        table.rules.append(self._code(hit.rule))
        table.placeholders.append(self._code(hit.placeholder))

    def extend(self, hits: Iterable[Hit], /) -> None:
        for hit in hits:
            self.append(hit)

    def clear_line(self) -> None:
        """Forget the hits of the line being walked (its walk starts again)."""
        self.replaced.truncate(self._line_start[0])
        self.suspects.truncate(self._line_start[1])

    def close_line(self, number: int, entry_id: str | None) -> None:
        """The hits since the last close belong to line ``number``, entry ``entry_id``."""
        code = self._code(entry_id)
        for table in (self.replaced, self.suspects):
            added = len(table) - len(table.lines)
            table.lines.extend([number] * added)
            table.ids.extend([code] * added)
        self._line_start = (len(self.replaced), len(self.suspects))

    def _columns(self, table: _Table) -> dict[str, object]:
        if _text_dtype().storage == "pyarrow" and len(table):
            import pyarrow as pa

            try:
                return self._arrow_columns(table)
            except (pa.ArrowInvalid, UnicodeEncodeError):  # a lone surrogate: as Python text
                pass
        values = self._values
        fields: list[str] = []
        start = 0
        for end in table.ends:
            fields.append(table.fields[start:end].decode("utf-8", "surrogatepass"))
            start = end
        return {
            "line": list(table.lines),
            "entry_id": [values[code] for code in table.ids],
            "field": fields,
            "rule": [values[code] for code in table.rules],
            "placeholder": [values[code] for code in table.placeholders],
        }

    def _arrow_columns(self, table: _Table) -> dict[str, object]:
        """The columns as pandas' Arrow-backed text arrays, from the buffers as they are."""
        import pyarrow as pa
        import pyarrow.compute

        rows = len(table)
        ends = np.frombuffer(table.ends, dtype=f"u{table.ends.itemsize}").astype(np.int64)
        offsets = pa.py_buffer(np.concatenate([np.zeros(1, np.int64), ends]))
        fields = pa.LargeStringArray.from_buffers(rows, offsets, pa.py_buffer(table.fields))
        fields.validate(full=True)  # UTF-8 (a field with a lone surrogate is not)
        # the system's allocator: Arrow's own keeps a few MB of arenas once touched
        pool = pa.system_memory_pool()
        dictionary = pa.array(self._values, pa.large_string(), memory_pool=pool)

        def coded(codes: array[int]) -> Any:
            indices = pa.array(np.frombuffer(codes, dtype=f"u{codes.itemsize}"), memory_pool=pool)
            as_codes = pa.DictionaryArray.from_arrays(indices, dictionary, memory_pool=pool)
            text = pa.compute.cast(as_codes, pa.large_string(), memory_pool=pool)
            return pd.arrays.ArrowStringArray(text, dtype=_text_dtype())  # type: ignore[call-arg]

        return {
            "line": np.frombuffer(table.lines, dtype=f"u{table.lines.itemsize}").astype(np.int64),
            "entry_id": coded(table.ids),
            "field": pd.arrays.ArrowStringArray(fields, dtype=_text_dtype()),  # type: ignore[call-arg]
            "rule": coded(table.rules),
            "placeholder": coded(table.placeholders),
        }

    def report(self, columns: list[str]) -> pd.DataFrame:
        """The replacements, one row each, with ``columns``."""
        return _frame(self._columns(self.replaced), columns)

    def suspect_report(self, columns: list[str]) -> pd.DataFrame:
        """The suspects (``reason`` is the hit's placeholder), with ``columns``."""
        data = self._columns(self.suspects)
        data["reason"] = data.pop("placeholder")
        del data["rule"]
        return _frame(data, columns)


@functools.cache
def _text_dtype() -> Any:
    """The dtype pandas gives a column of text."""
    return pd.Series(["text"]).dtype


def _frame(data: dict[str, object], columns: list[str]) -> pd.DataFrame:
    if not len(data["line"]):  # type: ignore[arg-type]
        frame = pd.DataFrame(columns=columns)
        frame["line"] = frame["line"].astype("int64")
        return frame
    return pd.DataFrame({name: data[name] for name in columns})
