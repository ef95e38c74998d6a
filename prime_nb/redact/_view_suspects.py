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
from collections.abc import Iterator, Sequence

from ._disguise import Origin
from ._suspects import suspect_spans

#: (start, end, why) of a suspect in the text as written
Found = tuple[int, int, str]


class ViewSuspects:
    """The suspects of one text's decoded views, each where it lies in the text."""

    __slots__ = ("_seen", "found", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.found: list[Found] = []
        self._seen: set[Found] = set()

    def view(self, view: str, origin: Origin) -> None:
        """Read a view whose characters came from the text as ``origin`` says. A token
        the view shows as the text writes it is left to the reading of the text as
        written (it is listed there or not at all)."""
        for start, end, why in suspect_spans(view):
            at, to = origin.start(start), origin.end(end - 1)
            if self.text[at:to] != view[start:end]:
                self._add((at, to, why))

    def blob(self, start: int, end: int, decoded: str) -> None:
        """Read the decoded text of ``text[start:end]`` (a blob the rules found nothing
        in): each suspect in it lies in the whole blob."""
        for _, _, why in suspect_spans(decoded):
            self._add((start, end, why))

    def _add(self, found: Found) -> None:
        if found not in self._seen:
            self._seen.add(found)
            self.found.append(found)


def kept(found: Sequence[Found], cuts: Sequence[tuple[int, int, str]]) -> Iterator[str]:
    """Why each of ``found`` is a suspect, but those a cut (a replacement, in order)
    overlaps: what was replaced is no longer there to review."""
    ends = [b for _, b, _ in cuts] if found and cuts else []
    for start, end, why in found:
        k = bisect.bisect_right(ends, start)  # the first cut that ends after ``start``
        if k == len(ends) or cuts[k][0] >= end:
            yield why
