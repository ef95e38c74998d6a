"""The lines of a session file as redaction reads them: each parsed, or held as bytes.

Why a module: how a line is read decides what is held of it at once. A line is read a
piece at a time into one growing buffer (``readline`` of a long line joins its pieces
into a new bytes: twice the line at once), and the heap left free then given back
(:func:`give_back_freed`); a long line's bytes are let go once parsed
(:data:`KEEP_RAW`); a long line of many small values, or of no string long enough to
be decoded apart, is held as bytes, to be walked as a stream (``_stream.py``) instead
of a tree as large as it or many times its size.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import platform
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

import orjson

from ..format import BOM, deep_enough, glued_spans, lenient_loads, trim_depth
from ._apart import LONG_STRING, parsed_apart
from ._json_bytes import STRING
from ._stream import deeper_than, repeated_keys

#: a line's bytes: a ``bytearray`` when it was read in pieces (:func:`read_line`)
Raw = bytes | bytearray


class Glued(NamedTuple):
    """A line holding JSON values glued together (``{...}{...}``: a writer that stopped
    between two writes): each is redacted, and the line stays glued, as written."""

    text: str
    spans: list[tuple[int, int, Any]]  # (start, end, value) of each value in ``text``
    #: values nested past ``KEEP_DEPTH`` were cut to null (as ``load()`` cuts them): each
    #: value is written anew, so that nothing the walk did not read is copied
    cut: bool = False


class Line(NamedTuple):
    number: int
    offset: int  # where the line starts in the file
    #: the line as on disk, with its line end; None for a line longer than
    #: :data:`KEEP_RAW`, which is copied from the file when it is kept as it is
    raw: Raw | None
    length: int  # its bytes, line end included
    head: bytes  # the BOM before the JSON, or b""
    tail: bytes  # the line end after it ("\n", "\r\n", or b"" for a last line)
    #: the JSON value; a Glued for glued values; INVALID_JSON when the line is no JSON;
    #: None when blank
    obj: Any
    #: why the raw bytes may hold more than ``obj``: a key repeated (its earlier values
    #: are dropped), a line repaired by the lenient parser; None when they hold ``obj``
    rewrite: str | None


#: a line longer than this is not held as bytes once parsed: its parsed value and, when
#: it changes, the new line are all that is held of it at a time (a copy kept as it is
#: is read again from the file)
KEEP_RAW = 1 << 16


def read_lines(path: Path, streamed: Callable[[int], bool]) -> Iterator[Line]:
    """Each line parsed, or held as bytes (:data:`STREAMED`) when ``streamed(number)``
    and :func:`many_values` or :func:`no_string_apart`. Why the list: a line's bytes are handed to
    :func:`parse_line` in a list it empties, so that no name here holds them while the
    line is redacted."""
    with open(path, "rb") as fh:
        offset, number = 0, 0
        # a loop, not ``for raw in enumerate(fh)``: enumerate keeps its last tuple, and
        # so the line's bytes, alive while the line is redacted
        while raw := read_line(fh):
            number += 1
            at, offset = offset, offset + len(raw)
            held = [raw]
            del raw
            yield parse_line(number, at, held, streamed(number))


#: a line is read this much at a time; a longer one grows in one buffer
READ_PIECE = 1 << 16


def read_line(fh: BinaryIO) -> Raw:
    """The next line of ``fh`` with its line end (empty at the end of the file). A line
    longer than :data:`READ_PIECE` is read a piece at a time into a ``bytearray``, which
    grows in place (``readline`` alone keeps every piece of a long line until it joins
    them into a new bytes: twice the line at once); then the heap's free memory is given
    back (:func:`give_back_freed`), before the line is parsed."""
    piece = fh.readline(READ_PIECE)
    if len(piece) < READ_PIECE or piece.endswith(b"\n"):
        return piece
    line = bytearray(piece)
    del piece
    while True:
        piece = fh.readline(READ_PIECE)
        line += piece
        if len(piece) < READ_PIECE or piece.endswith(b"\n"):
            give_back_freed()
            return line


def give_back_freed() -> None:
    """The heap's free memory given back to the system (glibc's ``malloc_trim``), once a
    long line is read. glibc keeps the heap's free blocks resident: the many small
    blocks the last long line's redaction freed (a long text's spans and cuts), and
    the blocks the buffer left behind where ``realloc`` moved it. A long line's parse
    makes long blocks, mapped apart, which cannot reuse them: held through the parse,
    they set the peak (pass 2's, above pass 1's by about half the line when the line
    is one long key). Elsewhere than glibc nothing is done."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim`` through ctypes, or None on another C library."""
    if platform.libc_ver()[0] != "glibc":
        return None
    try:
        trim: Callable[[int], int] = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # pragma: no cover - a static interpreter
        return None
    return trim


def parse_line(number: int, offset: int, held: list[Raw], streamed: bool = False) -> Line:
    raw = held.pop()
    length = len(raw)
    tail = line_end(raw)
    head = BOM if raw.startswith(BOM) else b""
    if streamed and (many_values(raw) or no_string_apart(raw)):
        return Line(number, offset, raw, length, head, tail, STREAMED, None)
    kept = raw if length <= KEEP_RAW else None
    # orjson reads the line with its line end (JSON whitespace), so no copy without it
    # is made; only a line with a BOM is cut
    body = raw[len(head) : length - len(tail)] if head else raw
    if not body or body.isspace():
        return Line(number, offset, kept, length, head, tail, None, None)
    try:
        obj = parsed_apart(body) if length > KEEP_RAW else None
        obj = orjson.loads(body) if obj is None else obj
    except orjson.JSONDecodeError:
        obj = _REFUSED  # read below, out of this block: orjson's error holds the text
    if obj is not _REFUSED:
        repeated = repeated_keys(obj, body)
        rewrite = "repeated-key" if repeated else None
        return Line(number, offset, kept, length, head, tail, obj, rewrite)
    if body is raw:
        body = _without_end(raw, tail, kept is None)
    del raw
    obj = _parsed_with_lone_surrogates_replaced(body, length > KEEP_RAW)
    if obj is not _REFUSED:
        return Line(number, offset, kept, length, head, tail, obj, REPAIRED)
    deep = deep_enough(body)
    text, utf8 = _decoded(body)
    del body  # a long line's bytes: the text alone is held while it is read
    glued = _glued_text(text, deep) if utf8 else None
    if glued is not None:
        return Line(number, offset, kept, length, head, tail, glued, None)
    obj, _repair = lenient_loads(text)
    del text
    # the parser nests as deep as the stack allows, and redaction's stack is deep
    # (``with_deep_stack``): cut as ``load()`` cuts, so the walk fits in it too
    obj = fit(obj) if deep else obj
    return Line(number, offset, kept, length, head, tail, obj, REPAIRED)


#: why a line orjson refuses is written anew: the lenient parser read it (``load()``'s
#: reading), which orjson would write otherwise (a number past a double's range: null)
REPAIRED = "repaired-line"
#: what a line orjson refuses parses to, until it is read otherwise
_REFUSED = object()

#: a ``\u`` escape of a UTF-16 surrogate after an even run of backslashes (none of them
#: escaping it); its four hex digits are the group
_SURROGATE_ESCAPE = re.compile(rb"(?<!\\)(?:\\\\)*+\\u([dD][89a-fA-F][0-9a-fA-F]{2})")
#: what a lone surrogate's hex digits become: U+FFFD, as ``load()`` reads it
_REPLACEMENT = b"fffd"


def _parsed_with_lone_surrogates_replaced(body: Raw, apart: bool) -> Any:
    """The refused line ``body`` parsed by orjson once each escape of a lone surrogate
    in it is written as U+FFFD's (in the line's own buffer: the same length), which is
    what the lenient parser reads it as; ``_REFUSED`` (the line as it was) when it has
    none, or orjson refuses it still. Why: the lenient parser holds the line's text,
    the string with the lone surrogate, two bytes a character (a surrogate is beyond
    Latin-1), and its copy with U+FFFD, where orjson's tree, each long string decoded
    apart (``parsed_apart`` when ``apart``), holds the line's bytes and its strings."""
    if not isinstance(body, bytearray) or (body.find(b"\\ud") == -1 and body.find(b"\\uD") == -1):
        return _REFUSED
    lone = _lone_surrogates(body)
    if not lone:
        return _REFUSED
    digits = [bytes(body[at : at + 4]) for at in lone]
    for at in lone:
        body[at : at + 4] = _REPLACEMENT
    try:
        obj = parsed_apart(body) if apart else None
        return orjson.loads(body) if obj is None else obj
    except orjson.JSONDecodeError:
        pass  # out of the handler: orjson's error holds the line as text
    for at, old in zip(lone, digits, strict=True):  # read as it was, by the lenient parser
        body[at : at + 4] = old
    return _REFUSED


def _lone_surrogates(body: bytearray) -> list[int]:
    """Where the hex digits of each escape of a lone surrogate in ``body`` start: a high
    one not followed at once by the escape of a low one, a low one not preceded at once
    by a high one (``json`` reads such a pair as one character, and either alone as a
    lone surrogate)."""
    lone: list[int] = []
    high, high_end = -1, -1  # where a high one's digits start, unpaired yet; its end
    for m in _SURROGATE_ESCAPE.finditer(body):
        at = m.start(1)
        if body[at + 1] not in _LOW_SECOND:
            if high >= 0:
                lone.append(high)
            high, high_end = at, m.end()
            continue
        if high >= 0 and m.start() == high_end and at == m.start() + 2:
            high = -1  # a pair: one character
            continue
        if high >= 0:
            lone.append(high)
            high = -1
        lone.append(at)
    if high >= 0:
        lone.append(high)
    return lone


#: the second hex digit of a low surrogate (``dc00``-``dfff``)
_LOW_SECOND = frozenset(b"cdefCDEF")


def _without_end(raw: Raw, tail: bytes, alone: bool) -> Raw:
    """``raw`` without its line end ``tail``: cut off in place when ``raw`` is a buffer no
    one else holds (``alone``), else a copy."""
    if alone and isinstance(raw, bytearray):
        with contextlib.suppress(BufferError):  # a view of it still held: copied
            del raw[len(raw) - len(tail) :]
            return raw
    return raw[: len(raw) - len(tail)]


#: a line longer than this whose values are many and small (:func:`many_values`), or
#: that holds no string decoded apart (:func:`no_string_apart`), is walked as a stream
#: of its values (``_stream.py``), not parsed into a tree
STREAM_MIN = 1 << 18
#: what one value costs as a Python object, at least (an object's header and a pointer)
VALUE_COST = 64
#: the ``obj`` of a line held as bytes, to be walked as a stream
STREAMED = object()


def many_values(raw: Raw) -> bool:
    """Whether the line's tree would cost more than its bytes: a value per
    :data:`VALUE_COST` bytes or more (strings and commas counted at C speed; the
    escaped quotes inside strings are not strings)."""
    if len(raw) <= STREAM_MIN:
        return False
    quotes, commas = raw.count(b'"'), raw.count(b",")
    if (quotes // 2 + commas) * VALUE_COST <= len(raw):
        return False  # too few even if no quote is escaped: no third count
    strings = (quotes - raw.count(b'\\"')) // 2
    return (strings + commas) * VALUE_COST > len(raw)


#: a quote and more bytes than a string decoded apart holds, none a quote: the start of
#: such a string, or of a long stretch between two strings (a long number, spaces)
_LONG_AFTER_QUOTE = re.compile(rb'"[^"]{%d}' % (LONG_STRING + 1))


def no_string_apart(raw: Raw) -> bool:
    """Whether a line over :data:`STREAM_MIN` holds no string that ``parsed_apart``
    decodes apart (longer than ``LONG_STRING``). Why: every other value's tree costs
    about its bytes or more (a string of 4 KB is a ``str`` of 4 KB), and orjson's parse
    holds the line, its copy of it and the tree at once, three times the line; the
    stream walk holds the line and a value at a time. A long string is decoded apart
    instead: the stream walk would hold the line's bytes beside it while it is redacted,
    where the tree walk lets them go once the line is parsed.

    A long stretch with no quote is found at C speed; a line with an escaped quote, which
    such a stretch does not cross, is read a string at a time (at C speed too when its
    strings are long)."""
    if len(raw) <= STREAM_MIN or _LONG_AFTER_QUOTE.search(raw) is not None:
        return False
    if raw.find(b'\\"') == -1:
        return True  # every string is within a stretch between two quotes
    return all(m.end() - m.start() - 2 <= LONG_STRING for m in STRING.finditer(raw))


def line_end(raw: Raw) -> bytes:
    """The ``\\n`` ending ``raw`` and the ``\\r`` before it (no stripped copy of a long line)."""
    end = len(raw)
    if end and raw[end - 1] == 0x0A:
        end -= 1
    while end and raw[end - 1] == 0x0D:
        end -= 1
    return bytes(raw[end:])


def _decoded(body: Raw) -> tuple[str, bool]:
    """The text of a line orjson refused, and whether it is UTF-8 (else its text with
    U+FFFD for what is not, as ``load()`` reads it). Why one text: the glued reading
    and the lenient parser both read it, each holding a number's digits as a ``str``
    beside it (``json``'s scanner cuts them out to convert them), and the caller lets
    go of the line's bytes before either reads: of a line of one long number, the text
    and its digits are all that is held, 2x the line."""
    try:
        return body.decode("utf-8"), True
    except UnicodeDecodeError:
        pass  # out of the handler: the error holds a copy of the line
    return body.decode("utf-8", errors="replace"), False


def read_glued(body: Raw) -> Glued | None:
    """The glued values of a line's bytes (:class:`Glued`), or None (``parse_line``
    reads the text it has decoded already, :func:`_glued_text`; the tests' oracles of
    the code before call this)."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return _glued_text(text, deep_enough(body))


def _glued_text(text: str, deep: bool) -> Glued | None:
    """The glued values of a line's UTF-8 ``text`` (``deep``: it has brackets enough to
    nest past what is kept, :func:`~prime_nb.format.deep_enough`), or None."""
    spans = glued_spans(text)
    if spans is None:
        return None
    if "\\ud" in text or "\\uD" in text:  # a lone surrogate's escape, maybe
        spans = [(start, end, _without_lone_surrogates(value)) for start, end, value in spans]
    if not deep:
        return Glued(text, spans)
    deep = any(deeper_than(value, ORJSON_DEPTH) for _, _, value in spans)
    if not deep:
        return Glued(text, spans)
    return Glued(text, [(start, end, trim_depth(value)[0]) for start, end, value in spans], True)


#: a surrogate not paired, as the standard library's JSON reader keeps one
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _without_lone_surrogates(value: Any) -> Any:
    """``value`` with each lone surrogate of its strings and keys as U+FFFD, what the
    lenient parser reads it as: a glued value is read by the standard library, which
    keeps it, and no UTF-8 text (the file written, the report's field paths) can hold
    one. Lists and objects are changed in place, a level at a time (no recursion: a
    glued value may nest thousands deep)."""
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if not isinstance(value, list | dict):
        return value
    todo: list[list[Any] | dict[str, Any]] = [value]
    while todo:
        node = todo.pop()
        if isinstance(node, dict):
            if any(_LONE_SURROGATE.search(key) for key in node):
                items = list(node.items())
                node.clear()
                for key, item in items:  # in order; a key made the same keeps the last
                    node[_LONE_SURROGATE.sub("\ufffd", key)] = item
            members: Any = node.items()
        else:
            members = enumerate(node)
        for at, item in list(members):
            if isinstance(item, str):
                if _LONE_SURROGATE.search(item):
                    node[at] = _LONE_SURROGATE.sub("\ufffd", item)
            elif isinstance(item, list | dict):
                todo.append(item)
    return value


#: how deep orjson reads; the walk is tested to this depth and beyond (``_deep.py``)
ORJSON_DEPTH = 1024


def fit(value: Any) -> Any:
    """``value``, cut as ``load()`` cuts it when it nests deeper than orjson reads."""
    return trim_depth(value)[0] if deeper_than(value, ORJSON_DEPTH) else value
