"""Where a regex's matches can start in a long text, from where its shape's first part ends.

Why: a long text's literal windows (``_literals``) try a pattern around every place one
of its literals stands, and short literals (``AC``, ``SK``, ``AKIA``'s ``KIA``) stand
every few hundred characters in random base64: each is a Hyperscan callback, a window
and a regex match, thousands per megabyte, for no match. The pattern's first part, up
to its first repeat without an upper bound (of which as many copies as it needs are
kept) or a lookahead of one character that no character may match, holds the literal
and what must follow it, so in such text it matches almost nowhere.

That part is translated as ``_prefilter`` translates a pattern (each character the
Latin-1 characters Python's regex takes there), with a lookbehind that begins it read
as characters, a negative one of one character as another character or a piece's
start, and that lookahead as another character or a piece's end; other lookarounds
are dropped, so it matches wherever the pattern's start does. Every match ``m`` of the
pattern, as ``pattern.finditer`` finds it, begins with such a stretch, at most
``reach`` characters long (the part's largest width, the characters its edges read
counted), which starts at or before ``m.start()``. Hyperscan reports every offset at
which a match of the part ends, so each ``m`` starts within ``reach`` characters
before a reported end (or at it); the text is scanned a piece at a time with ``reach``
characters of overlap, so that each such stretch lies whole in one piece. A pattern
whose part cannot be bounded, or that Hyperscan refuses, is not answered here and
keeps its literal windows. Python's regex still decides every match.

Two cuts keep the form rare and its ends few. A pattern that begins with a letter or
word character and, a bounded width on, reads a character of a few (a name, then its
``_``, ``.`` or ``=``) has its form begin at that character: in prose the words match
everywhere, and Hyperscan steps through each; the left-out width is counted in the
reach, so each match still starts within it before an end. A large repeat that ends
the pattern is cut to its least count, so that a match has one end, not one a count.
"""

from __future__ import annotations

import contextlib
import functools
import re
import re._constants as c  # type: ignore[import-not-found,unused-ignore]
import re._parser as sre_parse  # type: ignore[import-not-found,unused-ignore]
import threading
from collections.abc import Sequence
from typing import Any

import hyperscan

from ._compiled import compiled
from ._engine import CHUNK
from ._prefilter import (
    _MOST_BOUND,
    _ONE_CHAR,
    Untranslatable,
    _byte_class,
    _Impossible,
    _latin1_chars,
    _sequence,
)

#: the longest reach answered (the overlap of two pieces)
MOST_REACH = 2048


def form(pattern: re.Pattern[str]) -> tuple[bytes, int] | None:
    """The Hyperscan regex that every match's first part (with the characters a
    lookbehind that begins it reads) matches, and the longest such stretch; None when
    none can be made."""
    if not isinstance(pattern.pattern, str):
        return None
    return _form(pattern.pattern, pattern.flags)


@functools.lru_cache(maxsize=256)
def _form(source: str, flags: int) -> tuple[bytes, int] | None:
    try:
        parsed = sre_parse.parse(source, flags)
        items = list(parsed)
        skip, lead = _lead_in(items, parsed.state, parsed.state.flags)
        expression, width, _ = _prefix(
            items[skip:], parsed.state, parsed.state.flags, not skip, True
        )
    except (Untranslatable, re.error, RecursionError, TypeError, ValueError, AttributeError):
        return None
    if not expression or lead + width > MOST_REACH:
        return None
    return expression, lead + width


#: a character class of at most this many Latin-1 characters is rare enough to begin a
#: form (a separator, an operator), where the items before it read letters or digits
_RARE = 4


def _lead_in(items: list[tuple[Any, Any]], state: Any, flags: int) -> tuple[int, int]:
    """(how many items the form leaves out, their largest width): the items before the
    first one of :data:`_RARE` characters that follows one that reads any (a name before
    its ``_`` or ``=``), when their width is bounded; else none. A form that begins
    where words do matches in every word of prose (Hyperscan then steps through each);
    begun at that character, it matches where the character stands, and every match of
    the pattern still starts within the form's reach before one of its ends (the
    left-out width counted in)."""
    if not _begins_broad(items, flags):
        return 0, 0
    width, read = 0, False
    for k, (op, av) in enumerate(items):
        if read and op in _ONE_CHAR:
            with contextlib.suppress(_Impossible):
                if len(_latin1_chars(op, av, flags)) <= _RARE:
                    return k, width
        low, high = sre_parse.SubPattern(state, [(op, av)]).getwidth()
        if high >= c.MAXREPEAT or width + high > MOST_REACH:
            return 0, 0
        width, read = width + high, read or low > 0
    return 0, 0


def _begins_broad(items: list[tuple[Any, Any]], flags: int) -> bool:
    """Whether the first character the items read is of more than :data:`_RARE` (a
    letter, a word character): a pattern that begins with a literal (``ghp_``) is
    rarer at its start than anywhere after it."""
    for op, av in items:
        if op in (c.AT, c.ASSERT, c.ASSERT_NOT):
            continue
        if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT) and av[0] >= 1:
            op, av = next(iter(av[2])) if len(av[2]) == 1 else (None, None)
        if op is c.SUBPATTERN:
            return _begins_broad(list(av[3]), (flags | av[1]) & ~av[2])
        if op not in _ONE_CHAR:
            return False
        try:
            return len(_latin1_chars(op, av, flags)) > _RARE
        except _Impossible:
            return False
    return False


def _prefix(
    items: list[tuple[Any, Any]], state: Any, flags: int, first: bool, last: bool = False
) -> tuple[bytes, int, bool]:
    """(regex, largest width, whole): the regex of the items' longest bounded first
    part, as ``_prefilter`` translates each item; ``whole`` when it is all of them. A
    match of the items begins with a match of that part, so leaving the rest out only
    widens what matches. ``last``: the items end the pattern, where a large repeat is
    cut to its least count (one end for each start, not one for each count)."""
    out: list[bytes] = []
    width = 0
    for k, (op, av) in enumerate(items):
        if op in _ONE_CHAR:
            out.append(_byte_class(_latin1_chars(op, av, flags)))
            width += 1
        elif op is c.ASSERT and av[0] < 0 and first and k == 0:
            out.append(b"(?:" + _sequence(list(av[1]), flags, False, False) + b")")
            width += _plain_width(list(av[1]), state)
        elif op is c.ASSERT_NOT and av[0] < 0 and first and k == 0 and _one_char(av[1]):
            # no such character before: another one, or the start (of a piece: wider)
            ((char_op, char_av),) = list(av[1])
            outside = frozenset(range(256)) - _latin1_chars(char_op, char_av, flags)
            out.append(b"(?:^|" + _byte_class(outside) + b")" if outside else b"^")
            width += 1
        elif op is c.ASSERT_NOT and av[0] > 0 and out and _one_char(av[1]):
            # no such character next: another one, or the end (of a piece: wider); the
            # part ends here, the rest left out (a word's end is rarer than what follows)
            ((char_op, char_av),) = list(av[1])
            outside = frozenset(range(256)) - _latin1_chars(char_op, char_av, flags)
            out.append(b"(?:" + _byte_class(outside) + b"|$)" if outside else b"$")
            return b"".join(out), width + 1, False
        elif op in (c.AT, c.ASSERT, c.ASSERT_NOT):
            continue
        elif op in (c.SUBPATTERN, c.ATOMIC_GROUP, c.BRANCH):
            expression, inner, whole = _group(op, av, state, flags, first and k == 0)
            out.append(expression)
            width += inner
            if not whole:
                return b"".join(out), width, False
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
            least, most, body = av
            inner = _plain_width(list(body), state)
            whole = most != c.MAXREPEAT and most * inner <= MOST_REACH
            if most > _MOST_BOUND and least and last and k == len(items) - 1:
                whole = False  # as many as it must read: the part ends there
            times = b"{%d}" % min(least, _MOST_BOUND)
            if whole:  # a large counted repeat is costly to compile: loosened above it
                upper = b"%d" % most if most <= _MOST_BOUND else b""
                times = b"{%d," % min(least, _MOST_BOUND) + upper + b"}"
            if inner >= c.MAXREPEAT or not (whole or least):
                return b"".join(out), width, False
            body_regex = _sequence(list(body), flags, False, False)
            out.append(b"(?:" + body_regex + b")" + times)
            width += inner * (most if whole else min(least, _MOST_BOUND))
            if not whole:
                return b"".join(out), width, False
        else:
            return b"".join(out), width, False
    return b"".join(out), width, True


def _one_char(body: Any) -> bool:
    """Whether a lookaround's body reads exactly one character."""
    items = list(body)
    return len(items) == 1 and items[0][0] in _ONE_CHAR


def _group(op: Any, av: Any, state: Any, flags: int, first: bool) -> tuple[bytes, int, bool]:
    """A group's or alternation's first part (see :func:`_prefix`)."""
    if op is c.SUBPATTERN:
        _, add, remove, body = av
        expression, width, whole = _prefix(list(body), state, (flags | add) & ~remove, first)
        return b"(?:" + expression + b")", width, whole
    if op is c.ATOMIC_GROUP:
        expression, width, whole = _prefix(list(av), state, flags, first)
        return b"(?:" + expression + b")", width, whole
    alts, widest, every = [], 0, True
    for alt in av[1]:
        with contextlib.suppress(_Impossible):  # an alternative never taken
            expression, width, whole = _prefix(list(alt), state, flags, first)
            if not expression:
                raise Untranslatable("an alternative that begins unbounded")
            alts.append(expression)
            widest, every = max(widest, width), every and whole
    if not alts:
        raise _Impossible("no alternative can match")
    return b"(?:" + b"|".join(alts) + b")", widest, every


def _plain_width(items: list[tuple[Any, Any]], state: Any) -> int:
    """The largest width Python's parser gives the items (lookarounds read nothing)."""
    return int(sre_parse.SubPattern(state, items).getwidth()[1])


class ShapeEnds:
    """A pattern's necessary form, compiled to report where its matches end."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        made = form(pattern)
        self.reach = made[1] if made is not None else None
        #: the Hyperscan regex of the form (None: not answered)
        self.form = made[0] if made is not None else None
        self._db: Any = None
        if made is not None:
            with contextlib.suppress(hyperscan.error):
                self._db = compiled([made[0]], [0], [0])
        self._lock = threading.Lock()

    def windows(self, text: str, budget: int) -> list[tuple[int, int]] | None:
        """Where a match can start, as merged ``(first, last)`` positions, sorted; None
        when the form is not answered, a piece of ``text`` is wider than Latin-1, or
        the form ends more than ``budget`` times."""
        if self._db is None or self.reach is None:
            return None
        span = self.reach
        ends: list[int] = []
        for at in range(0, len(text), CHUNK):
            try:
                data = text[at : at + CHUNK + span].encode("latin-1")
            except UnicodeEncodeError:
                return None
            if not self._scan(data, at, ends, budget):
                return None
        ends.sort()
        return merged(ends, span)

    def answered(self) -> bool:
        """Whether :meth:`windows` can answer (the form was made and compiled)."""
        return self._db is not None and self.reach is not None

    def _scan(self, data: bytes, at: int, ends: list[int], budget: int) -> bool:
        """Add where the form ends in one piece (``at``: its offset); False past
        ``budget`` ends."""

        def event(_item: int, _from: int, end: int, _flags: int, _ctx: object) -> bool:
            ends.append(at + end)
            return len(ends) > budget

        with self._lock, contextlib.suppress(hyperscan.ScanTerminated):  # one scratch a db
            self._db.scan(data, match_event_handler=event)
        return len(ends) <= budget


def merged(ends: Sequence[int], span: int) -> list[tuple[int, int]]:
    """Where a match can start, given where the form ends (sorted) and its reach:
    ``[end - span, end]`` for each, merged."""
    out: list[tuple[int, int]] = []
    for end in ends:
        first = max(0, end - span)
        if out and first <= out[-1][1] + 1:
            if end > out[-1][1]:
                out[-1] = (out[-1][0], end)
        else:
            out.append((first, end))
    return out


@functools.lru_cache(maxsize=128)
def shape_ends(pattern: re.Pattern[str]) -> ShapeEnds:
    """The compiled form of ``pattern`` (compiled once)."""
    return ShapeEnds(pattern)
