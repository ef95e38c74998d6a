"""The file-wide values found in a text as one regex over them all finds them, fast.

Why: every value redaction learned with confidence is replaced wherever it stands, by
one regex over all of them and their escaped forms (a trie, longest first). A big
session learns thousands, and Python's ``re`` parses a pattern of megabytes one
character at a time: compiling it cost more than the rest of the second pass. Here one
Hyperscan pass over a text (its UTF-8 bytes, a piece at a time) finds a few bytes of
each form, which says the few forms the text may hold (most texts: none). A form that is not
in a text cannot match in it, so the regex of those few finds what the whole one does,
in the same order of preference (the forms keep their order; the plain ones still make
one trie). A short text is not even given a regex: the places its forms stand are
walked as the regex would walk them. The database is built in memory and never saved:
it holds the secrets.
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Iterator, Sequence
from typing import Any

import hyperscan

from ._encodings import trie_pattern

#: how many characters of a text are encoded and scanned at a time
CHUNK = 1 << 16
#: how many bytes of each form are looked for (fewer, shorter literals: Hyperscan
#: compiles thousands of whole secrets for seconds, their heads in a fraction of one)
HEAD = 8
#: how many subsets' regexes are kept compiled (a session's texts share a few)
_KEPT = 512
_WORD = re.compile(r"[A-Za-z0-9_]")


def pattern_of(forms: Sequence[tuple[str, bool]]) -> str:
    """The regex of ``forms`` (each: the form, whether it stands as a whole word), in
    their order: each word-bounded form alone, the plain ones as one trie at the end."""
    parts: list[str] = []
    plain: list[str] = []
    for form, bounded in forms:
        if bounded:
            head = r"(?<![A-Za-z0-9_])" if _WORD.match(form[0]) else ""
            tail = r"(?![A-Za-z0-9_])" if _WORD.match(form[-1]) else ""
            parts.append(head + re.escape(form) + tail)
        else:
            plain.append(form)
    if plain:
        parts.append(trie_pattern(plain))
    return "|".join(parts)


class WideMatcher:
    """``finditer`` as that of ``re.compile(pattern_of(forms))``, each text's regex built
    of the forms it holds."""

    def __init__(self, forms: Sequence[tuple[str, bool]]) -> None:
        self.forms = list(forms)
        #: each distinct head (:data:`HEAD` bytes from a form's middle: its start is
        #: often shared, ``-----BEGIN`` by a thousand keys) -> the forms that hold it
        heads: dict[bytes, list[int]] = {}
        for number, (form, _) in enumerate(self.forms):
            encoded = form.encode("utf-8", "surrogatepass")
            middle = max(0, len(encoded) // 2 - HEAD // 2)
            heads.setdefault(encoded[middle : middle + HEAD], []).append(number)
        self._holding = list(heads.values())
        self._db: Any = None
        if heads:
            self._db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
            self._db.compile(
                expressions=[_escaped(head) for head in heads],
                ids=list(range(len(heads))),
                elements=len(heads),
                flags=[hyperscan.HS_FLAG_SINGLEMATCH] * len(heads),
            )
        self._lock = threading.Lock()
        self._regexes: dict[tuple[int, ...], re.Pattern[str]] = {}

    def held(self, text: str) -> tuple[int, ...]:
        """The numbers of the forms ``text`` may hold, in order: those whose head (a
        piece of each) it holds, and of those, in a text of at most :data:`CHUNK`
        characters, only the ones it holds whole (a long text is not read again for
        each)."""
        if self._db is None:
            return ()
        found: set[int] = set()

        def event(item: int, _from: int, _end: int, _flags: int, _ctx: object) -> bool:
            found.add(item)
            return False

        for at in range(0, max(len(text), 1), CHUNK):
            piece = text[at : at + CHUNK + HEAD] if len(text) > CHUNK else text
            data = piece.encode("utf-8", "surrogatepass")
            with self._lock, contextlib.suppress(hyperscan.ScanTerminated):
                self._db.scan(data, match_event_handler=event)
        numbers = sorted(n for head in found for n in self._holding[head])
        if len(text) <= CHUNK:
            numbers = [n for n in numbers if self.forms[n][0] in text]
        return tuple(numbers)

    def found(self, text: str) -> Iterator[tuple[int, int, str]]:
        """(start, end, form) of each match of the whole regex in ``text``, in order."""
        held = self.held(text)
        if not held:
            return
        if len(text) <= CHUNK:
            yield from self._walked(text, held)
            return
        regex = self._regexes.get(held)
        if regex is None:
            if len(self._regexes) >= _KEPT:
                self._regexes.clear()
            regex = re.compile(pattern_of([self.forms[n] for n in held]))
            self._regexes[held] = regex
        for m in regex.finditer(text):
            yield m.start(), m.end(), m.group()

    def _walked(self, text: str, held: tuple[int, ...]) -> Iterator[tuple[int, int, str]]:
        """The regex's matches among the places ``held`` forms stand in a short text,
        without compiling it (most texts hold a set of their own): at each place, left
        to right, the first word-bounded form that stands there as a word, else the
        longest plain one; the next match starts where one ends."""
        starts: dict[int, int] = {}  # place -> the number of the form that matches there
        for n in held:
            form, bounded = self.forms[n]
            at = text.find(form)
            while at >= 0:
                if not bounded or _stands_alone(text, at, at + len(form)):
                    best = starts.get(at)
                    if best is None or _before(self.forms[n], self.forms[best], n, best):
                        starts[at] = n
                at = text.find(form, at + 1)
        end = 0
        for at in sorted(starts):
            if at >= end:
                form = self.forms[starts[at]][0]
                end = at + len(form)
                yield at, end, form


def _stands_alone(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` has no word character (``[A-Za-z0-9_]``) against a
    word character of its own at either end (the bounded form's lookarounds)."""
    if _WORD.match(text[start]) and start > 0 and _WORD.match(text[start - 1]):
        return False
    return not (_WORD.match(text[end - 1]) and end < len(text) and _WORD.match(text[end]))


def _before(one: tuple[str, bool], other: tuple[str, bool], n: int, m: int) -> bool:
    """Whether form ``n`` wins over form ``m`` at one place: bounded forms are tried
    first, in order; plain ones (the trie) the longest."""
    if one[1] or other[1]:
        return one[1] and (not other[1] or n < m)
    return len(one[0]) > len(other[0])


def _escaped(data: bytes) -> bytes:
    """``data`` as a Hyperscan literal."""
    return b"".join(b"\\x%02x" % byte for byte in data)
