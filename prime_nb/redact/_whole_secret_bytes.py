"""A long list or object under a secret's key, counted and read from a line's bytes, as
the tree walk reads its parsed value (``_whole_secret.py``).

Why: the stream walk enters a list or object over 16 KB without parsing it. Whether it
is replaced whole is told by counting its values up to one past the limit, without
decoding a string; its placeholder's digest and the keys and strings pass 1 learns are
read in one pass over its bytes, a run of up to 256 items or one string at a time, in
the pieces orjson writes of its parsed value. What the stream walk could not vouch for
(a repeated key, nested past its depth, text orjson refuses, not JSON) raises
ValueError, and the line is walked as a tree.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import orjson

from . import _apart
from ._json_bytes import SCALAR_TEXT, SPACE, STRING, STRING_TEXT, narrowed_under
from ._narrow import LongText
from ._whole_secret import LIMIT, PIECE, Piece, string_text

_SCALAR = re.compile(SCALAR_TEXT)
#: what lies between values: blanks, brackets, commas and colons
_BETWEEN = re.compile(rb"[ \t\r\n\[\]{},:]*+")
_ITEM = rb"(?:" + STRING_TEXT + rb"|" + SCALAR_TEXT + rb")"
#: a run of strings and scalars in a list, ending before a comma or its close
_RUN = re.compile(
    _ITEM + rb"(?:[ \t\r\n]*+,[ \t\r\n]*+" + _ITEM + rb"){0,%d}+" % (LIMIT - 1), re.DOTALL
)
_QUOTE, _COLON, _COMMA = ord('"'), ord(":"), ord(",")
#: a string longer than this (in bytes) is narrowed where it has emoji in it
NARROWED = 1 << 16
_OPEN = {ord("{"): ord("}"), ord("["): ord("]")}
#: what the reader expects next
_VALUE, _FIRST_VALUE, _KEY, _FIRST_KEY, _AFTER_KEY, _AFTER_VALUE = range(6)


def counted_over(buf: bytes | bytearray, start: int, end: int, limit: int = LIMIT) -> bool:
    """Whether the list or object ``buf[start:end]`` holds more than ``limit`` values,
    counted no further than that; its strings are skipped, not decoded."""
    count = 0
    at = start
    while True:
        m = _BETWEEN.match(buf, at, end)
        assert m is not None  # matches the empty string
        at = m.end()
        if at >= end:
            return False
        if buf[at] == _QUOTE:
            m = STRING.match(buf, at, end)
            if m is None:
                raise ValueError("a string without its closing quote")
            at = m.end()
            space = SPACE.match(buf, at, end)
            assert space is not None
            if space.end() < end and buf[space.end()] == _COLON:
                continue  # a key
        else:
            m = _SCALAR.match(buf, at, end)
            if m is None:
                raise ValueError("a value JSON does not allow")
            at = m.end()
        count += 1
        if count > limit:
            return True


def stream_pieces(
    buf: bytes | bytearray,
    start: int,
    end: int,
    room: int,
    loads: Callable[[bytes | memoryview], Any] = orjson.loads,
) -> Iterator[Piece]:
    """What orjson writes of the parsed list or object ``buf[start:end]`` (nesting at
    most ``room`` levels), in pieces (see ``_whole_secret.Piece``); its runs of items and
    its numbers read by ``loads`` (the stream walk's reads a number past a double's
    range as the tree walk does)."""
    view = memoryview(buf)
    # per open list or object: None, or an object's keys' hashes
    frames: list[array[int] | None] = []
    closes: list[int] = []
    state = _VALUE
    at = start
    last = ""  # the last key read
    while True:
        space = SPACE.match(buf, at, end)
        assert space is not None
        at = space.end()
        if at >= end:
            raise ValueError("a list or object that does not close")
        byte = buf[at]
        if state == _AFTER_KEY:
            if byte != _COLON:
                raise ValueError("a key without its colon")
            state, at = _VALUE, at + 1
            continue
        if state in (_AFTER_VALUE, _FIRST_KEY, _FIRST_VALUE) and byte == closes[-1]:
            hashes = frames.pop()
            if hashes is not None and _repeated(hashes):
                raise ValueError("a repeated key")
            yield bytes((closes.pop(),)), None, False, 0
            at += 1
            if not frames:
                if SPACE.match(buf, at, end).end() != end:  # type: ignore[union-attr]
                    raise ValueError("more after the list or object")
                return
            state = _AFTER_VALUE
            continue
        if state == _AFTER_VALUE:
            if byte != _COMMA:
                raise ValueError("members not separated by a comma")
            yield b",", None, False, 0
            state, at = (_KEY if frames[-1] is not None else _VALUE), at + 1
            continue
        if state in (_KEY, _FIRST_KEY):
            if byte != _QUOTE:
                raise ValueError("a key that is not a string")
            key, at = _string_at(buf, view, at, end)
            last = key
            frames[-1].append(hash(key))  # type: ignore[union-attr]
            yield orjson.dumps(key) + b":", key, True, 0
            state = _AFTER_KEY
            continue
        # a value
        if byte in _OPEN:
            if len(frames) >= room:
                raise ValueError("nested past the depth the stream walk takes")
            frames.append(array("q") if byte == ord("{") else None)
            closes.append(_OPEN[byte])
            yield bytes((byte,)), None, False, 0
            state, at = (_FIRST_KEY if byte == ord("{") else _FIRST_VALUE), at + 1
            continue
        state = _AFTER_VALUE
        run = _RUN.match(buf, at, end) if frames and frames[-1] is None else None
        if run is not None and run.end() - at <= PIECE:
            values = loads(b"[" + buf[at : run.end()] + b"]")
            yield orjson.dumps(values)[1:-1], None, False, len(values)
            for value in values:
                if isinstance(value, str):
                    yield b"", value, False, 0
            at = run.end()
        elif byte == _QUOTE:
            text, at = _string_at(buf, view, at, end, last if frames[-1] is not None else 0)
            yield string_text(text), text, False, 1
        else:
            m = _SCALAR.match(buf, at, end)
            if m is None:
                raise ValueError("a value JSON does not allow")
            yield orjson.dumps(loads(view[at : m.end()])), None, False, 1
            at = m.end()


def _string_at(
    buf: bytes | bytearray, view: memoryview, at: int, end: int, key: str | int | None = None
) -> tuple[str, int]:
    """The string at ``at`` and where it ends; a long one under ``key`` narrowed where
    the stream walk narrows it (``StreamWalk._read``), in a copy of its UTF-8. One with
    no escape ends at its next quote, found at ``find``'s speed."""
    stop = buf.find(b'"', at + 1, end) + 1
    if not stop or buf.find(b"\\", at + 1, stop) != -1:
        m = STRING.match(buf, at, end)
        if m is None:
            raise ValueError("a string without its closing quote")
        stop = m.end()
    if key is not None and stop - at > NARROWED and narrowed_under(key):
        narrowed = _apart.narrowed_copy(view, at + 1, stop - 1)
        if narrowed is not None:
            return LongText(narrowed), stop
    text: Any = orjson.loads(view[at:stop])
    return text, stop


def _repeated(hashes: array[int]) -> bool:
    """Whether two keys have one hash (a repeated key, or two that share a hash: either
    way the line goes to the tree walk)."""
    if len(hashes) < 2:
        return False
    ordered: np.ndarray[Any, np.dtype[np.int64]] = np.frombuffer(hashes, np.int64)
    ordered.sort()  # where they are: the array is let go after
    return bool((ordered[1:] == ordered[:-1]).any())
