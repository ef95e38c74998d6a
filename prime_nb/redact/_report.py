"""The report of a redaction, kept as compact columns while the file is walked.

Why: a line dense with secrets (a list of thousands of ``password=...`` strings, prose
with a secret every few lines) gives a report row per replacement, a row for every 30
bytes of line or so. As objects (a hit, its field path, a row tuple) each row cost a
couple of hundred bytes, and as text columns (a rule, a placeholder and an entry id
spelt out in every row) about a hundred: the report, not the line, set the peak. Here a
row is what follows its field path's last ``[`` or ``.`` (``12345]``, ``password``) as
UTF-8 bytes in one buffer, where it ends, and a code for its (rule, placeholder) pair;
the parent path (``message.content[0].arguments.command[``) is kept once for a run of
rows that share it, and a line's number and entry id once for its run of rows. A
placeholder made from its rule's name and number (``[REDACTED:rule:n]``, most of them:
under a secret's key every distinct value has one) is coded by that rule and number,
made again when the report is built, so that a file of many distinct values keeps no
string nor tuple for each. A field path names a key over 256 characters
abbreviated (``_entry_fields.abbreviated``), so that a row is bounded by its depth.
The report's DataFrame is built only when the walk is done, its ``rule``,
``placeholder`` and ``entry_id`` columns as categoricals (a code per row, each text
once), its ``field`` column, where pandas keeps text in Arrow (pandas 3 with pyarrow
installed), as Arrow arrays of each chunk of rows' parents joined to their last parts.
Each part of the rows is let go once its columns are made (``HitColumns._columns``), so
that the largest, the field column, is made with the fewest beside it: a report is
built once.
"""

from __future__ import annotations

import bisect
import functools
import itertools
from array import array
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ._scrub import Hit
from ._suspects import SUSPECT

#: the largest offset an ``"I"`` array of where fields end can hold
_NARROW_ENDS = (1 << 32) - 1
#: a row's pair code with this bit set is a placeholder made from a rule's name and
#: number: the rule's code in the next bits, the number in the low ones
_NUMBERED = 1 << 31
_RULE_SHIFT = 24
_RULES_CODED = 1 << (31 - _RULE_SHIFT)
_NUMBERS_CODED = 1 << _RULE_SHIFT


class _Table:
    """Rows of (field, rule and placeholder) and, once their line is closed, runs of
    rows with their line's number and entry id.

    A row keeps only what follows its field path's last ``[`` (``12345]``), else its
    last ``.`` (``password``): the rows one after another with the same parent path
    (the values of one list, the keys of one object) share the parent's bytes, kept
    once for their run (``parents``). Any cut of a path is correct so long as the
    parent and the rest make it whole."""

    def __init__(self) -> None:
        self.lasts = bytearray()
        self.ends = array("I")  # where each row's last component ends in ``lasts``
        self.pairs = array("I")  # the code of each row's (rule, placeholder) pair
        # a run of rows per parent path: its bytes' end in ``parents``, its first row
        self.parents = bytearray()
        self.parent_ends = array("I")
        self.parent_starts = array("I")
        self._parent = ""  # the parent path of the last run, and its length (-1: none)
        self._cut = -1
        self._field: str | None = None  # the last row's field and its last component
        self._last = b""
        # a run of rows per closed line: its number, its entry id's code, its last row + 1
        self.run_lines = array("Q")
        self.run_ids = array("I")
        self.run_ends = array("Q")
        self.built = False

    def __len__(self) -> int:
        return len(self.ends)

    def closed(self) -> int:
        return self.run_ends[-1] if self.run_ends else 0

    def append(self, field: str, pair: int) -> None:
        if field != self._field:
            # after a list's last ``[``, else an object's last ``.``, else all of it
            cut = field.rfind("[") + 1 or field.rfind(".") + 1
            if cut != self._cut or not field.startswith(self._parent):
                self._parent = field[:cut]
                self._cut = cut
                self.parents += self._parent.encode("utf-8", "surrogatepass")
                self.parent_ends = _appended(self.parent_ends, len(self.parents))
                self.parent_starts = _appended(self.parent_starts, len(self.ends))
            self._field = field
            self._last = field[cut:].encode("utf-8", "surrogatepass")
        self.lasts += self._last
        if len(self.lasts) > _NARROW_ENDS and self.ends.typecode == "I":
            self.ends = array("Q", self.ends)
        self.ends.append(len(self.lasts))
        self.pairs.append(pair)

    def truncate(self, rows: int) -> None:
        del self.lasts[self.ends[rows - 1] if rows else 0 :]
        del self.ends[rows:]
        del self.pairs[rows:]
        runs = bisect.bisect_left(self.parent_starts, rows)  # those with a row left
        del self.parent_starts[runs:]
        del self.parent_ends[runs:]
        del self.parents[self.parent_ends[-1] if runs else 0 :]
        start = self.parent_ends[-2] if runs > 1 else 0
        self._parent = self.parents[start:].decode("utf-8", "surrogatepass")
        self._cut = len(self._parent) if runs else -1
        self._field = None

    def let_go_of_paths(self) -> None:
        """Keep the paths' parts no longer: their column is built."""
        self.lasts = bytearray()
        self.parents = bytearray()
        self.ends, self.parent_ends, self.parent_starts = array("I"), array("I"), array("I")

    def close(self, number: int, entry_id: int) -> None:
        if len(self) > self.closed():
            self.run_lines.append(number)
            self.run_ids.append(entry_id)
            self.run_ends.append(len(self))

    def counts(self) -> Any:
        """How many rows each run holds."""
        return np.diff(np.frombuffer(self.run_ends, np.uint64).astype(np.int64), prepend=0)


def _appended(numbers: array[int], number: int) -> array[int]:
    """``numbers`` with ``number`` appended: made 8-byte once it is past 4 bytes'."""
    if number > _NARROW_ENDS and numbers.typecode == "I":
        numbers = array("Q", numbers)
    numbers.append(number)
    return numbers


class HitColumns:
    """Where the scrubber appends its hits during a redaction (``append``/``extend``, as
    to a list); the replacements and the suspects apart."""

    def __init__(self) -> None:
        self.replaced = _Table()
        self.suspects = _Table()
        self._ids: dict[str | None, int] = {}
        self._id_values: list[str | None] = []
        self._pairs: dict[tuple[str, str], int] = {}
        self._pair_values: list[tuple[str, str]] = []
        #: each rule's code and the head of its numbered placeholders (``[REDACTED:rule:``)
        self._rules: dict[str, tuple[int, str]] = {}
        self._rule_names: list[str] = []

    def append(self, hit: Hit, /) -> None:
        table = self.suspects if hit.rule == SUSPECT else self.replaced
        pair = self._pair(hit.rule, hit.placeholder)
        table.append(hit.field, pair)

    def _rule(self, rule: str) -> tuple[int, str]:
        known = self._rules.get(rule)
        if known is None:
            known = self._rules[rule] = (len(self._rule_names), f"[REDACTED:{rule}:")
            self._rule_names.append(rule)
        return known

    def _pair(self, rule: str, placeholder: str) -> int:
        """The code of a row's (rule, placeholder): its rule's code and number when the
        placeholder is made from them (made again as it was: digits without a leading
        zero), else an index into the pairs kept as text."""
        code, head = self._rule(rule)
        if code < _RULES_CODED and placeholder.startswith(head) and placeholder[-1] == "]":
            digits = placeholder[len(head) : -1]
            if 0 < len(digits) < 9 and digits.isascii() and digits.isdigit() and digits[0] != "0":
                number = int(digits)
                if number < _NUMBERS_CODED:
                    return _NUMBERED | code << _RULE_SHIFT | number
        key = (rule, placeholder)
        pair = self._pairs.get(key)
        if pair is None:
            pair = self._pairs[key] = len(self._pair_values)
            self._pair_values.append(key)
        return pair

    def extend(self, hits: Iterable[Hit], /) -> None:
        for hit in hits:
            self.append(hit)

    def clear_line(self) -> None:
        """Forget the hits of the line being walked (its walk starts again)."""
        for table in (self.replaced, self.suspects):
            table.truncate(table.closed())

    def close_line(self, number: int, entry_id: str | None) -> None:
        """The hits since the last close belong to line ``number``, entry ``entry_id``.
        A line with none is not remembered: only the ids of lines with rows are kept, so
        a file of many lines costs nothing per line."""
        if all(len(table) == table.closed() for table in (self.replaced, self.suspects)):
            return
        code = self._ids.get(entry_id)
        if code is None:
            code = self._ids[entry_id] = len(self._id_values)
            self._id_values.append(entry_id)
        for table in (self.replaced, self.suspects):
            table.close(number, code)

    def _columns(self, table: _Table) -> dict[str, object]:
        """The report's columns, each made with as few of the rows' parts beside it as
        can be: the pair codes let go once the rule and placeholder columns are made,
        the paths' parts once the field column is (the largest), so a report is built
        once."""
        if table.built:
            raise RuntimeError("a report's columns are built once")
        table.built = True
        rows = table.closed()
        pairs = np.frombuffer(table.pairs, np.uint32)[:rows]
        used = np.unique(pairs)
        rules, placeholders = self._rules_and_placeholders(used)
        of_rules = _per_row(_sorted_codes(self._rule_names, rules), used, pairs)
        of_placeholders = _per_row(placeholders, used, pairs)
        del pairs
        table.pairs = array("I")
        fields = _fields(table, rows)
        table.let_go_of_paths()
        counts = table.counts()
        return {
            "line": np.repeat(np.frombuffer(table.run_lines, np.uint64).astype(np.int64), counts),
            "entry_id": _categorical(
                self._id_values, np.repeat(np.frombuffer(table.run_ids, np.uint32), counts)
            ),
            "field": fields,
            "rule": of_rules,
            "placeholder": of_placeholders,
        }

    def _rules_and_placeholders(self, used: Any) -> tuple[Any, tuple[Any, Any]]:
        """For each distinct pair code the rows use (sorted: those kept as text, then the
        numbered ones), its rule's code, and its placeholder's code among the sorted
        placeholders with their dtype. The numbered placeholders are made once each."""
        numbered = used >= _NUMBERED
        kept = used[~numbered].astype(np.int64)
        made = used[numbered].astype(np.int64)
        of_rule = (made >> _RULE_SHIFT) & (_RULES_CODED - 1)
        numbers = made & (_NUMBERS_CODED - 1)
        kept_rules = np.array([self._rule(rule)[0] for rule, _ in self._pair_values], np.int64)
        rules = np.concatenate([kept_rules[kept] if len(kept) else kept, of_rule])
        texts = [placeholder for _, placeholder in self._pair_values]
        indices = np.concatenate([kept, len(texts) + np.arange(len(made))])
        names = self._rule_names
        # element by element: no list of a Python int for each
        texts += [f"[REDACTED:{names[r]}:{n}]" for r, n in zip(of_rule, numbers, strict=True)]
        return rules, _sorted_codes(texts, indices)

    def report(self, columns: list[str]) -> pd.DataFrame:
        """The replacements, one row each, with ``columns``."""
        return _frame(self._columns(self.replaced), columns)

    def suspect_report(self, columns: list[str]) -> pd.DataFrame:
        """The suspects (``reason`` is the hit's placeholder), with ``columns``."""
        data = self._columns(self.suspects)
        data["reason"] = data.pop("placeholder")
        del data["rule"]
        return _frame(data, columns)


#: rows whose codes are looked up at once (a bound on the lookup's own arrays)
_CHUNK = 1 << 16
#: rows whose paths are joined at once (a bound on the join's own arrays and objects,
#: about 100 bytes a row of a path of 40)
_JOINED = 1 << 13


def _categorical(values: Sequence[str | None], codes: Any) -> Any:
    """``values[code]`` for each code, as a categorical of the texts used, in sorted order
    (so that sorting by the column sorts by its text); None is missing."""
    of_codes, dtype = _sorted_codes(values, codes)
    return pd.Categorical.from_codes(of_codes, dtype=dtype)


def _sorted_codes(values: Sequence[str | None], indices: Any) -> tuple[Any, Any]:
    """The category code of ``values[i]`` for each ``i`` of ``indices`` (-1 for None),
    and the dtype of the categories: the texts used, sorted. Sorted as an array of
    references (Python's order of ``str``), equal texts side by side: no set nor dict of
    them, which cost many times the texts where each row has a placeholder of its own."""
    used = np.unique(indices) if len(indices) else np.zeros(0, np.uint32)
    texts = np.empty(len(used), object)
    texts[:] = [values[int(code)] for code in used]
    present = np.array([text is not None for text in texts], bool)
    used, texts = used[present], texts[present]
    order = np.argsort(texts, kind="stable")
    texts = texts[order]
    first = np.ones(len(texts), bool)  # where a text differs from the one before
    first[1:] = texts[1:] != texts[:-1]
    count = int(first.sum())
    width = np.int8 if count < 127 else np.int16 if count < 32_767 else np.int32
    lookup = np.full(len(values), -1, dtype=width)
    lookup[used[order]] = np.cumsum(first) - 1
    categories = pd.Index(texts[first].tolist(), dtype=_text_dtype())
    return lookup[indices], pd.CategoricalDtype(categories)


def _per_row(coded: tuple[Any, Any], used: Any, pairs: Any) -> Any:
    """The categorical of each row's pair code, from the codes of ``used`` (sorted, every
    pair code the rows hold): looked up a chunk of rows at a time, so that no array of
    eight bytes a row is made."""
    of_used, dtype = coded
    codes = np.empty(len(pairs), of_used.dtype)
    for at in range(0, len(pairs), _CHUNK):
        codes[at : at + _CHUNK] = of_used[np.searchsorted(used, pairs[at : at + _CHUNK])]
    return pd.Categorical.from_codes(codes, dtype=dtype)


def _fields(table: _Table, rows: int) -> Any:
    """The field paths, each its run's parent and its last component joined: an
    Arrow-backed text array where pandas keeps text in Arrow (a row costs its bytes and
    an offset), built a chunk of rows at a time, else Python strings."""
    if _text_dtype().storage == "pyarrow" and rows:
        joined = _joined_in_arrow(table, rows)
        if joined is not None:
            return pd.arrays.ArrowStringArray(joined, dtype=_text_dtype())  # type: ignore[call-arg]
    fields: list[str] = []
    starts = [*table.parent_starts[1:], len(table)]
    parent_start = 0
    for run, parent_end in enumerate(table.parent_ends):
        parent = table.parents[parent_start:parent_end].decode("utf-8", "surrogatepass")
        parent_start = parent_end
        start = table.ends[table.parent_starts[run] - 1] if table.parent_starts[run] else 0
        for row in range(table.parent_starts[run], min(starts[run], rows)):
            end = table.ends[row]
            fields.append(parent + table.lasts[start:end].decode("utf-8", "surrogatepass"))
            start = end
    return fields


def _joined_in_arrow(table: _Table, rows: int) -> Any:
    """The field paths as a chunked Arrow array of text, or None where a parent or a
    last part is not UTF-8 (a field with a lone surrogate). Each chunk's bytes are its
    runs' parents joined to their rows' last parts (``parent + parent.join(lasts)``),
    its offsets summed from their lengths, so that no temporary of every row's size is
    made beside the result; Arrow's compute kernels are not used, whose first call
    maps megabytes of their own."""
    import pyarrow as pa

    starts = np.frombuffer(table.parent_starts, f"u{table.parent_starts.itemsize}")
    parent_ends = np.frombuffer(table.parent_ends, f"u{table.parent_ends.itemsize}")
    parent_lengths = np.diff(parent_ends.astype(np.int64), prepend=0)
    ends = np.frombuffer(table.ends, f"u{table.ends.itemsize}")
    lasts, parents = table.lasts, table.parents
    chunks = []
    for at in range(0, rows, _JOINED):
        stop = min(rows, at + _JOINED)
        of_run = np.searchsorted(starts, np.arange(at, stop), side="right") - 1
        offsets = np.zeros(stop - at + 1, np.int64)
        lengths = np.diff(ends[at:stop].astype(np.int64), prepend=int(ends[at - 1]) if at else 0)
        lengths += parent_lengths[of_run]
        np.cumsum(lengths, out=offsets[1:])
        data = bytearray()
        row = at
        for run in range(int(of_run[0]), int(of_run[-1]) + 1):
            upto = min(stop, int(starts[run + 1])) if run + 1 < len(starts) else stop
            parent = bytes(parents[parent_ends[run] - parent_lengths[run] : parent_ends[run]])
            bounds = [int(ends[row - 1]) if row else 0, *ends[row:upto].tolist()]
            data += parent
            data += parent.join([lasts[a:b] for a, b in itertools.pairwise(bounds)])
            row = upto
        chunk = pa.LargeStringArray.from_buffers(
            stop - at, pa.py_buffer(offsets), pa.py_buffer(data)
        )
        try:
            chunk.validate(full=True)  # UTF-8 (a field with a lone surrogate is not)
        except pa.ArrowInvalid:
            return None
        chunks.append(chunk)
    return pa.chunked_array(chunks, type=pa.large_string())


@functools.cache
def _text_dtype() -> Any:
    """The dtype pandas gives a column of text."""
    return pd.Series(["text"]).dtype


def _frame(data: dict[str, object], columns: list[str]) -> pd.DataFrame:
    if not len(data["line"]):  # type: ignore[arg-type]
        frame = pd.DataFrame(columns=columns)
        frame["line"] = frame["line"].astype("int64")
        return frame
    # the columns as they are: a copy of each would be held beside them
    return pd.DataFrame({name: data[name] for name in columns}, copy=False)
