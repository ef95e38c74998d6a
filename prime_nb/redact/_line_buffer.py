"""A long line read into one growing buffer, the heap's free memory given back as it grows.

Why: a buffer grown a piece at a time (``bytearray +=``) is moved by ``realloc`` where
the block after it is taken, and a move copies it. Once a redaction has run in the
process, the thread that walks the file takes a heap of its own that the last run left
(glibc's arena of a thread), and the buffer is carved from that heap: every piece read
after it lies past it, so it is moved again and again, and each old copy stays resident
(glibc keeps freed blocks) until the heap is trimmed. Reading a line of 2 MB so peaked at
two to three times the line before anything was parsed, over the line and its text held
when it is decoded (``_apart.py``). Here the heap's free memory is given back each time
the buffer has doubled (a trim each, a few a line), so at most the buffer and the copy it
is moving to are held.

A buffer made once at the line's length would not move, but is carved from the free
blocks the last line left, where freed blocks stay resident after the line is parsed
and are touched anew by its walk: a line of deep nesting grew 3.7x against 3.0.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import BinaryIO


def grown_line(fh: BinaryIO, first: bytes, piece: int, trim: Callable[[], None]) -> bytearray:
    """The line ``first`` starts (a piece of ``piece`` bytes read from ``fh`` without its
    line end), with its line end, read into a ``bytearray`` a piece at a time; ``trim``
    (the heap's free memory given back) is called each time it has doubled."""
    line = bytearray(first)
    del first
    trim_at = 2 * len(line)
    while True:
        more = fh.readline(piece)
        line += more
        if len(more) < piece or more.endswith(b"\n"):
            return line
        if len(line) >= trim_at:
            trim()
            trim_at = 2 * len(line)
