"""A long text's view of a disguise taken off, made a stretch at a time around where
the disguise is.

Why: a view (``_disguise.views``) is a second copy of the text, as wide as the text: four
bytes a character where a mathematical letter or an emoji is in it. Where the view
takes off a disguise with many matches (a full-width text, a zero-width mark every few
words), its list of where each character came from costs tens of bytes a match besides.
A view differs from the text only around what it takes off, and a finder's match there
reaches a few hundred characters at most (a private key of 4,096 bits, some 3,200), so
a long text's view is made a stretch at a time: from :data:`REACH` characters before a
match of the disguise to :data:`REACH` after the last one that meets it, cut at a line's
end or a blank, and at most :data:`STRETCH` characters (then another begins, reaching
back as far). ``tests/redact/test_folded_windows.py`` compares the spans read so with
those of the whole view.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

#: a text this long or shorter has its view made whole
WHOLE = 1 << 16
#: how far a stretch reaches before and after each match (then on to a blank)
REACH = 8192
#: the most a stretch spans (its matches and their reach) before another is begun
STRETCH = 1 << 18
_BLANK = re.compile(r"\s")


def stretched_views(
    text: str, pattern: re.Pattern[str], make: Callable[[str], tuple[str, Any]]
) -> Iterator[tuple[str, Any]]:
    """``make(text)`` (a view and its ``Origin``), or for a long text ``make`` of each
    stretch around ``pattern``'s matches, its origin shifted to the text's positions."""
    if len(text) <= WHOLE:
        yield make(text)
        return
    start = end = -1
    for m in pattern.finditer(text):
        low = m.start() - REACH
        if start >= 0 and low <= end and m.end() + REACH - start <= STRETCH:
            end = m.end() + REACH  # meets the stretch: it reaches on from this match
            continue
        if start >= 0:
            yield _stretch(text, start, end, make)
        start, end = max(0, low), m.end() + REACH
    if start >= 0:
        yield _stretch(text, start, end, make)


def _stretch(
    text: str, start: int, end: int, make: Callable[[str], tuple[str, Any]]
) -> tuple[str, Any]:
    start, end = line_start(text, start), line_end(text, end)
    view, origin = make(text[start:end])
    return view, origin.shifted(start)


def line_start(text: str, at: int) -> int:
    """Where a stretch that would start at ``at`` starts: after the last line break or
    else blank at most :data:`REACH` characters before it (else that far back)."""
    if at <= 0:
        return 0
    low = max(0, at - REACH)
    line = text.rfind("\n", low, at)
    if line >= 0:
        return line + 1
    blank = max(text.rfind(char, low, at) for char in " \t\r")
    return blank + 1 if blank >= 0 else low


def line_end(text: str, at: int) -> int:
    """Where a stretch that would end at ``at`` ends: at the first line break or else
    blank at most :data:`REACH` characters after it (else that far on)."""
    if at >= len(text):
        return len(text)
    high = min(len(text), at + REACH)
    line = text.find("\n", at, high)
    if line >= 0:
        return line
    m = _BLANK.search(text, at, high)
    return high if m is None else m.start()
