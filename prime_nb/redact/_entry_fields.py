"""Where a value stands in an entry: the fields that make the format, the ids, the kind
of object under a key, and a value's field path.

Why apart from the scrubber: both walks (the tree's, ``_scrub.py``, and the stream's,
``_stream.py``) and the byte readers (``_json_bytes.py``) must read an entry's places
alike, so they read them from one place.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

#: fields of an entry (or header) that make the format, never scanned
ENTRY_KEEP = frozenset({"type", "timestamp", "firstKeptEntryIndex", "version", "_sourceType"})
#: fields of an agent message that make the format
MESSAGE_KEEP = frozenset({"role", "timestamp"})
#: fields of a content block that make the format (an image's ``data`` is kept too). A
#: block's signature (``thinkingSignature``, ``textSignature``, ``signature``) is read like
#: text: for the OpenAI Responses API, pi writes the whole reasoning item there as JSON,
#: its summary repeating the thinking's text, secrets and all. An opaque signature
#: (Anthropic's base64) holds no text a rule finds and is written as it was.
BLOCK_KEEP = frozenset({"type"})
#: the fields that make the tree and pair a tool call with its result, by where they are
#: (an entry or header, a message, a content block): scanned like text, never a secret
#: by their key, so that the same id is replaced the same way wherever it is written
ID_FIELDS = {
    "entry": frozenset(
        {"id", "parentId", "targetId", "fromId", "firstKeptEntryId", "sessionId", "toolCallId"}
    ),
    "message": frozenset({"toolCallId"}),
    "block": frozenset({"id"}),
}

#: how a member is walked: its value scrubbed, an image's data read as text, kept as is
WALK, IMAGE, KEEP = "walk", "image", "keep"


#: how one member of an object is walked (see :meth:`Scrubber.plan`): the key as written
#: (scrubbed, renamed apart from the others), WALK, IMAGE or KEEP, the value's field
#: path, the kind of value ("message", "content", "block" or "data"), and whether the
#: value is a secret by its key (a plain tuple: one is made per member)
Plan = tuple[str, str, str, str, bool]


def kept_as_format(key: str, where: str, obj: Mapping[str, Any]) -> bool:
    """Whether ``key`` of ``obj`` (found ``where``) makes the format: never scanned."""
    if where == "entry":
        return key in ENTRY_KEEP
    if where == "message":
        return key in MESSAGE_KEEP
    if where == "block":
        return key in BLOCK_KEEP or (key == "data" and obj.get("type") == "image")
    return False


def child_where(key: str, where: str) -> str:
    """The kind of object under ``key``: a message, a list of content blocks, or free data."""
    if where == "entry" and key == "message":
        return "message"
    if where in ("entry", "message") and key == "content":
        return "content"
    return "data"


#: a key longer than this (in characters) is abbreviated in a field path
LONG_KEY = 256
#: how many of a long key's first characters its abbreviation keeps
KEY_HEAD = 64
#: how many characters of a long key are encoded at a time for its digest
_DIGESTED = 1 << 16
#: the range of high surrogates (a pair's first half) and of low ones (its second)
_HIGH, _LOW = ("\ud800", "\udbff"), ("\udc00", "\udfff")


def join(path: str, key: str | int) -> str:
    """The field path of ``key`` (a name, or a list's index) under ``path``; a key over
    :data:`LONG_KEY` characters abbreviated (:func:`abbreviated`)."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    if len(key) > LONG_KEY:
        runs: Iterable[str] = (key,)  # encoded whole up to _DIGESTED, else in runs
        if len(key) > _DIGESTED:
            runs = (key[at : at + _DIGESTED] for at in range(0, len(key), _DIGESTED))
        key = abbreviated(runs, len(key))
    return f"{path}.{key}" if path else key


def abbreviated(pieces: Iterable[str], length: int) -> str:
    """A long key as a field path names it: its first :data:`KEY_HEAD` characters (one
    fewer where the last would split a surrogate pair), ``…``, then ``[<n> chars <d>]``,
    ``n`` its length and ``d`` the first 8 hex digits of the blake2b digest of its UTF-8,
    so that keys with the same start stay apart. ``pieces`` are its text in order: a key
    whose new text waits to be written (``_pending.PendingTexts``) is never made whole.

    Why: a report row's path holds the keys above it, and a row for every value under a
    long key made the report grow by the key's length for each: a path is bounded by its
    depth, not by its keys. The text is the key's new one, its secrets already replaced.
    """
    digest = hashlib.blake2b()
    head = ""
    for piece in pieces:
        if len(head) <= KEY_HEAD:
            head += piece[: KEY_HEAD + 1 - len(head)]
        digest.update(piece.encode("utf-8", "surrogatepass"))
    cut = KEY_HEAD
    if (
        len(head) > cut
        and _HIGH[0] <= head[cut - 1] <= _HIGH[1]
        and _LOW[0] <= head[cut] <= _LOW[1]
    ):
        cut -= 1
    return f"{head[:cut]}…[{length} chars {digest.hexdigest()[:8]}]"
