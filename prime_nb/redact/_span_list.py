"""A span of a string to replace, and a list of them kept as columns.

Apart from ``_find`` (which finds spans) because how many spans are held, and at what
cost, is one idea of its own: a text dense with secrets (JSON held in a string, a record
of 110 bytes with a password in each) has a span for every record, and a span as a
``Span`` object (a tuple and its two ints) is about 150 bytes, more than the record.
A :class:`SpanList` keeps each span's ends in ``array('q')`` columns and its rule and
confidence as one code (about 20 bytes a span), and makes a ``Span`` of one only when it
is read.
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


class SpanList(Sequence[Span]):
    """Spans in the order given, as columns: their starts, their ends, a code for each
    (its rule's place in :attr:`rules`, twice, plus one when confident), and the few
    aliases by place. Read as a list of :class:`Span` (iterated, indexed, added to)."""

    __slots__ = ("_aliases", "_codes", "_ends", "_rule_at", "_starts", "rules")

    def __init__(self, spans: Iterable[Span] = ()) -> None:
        self._starts = array("q")
        self._ends = array("q")
        self._codes = array("i")
        self._aliases: dict[int, str] = {}
        self.rules: list[Rule] = []
        self._rule_at: dict[int, int] = {}  # id(rule) -> its place in ``rules``
        self.extend(spans)

    def _code(self, rule: Rule, confident: bool) -> int:
        at = self._rule_at.get(id(rule))
        if at is None:
            at = self._rule_at[id(rule)] = len(self.rules)
            self.rules.append(rule)
        return at * 2 + (1 if confident else 0)

    def append(self, span: Span) -> None:
        if span.alias is not None:
            self._aliases[len(self._starts)] = span.alias
        self._starts.append(span.start)
        self._ends.append(span.end)
        self._codes.append(self._code(span.rule, span.confident))

    def extend(self, spans: Iterable[Span]) -> None:
        if not isinstance(spans, SpanList):
            for span in spans:
                self.append(span)
            return
        at = len(self._starts)
        codes = [self._code(rule, False) for rule in spans.rules]  # each rule's code here
        self._codes.extend(codes[code >> 1] + (code & 1) for code in spans._codes)
        self._starts.extend(spans._starts)
        self._ends.extend(spans._ends)
        self._aliases.update((at + i, alias) for i, alias in spans._aliases.items())

    def copy(self) -> SpanList:
        out = SpanList()
        out.extend(self)
        return out

    def starts(self) -> np.ndarray:
        """The starts as an array over the column itself (no copy)."""
        return np.frombuffer(self._starts, dtype=np.int64) if self._starts else _NONE

    def ends(self) -> np.ndarray:
        return np.frombuffer(self._ends, dtype=np.int64) if self._ends else _NONE

    def start_at(self, i: int) -> int:
        return self._starts[i]

    def end_at(self, i: int) -> int:
        return self._ends[i]

    def __len__(self) -> int:
        return len(self._starts)

    def __bool__(self) -> bool:
        return len(self._starts) > 0

    def _span(self, i: int) -> Span:
        code = self._codes[i]
        rule = self.rules[code >> 1]
        return Span(self._starts[i], self._ends[i], rule, bool(code & 1), self._aliases.get(i))

    @overload
    def __getitem__(self, i: int) -> Span: ...
    @overload
    def __getitem__(self, i: slice) -> list[Span]: ...
    def __getitem__(self, i: int | slice) -> Span | list[Span]:
        if isinstance(i, slice):
            return [self._span(k) for k in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        return self._span(i)

    def __iter__(self) -> Iterator[Span]:
        return (self._span(i) for i in range(len(self._starts)))

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

    def in_order(self) -> Sequence[Span]:
        """The spans by start, the longer first where two start together, and otherwise
        in the order given (a stable sort); many are sorted as columns and read one at a
        time, not made into a ``Span`` and a key each at once."""
        if len(self) <= _FEW:
            return sorted(self, key=lambda s: (s.start, -s.end))
        order = array("q")
        order.frombytes(np.lexsort((-self.ends(), self.starts())).astype(np.int64).tobytes())
        return _InOrder(self, order)


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


_NONE = np.zeros(0, dtype=np.int64)
#: up to this many spans are sorted as ``Span`` objects (fewer calls than numpy's)
_FEW = 64


def _same(span: Span) -> tuple[int, int, str, bool, str | None]:
    """What tells a span from another: a span found again, by a rule of the same name,
    is replaced, learned and reported as the first (which decides), so it is dropped."""
    return span.start, span.end, span.rule.name, span.confident, span.alias


def not_in(spans: SpanList, found: SpanList) -> Iterator[Span]:
    """The spans of ``spans`` that are not :func:`_same` as one of ``found``: each is
    looked for among those of ``found`` that start where it starts (``found`` sorted
    by start as an array of places, not held as a set of a tuple each)."""
    order = np.argsort(found.starts(), kind="stable")
    starts = found.starts()[order]
    low = np.searchsorted(starts, spans.starts(), "left")
    high = np.searchsorted(starts, spans.starts(), "right")
    for i, span in enumerate(spans):
        same = _same(span)
        if not any(_same(found[int(order[k])]) == same for k in range(low[i], high[i])):
            yield span
