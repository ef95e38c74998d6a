"""Where a value stands in an entry: the fields that make the format, the ids, the kind
of object under a key, and a value's field path.

Why apart from the scrubber: both walks (the tree's, ``_scrub.py``, and the stream's,
``_stream.py``) and the byte readers (``_json_bytes.py``) must read an entry's places
alike, so they read them from one place.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: fields of an entry (or header) that make the format, never scanned
ENTRY_KEEP = frozenset({"type", "timestamp", "firstKeptEntryIndex", "version", "_sourceType"})
#: fields of an agent message that make the format
MESSAGE_KEEP = frozenset({"role", "timestamp"})
#: fields of a content block that make the format (an image's ``data`` is kept too)
BLOCK_KEEP = frozenset({"type", "thinkingSignature", "textSignature", "signature"})
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


def join(path: str, key: str | int) -> str:
    """The field path of ``key`` (a name, or a list's index) under ``path``."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key
