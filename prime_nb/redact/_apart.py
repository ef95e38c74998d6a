"""A long line's long strings decoded apart from the rest of its JSON.

Why: orjson copies the text it parses, so parsing a line whose bulk is one string (a
pasted file, a base64 blob, JSON held in a string) holds the line, orjson's copy of it
and the decoded string at once: three times the line. Here each string longer than
:data:`LONG_STRING`, a value or a key, is decoded apart: one that holds no escape and no
control character straight from the line's bytes (UTF-8, as orjson decodes it); one with
escapes, when the line is a ``bytearray`` (a long line is read into one), by orjson a
piece at a time, its UTF-8 written back over the escaped text in the line's own buffer
(never longer) and decoded from there, and the buffer's copy then blanked (no quote left
in it for the line's key count to read); one wider than its UTF-8 as a ``str`` (beyond
Latin-1) has its bytes cut from the buffer as it is decoded (``_consumed.py``). A
line's long strings' UTF-8 is checked before any string's bytes are changed. The rest of
the line, with a stand-in for each such string, is parsed by orjson, and the strings are
put back in its tree (an object with a key among them rebuilt in its order). The line's
bytes and its strings are all that is held at once.
"""

from __future__ import annotations

import contextlib
import functools
import secrets
import threading
from collections.abc import Iterator
from typing import Any

import hyperscan
import numpy as np
import orjson

from ._compiled import compiled
from ._consumed import checked_pieces, consumed
from ._json_bytes import STRING, narrowed_under
from ._narrow import (
    LongText,
    Narrowed,
    has_long_lead,
    kept_whole,
    narrowed_in_place,
)

#: a string value longer than this (in bytes) is decoded apart
LONG_STRING = 1 << 16
#: how much of a long string orjson checks at a time
PIECE = 1 << 16
#: what a stand-in holds besides its number: no line holds it (a NUL and a random word)
_STAND_IN = "\x00prime-nb-apart:" + secrets.token_hex(8) + ":"


def parsed_apart(body: bytes | bytearray) -> Any | None:
    """``orjson.loads(body)``, its long plain strings decoded apart; None when ``body``
    has none, or is not JSON as it stands (the caller parses it whole and says why)."""
    spans: list[tuple[int, int, bool]] = []  # (start, end, whether escaped)
    for start, end in _strings(body):
        if end - start - 2 <= LONG_STRING:
            continue
        if body.find(b"\\", start + 1, end - 1) == -1:
            if _plain(body, start + 1, end - 1):
                spans.append((start, end, False))  # else parsed by orjson with the rest
        elif isinstance(body, bytearray) and _escaped(body, start + 1, end - 1):
            spans.append((start, end, True))
    if not spans:
        return None
    # a string is decoded (or refused) before its bytes are changed; with more than
    # one, each is checked first, so that none is changed in a line then parsed whole
    if len(spans) > 1 and not all(escaped or _utf8(body, a + 1, b - 1) for a, b, escaped in spans):
        return None  # orjson refuses it too
    pieces: list[bytes] = []
    at = 0
    for i, (start, end, _) in enumerate(spans):
        pieces += [bytes(body[at:start]), orjson.dumps(_STAND_IN + str(i))]
        at = end
    pieces.append(bytes(body[at:]))
    try:
        tree = orjson.loads(b"".join(pieces))
    except orjson.JSONDecodeError:
        return None
    del pieces
    texts: dict[str, str | Narrowed] = {}
    # the last first, so that one whose bytes are cut from the line (``_consumed.py``)
    # moves none of those before it
    try:
        for i, (start, end, escaped) in reversed(list(enumerate(spans))):
            if escaped:
                assert isinstance(body, bytearray)  # only a buffer's are decoded apart
                texts[_STAND_IN + str(i)] = _unescaped_in_place(body, start + 1, end - 1)
            else:
                texts[_STAND_IN + str(i)] = _decoded(body, start + 1, end - 1, end - 1)
    except UnicodeDecodeError:  # the one string, refused before any byte changed
        return None
    return tree if _put_back(tree, texts) == len(texts) else None


def _decoded(body: bytes | bytearray, start: int, end: int, stop: int) -> str | Narrowed:
    """The text of the UTF-8 ``body[start:end]`` (the string's bytes end at ``stop``):
    narrowed in the line's own buffer where it holds emoji (``_narrow.py``; its bytes
    then blanked), else decoded as it is (held as a narrowed text with nothing narrowed
    where it is beyond ASCII, ``_narrow.kept_whole``); one wider than its UTF-8 as a
    ``str`` (beyond Latin-1) has its bytes cut from the line as it is decoded
    (``_consumed.py``)."""
    if not isinstance(body, bytearray):
        return str(memoryview(body)[start:end], "utf-8")
    with memoryview(body) as view:
        narrowed = narrowed_in_place(view, start, end)
    top = 0 if narrowed is not None or end <= start else _highest(body, start, end)
    if narrowed is None and top >= 0xC4:  # a character beyond Latin-1 starts there
        text = consumed(body, start, end, stop)
        if text is not None:
            return kept_whole(text)
    if narrowed is None:
        with memoryview(body) as view:
            text = str(view[start:end], "utf-8")
        if top < 0x80:  # ASCII
            return text
        narrowed = kept_whole(text)
        del text
    with memoryview(body) as view:
        _blanked(view, start, stop)
    return narrowed


def _highest(body: bytes | bytearray, start: int, end: int) -> int:
    """The highest byte of ``body[start:end]`` (NumPy's one pass, no copy)."""
    return int(np.frombuffer(body, np.uint8, end - start, start).max())


def _blanked(view: memoryview, start: int, end: int) -> None:
    for at in range(start, end, PIECE):
        stop = min(end, at + PIECE)
        view[at:stop] = _BLANK[: stop - at]


def _strings(body: bytes | bytearray) -> Iterator[tuple[int, int]]:
    """Where each string literal of the JSON text ``body`` starts and ends (its quotes
    included); a string with no escape is found at ``find``'s speed."""
    at = body.find(b'"')
    while at != -1:
        end = body.find(b'"', at + 1)
        if end == -1:
            return  # not closed: not JSON, parsed whole
        if body.find(b"\\", at + 1, end) != -1:  # an escape: perhaps of a quote
            m = STRING.match(body, at)
            if m is None:
                return
            end = m.end() - 1
        yield at, end + 1
        at = body.find(b'"', end + 1)


def _plain(body: bytes | bytearray, start: int, end: int) -> bool:
    """Whether ``body[start:end]``, a string's text without escapes, holds no control
    character (orjson refuses one unescaped), found by one Hyperscan pass over the
    line's own bytes. Its UTF-8 is checked when it is decoded: a string that is not
    UTF-8 makes the line parsed whole, as orjson would refuse it."""
    found = False

    def event(_item: int, _from: int, _end: int, _flags: int, _ctx: object) -> bool:
        nonlocal found
        found = True
        return True

    db = _control_db()
    with memoryview(body) as view, _scanning, contextlib.suppress(hyperscan.ScanTerminated):
        db.scan(view[start:end], match_event_handler=event)  # one scratch a db
    return not found


_scanning = threading.Lock()


def _utf8(body: bytes | bytearray, start: int, end: int) -> bool:
    """Whether ``body[start:end]`` is UTF-8: checked, where a line has more than one
    long string, before any string's bytes are changed (narrowed, blanked or cut), so
    that a line with one that is not is parsed whole from its bytes as read (orjson
    refuses it). ASCII is told at NumPy's speed; anything else is decoded a piece at a
    time."""
    if end <= start or _highest(body, start, end) < 0x80:
        return True
    try:
        checked_pieces(body, start, end)
    except UnicodeDecodeError:
        return False
    return True


@functools.cache
def _control_db() -> Any:
    """The database of a control character (compiled once, when first needed)."""
    return compiled([b"[\\x00-\\x1f]"], [0], [hyperscan.HS_FLAG_SINGLEMATCH])


_BACKSLASH, _U = ord("\\"), ord("u")


def _escaped_pieces(view: memoryview, start: int, end: int) -> Iterator[str]:
    """The text of the escaped JSON string text ``view[start:end]``, decoded by orjson a
    piece of about :data:`PIECE` bytes at a time. Raises JSONDecodeError where orjson
    refuses it (a piece cut inside an escape or a character is refused too: then the
    line is parsed whole, never read wrong)."""
    at = start
    while at < end:
        cut = _cut(view, at, end)
        text = orjson.loads(b'"' + view[at:cut] + b'"')
        assert isinstance(text, str)
        yield text
        at = cut


def _cut(view: memoryview, at: int, end: int) -> int:
    """Where the piece from ``at`` (an escape's or a character's start) ends: before a
    character's first byte, outside an escape, a surrogate pair's escapes together."""
    cut = min(end, at + PIECE)
    if cut == end:
        return cut
    while cut > at and 0x80 <= view[cut] < 0xC0:
        cut -= 1
    if cut == at:  # one character longer than a piece
        cut += 1
        while cut < end and 0x80 <= view[cut] < 0xC0:
            cut += 1
        return cut
    back = cut - 1
    while back >= max(at, cut - 12) and view[back] != _BACKSLASH:
        back -= 1
    if back < max(at, cut - 12):
        return cut  # no escape reaches the cut (one is at most 12 bytes)
    run = back  # the run of backslashes ``back`` ends: it starts an escape
    while run > at and view[run - 1] == _BACKSLASH:
        run -= 1
    if _low_surrogate(view, run, end) and run - 6 >= at and view[run - 6] == _BACKSLASH:
        run -= 6  # the pair's first escape
    if run == at:  # the piece starts with that escape: it alone
        return min(end, at + _escape_length(view, at, end))
    return run


def _escape_length(view: memoryview, at: int, end: int) -> int:
    if at + 1 >= end or view[at + 1] != _U:
        return 2
    if at + 12 <= end and view[at + 6] == _BACKSLASH and _low_surrogate(view, at + 6, end):
        return 12
    return 6


def _low_surrogate(view: memoryview, at: int, end: int) -> bool:
    """Whether ``view[at:]`` starts with an escaped low surrogate (``\\udc00``-``\\udfff``)."""
    return (
        at + 6 <= end
        and view[at + 1] == _U
        and view[at + 2] in b"dD"
        and view[at + 3] in b"cdefCDEF"
    )


def _escaped(body: bytearray, start: int, end: int) -> bool:
    """Whether the escaped string text ``body[start:end]`` is one orjson reads."""
    with memoryview(body) as view:
        try:
            for _ in _escaped_pieces(view, start, end):
                pass
        except orjson.JSONDecodeError:
            return False
    return True


#: what the line's copy of a string decoded in place is blanked with
_BLANK = b"x" * PIECE


def _unescaped_in_place(body: bytearray, start: int, end: int) -> str | Narrowed:
    """The text of the escaped string text ``body[start:end]`` (checked by
    :func:`_escaped`): each piece's UTF-8 is written back at the front of the string's
    bytes (an escape is never shorter than what it stands for, so the writing stays
    behind the reading), decoded from there; then the string's bytes are blanked (or
    cut, :func:`_decoded`)."""
    write = start
    with memoryview(body) as view:
        for text in _escaped_pieces(view, start, end):
            data = text.encode("utf-8")
            view[write : write + len(data)] = data
            write += len(data)
    return _decoded(body, start, write, end)


def _put_back(tree: Any, texts: dict[str, str | Narrowed]) -> int:
    """Each stand-in in ``tree`` replaced by its text (in place); how many were. A
    narrowed text goes in as a ``LongText`` (a list's item too), and as its text, whole,
    under a key the walk reads the value of or a ``key`` class's key
    (``_json_bytes.narrowed_under``), or as a key."""
    if isinstance(tree, str):
        return 0  # a line that is one string is not an entry: parsed whole
    count = 0
    stack = [tree] if isinstance(tree, dict | list) else []
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            count += _keys_put_back(node, texts)
        keys = node.keys() if isinstance(node, dict) else range(len(node))
        for key in keys:
            value = node[key]
            if isinstance(value, str):
                text = texts.get(value)
                if isinstance(text, Narrowed):
                    by_finders = narrowed_under(key, node if isinstance(node, dict) else None)
                    node[key] = LongText(text) if by_finders else text.whole()
                    count += 1
                elif text is not None:
                    node[key] = text
                    count += 1
            elif isinstance(value, dict | list):
                stack.append(value)
    return count


def _keys_put_back(node: dict[str, Any], texts: dict[str, str | Narrowed]) -> int:
    """The object ``node``'s stand-in keys replaced by their texts, in its order (in
    place); how many were. A key written twice keeps its first place and its last value,
    as orjson keeps it."""
    if not any(key in texts for key in node):
        return 0
    items = list(node.items())
    node.clear()
    count = 0
    for key, value in items:
        text = texts.get(key)
        if text is not None:
            key = text.whole() if isinstance(text, Narrowed) else text
            count += 1
        node[key] = value
    return count


def narrowed_copy(view: memoryview, start: int, end: int) -> Narrowed | None:
    """The text of the JSON string text ``view[start:end]`` narrowed (``_narrow.py``) in
    a copy of its UTF-8, ``view`` left as it is; None where it is not one to narrow, or
    orjson refuses it (then it is decoded as before, and refused there)."""
    data = view.obj
    assert isinstance(data, bytes | bytearray)
    if not has_long_lead(data, start, end):
        return None  # no emoji nor typographic mark written as itself
    copy = bytearray(end - start)  # its UTF-8 is never longer than its JSON
    write = 0
    try:
        for text in _escaped_pieces(view, start, end):
            data = text.encode("utf-8", "surrogatepass")
            copy[write : write + len(data)] = data
            write += len(data)
    except orjson.JSONDecodeError:
        return None
    del copy[write:]
    with memoryview(copy) as whole:
        try:
            return narrowed_in_place(whole, 0, write)
        except UnicodeDecodeError:  # a lone surrogate escaped: decoded as before
            return None
