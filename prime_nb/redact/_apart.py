"""A long line's long strings decoded apart from the rest of its JSON.

Why: orjson copies the text it parses, so parsing a line whose bulk is one string (a
pasted file, a base64 blob) holds the line, orjson's copy of it and the decoded string
at once: three times the line. Here each string value longer than :data:`LONG_STRING`
that holds no escape and no control character is decoded straight from the line's bytes
(UTF-8, as orjson decodes it); the rest of the line, with a stand-in for each such
string, is parsed by orjson, and the strings are put back in its tree. The line's bytes
and its strings are all that is held at once.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import Any

import orjson

from ._stream import _SPACE, _STRING

#: a string value longer than this (in bytes) is decoded apart
LONG_STRING = 1 << 20
#: how much of a long string orjson checks at a time
PIECE = 1 << 16
#: what a stand-in holds besides its number: no line holds it (a NUL and a random word)
_STAND_IN = "\x00prime-nb-apart:" + secrets.token_hex(8) + ":"


def parsed_apart(body: bytes | bytearray) -> Any | None:
    """``orjson.loads(body)``, its long plain strings decoded apart; None when ``body``
    has none, or is not JSON as it stands (the caller parses it whole and says why)."""
    spans: list[tuple[int, int]] = []
    for start, end in _strings(body):
        if end - start - 2 <= LONG_STRING:
            continue
        after = _SPACE.match(body, end)
        assert after is not None  # matches the empty string
        if body[after.end() : after.end() + 1] == b":":
            continue  # a key: parsed with the rest
        if body.find(b"\\", start + 1, end - 1) == -1 and _plain(body, start + 1, end - 1):
            spans.append((start, end))  # else decoded by orjson with the rest
    if not spans:
        return None
    pieces: list[bytes] = []
    at = 0
    for i, (start, end) in enumerate(spans):
        pieces += [bytes(body[at:start]), orjson.dumps(_STAND_IN + str(i))]
        at = end
    pieces.append(bytes(body[at:]))
    try:
        tree = orjson.loads(b"".join(pieces))
    except orjson.JSONDecodeError:
        return None
    del pieces
    texts: dict[str, str] = {}
    with memoryview(body) as view:
        for i, (start, end) in enumerate(spans):
            try:
                texts[_STAND_IN + str(i)] = str(view[start + 1 : end - 1], "utf-8")
            except UnicodeDecodeError:  # orjson refuses it too
                return None
    return tree if _put_back(tree, texts) == len(texts) else None


def _strings(body: bytes | bytearray) -> Iterator[tuple[int, int]]:
    """Where each string literal of the JSON text ``body`` starts and ends (its quotes
    included); a string with no escape is found at ``find``'s speed."""
    at = body.find(b'"')
    while at != -1:
        end = body.find(b'"', at + 1)
        if end == -1:
            return  # not closed: not JSON, parsed whole
        if body.find(b"\\", at + 1, end) != -1:  # an escape: perhaps of a quote
            m = _STRING.match(body, at)
            if m is None:
                return
            end = m.end() - 1
        yield at, end + 1
        at = body.find(b'"', end + 1)


def _plain(body: bytes | bytearray, start: int, end: int) -> bool:
    """Whether ``body[start:end]``, a string's text without escapes, is one orjson reads
    (UTF-8, no control character); read by orjson a piece at a time, each cut before a
    character's first byte."""
    with memoryview(body) as view:
        at = start
        while at < end:
            cut = min(end, at + PIECE)
            while cut < end and 0x80 <= view[cut] < 0xC0:
                cut -= 1
            if cut <= at:
                return False
            try:
                orjson.loads(b'"' + view[at:cut] + b'"')
            except orjson.JSONDecodeError:
                return False
            at = cut
    return True


def _put_back(tree: Any, texts: dict[str, str]) -> int:
    """Each stand-in in ``tree`` replaced by its text (in place); how many were."""
    if isinstance(tree, str):
        return 0  # a line that is one string is not an entry: parsed whole
    count = 0
    stack = [tree] if isinstance(tree, dict | list) else []
    while stack:
        node = stack.pop()
        keys = node.keys() if isinstance(node, dict) else range(len(node))
        for key in keys:
            value = node[key]
            if isinstance(value, str):
                text = texts.get(value)
                if text is not None:
                    node[key] = text
                    count += 1
            elif isinstance(value, dict | list):
                stack.append(value)
    return count
