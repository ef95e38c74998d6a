"""Whether a text can hold a match of a regex at all, for many regexes in one Hyperscan scan.

Why: a rule woken by a word (``key``, ``pass``, ``token``) still read every text that
merely mentions it, prose and code, with its own regex or finder, to find nothing. The
shape that must follow the word (an operator, a flag's value, a run of token characters)
is a regex too: compiled into one Hyperscan database with every other rule's, one scan
of a text tells which rules can find anything in it, and the others are not called.

A Python regex is turned into a Hyperscan one whose matches are a superset of its own
(``necessary``), so that no match of the Python regex is ever missed; Python's regex
still decides every span. The translation reads the parsed pattern (``re._parser``):

- every single character the pattern reads (a literal, a class, ``\\w``, ``.``, with the
  flags in force where it stands) becomes the class of the Latin-1 characters that
  Python's own regex matches for it, found by trying each of the 256 (so case folding,
  Unicode ``\\w`` and ``\\s`` are Python's, not Hyperscan's);
- lookarounds, anchors and word boundaries are dropped (a match then needs less);
- a back-reference becomes any run of characters, a conditional group either branch,
  an atomic group or possessive repeat a plain one, a lazy repeat a greedy one;
- a repeat's bounds above ``_MOST_BOUND`` are loosened (at least fewer, at most any).

Each loosening keeps every string the Python regex matches, so where the scan finds no
match the Python regex finds none. Hyperscan's prefilter mode (``HS_FLAG_PREFILTER``)
may loosen a pattern further and never narrows it. A text is scanned as Latin-1 bytes
(one byte a character); a text wider than Latin-1, or longer than ``CHUNK``, is not
answered (None), and every rule then runs as before.
"""

from __future__ import annotations

import contextlib
import functools
import re
import re._compiler as sre_compile  # type: ignore[import-not-found,unused-ignore]
import re._constants as c  # type: ignore[import-not-found,unused-ignore]
import re._parser as sre_parse  # type: ignore[import-not-found,unused-ignore]
import threading
from collections.abc import Iterable, Iterator
from typing import Any

import hyperscan

from ._compiled import compiled
from ._engine import CHUNK

#: repeat bounds above this are loosened (a large counted repeat is costly to compile)
_MOST_BOUND = 32
#: the operations that read one character
_ONE_CHAR = (c.LITERAL, c.NOT_LITERAL, c.ANY, c.IN, c.CATEGORY)
#: the operations that assert without reading
_ASSERTIONS = (c.AT, c.ASSERT, c.ASSERT_NOT)


class Untranslatable(ValueError):
    """A pattern holds something the translation does not know."""


class _Impossible(Untranslatable):
    """A part of a pattern reads a character no Latin-1 text holds: it never matches."""


def necessary(pattern: re.Pattern[str]) -> bytes | None:
    """A Hyperscan regex that matches wherever ``pattern`` does in a Latin-1 text (and
    perhaps elsewhere), or None when it cannot be made or would match the empty string
    (no use as a test)."""
    return _necessary(pattern.pattern, pattern.flags) if isinstance(pattern.pattern, str) else None


@functools.lru_cache(maxsize=256)
def _necessary(source: str, flags: int) -> bytes | None:
    try:
        parsed = sre_parse.parse(source, flags)
        if parsed.getwidth()[0] == 0:
            return None
        return _sequence(list(parsed), parsed.state.flags)
    except (Untranslatable, re.error, RecursionError, TypeError, ValueError):
        return None


def presence_form(pattern: re.Pattern[str]) -> bytes | None:
    """:func:`necessary`, or for a test of whether ``pattern`` can match at all (not
    where), the necessary form of the pattern's part from the first character it reads
    after a stretch of variable width and no literal, when that part reads at least
    :data:`_LEAST_PART` characters: every match holds a match of its part. Such a
    leading word (of 1 to many characters of a class, as the generic token's name before
    its separator) costs Hyperscan a state at every place it can begin, in every text
    the shapes' scan reads; the part begins at one character and reads on from there. A
    leading literal is kept: it is what Hyperscan looks for first."""
    return _presence(pattern.pattern, pattern.flags) if isinstance(pattern.pattern, str) else None


#: the fewest characters the part :func:`presence_form` tests must read
_LEAST_PART = 8


@functools.lru_cache(maxsize=256)
def _presence(source: str, flags: int) -> bytes | None:
    try:
        parsed = sre_parse.parse(source, flags)
        if parsed.getwidth()[0] == 0:
            return None
        items = list(parsed)
        start = _part_start(items, parsed.state)
        return _sequence(items[start:], parsed.state.flags, start == 0, True)
    except (Untranslatable, re.error, RecursionError, TypeError, ValueError):
        return None


def _part_start(items: list[tuple[Any, Any]], state: Any) -> int:
    """Where :func:`presence_form`'s part begins among the parsed ``items`` (0: the
    whole pattern)."""
    varied = False
    for k, (op, av) in enumerate(items):
        if op in _ASSERTIONS:
            continue
        if op in _ONE_CHAR and varied:
            rest = sre_parse.SubPattern(state, items[k:])
            return k if rest.getwidth()[0] >= _LEAST_PART else 0
        if _holds_literal([(op, av)]):
            return 0
        low, high = sre_parse.SubPattern(state, [(op, av)]).getwidth()
        varied = varied or low != high
    return 0


def _holds_literal(items: Any) -> bool:
    """Whether parsed ``items`` read a literal character anywhere (in a group, a branch
    or a repeat), or anything but classes (a back-reference, say); a lookaround's do
    not count."""
    for op, av in items:
        if op is c.LITERAL:
            return True
        if op is c.SUBPATTERN:
            found = _holds_literal(av[-1])
        elif op is c.ATOMIC_GROUP:
            found = _holds_literal(av)
        elif op is c.BRANCH:
            found = any(_holds_literal(alt) for alt in av[1])
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
            found = _holds_literal(av[2])
        else:
            found = op not in _ONE_CHAR and op not in _ASSERTIONS
        if found:
            return True
    return False


def _sequence(
    items: list[tuple[Any, Any]], flags: int, first: bool = True, last: bool = True
) -> bytes:
    """The items' translation; ``first``/``last``: whether they begin/end every match
    (a lookbehind that begins it, or a lookahead that ends it, reads characters the
    match's neighbours hold: kept as read, so that the necessary form stays specific)."""
    out = []
    for k, (op, av) in enumerate(items):
        starts, ends = first and k == 0, last and k == len(items) - 1
        if op in _ONE_CHAR:
            out.append(_byte_class(_latin1_chars(op, av, flags)))
        elif op is c.ASSERT and ((av[0] < 0 and starts) or (av[0] > 0 and ends)):
            out.append(b"(?:" + _sequence(list(av[1]), flags, False, False) + b")")
        elif op in _ASSERTIONS:
            continue
        elif op is c.SUBPATTERN:
            _, add, remove, body = av
            inner = _sequence(list(body), (flags | add) & ~remove, starts, ends)
            out.append(b"(?:" + inner + b")")
        elif op is c.ATOMIC_GROUP:
            out.append(b"(?:" + _sequence(list(av), flags, starts, ends) + b")")
        elif op is c.BRANCH:
            alts = []
            for alt in av[1]:
                with contextlib.suppress(_Impossible):  # an alternative never taken
                    alts.append(_sequence(list(alt), flags, starts, ends))
            if not alts:
                raise _Impossible("no alternative can match")
            out.append(b"(?:" + b"|".join(alts) + b")")
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
            least, most, body = av
            least = min(least, _MOST_BOUND)
            upper = b"" if most == c.MAXREPEAT or most > _MOST_BOUND else b"%d" % most
            inner = _sequence(list(body), flags, False, False)
            out.append(b"(?:" + inner + b"){%d," % least + upper + b"}")
        elif op is c.GROUPREF:
            out.append(b"[\\x00-\\xff]*")
        elif op is c.GROUPREF_EXISTS:
            _, yes, no = av
            alts = [_sequence(list(yes), flags, False, False)]
            alts.append(b"" if no is None else _sequence(list(no), flags, False, False))
            out.append(b"(?:" + b"|".join(alts) + b")")
        else:
            raise Untranslatable(str(op))
    return b"".join(out)


def _latin1_chars(op: Any, av: Any, flags: int) -> frozenset[int]:
    """The Latin-1 characters Python's regex matches for one character item (``op``,
    ``av``) under ``flags``."""
    key = (op, repr(av), flags)
    chars = _CHARS.get(key)
    if chars is None:
        state = sre_parse.State()
        state.flags = flags
        one = sre_compile.compile(sre_parse.SubPattern(state, [(op, av)]), flags)
        chars = frozenset(ord(ch) for ch in one.findall(_LATIN1))
        if len(_CHARS) < 4096:
            _CHARS[key] = chars
    if not chars:
        raise _Impossible("a character no Latin-1 text holds")
    return chars


_CHARS: dict[tuple[Any, str, int], frozenset[int]] = {}
#: every Latin-1 character, each tried once by a one-character pattern's ``findall``
_LATIN1 = "".join(map(chr, range(256)))


def _byte_class(chars: frozenset[int]) -> bytes:
    """``[...]`` of the byte values ``chars``, in ranges."""
    ordered = sorted(chars)
    parts, start = [], ordered[0]
    for prev, cur in zip(ordered, [*ordered[1:], None], strict=True):
        if cur is None or cur != prev + 1:
            parts.append(
                b"\\x%02x" % start if start == prev else b"\\x%02x-\\x%02x" % (start, prev)
            )
            if cur is not None:
                start = cur
    return b"[" + b"".join(parts) + b"]"


class Shapes:
    """Many regexes' necessary forms in one database: which can match in a text.

    The database is compiled at the first text the scan can answer for (one of at most
    ``CHUNK`` Latin-1 characters), not when the dispatch is built: a file whose only
    texts are long (a line of one long string) never needs it, and compiling it is
    the largest part of such a file's fixed cost."""

    def __init__(self, patterns: tuple[re.Pattern[str], ...]) -> None:
        self.patterns = patterns
        translated = [(i, presence_form(p)) for i, p in enumerate(patterns)]
        self._usable = [(i, expr) for i, expr in translated if expr is not None]
        self._db: Any = None
        self._compiled = not self._usable
        #: the answered patterns the database left out (Hyperscan refused them with the
        #: others): reported as matching in every text, so that their rules run
        self._refused: frozenset[int] = frozenset()
        #: the numbers of the patterns the scan answers for
        self.answered = frozenset(i for i, _ in self._usable)
        self._lock = threading.Lock()

    def _compile(self) -> None:
        """The database of the usable forms, once (under the lock); a form Hyperscan
        refuses among the others is tried alone and, refused again, left out."""
        usable = self._usable
        try:
            self._db = _database(usable)
        except hyperscan.error:  # one Hyperscan refuses: found alone, left out
            kept = [(i, expr) for i, expr in usable if _compiles(expr)]
            self._db = _database(kept) if kept else None
            self._refused = self.answered - {i for i, _ in kept}
        self._compiled = True

    def matching(self, text: str) -> set[int] | None:
        """The answered patterns whose necessary form matches in ``text`` (the others
        cannot match there), or None when the scan cannot answer for ``text``."""
        if not self._usable:
            return None
        data = _answerable(text)
        if data is None:
            return None
        found: set[int] = set(self._refused)

        def event(item: int, _from: int, _end: int, _flags: int, _ctx: object) -> None:
            found.add(item)

        with self._lock, contextlib.suppress(hyperscan.ScanTerminated):  # one scratch a db
            if not self._compiled:
                self._compile()
                found.update(self._refused)
            if self._db is not None:
                self._db.scan(data, match_event_handler=event)
        return found


_FLAGS = hyperscan.HS_FLAG_PREFILTER | hyperscan.HS_FLAG_SINGLEMATCH


def _scanned(db: Any, text: str) -> bytes | None:
    """``text`` as the bytes a database scans (one a character), or None where the scan
    cannot answer for it: no database, a text longer than ``CHUNK`` or wider than Latin-1."""
    return None if db is None else _answerable(text)


def _answerable(text: str) -> bytes | None:
    """``text`` as Latin-1 bytes, or None when it is longer than ``CHUNK`` or wider."""
    if len(text) > CHUNK:
        return None
    try:
        return text.encode("latin-1")
    except UnicodeEncodeError:
        return None


def _database(items: list[tuple[int, bytes]]) -> Any:
    """The shapes' database, compiled in each process. Kept in the cache folder, it would
    save its compiling in each process, but the heap that frees is what a later
    redaction of many short strings reuses: without it, that redaction's peak RSS grows
    past three times its line (the same Python objects, traced), and
    tests/redact/test_redact_memory.py fails."""
    db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    db.compile(
        expressions=[expr for _, expr in items],
        ids=[i for i, _ in items],
        elements=len(items),
        flags=_FLAGS,
    )
    return db


@functools.lru_cache(maxsize=256)
def _compiles(expression: bytes) -> bool:
    """Whether Hyperscan takes ``expression`` (alone, as it will be compiled with others)."""
    db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    try:
        db.compile(expressions=[expression], ids=[0], elements=1, flags=[_FLAGS])
    except hyperscan.error:
        return False
    return True


@functools.lru_cache(maxsize=32)
def shapes(patterns: tuple[re.Pattern[str], ...]) -> Shapes:
    """The compiled database of ``patterns`` (compiled once)."""
    return Shapes(patterns)


class Windows:
    """Where a regex's matches can lie in a text, so that Python's regex is tried only
    there: each match of its necessary form, from its leftmost start to its end (every
    match of the regex lies within one, see the module's docstring), merged."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        expression = necessary(pattern)
        self._db: Any = None
        if expression is not None:
            try:
                self._db = compiled([expression], [0], [hyperscan.HS_FLAG_SOM_LEFTMOST])
            except hyperscan.error:
                self._db = None
        self._lock = threading.Lock()

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        """The matches of ``pattern.finditer(text)``, the pattern tried only at the
        positions where a match can start."""
        regions = self._regions(text)  # never empty: ``necessary`` refuses such a regex
        if regions is None:
            yield from self.pattern.finditer(text)
        else:
            yield from tried(self.pattern, text, regions)

    def _regions(self, text: str) -> list[tuple[int, int]] | None:
        """Where a match can start, as merged ``(first, last)`` positions; None when the
        scan cannot answer (or finds so many that the regex's own scan costs less)."""
        data = _scanned(self._db, text)
        if data is None:
            return None
        budget = len(text) // _DENSITY + 16
        found: list[tuple[int, int]] = []

        def event(_item: int, start: int, end: int, _flags: int, _ctx: object) -> bool:
            found.append((start, end - 1))
            return len(found) > budget

        with self._lock, contextlib.suppress(hyperscan.ScanTerminated):
            self._db.scan(data, match_event_handler=event)
        if len(found) > budget:
            return None
        found.sort()
        merged: list[tuple[int, int]] = []
        for first, last in found:
            if merged and first <= merged[-1][1] + 1:
                if last > merged[-1][1]:
                    merged[-1] = (merged[-1][0], last)
            else:
                merged.append((first, last))
        return merged


def tried(
    pattern: re.Pattern[str], text: str, windows: Iterable[tuple[int, int]]
) -> Iterator[re.Match[str]]:
    """The matches of ``pattern`` (which never matches empty) that start within
    ``windows``, sorted ``(first, last)`` positions, as ``pattern.finditer`` finds them
    (its matches, when every one starts within a window): the pattern is tried at each
    position in turn, but those where its :func:`starter` finds no match, passed over
    by one search in C."""
    begins = starter(pattern)
    end = 0
    for first, last in windows:
        at = max(first, end)
        while at <= last:
            if begins is not None:
                found = begins.search(text, at, last + 1)
                if found is None or found.start() > last:
                    break
                at = found.start()
            m = pattern.match(text, at)
            if m is None:
                at += 1
                continue
            yield m
            end = at = m.end()


@functools.lru_cache(maxsize=256)
def starter(pattern: re.Pattern[str]) -> re.Pattern[str] | None:
    """A regex that matches at every position where ``pattern`` does, reading nothing
    past the match's first character: the lookbehinds that begin the pattern and that
    character (a class, what a repeat that must read one reads first, through groups
    and each alternative's own). Searched up to a window's last position, it finds where
    in the window the pattern can begin. None when nothing begins the pattern so."""
    if not isinstance(pattern.pattern, str):
        return None
    try:
        parsed = sre_parse.parse(pattern.pattern, pattern.flags)
        kept = _first(list(parsed), parsed.state)[0]
        if not kept:
            return None
        begins: re.Pattern[str] = sre_compile.compile(
            sre_parse.SubPattern(parsed.state, kept), parsed.state.flags
        )
        return begins
    except (re.error, RecursionError, TypeError, ValueError, AttributeError):
        return None


def _first(items: list[tuple[Any, Any]], state: Any) -> tuple[list[tuple[Any, Any]], bool]:
    """(the items of :func:`starter`'s regex for ``items``, whether they read the first
    character: else what follows them is unknown, and nothing more is added)."""
    behind: list[tuple[Any, Any]] = []
    for op, av in items:
        if op in (c.ASSERT, c.ASSERT_NOT) and av[0] < 0:
            behind.append((op, av))  # a lookbehind reads what stands before
            continue
        if op in _ASSERTIONS:
            continue  # a lookahead or an anchor: left out (the regex only widens)
        if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT) and av[0] >= 1:
            body = list(av[2])
            op, av = body[0] if len(body) == 1 else (None, None)
        if op in _ONE_CHAR:
            return _ordered([(op, av)], behind, state), True
        if op is c.SUBPATTERN and not av[1] and not av[2]:  # a group without flags
            inner, whole = _first(list(av[3]), state)
            if whole:
                return _ordered(inner, behind, state), True
        if op is c.BRANCH:
            alternatives = [_first(list(alt), state) for alt in av[1]]
            if all(whole for _, whole in alternatives):
                branch = [sre_parse.SubPattern(state, alt) for alt, _ in alternatives]
                return _ordered([(c.BRANCH, (None, branch))], behind, state), True
        break
    return behind, False


def _ordered(
    first: list[tuple[Any, Any]], behind: list[tuple[Any, Any]], state: Any
) -> list[tuple[Any, Any]]:
    """The first character's items and the lookbehinds before them: the character first
    when it is a literal or each alternative begins with one (Python's search then
    skips to them in C), else the lookbehinds first (tested once, not after each
    alternative)."""
    (op, av), *_ = first
    literal = op is c.LITERAL or (
        op is c.BRANCH and all(alt.data and alt.data[0][0] is c.LITERAL for alt in av[1])
    )
    return [*first, *_past_one(behind, state)] if literal else [*behind, *first]


#: any one character (``[\s\S]``)
_ANY = (c.IN, [(c.CATEGORY, c.CATEGORY_SPACE), (c.CATEGORY, c.CATEGORY_NOT_SPACE)])


def _past_one(behind: list[tuple[Any, Any]], state: Any) -> list[tuple[Any, Any]]:
    r"""The lookbehinds ``behind``, read one character further on: ``(?<!x)`` before a
    character is ``(?<!x[\s\S])`` after it."""
    return [(op, (av[0], sre_parse.SubPattern(state, [*av[1], _ANY]))) for op, av in behind]


#: beyond one window a this many characters of text, the regex's own scan is cheaper
_DENSITY = 8


@functools.lru_cache(maxsize=256)
def scans_slowly(pattern: re.Pattern[str]) -> bool:
    """Whether Python's search of ``pattern`` tries it at every position of a text: it
    begins with a lookaround (in a group or an alternative too), so that no literal
    prefix or set of first characters lets the search skip ahead in C."""
    try:
        return _lookaround_first(sre_parse.parse(pattern.pattern, pattern.flags))
    except (re.error, RecursionError, TypeError, ValueError, AttributeError):
        return False


def _lookaround_first(items: Any) -> bool:
    for op, av in items:
        if op in (c.ASSERT, c.ASSERT_NOT):
            return True
        if op is c.SUBPATTERN:
            return _lookaround_first(av[-1])
        if op is c.BRANCH:
            return any(_lookaround_first(branch) for branch in av[1])
        return False
    return False


@functools.lru_cache(maxsize=64)
def windows(pattern: re.Pattern[str]) -> Windows:
    """The compiled windows of ``pattern`` (compiled once)."""
    return Windows(pattern)
