"""The report of a redaction, kept as compact columns while the file is walked.

Why: a line dense with secrets (a list of thousands of ``password=...`` strings, prose
with a secret every few lines) gives a report row per replacement. As objects (a hit,
its field path, a row tuple) each row cost a couple of hundred bytes, several times the
text it replaced, so the report, not the line, set the peak. Here a row is the field
path's UTF-8 bytes in one buffer, a code for its rule and its placeholder (each distinct
one kept once) and its line's number and entry id: the rows become the report's
DataFrame only when the walk is done.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable

import pandas as pd

from ._scrub import Hit
from ._suspects import SUSPECT


class _Table:
    """Rows of (field, rule, placeholder) and, once their line is closed, its number
    and entry id."""

    def __init__(self) -> None:
        self.fields = bytearray()
        self.ends = array("Q")  # where each row's field ends in ``fields``
        self.rules = array("L")
        self.placeholders = array("L")
        self.lines = array("Q")
        self.ids = array("L")

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

    def report(self, columns: list[str]) -> pd.DataFrame:
        """The replacements, one row each, with ``columns``."""
        return _frame(self._columns(self.replaced), columns)

    def suspect_report(self, columns: list[str]) -> pd.DataFrame:
        """The suspects (``reason`` is the hit's placeholder), with ``columns``."""
        data = self._columns(self.suspects)
        data["reason"] = data.pop("placeholder")
        del data["rule"]
        return _frame(data, columns)


def _frame(data: dict[str, object], columns: list[str]) -> pd.DataFrame:
    if not len(data["line"]):  # type: ignore[arg-type]
        frame = pd.DataFrame(columns=columns)
        frame["line"] = frame["line"].astype("int64")
        return frame
    return pd.DataFrame({name: data[name] for name in columns})
