"""The matches of a pattern that ends in a whole run of token characters, looked for only
just before such runs.

Why: Python's ``re`` tries a pattern at every character of a text, and a pattern led by
a case-insensitive word (a suspect's ``token``, ``key``, ``session`` beside a long
token) has no literal it can skip to. Its matches all end where a long run of one
class of characters ends, and start a bounded reach before that run starts, so the
runs, found in C (``class_runs``: ``bytes.translate`` and ``bytes.find``), say where
it can start: the word is looked for in those few characters only, and the pattern is
tried where one stands. A text of prose and code has few runs of 20 such characters (a
path, a rule of ``=``), so most of it is never read by a pattern.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ._encodings import class_runs


def run_matches(
    pattern: re.Pattern[str],
    lead: re.Pattern[str],
    text: str,
    table: bytes,
    reach: tuple[int, int],
) -> Iterator[re.Match[str]] | None:
    """The matches of ``pattern.finditer(text)``, for a pattern every match of which
    starts with a match of ``lead`` and ends where a whole run (a maximal one) of at
    least ``least`` characters that ``table`` maps to ``c`` ends, having started at most
    ``most`` characters before that run (``reach``: ``(least, most)``). None when the
    text is wider than Latin-1, or holds so many runs that a scan of it costs less.

    A match starts before its run, at most ``most`` characters before it: each stretch
    before a run (less what the stretch before the last run covered) is searched for
    ``lead``, and the pattern tried where it stands, in order, from where the last match
    ended, as ``finditer`` tries it. A ``lead`` searched up to the run's start may match
    where the whole text's would not (its lookahead sees the stretch's end): the pattern,
    tried on the whole text, tells."""
    least, most = reach
    # a run costs a search and a few calls in Python; a short text's whole scan costs
    # about as much as one per 64 characters, and a longer one is read near literals
    most_runs = len(text) // (_DENSEST if len(text) <= _SHORT else _DENSEST_LONG) + 1
    runs = []
    for start, end in class_runs(text, table, least):
        if end < 0:  # a piece wider than Latin-1: its runs are not found here
            return None
        runs.append(start)
        if len(runs) > most_runs:
            return None
    return _matches(pattern, lead, text, runs, most)


#: a text with a run every this many characters or fewer is read as before instead
#: (``_SHORT`` characters or fewer; longer)
_DENSEST, _DENSEST_LONG, _SHORT = 64, 1024, 4096


def _matches(
    pattern: re.Pattern[str], lead: re.Pattern[str], text: str, runs: list[int], most: int
) -> Iterator[re.Match[str]]:
    done = 0  # where the last match ended (and the stretches searched before it)
    for start in runs:
        for word in lead.finditer(text, max(done, start - most), start):
            if word.start() < done:
                continue
            m = pattern.match(text, word.start())
            if m is not None:
                yield m
                done = m.end()
        done = max(done, start)
