"""Many literals found in one pass of a long text, in C (Hyperscan).

Why: the rules' cheap tests (a substring every match holds, a hint, a literal of a
pattern's plan, see ``_literals``) were each a ``str.find`` or ``in`` over the whole
text, one pass per literal and a lower-cased copy per case-insensitive test: a long line
was read a hundred times. Hyperscan finds a whole set of literals in one pass, so a long
text costs one read for all of them, and Python runs only where a literal is.

The answers are the same as those of the ``str`` tests they replace. A text is scanned
as bytes in pieces: one byte a character when every character of the piece is below 256
(Latin-1, so a byte offset is a character offset), else four (UTF-32, lone surrogates
kept, a hit counted only at a character's first byte). Each literal is compiled as the
set of characters that the ``str`` test takes for each of its characters: itself (mode
``EXACT``), what ``str.lower`` turns into it (``LOWER``), or what ``_literals.fold``
turns into it (``FOLD``), the Kelvin sign, long s and dotted and dotless i included.
What this cannot mirror (a case-insensitive literal that is not ASCII, ``LOWER`` in a text holding a
dotted capital I, which ``str.lower`` turns into two characters) is answered None, and
the caller makes its own ``str`` tests.
"""

from __future__ import annotations

import contextlib
import functools
import re
import threading
from collections.abc import Callable, Iterator
from typing import Any

try:
    import hyperscan
except ImportError as exc:  # pragma: no cover - the dependency is declared
    raise ImportError(
        "prime_nb.redact needs the hyperscan package (its multi-literal search): "
        "pip install hyperscan (or reinstall prime-nb); it ships wheels for Linux and "
        "macOS on x86-64 and arm64"
    ) from exc

#: a literal as written (case kept)
EXACT = 0
#: a literal looked for in ``text.lower()``
LOWER = 1
#: a literal looked for in ``_literals.fold(text)``
FOLD = 2

#: characters that ``str.lower`` or ``fold`` turn into an ASCII letter, besides the
#: ASCII letters themselves (a test enumerates every code point to keep this whole)
_SPECIAL_LOWER = {"\u212a": "k"}
_SPECIAL_FOLD = {"\u212a": "k", "\u0130": "i", "\u0131": "i", "\u017f": "s"}
#: ``str.lower`` of this is two characters: a text holding it is not scanned for LOWER
_TWO_WHEN_LOWERED = "\u0130"
#: how many characters of a text are encoded and scanned at a time
CHUNK = 1 << 20


def _alternatives(char: str, mode: int) -> list[str]:
    """The characters of a text that the ``str`` test of ``mode`` takes for ``char``."""
    if mode == EXACT:
        return [char]
    special = _SPECIAL_LOWER if mode == LOWER else _SPECIAL_FOLD
    out = [chr(c) for c in range(128) if chr(c).lower() == char]
    out += [c for c, low in special.items() if low == char]
    return out


def usable(literal: str, mode: int) -> bool:
    """Whether the scan mirrors the ``str`` test of ``literal`` in ``mode``."""
    return bool(literal) and (mode == EXACT or literal.isascii())


def _byte_class(options: list[bytes]) -> bytes:
    escaped = [b"".join(b"\\x%02x" % byte for byte in option) for option in options]
    return b"(?:" + b"|".join(escaped) + b")"


class Literals:
    """A compiled set of ``(literal, mode)`` items: which are in a text, and where."""

    def __init__(self, items: tuple[tuple[str, int], ...]) -> None:
        self.items = items
        self.lengths = [len(literal) for literal, _ in items]
        self.overlap = max(self.lengths, default=1) - 1
        self.lowered = any(mode == LOWER for _, mode in items)
        self.usable = bool(items) and all(usable(literal, mode) for literal, mode in items)
        self._lock = threading.Lock()
        self._dbs: dict[tuple[int, bool], Any] = {}

    def _database(self, width: int, single: bool) -> Any:
        """The database for pieces of ``width`` bytes a character; ``single``: each
        literal reported once (a presence test)."""
        key = (width, single)
        db = self._dbs.get(key)
        if db is None:
            expressions, ids, flags = [], [], []
            # one report a literal only in one byte a character: in four, the first
            # report may be across two characters (dropped), and would hide the rest
            single_flag = hyperscan.HS_FLAG_SINGLEMATCH if single and width == 1 else 0
            for index, (literal, mode) in enumerate(self.items):
                if width == 1 and literal.isascii():
                    # Latin-1 holds no special character: ASCII case is all there is
                    if mode != EXACT and literal != literal.lower():
                        continue  # an upper-case letter is never in a lower-cased text
                    expressions.append(b"".join(b"\\x%02x" % b for b in literal.encode()))
                    ids.append(index)
                    caseless = hyperscan.HS_FLAG_CASELESS if mode != EXACT else 0
                    flags.append(single_flag | caseless)
                    continue
                parts = []
                for char in literal:
                    options = _alternatives(char, mode)
                    if width == 1:
                        encoded = [o.encode("latin-1") for o in options if ord(o) < 256]
                    else:
                        encoded = [o.encode("utf-32-le") for o in options]
                    if not encoded:
                        break
                    parts.append(_byte_class(encoded))
                else:
                    expressions.append(b"".join(parts))
                    ids.append(index)
                    flags.append(single_flag)
            db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
            if expressions:
                db.compile(expressions=expressions, ids=ids, elements=len(expressions), flags=flags)
            else:
                db = None
            self._dbs[key] = db
        return db

    def handles(self, text: str) -> bool:
        """Whether the scan answers for ``text`` exactly as the ``str`` tests would."""
        if not self.usable:
            return False
        return not (self.lowered and not text.isascii() and _TWO_WHEN_LOWERED in text)

    def _scan(self, text: str, single: bool, on_hit: Callable[[int, int], bool]) -> bool:
        """Each hit as ``on_hit(item, start)`` (``start``: a character offset of
        ``text``), piece by piece; False when ``on_hit`` asked to stop."""
        for at, piece, own in _pieces(text, self.overlap):
            if piece.isascii():
                data, width = piece.encode("ascii"), 1
            else:
                try:
                    data, width = piece.encode("latin-1"), 1
                except UnicodeEncodeError:
                    data, width = piece.encode("utf-32-le", "surrogatepass"), 4
            db = self._database(width, single)
            if db is not None and not self._scan_piece(db, data, (at, own, width), on_hit):
                return False
        return True

    def _scan_piece(
        self,
        db: Any,
        data: bytes,
        where: tuple[int, int, int],
        on_hit: Callable[[int, int], bool],
    ) -> bool:
        """One piece (``where``: its offset in the text, how many characters are its own,
        bytes a character); False when ``on_hit`` asked to stop."""
        at, own, width = where
        lengths = self.lengths
        stopped = False

        def event(item: int, _from: int, end: int, _flags: int, _ctx: object) -> bool:
            nonlocal stopped
            if end % width:
                return False  # inside a character: not a character's first byte
            start = end // width - lengths[item]
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
        found: set[int] = set()

        def hit(item: int, start: int) -> bool:
            found.add(item)
            return len(found) == len(self.items)

        self._scan(text, True, hit)
        return found

    def positions(self, text: str, budget: int) -> tuple[bool, list[int] | None]:
        """(handled, where any item starts in ``text``, sorted): None past ``budget``
        hits; handled False when :meth:`handles` is False."""
        if not self.handles(text):
            return False, None
        found: list[int] = []

        def hit(item: int, start: int) -> bool:
            found.append(start)
            return len(found) > budget

        if not self._scan(text, False, hit):
            return True, None
        found.sort()
        return True, found


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
    ``re.search("[<chars>]{length}", text)``, in one pass of Hyperscan where a piece of
    the text is Latin-1, by that regex where it is wider (a rare text)."""

    def __init__(self, chars: str, length: int) -> None:
        self.length = length
        self.pattern = re.compile(f"[{re.escape(chars)}]{{{length}}}")
        narrow = [c.encode("latin-1") for c in chars if ord(c) < 256]
        self._db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
        # a run of any length, reported once it is ``length`` long (a counted repeat
        # costs Hyperscan a second to compile)
        least = hyperscan.ExpressionExt(  # type: ignore[attr-defined]
            flags=hyperscan.HS_EXT_FLAG_MIN_LENGTH, min_length=length
        )
        self._db.compile(
            expressions=[_byte_class(narrow) + b"+"],
            ids=[0],
            elements=1,
            flags=[hyperscan.HS_FLAG_SINGLEMATCH],
            ext=[least],
        )
        self._lock = threading.Lock()

    def in_text(self, text: str) -> bool:
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
                self._db.scan(data, match_event_handler=event)
            if found:
                return True
        return False


@functools.lru_cache(maxsize=64)
def run(chars: str, length: int) -> Run:
    """The compiled test of a run of ``length`` of ``chars`` (compiled once)."""
    return Run(chars, length)
