"""A long line read into one buffer made once at its length, never grown.

Why: a buffer grown a piece at a time (``bytearray +=``) is moved by ``realloc`` where
the block after it is taken, and a move copies it. Once a redaction has run in the
process, the thread that walks the file takes a heap of its own that the last run left
(glibc's arena of a thread), and a long block is carved from that heap, not mapped
apart: every piece read after the buffer lies past it, so the buffer is moved at nearly
every piece, and each old copy stays resident until it is reused. Reading a line of
2 MB so peaked at two to three times the line before anything was parsed, over the
line and its text held when it is decoded (``_apart.py``). Here the line's end is found
first, a piece at a time (each piece let go as the next is read), and the line is then
read again from its start into a buffer of its length: the line, once, and a piece.
"""

from __future__ import annotations

import io
from typing import BinaryIO


def whole_line(fh: BinaryIO, first: bytes, piece: int) -> bytearray:
    """The line ``first`` starts (a piece of ``piece`` bytes read from ``fh`` without its
    line end), with its line end, in a ``bytearray`` of its length; ``fh`` is left after
    it. A stream that cannot seek back has its line read into a growing buffer."""
    try:
        start = fh.tell() - len(first)
    except (OSError, io.UnsupportedOperation):
        start = -1
    readinto = getattr(fh, "readinto", None)
    if start < 0 or readinto is None or not fh.seekable():
        return _grown(fh, first, piece)
    length = len(first)
    while True:
        more = fh.readline(piece)
        length += len(more)
        if len(more) < piece or more.endswith(b"\n"):
            break
    del more
    line = bytearray(length)
    fh.seek(start)
    got = 0
    with memoryview(line) as view:
        while got < length:
            read = readinto(view[got:])
            if not read:
                break
            got += read
    if got < length:  # the file was cut since its end was found: what is left
        del line[got:]
    return line


def _grown(fh: BinaryIO, first: bytes, piece: int) -> bytearray:
    line = bytearray(first)
    del first
    while True:
        more = fh.readline(piece)
        line += more
        if len(more) < piece or more.endswith(b"\n"):
            return line
