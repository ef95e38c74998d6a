"""How many keys a long JSON text writes, counted by its quotes rather than by a regex.

Why: the walks check a parsed line against its text for a repeated key (the parser keeps
the last value of one) by counting the keys the text writes. A regex that reads each
string literal steps through a long string a character at a time, several times over a
200 MB line. Here the quotes are found a piece at a time by NumPy: in valid JSON a quote
that follows an odd run of backslashes is inside a string, every other quote opens and
closes strings in turn, and a closing quote followed by a colon (blanks between) ends a
key. The count is the regex's on any text that parses as JSON.
"""

from __future__ import annotations

import re

import numpy as np

#: how many bytes are compared at a time (a mask is this long, the positions of its
#: quotes at most eight times this: small, so that they add nothing to the line's peak)
CHUNK = 1 << 15
_QUOTE, _BACKSLASH, _COLON = 0x22, 0x5C, 0x3A
_BLANKS = np.frombuffer(b" \t\r\n", dtype=np.uint8)
_BLANK = re.compile(rb"[ \t\r\n]*+")
#: how many steps back a run of backslashes is measured for all quotes at once
_STEPS = 8


def quoted_key_count(body: bytes | bytearray) -> int:
    """How many keys the JSON text ``body`` writes (a repeated one each time)."""
    data = np.frombuffer(body, dtype=np.uint8)  # a view of the bytes, not a copy
    size = len(data)
    count = 0
    inside = False
    at = body.find(b'"')  # each piece starts at a quote: a stretch without one is
    while 0 <= at < size:  # passed over by ``find`` (memchr), not compared byte by byte
        piece = data[at : at + CHUNK]
        quotes = np.flatnonzero(piece == _QUOTE) + at
        at = body.find(b'"', at + CHUNK)
        quotes = _unescaped(body, data, quotes)
        closing = quotes[0 if inside else 1 :: 2]
        if len(quotes) % 2:
            inside = not inside
        after = closing + 1
        after = after[after < size]
        following = data[after]
        count += int(np.count_nonzero(following == _COLON))
        blank = np.isin(following, _BLANKS)
        for start in after[blank].tolist():
            end = _BLANK.match(body, start).end()  # type: ignore[union-attr]
            count += body[end : end + 1] == b":"
    return count


def _unescaped(body: bytes | bytearray, data: np.ndarray, quotes: np.ndarray) -> np.ndarray:
    """``quotes`` without those an odd run of backslashes escapes. A run is measured a
    step back at a time for all quotes at once (most are one or two long), then by
    :func:`_run_before` for the few longer ones."""
    slashed = data[np.maximum(quotes - 1, 0)] == _BACKSLASH
    if not slashed.any():
        return quotes
    candidates = quotes[slashed]
    runs = np.ones(len(candidates), dtype=np.int64)
    active = np.arange(len(candidates))
    for _ in range(_STEPS):
        before = candidates[active] - runs[active] - 1
        longer = (before >= 0) & (data[np.maximum(before, 0)] == _BACKSLASH)
        active = active[longer]
        if not len(active):
            break
        runs[active] += 1
    else:
        for i in active.tolist():
            runs[i] = _run_before(body, int(candidates[i]))
    keep = np.ones(len(quotes), dtype=bool)
    keep[np.flatnonzero(slashed)[runs % 2 == 1]] = False
    return quotes[keep]


def _run_before(body: bytes | bytearray, end: int) -> int:
    """How many backslashes end ``body[:end]``: a window doubled while it holds only
    backslashes, then halved (each test a count in C)."""

    def all_slashes(length: int) -> bool:
        return body.count(b"\\", end - length, end) == length

    low, high = 0, 1
    while high <= end and all_slashes(high):
        low, high = high, high * 2
    high = min(high, end + 1)  # the run is at least ``low`` and less than ``high``
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if all_slashes(middle) else (low, middle)
    return low
