"""Suspects in the views the rules decode: what no rule finds, encoded or disguised.

Why: the rules read a text in views of it (percent, hex and base64 decoded, base32,
gzip, UTF-16, a hex dump, look-alike letters folded, hidden characters taken out...),
and :func:`~prime_nb.redact._suspects.suspects` read only the text as written: a random
token beside ``token`` was listed when written, and not when URL-encoded. The views are
not built again for the suspects: the finder hands each view it reads to a
:class:`ViewSuspects` (a decoded blob only when the rules found nothing in it: one they
found something in is replaced whole), which reads it at once and keeps where each
suspect lies in the text and why, never the view nor the value. The scrubber lists those
that no replacement covers.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Sequence
from typing import Any

from ._disguise import Origin
from ._suspects import suspect_spans

#: (start, end, why) of a suspect in the text as written
Found = tuple[int, int, str]


class ViewSuspects:
    """The suspects of one text's decoded views, each where it lies in the text: one
    for each token, however many views show it."""

    __slots__ = ("_taken", "found", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.found: list[Found] = []
        #: by a reason's kind, where its suspects lie: the text's as written, then the
        #: views' (made when a view has one)
        self._taken: dict[str, _Spans] | None = None

    def view(self, view: str, origin: Origin, found: Sequence[Any] = ()) -> None:
        """Read a view whose characters came from the text as ``origin`` says, with what
        the rules ``found`` in it (spans) replaced as the text will have them, so that
        what a suspect reads beside a replacement (a token's end left after it, a
        call's next argument) reads the same in the view."""
        inner = None
        if found:
            view, inner = _replaced(view, found)
        for start, end, why in suspect_spans(view):
            first, last = start, end - 1
            if inner is not None:  # where in the view as decoded
                first, last = inner.start(first), inner.end(last) - 1
            self._add((origin.start(first), origin.end(last), why))

    def blob(self, start: int, end: int, decoded: str) -> None:
        """Read the decoded text of ``text[start:end]`` (a blob the rules found nothing
        in): each suspect in it lies in the whole blob."""
        for _, _, why in suspect_spans(decoded):
            self._add((start, end, why))

    def _add(self, found: Found) -> None:
        """Keep ``found`` unless a suspect of its kind lies over it already: read in
        another view, or in the text as written (read once, when a view has one)."""
        if self._taken is None:
            self._taken = {}
            for a, b, why in suspect_spans(self.text):
                self._taken.setdefault(reason_kind(why), _Spans()).add(a, b)
        start, end, why = found
        taken = self._taken.setdefault(reason_kind(why), _Spans())
        if not taken.over(start, end):
            taken.add(start, end)
            self.found.append(found)


class _Spans:
    """Spans, asked whether any overlaps a span: those that start within the longest
    one's length before it are read, not every one (a long text may hold thousands)."""

    __slots__ = ("_longest", "_spans")

    def __init__(self) -> None:
        self._spans: list[tuple[int, int]] = []  # by start
        self._longest = 0

    def add(self, start: int, end: int) -> None:
        bisect.insort(self._spans, (start, end))
        self._longest = max(self._longest, end - start)

    def over(self, start: int, end: int) -> bool:
        first = bisect.bisect_left(self._spans, (start - self._longest, -1))
        last = bisect.bisect_left(self._spans, (end, -1))
        return any(b > start for _, b in self._spans[first:last])


def reason_kind(why: str) -> str:
    """What a reason says without its figures (a token's length differs by view)."""
    return _DIGITS.sub("#", why)


_DIGITS = re.compile(r"\d+")


def _replaced(view: str, found: Sequence[Any]) -> tuple[str, Origin]:
    """``view`` with each span ``found`` (the first of those that overlap) replaced by a
    placeholder of its rule, and where each character of that came from in ``view``."""
    parts: list[str] = []
    origin = Origin()
    at = size = 0  # in the view, and in the new text so far
    for span in sorted(found, key=lambda s: (s.start, -s.end)):
        if span.start < at:
            continue
        if span.start > at:
            origin.add(size, at)
            parts.append(view[at : span.start])
            size += span.start - at
        placeholder = f"[REDACTED:{span.rule.name}:0]"
        origin.add(size, span.start, span.end)
        parts.append(placeholder)
        size += len(placeholder)
        at = span.end
    origin.add(size, at)
    parts.append(view[at:])
    return "".join(parts), origin


def kept(found: Sequence[Found], cuts: Sequence[tuple[int, int, str]]) -> Iterator[str]:
    """Why each of ``found`` is a suspect, but those a cut (a replacement; ``cuts`` are
    in order and apart) covers whole: what was replaced is no longer there to review,
    and what a cut covers in part (a line of a wrapped base64 blob) still is."""
    starts = [a for a, _, _ in cuts] if found and cuts else []
    for start, end, why in found:
        k = bisect.bisect_right(starts, start) - 1  # the last cut that starts by ``start``
        if k < 0 or cuts[k][1] < end:
            yield why
