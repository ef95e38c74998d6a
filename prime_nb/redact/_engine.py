"""Many literals found in one pass of a long text, in C (Hyperscan).

Why: the rules' cheap tests (a substring every match holds, a hint, a literal of a
pattern's plan, see ``_literals``) were each a ``str.find`` or ``in`` over the whole
text, one pass per literal and a lower-cased copy per case-insensitive test: a long line
was read a hundred times. Hyperscan finds a whole set of literals in one pass, so a long
text costs one read for all of them, and Python runs only where a literal is.

The answers are the same as those of the ``str`` tests they replace. A text is scanned
as Latin-1 bytes a piece at a time (one byte a character, so a byte offset is a
character offset). A literal as written (mode ``EXACT``) is its Latin-1 bytes; one
looked for in the lower-cased (``LOWER``) or folded (``FOLD``, as ``re.IGNORECASE``
folds) text is ASCII and matched without regard to ASCII case: no Latin-1 character
lowers or folds to an ASCII letter but the letters themselves (the Kelvin sign, long s
and the dotted and dotless i that do are wider). A text with a character beyond Latin-1
is answered None, and the caller makes its own ``str`` tests: compiling the literals for
four bytes a character costs Hyperscan many megabytes, more than such rare text saves.
"""

from __future__ import annotations

import contextlib
import functools
import re
import threading
from array import array
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

try:
    import hyperscan
except ImportError as exc:  # pragma: no cover - the dependency is declared
    raise ImportError(
        "prime_nb.redact needs the hyperscan package (its multi-literal search): "
        "pip install hyperscan (or reinstall prime-nb); it ships wheels for Linux on "
        "x86-64 and arm64"
    ) from exc

from ._compiled import compiled

#: a literal as written (case kept)
EXACT = 0
#: a literal looked for in ``text.lower()``
LOWER = 1
#: a literal looked for in ``_literals.fold(text)``
FOLD = 2

#: how many characters of a text are encoded and scanned at a time (a small copy: the
#: redaction of a line stays within 3 x its size)
CHUNK = 1 << 16


def usable(literal: str, mode: int) -> bool:
    """Whether the scan mirrors the ``str`` test of ``literal`` in ``mode``."""
    return bool(literal) and (mode == EXACT or literal.isascii())


def _byte_class(chars: bytes) -> bytes:
    """A Hyperscan class of the bytes ``chars`` (a class, not an alternation of single
    bytes: Hyperscan scans the alternation a few times slower)."""
    return b"[" + b"".join(b"\\x%02x" % byte for byte in chars) + b"]"


class Literals:
    """A compiled set of ``(literal, mode)`` items: which are in a text, and where."""

    def __init__(self, items: tuple[tuple[str, int], ...]) -> None:
        self.items = items
        self.lengths = [len(literal) for literal, _ in items]
        self.overlap = max(self.lengths, default=1) - 1
        self.usable = bool(items) and all(usable(literal, mode) for literal, mode in items)
        self._lock = threading.Lock()
        self._dbs: dict[bool, Any] = {}

    def _database(self, single: bool) -> Any:
        """The database of the items (``single``: each reported once, a presence test);
        None when none can be in a Latin-1 text."""
        db = self._dbs.get(single)
        if db is None and single not in self._dbs:
            expressions, ids, flags = [], [], []
            for index, (literal, mode) in enumerate(self.items):
                if mode != EXACT and literal != literal.lower():
                    continue  # an upper-case letter is never in a lower-cased text
                try:
                    encoded = literal.encode("latin-1")
                except UnicodeEncodeError:
                    continue  # never in a Latin-1 text
                expressions.append(b"".join(b"\\x%02x" % byte for byte in encoded))
                ids.append(index)
                caseless = hyperscan.HS_FLAG_CASELESS if mode != EXACT else 0
                flags.append(caseless | (hyperscan.HS_FLAG_SINGLEMATCH if single else 0))
            if expressions:
                db = compiled(expressions, ids, flags)
            self._dbs[single] = db
        return db

    def compile(self, single: bool) -> None:
        """Compile the database for :meth:`present` (``single``) or :meth:`positions`
        now (before a long text, whose redaction's peak memory would otherwise hold the
        compiler's)."""
        self._database(single)

    def handles(self, text: str) -> bool:
        """Whether the scan can answer for ``text`` as the ``str`` tests would (unless a
        piece of it is wider than Latin-1, which the scan finds out as it goes)."""
        return self.usable

    def _scan(self, text: str, single: bool, on_hit: Callable[[int, int], bool]) -> bool | None:
        """Each hit as ``on_hit(item, start)`` (``start``: a character offset of
        ``text``), piece by piece; False when ``on_hit`` asked to stop, None when a piece
        is wider than Latin-1 (the caller's ``str`` tests answer)."""
        db = self._database(single)
        for at, piece, own in _pieces(text, self.overlap):
            try:
                data = piece.encode("latin-1")
            except UnicodeEncodeError:
                return None
            if db is not None and not self._scan_piece(db, data, (at, own), on_hit):
                return False
        return True

    def _scan_piece(
        self,
        db: Any,
        data: bytes,
        where: tuple[int, int],
        on_hit: Callable[[int, int], bool],
    ) -> bool:
        """One piece (``where``: its offset in the text, how many characters are its
        own); False when ``on_hit`` asked to stop."""
        at, own = where
        lengths = self.lengths
        stopped = False

        def event(item: int, _from: int, end: int, _flags: int, _ctx: object) -> bool:
            nonlocal stopped
            start = end - lengths[item]
            if start >= own:
                return False  # the next piece's (it starts there)
            stopped = on_hit(item, at + start)
            return stopped

        with self._lock, contextlib.suppress(hyperscan.ScanTerminated):  # one scratch a db
            db.scan(data, match_event_handler=event)
        return not stopped

    def present(self, text: str) -> set[int] | None:
        """The items found in ``text``; None when :meth:`handles` is False."""
        if not self.handles(text):
            return None
        if len(text) <= CHUNK:
            return self._present_in_one(text)
        # each piece reports each item it holds (once): straight into the set, one call
        # of Python a report (an item in a piece's overlap is in the text all the same)
        found: set[int] = set()
        add, every, db = found.add, len(self.items), self._database(True)

        def event(item: int, _from: int, _end: int, _flags: int, _ctx: object) -> None:
            add(item)

        for _, piece, _ in _pieces(text, self.overlap):
            try:
                data = piece.encode("latin-1")
            except UnicodeEncodeError:
                return None
            if db is None:
                continue
            with self._lock, contextlib.suppress(hyperscan.ScanTerminated):  # one scratch
                db.scan(data, match_event_handler=event)
            if len(found) == every:
                break
        return found

    def _present_in_one(self, text: str) -> set[int] | None:
        """:meth:`present` of a text of one piece: each item the scan reports (once) is
        added as it comes, one call of Python a hit (most strings are one piece, and
        many of the literals stand in each)."""
        try:
            data = text.encode("latin-1")
        except UnicodeEncodeError:
            return None
        found: set[int] = set()
        db = self._database(True)
        if db is None:
            return found
        add = found.add

        def event(item: int, _from: int, _end: int, _flags: int, _ctx: object) -> None:
            add(item)

        with self._lock, contextlib.suppress(hyperscan.ScanTerminated):  # one scratch a db
            db.scan(data, match_event_handler=event)
        return found

    def positions(self, text: str, budget: int) -> tuple[bool, Sequence[int] | None]:
        """(handled, where any item starts in ``text``, sorted, a compact array: a long
        text may have one every hundred characters): None past ``budget`` hits; handled
        False when :meth:`handles` is False."""
        if not self.handles(text):
            return False, None
        found = array("q")

        def hit(item: int, start: int) -> bool:
            found.append(start)
            return len(found) > budget

        done = self._scan(text, False, hit)
        if done is None:
            return False, None
        if not done:
            return True, None
        if len(found) >= _MANY:  # NumPy's call costs more than sorting a few
            return True, array("q", np.sort(np.frombuffer(found, dtype=np.int64)).tobytes())
        return True, sorted(found)


#: from this many hits :meth:`Literals.positions` sorts them with NumPy
_MANY = 64


def _pieces(text: str, overlap: int) -> Iterator[tuple[int, str, int]]:
    """(offset, piece, how many of its first characters are its own): pieces longer by
    ``overlap`` so that a literal cut between two is whole in the first."""
    if len(text) <= CHUNK:
        yield 0, text, len(text)
        return
    for at in range(0, len(text), CHUNK):
        yield at, text[at : at + CHUNK + overlap], min(CHUNK, len(text) - at)


@functools.lru_cache(maxsize=1024)
def literals(items: tuple[tuple[str, int], ...]) -> Literals:
    """The compiled set of ``items`` (compiled once, on first use)."""
    return Literals(items)


class Run:
    """Whether a text holds ``length`` characters in a row out of ``chars``: the test
    ``re.search("[<chars>]{length}", text)``, found by one pass of Hyperscan over each
    piece of the text that is Latin-1, by that regex where a piece is wider (a rare
    text). With ``after``, the run follows a character that is not one of ``after``
    (``re.search("[^<after>][<chars>]{length}", text)``). Hyperscan reads a piece in
    one pass, where a ``bytes.translate`` of it to the class and a ``bytes.find`` of
    ``length`` of the class were two, and the find slow where the class is dense; a
    text of at most :data:`TRANSLATED` characters (most strings) is still read that
    way without ``after``, as a call of Hyperscan costs more than the two passes."""

    def __init__(self, chars: str, length: int, after: str = "") -> None:
        head = f"[^{re.escape(after)}]" if after else ""
        self.length = length + bool(after)
        self.pattern = re.compile(f"{head}[{re.escape(chars)}]{{{length}}}")
        narrow = bytes(ord(c) for c in chars if ord(c) < 256)
        #: without ``after``, for a short text: its bytes mapped to 1 for the run's
        #: characters, and ``length`` ones looked for (``bytes.find``, in C)
        self._table = None if after else bytes(chr(b) in chars for b in range(256))
        self._ones = b"\x01" * length
        self._narrow, self._after = narrow, after
        self._db: Any = None
        #: whether the database is made: without ``after``, at the first text longer
        #: than :data:`TRANSLATED` (most processes read none, and its loading costs)
        self._made = False
        self._lock = threading.Lock()
        if after:
            self._database()

    def _database(self) -> Any:
        """The run's database (None when no Latin-1 character is one of ``chars``)."""
        if not self._made:
            narrow, after = self._narrow, self._after
            if narrow:
                outside = b"".join(b"\\x%02x" % b for b in range(256) if chr(b) not in after)
                lead = b"[" + outside + b"]" if after else b""
                # a run of any length, reported once it is ``length`` long (a counted
                # repeat costs Hyperscan a second to compile)
                least = hyperscan.ExpressionExt(  # type: ignore[attr-defined]
                    flags=hyperscan.HS_EXT_FLAG_MIN_LENGTH, min_length=self.length
                )
                self._db = compiled(
                    [lead + _byte_class(narrow) + b"+"],
                    [0],
                    [hyperscan.HS_FLAG_SINGLEMATCH],
                    [least],
                )
            self._made = True
        return self._db

    def in_text(self, text: str) -> bool:
        if self._table is not None and len(text) <= TRANSLATED:
            try:
                data = text.encode("latin-1")
            except UnicodeEncodeError:
                return self.pattern.search(text) is not None
            return data.translate(self._table).find(self._ones) >= 0
        found = False

        def event(_item: int, _from: int, _end: int, _flags: int, _ctx: object) -> bool:
            nonlocal found
            found = True
            return True

        for _, piece, _ in _pieces(text, self.length - 1):
            try:
                data = piece.encode("latin-1")
            except UnicodeEncodeError:
                if self.pattern.search(piece) is not None:
                    return True
                continue
            with self._lock, contextlib.suppress(hyperscan.ScanTerminated):
                db = self._database()
                if db is not None:  # else no Latin-1 character is one of ``chars``
                    db.scan(data, match_event_handler=event)
            if found:
                return True
        return False


#: the longest text :meth:`Run.in_text` reads by ``bytes.translate`` and ``bytes.find``
TRANSLATED = 2048


@functools.lru_cache(maxsize=64)
def run(chars: str, length: int, after: str = "") -> Run:
    """The compiled test of a run of ``length`` of ``chars`` (compiled once)."""
    return Run(chars, length, after)
