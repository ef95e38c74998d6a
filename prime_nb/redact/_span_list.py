"""A span of a string to replace, and a list of them kept as columns.

Apart from ``_find`` (which finds spans) because how many spans are held, and at what
cost, is one idea of its own: a text dense with secrets (JSON held in a string, a record
of 110 bytes with a password in each) has a span for every record, and a span as a
``Span`` object (a tuple and its two ints) is about 150 bytes, more than the record.
A :class:`SpanList` of more than a few keeps each span's ends in ``array('q')`` columns
and its rule and confidence as one code (about 20 bytes a span), and makes a ``Span`` of
one only when it is read.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple, overload

import numpy as np

from ._rule import Rule


class Span(NamedTuple):
    """A stretch of a string to replace, the rule that found it, and whether the value is
    replaced file-wide; ``alias`` is the value without the line break of a wrapped key."""

    start: int
    end: int
    rule: Rule
    confident: bool
    alias: str | None = None


class _Columns:
    """Spans as columns: their starts, their ends, a code for each (its rule's place in
    :attr:`rules`, twice, plus one when confident), and the few aliases by place."""

    __slots__ = ("aliases", "codes", "ends", "rule_at", "rules", "starts")

    def __init__(self) -> None:
        self.starts = array("q")
        self.ends = array("q")
        self.codes = array("i")
        self.aliases: dict[int, str] = {}
        self.rules: list[Rule] = []
        self.rule_at: dict[int, int] = {}  # id(rule) -> its place in ``rules``

    def code(self, rule: Rule, confident: bool) -> int:
        at = self.rule_at.get(id(rule))
        if at is None:
            at = self.rule_at[id(rule)] = len(self.rules)
            self.rules.append(rule)
        return at * 2 + (1 if confident else 0)

    def append(self, span: Span) -> None:
        if span.alias is not None:
            self.aliases[len(self.starts)] = span.alias
        self.starts.append(span.start)
        self.ends.append(span.end)
        self.codes.append(self.code(span.rule, span.confident))

    def extend(self, other: _Columns) -> None:
        at = len(self.starts)
        codes = [self.code(rule, False) for rule in other.rules]  # each rule's code here
        self.codes.extend(codes[code >> 1] + (code & 1) for code in other.codes)
        self.starts.extend(other.starts)
        self.ends.extend(other.ends)
        self.aliases.update((at + i, alias) for i, alias in other.aliases.items())

    def span(self, i: int) -> Span:
        code = self.codes[i]
        rule = self.rules[code >> 1]
        return Span(self.starts[i], self.ends[i], rule, bool(code & 1), self.aliases.get(i))


class SpanList(Sequence[Span]):
    """Spans in the order given, read as a list of :class:`Span` (iterated, indexed,
    added to): up to :data:`_FEW` as ``Span`` objects (most texts have none or a few,
    and a list of them costs less than columns), more as :class:`_Columns`."""

    __slots__ = ("_columns", "_few")

    def __init__(self, spans: Iterable[Span] = ()) -> None:
        self._few: list[Span] = []
        self._columns: _Columns | None = None
        self.extend(spans)

    def append(self, span: Span) -> None:
        if self._columns is not None:
            self._columns.append(span)
            return
        self._few.append(span)
        if len(self._few) > _FEW:
            self._columns = _Columns()
            for held in self._few:
                self._columns.append(held)
            self._few = []

    def extend(self, spans: Iterable[Span]) -> None:
        if isinstance(spans, SpanList) and spans._columns is not None:
            if self._columns is None:
                self._columns = _Columns()
                for held in self._few:
                    self._columns.append(held)
                self._few = []
            self._columns.extend(spans._columns)
            return
        for span in spans:
            self.append(span)

    def copy(self) -> SpanList:
        out = SpanList()
        out.extend(self)
        return out

    def starts(self) -> np.ndarray:
        """The starts as an array (over the column itself, when there is one)."""
        if self._columns is None:
            return np.fromiter((s.start for s in self._few), np.int64, len(self._few))
        return np.frombuffer(self._columns.starts, dtype=np.int64)

    def ends(self) -> np.ndarray:
        if self._columns is None:
            return np.fromiter((s.end for s in self._few), np.int64, len(self._few))
        return np.frombuffer(self._columns.ends, dtype=np.int64)

    def __len__(self) -> int:
        return len(self._few) if self._columns is None else len(self._columns.starts)

    def __bool__(self) -> bool:
        return len(self) > 0

    @overload
    def __getitem__(self, i: int) -> Span: ...
    @overload
    def __getitem__(self, i: slice) -> list[Span]: ...
    def __getitem__(self, i: int | slice) -> Span | list[Span]:
        columns = self._columns
        if columns is None:
            return self._few[i]
        if isinstance(i, slice):
            return [columns.span(k) for k in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        return columns.span(i)

    def __iter__(self) -> Iterator[Span]:
        columns = self._columns
        if columns is None:
            return iter(self._few)
        return (columns.span(i) for i in range(len(columns.starts)))

    def __add__(self, other: Iterable[Span]) -> SpanList:
        out = self.copy()
        out.extend(other)
        return out

    def __radd__(self, other: Iterable[Span]) -> SpanList:
        out = SpanList(other)
        out.extend(self)
        return out

    def __eq__(self, other: object) -> bool:
        if isinstance(other, SpanList | list | tuple):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"SpanList({list(self)!r})"

    def in_order(self) -> tuple[Sequence[int], Sequence[int], Sequence[Span]]:
        """The spans by start, the longer first where two start together, and otherwise
        in the order given (a stable sort), and their starts and ends in that order; many
        are sorted as columns and read one at a time, not made into a ``Span`` and a key
        each at once."""
        if self._columns is None:
            ordered = sorted(self._few, key=lambda s: (s.start, -s.end))
            return [s.start for s in ordered], [s.end for s in ordered], ordered
        order = np.lexsort((-self.ends(), self.starts()))
        starts, ends, places = array("q"), array("q"), array("q")
        starts.frombytes(self.starts()[order].tobytes())
        ends.frombytes(self.ends()[order].tobytes())
        places.frombytes(order.astype(np.int64).tobytes())
        return starts, ends, _InOrder(self, places)


class _InOrder(Sequence[Span]):
    """The spans of a :class:`SpanList` in the order ``order`` gives their places."""

    __slots__ = ("_order", "_spans")

    def __init__(self, spans: SpanList, order: array[int]) -> None:
        self._spans, self._order = spans, order

    def __len__(self) -> int:
        return len(self._order)

    @overload
    def __getitem__(self, i: int) -> Span: ...
    @overload
    def __getitem__(self, i: slice) -> list[Span]: ...
    def __getitem__(self, i: int | slice) -> Span | list[Span]:
        if isinstance(i, slice):
            return [self._spans[k] for k in self._order[i]]
        return self._spans[self._order[i]]


#: up to this many spans are sorted as ``Span`` objects (fewer calls than numpy's)
_FEW = 64


def held(spans: SpanList) -> Sequence[Span]:
    """``spans`` as a cache keeps them: a few as a tuple (none as the empty tuple, which
    costs nothing), more as the list's columns themselves."""
    return spans if spans._columns is not None else tuple(spans._few)


def _same(span: Span) -> tuple[int, int, str, bool, str | None]:
    """What tells a span from another: a span found again, by a rule of the same name,
    is replaced, learned and reported as the first (which decides), so it is dropped."""
    return span.start, span.end, span.rule.name, span.confident, span.alias


def not_in(spans: SpanList, found: SpanList) -> Iterator[Span]:
    """The spans of ``spans`` that are not :func:`_same` as one of ``found``: each is
    looked for among those of ``found`` that start where it starts (``found`` sorted
    by start as an array of places, not held as a set of a tuple each)."""
    if len(found) <= _FEW:
        seen = {_same(span) for span in found}
        yield from (span for span in spans if _same(span) not in seen)
        return
    order = np.argsort(found.starts(), kind="stable")
    starts = found.starts()[order]
    low = np.searchsorted(starts, spans.starts(), "left")
    high = np.searchsorted(starts, spans.starts(), "right")
    for i, span in enumerate(spans):
        same = _same(span)
        if not any(_same(found[int(order[k])]) == same for k in range(low[i], high[i])):
            yield span
