"""JSON text read as bytes, as the stream walk (``_stream.py``) and the strings decoded
apart (``_apart.py``) both read it, and which keys' values are read only through the
finders.

Why a module of its own: the stream walk hands a long string to ``_apart`` to narrow,
and ``_apart`` reads strings and keys as the walk does; each imports this, not the other.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ._entry_fields import BLOCK_KEEP, ENTRY_KEEP, ID_FIELDS, MESSAGE_KEEP
from ._values import names_a_secret, secret_key_class

#: a JSON string literal. Every repeat is possessive (``*+``): the grammar needs no
#: backtracking, and a greedy repeat keeps a backtracking record per step, which for a
#: long string of many escapes costs many times the string
STRING_TEXT = rb'"[^"\\]*+(?:\\.[^"\\]*+)*+"'
STRING = re.compile(STRING_TEXT, re.DOTALL)
SPACE = re.compile(rb"[ \t\r\n]*+")
#: a JSON number, boolean or null
SCALAR_TEXT = rb"-?(?:0|[1-9][0-9]*+)(?:\.[0-9]++)?(?:[eE][+-]?[0-9]++)?|true|false|null"

#: the members an object's plan reads the value of (see :meth:`Scrubber.plan`), and the
#: entry's id and type
TOLD = frozenset(
    {"type", "kty", "mimeType", "mime_type", "name", "key", "header", "Name", "Key", "id"}
)
#: the keys whose values the walk reads as they are, not only through the finders: the
#: fields kept as the format (``_entry_fields.ENTRY_KEEP``...), ids (the report names an entry
#: by its id, a version 1 file's are derived from them), the members an object's plan
#: reads (:data:`TOLD`), a pair's value (where its name names a secret: see
#: :func:`read_by_finders`) and an image's data. A long text with emoji under one of
#: these, or under a ``key`` class's key, is not narrowed (``_narrow.py``: see
#: :func:`narrowed_under`)
READ_AS_THEY_ARE = frozenset(
    {*ENTRY_KEEP, *MESSAGE_KEEP, *BLOCK_KEEP, *TOLD, "value", "data"}
).union(*ID_FIELDS.values())


def read_by_finders(key: str | int, obj: Mapping[str, Any] | None = None) -> bool:
    """Whether the walk reads the value under ``key`` only through the finders (as a
    ``LongText`` is read): a list's item, a key not :data:`READ_AS_THEY_ARE` that names
    no secret (whose value is read as a secret, or by whether it could be one), and a
    pair's ``value`` in the object ``obj`` when no member of it names a secret (a header
    pair's plan reads the value only then: ``_values.named_pair``)."""
    if key == "value" and obj is not None:
        return not names_a_secret(obj)
    return isinstance(key, int) or (key not in READ_AS_THEY_ARE and secret_key_class(key) is None)


def narrowed_under(key: str | int, obj: Mapping[str, Any] | None = None) -> bool:
    """Whether a long text under ``key`` (of the object ``obj``) is narrowed: one read
    only through the finders, or a password's or token's (``_values.secret_key_class``),
    whose value is a secret whatever it is (replaced whole: ``_long_secret.py``); a
    ``key`` class's value is read whole to tell whether it could be one."""
    if read_by_finders(key, obj):
        return True
    return (
        isinstance(key, str)
        and key not in READ_AS_THEY_ARE
        and secret_key_class(key) in ("password", "token")
    )
