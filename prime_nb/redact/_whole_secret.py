"""A list or object of many values under a secret's key, replaced as one value.

Why: every value under a secret's key is a secret (``{"api_key": ...}``), replaced by a
placeholder of its own and reported as a row. Under a list of thousands of small numbers
or an object of thousands of short members, those placeholders, the known values and the
report's rows are many times the line. A list or object that holds more than
:data:`LIMIT` values (strings, numbers, booleans and nulls, at any depth) is a secret as
a whole: it becomes one placeholder string, reported as one row at its own field path;
past that many values the numbering of each tells a reader nothing. A smaller one has
each value replaced, as before.

Its placeholder is known by a digest of what orjson writes of it (compact, orjson's
escapes), so the same list met twice gets the same one. The tree walk reads that text
from the parsed value (:func:`tree_pieces`), the stream walk from the line's bytes
(``_whole_secret_bytes.py``), in the same pieces: each key and string value with its
text, so that pass 1 learns, from both, the strings a rule or the secret key's reading
would make file-wide (a provider token inside is replaced wherever else it stands).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from typing import Any, Protocol

import orjson

from ._batch import left_out
from ._find import SECRET_FIELD
from ._findings import WIDE_MAX
from ._narrow import LongText
from ._rule import Rule
from ._values import strongly_random, structural_stand_in

#: a list or object under a secret's key with more values than this is replaced whole
LIMIT = 256
#: what a whole list or object is known by among the secret values: this, and the
#: digest of its text (no string value starts with a NUL and this word)
WHOLE_KEY = "\x00whole:"
#: as the scrubber's object of many members: a text shorter than this, in a batch of at
#: least this many, is told in one scan of them all whether any rule reads it; at most
#: this many are remembered as read by none
_SHORT, _BATCH_LEAST, _CLEAN_KEPT = 64, 16, 1 << 12
#: how much of a long string is encoded at a time (as the stream walk writes it)
PIECE = 1 << 16

#: one piece of what orjson writes of a list or object: its bytes, the key's or string
#: value's text where it is one (None otherwise), whether it is a key, and how many
#: values (strings, numbers, booleans, nulls) it writes
Piece = tuple[bytes, str | None, bool, int]


class Learner(Protocol):
    """What of the scrubber (``_scrub.Scrubber``, which calls this module: named by its
    shape, not imported) is asked."""

    rules: list[Rule]
    _clean: set[str]

    def _key(self, key: str, path: str, hits: None) -> str: ...

    def _string(self, text: str, path: str, secret: bool, hits: None) -> str: ...

    def _learn_value(self, value: str, rule: Rule, confident: bool) -> str: ...


def whole_placeholder(scrubber: Learner, pieces: Iterable[Piece], path: str, learning: bool) -> str:
    """The one placeholder of a list or object of many values under a secret's key,
    known by a digest of its ``pieces``. While ``learning`` (pass 1), its keys and
    strings are learned as each would be alone where that makes them file-wide (a random
    value, a provider token inside), and no value of it is learned one by one."""
    digest = hashlib.blake2b(digest_size=16)
    batch: list[tuple[str, bool]] = []
    for piece, text, is_key, _ in pieces:
        digest.update(piece)
        if learning and text is not None:
            batch.append((text, is_key))
            if len(batch) >= LIMIT:
                _learn(scrubber, batch, path)
                batch = []
    _learn(scrubber, batch, path)
    return scrubber._learn_value(WHOLE_KEY + digest.hexdigest(), SECRET_FIELD, False)


def _learn(scrubber: Learner, batch: list[tuple[str, bool]], path: str) -> None:
    """Learn a batch of keys and strings (each with whether it is a key) in order; the
    short ones that no rule can read are told first, in a few scans of them all
    (``_batch``), as an object's members are (``Scrubber._dispatch_together``)."""
    short = [text for text, _ in batch if type(text) is str and len(text) < _SHORT]
    if len(short) >= _BATCH_LEAST:
        if len(scrubber._clean) > _CLEAN_KEPT:
            scrubber._clean.clear()
        scrubber._clean.update(left_out(scrubber.rules, short))
    for text, is_key in batch:
        if is_key:
            scrubber._key(text, path, None)
            continue
        value = _text_of(text)
        if value is not None and _random_alone(value):
            scrubber._learn_value(value, SECRET_FIELD, True)
        scrubber._string(text, path, False, None)


def _text_of(text: str) -> str | None:
    """``text`` as a plain string where it is short enough to be known by itself (of a
    narrowed one, its text made whole: the stream walk reads it decoded); None past
    that (a long value is never file-wide: ``_findings.WIDE_MAX``)."""
    if isinstance(text, LongText):
        return text.source.whole() if len(text.source) <= WIDE_MAX else None
    return text if len(text) <= WIDE_MAX else None


def _random_alone(text: str) -> bool:
    """Whether ``text`` alone under a secret's key would be replaced file-wide."""
    return not structural_stand_in(text) and strongly_random(text)


def values_over(obj: dict[str, Any] | list[Any], limit: int = LIMIT) -> bool:
    """Whether ``obj`` holds more than ``limit`` values at any depth (counted no
    further than that)."""
    count = 0
    stack: list[Any] = [obj]
    while stack:
        node = stack.pop()
        for child in node.values() if isinstance(node, dict) else node:
            if isinstance(child, dict | list):
                stack.append(child)
            else:
                count += 1
                if count > limit:
                    return True
    return False


def tree_pieces(obj: dict[str, Any] | list[Any]) -> Iterator[Piece]:
    """What orjson writes of ``obj``, a piece at a time, in the order it writes them (no
    recursion: a list may nest as deep as the line does). A narrowed text
    (``LongText``) is written as the text it stands for."""
    # each frame: the members or items left, and whether it is an object
    stack: list[tuple[Iterator[Any], bool]] = []
    yield from _opened(obj, stack)
    while stack:
        members, is_object = stack[-1]
        step = next(members, _DONE)
        if step is _DONE:
            stack.pop()
            yield (b"}" if is_object else b"]"), None, False, 0
            continue
        index, child = step
        comma = b"," if index else b""
        if is_object:
            key, child = child
            yield comma + orjson.dumps(key) + b":", key, True, 0
            comma = b""
        if isinstance(child, dict | list):
            if comma:
                yield comma, None, False, 0
            yield from _opened(child, stack)
        elif isinstance(child, str):
            if comma:
                yield comma, None, False, 0
            yield string_text(child), child, False, 1
        else:
            yield comma + _scalar(child), None, False, 1


_DONE: Any = object()


def _opened(
    obj: dict[str, Any] | list[Any], stack: list[tuple[Iterator[Any], bool]]
) -> Iterator[Piece]:
    if isinstance(obj, dict):
        stack.append((enumerate(obj.items()), True))
        yield b"{", None, False, 0
    else:
        stack.append((enumerate(obj), False))
        yield b"[", None, False, 0


def string_text(text: str) -> bytes:
    """What orjson writes of a string value (of a narrowed one, of its text), a long one
    encoded a piece at a time."""
    whole: Any = text.source if isinstance(text, LongText) else text
    if len(whole) <= PIECE and whole is text:
        return orjson.dumps(text)
    pieces = (orjson.dumps(whole[at : at + PIECE])[1:-1] for at in range(0, len(whole), PIECE))
    return b'"' + b"".join(pieces) + b'"'


def _scalar(value: Any) -> bytes:
    """What orjson writes of a number, boolean or null; an integer past 64 bits (read by
    the lenient parser), as the standard library writes it."""
    try:
        return orjson.dumps(value)
    except TypeError:
        return json.dumps(value).encode("ascii")
