"""A pattern whose matches begin with a run of one class of characters up to a literal
outside it (an email address: its local part, then ``@``), tried in a long text only in
the runs that end at that literal.

Why: such a pattern has no literal at a bounded distance from its start (the run is
unbounded), so ``_literals.finditer`` has no windows for it, and Python's search of a
pattern that begins with a lookbehind tries it at every position: a second a 50 MB
chat. Every match starts with one character, then a run of the repeated class, then the
literal; the literal is not in the class, so it is the first character past the run.
So each match starts at most one character before the longest run of the class that
ends just before an occurrence of the literal, and at most just before the literal:
those windows, found by ``str.find`` of the literal and a step back over its run, hold
every match's start, and ``_prefilter.tried`` finds there what the scan finds.
"""

from __future__ import annotations

import functools
import re
import re._compiler as sre_compile  # type: ignore[import-not-found,unused-ignore]
import re._constants as c  # type: ignore[import-not-found,unused-ignore]
import re._parser as sre_parse  # type: ignore[import-not-found,unused-ignore]
from collections.abc import Iterator
from dataclasses import dataclass

from ._prefilter import tried

#: a text this short is scanned whole (its windows would cost more than they save)
SHORTEST = 1 << 16
#: beyond one literal or one character stepped over per this many characters of text,
#: the pattern's own scan is the cheaper
_DENSITY = 16
_REPEATS = (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", c.MAX_REPEAT))


@dataclass(frozen=True)
class RunLed:
    """A match is a character, a run of :attr:`run`'s class, then :attr:`literal`."""

    literal: str
    #: the Latin-1 characters of the run's class
    latin: frozenset[str]
    #: the run's class, for a character beyond Latin-1
    run: re.Pattern[str]

    def windows(self, text: str) -> list[tuple[int, int]] | None:
        """Where a match can start, as sorted ``(first, last)`` positions; None where
        the literal or its runs are so dense that the pattern's scan costs less."""
        budget = len(text) // _DENSITY + 1
        found: list[tuple[int, int]] = []
        spent = 0
        at = text.find(self.literal)
        while at >= 0:
            start = at
            while start > 0 and self._in_run(text[start - 1]):
                start -= 1
            spent += at - start + 1
            if spent > budget:
                return None
            first, last = max(start - 1, 0), at - 1
            if last >= first:
                if found and first <= found[-1][1] + 1:
                    found[-1] = (found[-1][0], last)
                else:
                    found.append((first, last))
            at = text.find(self.literal, at + 1)
        return found

    def _in_run(self, char: str) -> bool:
        return char in self.latin if char <= "\xff" else self.run.fullmatch(char) is not None


def finditer(pattern: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """``pattern.finditer(text)``, tried only in the windows of :class:`RunLed` where
    the pattern is one and ``text`` is long."""
    led = run_led(pattern) if len(text) >= SHORTEST else None
    windows = led.windows(text) if led is not None else None
    if windows is None:
        yield from pattern.finditer(text)
    else:
        yield from tried(pattern, text, windows)


@functools.lru_cache(maxsize=256)
def run_led(pattern: re.Pattern[str]) -> RunLed | None:
    """``pattern`` as a :class:`RunLed`: after the lookarounds that begin it, one
    character, an unbounded repeat of one character class, and a literal outside that
    class (case kept); None for any other pattern."""
    if not isinstance(pattern.pattern, str) or pattern.flags & re.IGNORECASE:
        return None
    try:
        parsed = sre_parse.parse(pattern.pattern, pattern.flags)
        items = list(parsed)
        while items and items[0][0] in (c.ASSERT, c.ASSERT_NOT):
            items.pop(0)
        if len(items) < 3 or items[0][0] not in (c.LITERAL, c.IN):
            return None
        (repeat, (_low, high, body)), (op, code) = items[1], items[2]
        if repeat not in _REPEATS or high != c.MAXREPEAT or op is not c.LITERAL:
            return None
        if len(body) != 1 or body[0][0] not in (c.LITERAL, c.IN):
            return None
        run = sre_compile.compile(sre_parse.SubPattern(parsed.state, list(body)), pattern.flags)
    except (re.error, RecursionError, TypeError, ValueError, AttributeError):
        return None
    literal = chr(code)
    if run.fullmatch(literal) is not None:
        return None
    latin = frozenset(char for char in map(chr, range(256)) if run.fullmatch(char))
    return RunLed(literal, latin, run)
