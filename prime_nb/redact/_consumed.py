"""A long text wider than its UTF-8 decoded while its bytes are cut from the line.

Why: a string of ASCII with a letter beyond Latin-1 in it (Hebrew, Arabic, a combining
mark) that is not narrowed (``_narrow.py``) is a ``str`` of two bytes a character,
about twice its UTF-8. Decoded whole, it is made while the line's buffer holds all its
bytes: the line and the text, 2.96 times the line at once, the peak of its redaction
(every later step holds the text and far less of the line). Here the ``str`` is made at
its length, as CPython's decoder makes one (``PyUnicode_New``), and filled from its end a
piece at a time (``PyUnicode_CopyCharacters``), each piece's bytes cut from the line's
buffer once copied; a ``bytearray`` gives its memory back whenever it falls under half
of it, so the buffer shrinks as the text fills: the line and half the text at most. Its
UTF-8 is checked whole first, so nothing is cut from a line that is then parsed whole.
Only where CPython's C API is at hand (elsewhere: None, and the text is decoded whole).
"""

from __future__ import annotations

import ctypes
import functools
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

#: how many bytes of the text are decoded at a time
PIECE = 1 << 16


def consumed(buffer: bytearray, start: int, end: int, stop: int) -> str | None:
    """The text of the UTF-8 ``buffer[start:end]``, the bytes ``buffer[start:stop]`` cut
    from ``buffer`` (what followed them moves to ``start``; past ``end``, what an escaped
    string's text was written over); None, ``buffer`` unchanged, where this Python has
    no C API to make the text so. Raises UnicodeDecodeError, ``buffer`` unchanged,
    where the bytes are not UTF-8."""
    api = _api()
    if api is None:
        return None
    new, copy = api
    pieces = checked_pieces(buffer, start, end)  # checks the UTF-8 before anything is cut
    del buffer[end:stop]
    length = pieces[-1][2] if pieces else 0
    # the kind ``str`` keeps it in (a byte, two or four a character), told by the
    # highest first byte of a character: its widest character's range
    top = int(np.frombuffer(buffer, np.uint8, end - start, start).max()) if length else 0
    widest = 0x10FFFF if top >= 0xF0 else 0xFFFF if top >= 0xC4 else 0xFF if top >= 0x80 else 0x7F
    # held in a list, not a name, so that nothing (a frame's ``f_locals``) holds a
    # second reference: CPython writes only into a ``str`` no one else holds
    made = [new(length, widest)]
    for k in reversed(range(len(pieces))):
        at, stop, _ = pieces[k]
        with memoryview(buffer) as view:
            piece = str(view[at:stop], "utf-8")
        copy(id(made[0]), pieces[k - 1][2] if k else 0, piece, 0, len(piece))
        del piece
        del buffer[at:stop]  # the last piece's bytes, behind those of every piece left
    return made.pop()


def checked_pieces(buffer: bytes | bytearray, start: int, end: int) -> list[tuple[int, int, int]]:
    """``buffer[start:end]`` cut before a character's first byte about every
    :data:`PIECE` bytes: each piece's (start, end, characters up to its end), each
    decoded once to check it is UTF-8 (raises UnicodeDecodeError where it is not)."""
    pieces: list[tuple[int, int, int]] = []
    chars, at = 0, start
    with memoryview(buffer) as view:
        while at < end:
            cut = min(end, at + PIECE)
            while start < cut < end and 0x80 <= view[cut] < 0xC0:
                cut -= 1
            if cut == at:  # never: a character is at most four bytes
                cut = min(end, at + PIECE)
            chars += len(str(view[at:cut], "utf-8"))
            pieces.append((at, cut, chars))
            at = cut
    return pieces


@functools.cache
def _api() -> tuple[Callable[[int, int], str], Callable[..., int]] | None:
    """CPython's ``PyUnicode_New`` and ``PyUnicode_CopyCharacters`` through ctypes, or
    None on another Python."""
    if sys.implementation.name != "cpython" or not hasattr(ctypes, "pythonapi"):
        return None
    try:
        new: Any = ctypes.pythonapi.PyUnicode_New
        copy: Any = ctypes.pythonapi.PyUnicode_CopyCharacters
    except AttributeError:  # pragma: no cover - a build without them
        return None
    new.restype, new.argtypes = ctypes.py_object, [ctypes.c_ssize_t, ctypes.c_uint32]
    copy.restype = ctypes.c_ssize_t
    copy.argtypes = [
        ctypes.c_void_p,  # the new ``str``, by its address: no reference taken
        ctypes.c_ssize_t,
        ctypes.py_object,
        ctypes.c_ssize_t,
        ctypes.c_ssize_t,
    ]
    return new, copy
