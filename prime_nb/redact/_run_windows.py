"""The matches of a pattern that ends in a whole run of token characters, looked for only
near such runs.

Why: Python's ``re`` tries a pattern at every character of a text, and a pattern led by
a case-insensitive word (a suspect's ``token``, ``key``, ``session`` beside a long
token) has no literal it can skip to. Its matches all end where a long run of one
class of characters ends, and start a bounded reach before that run starts, so the
runs, found in C (``class_runs``: ``bytes.translate`` and ``bytes.find``), say where
to try it. A text of prose and code has few runs of 20 such characters (a path, a rule
of ``=``), so the pattern reads a few short windows rather than the whole text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ._encodings import class_runs


def run_matches(
    pattern: re.Pattern[str], text: str, table: bytes, least: int, reach: int
) -> Iterator[re.Match[str]]:
    """The matches of ``pattern.finditer(text)`` in an ASCII ``text``, for a pattern
    every match of which ends where a whole run (a maximal one) of at least ``least``
    characters that ``table`` maps to ``c`` ends, and starts at most ``reach``
    characters before that run starts.

    Each window reaches from ``reach`` before a run to the run's end (windows that meet
    are one), and the pattern is searched in it with the window's end as the text's
    end: that end is a run's end, so a match found there is one the whole text holds,
    and each match of the text lies in one window. A search starts where the last match
    ended, as ``finditer``'s does."""
    windows: list[list[int]] = []
    for start, end in class_runs(text, table, least):
        if end < 0:  # wider than Latin-1: not the text this is for
            raise ValueError("run_matches: the text is not ASCII")
        lo = max(0, start - reach)
        if windows and lo <= windows[-1][1]:
            windows[-1][1] = end
        else:
            windows.append([lo, end])
    done = 0  # where the last match ended
    for lo, hi in windows:
        at = max(lo, done)
        while at < hi:
            m = pattern.search(text, at, hi)
            if m is None:
                break
            yield m
            done = at = max(m.end(), at + 1)
