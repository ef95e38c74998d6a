"""Files that cannot hold a compaction, told from their bytes without parsing them.

Why: ``corpus_compactions`` has rows only for files with a compaction entry, and most
sessions of a corpus never compacted. Searching a file's bytes runs at memory speed,
without a Python object per line, so a file whose bytes rule a compaction out is not
parsed at all; its (empty) rows are the ones the pass would give.

The rule is sound, never a guess: an entry is a compaction when its ``type`` reads
``"compaction"`` after parsing, and the parse (orjson, or the loader's careful path for
odd lines) only ever replaces bytes (bad UTF-8, lone surrogates, values nested too deep),
never drops them. So the type's letters are in the file either as they are or written
as JSON escapes, ``\\u0061`` to ``\\u007a``. A file with neither may hold no compaction;
any other file is read by the pass as before.
"""

from __future__ import annotations

import io
import os
import re
import threading
from pathlib import Path
from typing import cast

import numpy as np

from .._names import real_name
from ..errors import SessionFormatError
from ..format import open_regular

WORD = b"compaction"
#: a JSON escape that could spell one of the word's letters (all are in U+0061..U+007A)
_ESCAPE = re.compile(rb"\\u00[67]")
#: bytes searched at a time: whatever the file's size, a thread holds four times this
#: (the block and three work arrays), kept for its next file
BLOCK = 1 << 20
#: carried from one block to the next, so that a word across the seam is seen
_SEAM = len(WORD) - 1
#: one block buffer per thread, with numpy's work arrays, reused from file to file
_scratch = threading.local()


def may_hold_compaction(path: str | Path) -> bool:
    """False only when the file's bytes rule out a compaction entry. A file that cannot
    be opened as a regular file counts as one that may (the pass reports it)."""
    try:
        fh = cast(io.FileIO, open_regular(real_name(os.fspath(path)), 0))  # unbuffered
    except (OSError, SessionFormatError):
        return True
    scratch = _Scratch.of_this_thread()
    with fh, memoryview(scratch.block) as view:
        held = 0  # bytes carried over from the block before
        while True:
            try:
                got = fh.readinto(view[held:])
            except OSError:
                return True
            if not got:
                return False
            end = held + got
            if scratch.holds(end):
                return True
            held = min(_SEAM, end)
            view[:held] = bytes(view[end - held : end])  # the two may overlap


#: byte tests every occurrence of the word passes, as (offset, mask, value): a byte of
#: the file at that offset from the match, masked, equals the value
_WORD_TESTS = ((0, 0xFF, ord("c")), (3, 0xFF, ord("p")), (6, 0xFF, ord("t")), (9, 0xFF, ord("n")))
#: ... and every escape of one of its letters: a backslash, a u, and a 6 or a 7
_ESCAPE_TESTS = ((0, 0xFF, ord("\\")), (1, 0xFF, ord("u")), (4, 0xFE, ord("6")))


class _Scratch:
    """A block buffer and the work arrays of :meth:`holds`, of one thread, kept from file
    to file: memory new to each read costs its first touch, more than the search itself."""

    def __init__(self) -> None:
        self.size = BLOCK + _SEAM
        self.block = bytearray(self.size)
        self.found = np.empty(self.size, dtype=np.bool_)
        self.test = np.empty(self.size, dtype=np.bool_)
        self.masked = np.empty(self.size, dtype=np.uint8)

    @classmethod
    def of_this_thread(cls) -> _Scratch:
        scratch: _Scratch | None = getattr(_scratch, "arrays", None)
        if scratch is None or scratch.size != BLOCK + _SEAM:
            scratch = _scratch.arrays = cls()
        return scratch

    def holds(self, end: int) -> bool:
        """Do the block's first ``end`` bytes hold the word, or an escape of one of its
        letters?

        numpy finds where one could start, comparing a few bytes at fixed offsets over the
        whole block at memory speed; an exact search, which is slower, runs only
        when it found a place (almost never in a file without a compaction)."""
        data = self.block
        codes = np.frombuffer(data, np.uint8, end)
        start = self._first_place(codes, _WORD_TESTS)
        if start >= 0 and data.find(WORD, start, end) >= 0:
            return True
        start = self._first_place(codes, _ESCAPE_TESTS)
        return start >= 0 and _ESCAPE.search(data, start, end) is not None

    def _first_place(self, codes: np.ndarray, tests: tuple[tuple[int, int, int], ...]) -> int:
        """The first place in ``codes`` where every test holds, or -1."""
        span = len(codes) - max(offset for offset, _, _ in tests)
        if span <= 0:
            return -1
        found, test, masked = self.found[:span], self.test[:span], self.masked[:span]
        for k, (offset, mask, value) in enumerate(tests):
            part = codes[offset : offset + span]
            if mask != 0xFF:
                part = np.bitwise_and(part, mask, out=masked)
            np.equal(part, value, out=test if k else found)
            if k:
                np.logical_and(found, test, out=found)
        place = int(found.argmax())  # the first True (0 when there is none)
        return place if found[place] else -1
