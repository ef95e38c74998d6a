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

#: how many bytes are compared at a time (each comparison's mask is this long)
CHUNK = 1 << 20
_QUOTE, _BACKSLASH, _COLON = 0x22, 0x5C, 0x3A
_BLANKS = np.frombuffer(b" \t\r\n", dtype=np.uint8)
_BLANK = re.compile(rb"[ \t\r\n]*+")


def quoted_key_count(body: bytes | bytearray) -> int:
    """How many keys the JSON text ``body`` writes (a repeated one each time)."""
    data = np.frombuffer(body, dtype=np.uint8)  # a view of the bytes, not a copy
    size = len(data)
    count = 0
    inside = False
    for at in range(0, size, CHUNK):
        piece = data[at : at + CHUNK]
        quotes = np.flatnonzero(piece == _QUOTE) + at
        if not len(quotes):
            continue
        quotes = _unescaped(body, data, piece, at, quotes)
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


def _unescaped(
    body: bytes | bytearray, data: np.ndarray, piece: np.ndarray, at: int, quotes: np.ndarray
) -> np.ndarray:
    """``quotes`` without those an odd run of backslashes escapes."""
    slashed = data[np.maximum(quotes - 1, 0)] == _BACKSLASH
    if not slashed.any():
        return quotes
    candidates = quotes[slashed]
    plain = np.flatnonzero(piece != _BACKSLASH) + at  # holds the quotes: never empty
    before = np.searchsorted(plain, candidates) - 1
    runs = candidates - 1 - plain[np.maximum(before, 0)]
    for i in np.flatnonzero(before < 0).tolist():  # the run starts in an earlier piece
        start = int(candidates[i]) - 1
        while start >= 0 and body[start] == _BACKSLASH:
            start -= 1
        runs[i] = int(candidates[i]) - 1 - start
    keep = np.ones(len(quotes), dtype=bool)
    keep[np.flatnonzero(slashed)[runs % 2 == 1]] = False
    return quotes[keep]
