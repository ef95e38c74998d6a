"""File names as tables can hold them.

Why: a file name is bytes. Python gives the bytes that are not UTF-8 back as lone
surrogates (``surrogateescape``), which Arrow-backed string columns, JSON and a strict
UTF-8 terminal refuse. Tables show those bytes as ``\\xNN`` escapes instead, as ``ls``
does, and :func:`real_name` turns such a shown name back into the one that opens the file.
"""

from __future__ import annotations

import codecs
import os


def shown_name(name: str) -> str:
    """``name`` with its undecodable bytes as ``\\xNN`` (any other lone surrogate as
    ``\\udXXX``); a name without them is returned as it is."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        try:
            raw = name.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:  # not from a file name: a surrogate no byte maps to
            return name.encode("utf-8", "backslashreplace").decode("utf-8")
        return raw.decode("utf-8", "backslashreplace")
    return name


def real_name(shown: str) -> str:
    """The name :func:`shown_name` showed as ``shown``: ``shown`` itself when that file
    exists or holds no escape, else the name with its ``\\xNN`` made bytes again, when
    a file of that name exists."""
    if not isinstance(shown, str) or "\\x" not in shown or os.path.lexists(shown):
        return shown
    try:
        raw = codecs.escape_decode(shown.encode("utf-8"))[0]
    except ValueError:
        return shown
    name = os.fsdecode(raw)
    return name if os.path.lexists(name) else shown
