"""File names as tables can hold them, and session text as a terminal line shows it.

Why: a file name is bytes. Python gives the bytes that are not UTF-8 back as lone
surrogates (``surrogateescape``), which Arrow-backed string columns, JSON and a strict
UTF-8 terminal refuse. Tables show those bytes as ``\\xNN`` escapes instead, as ``ls``
does, and :func:`real_name` turns such a shown name back into the one that opens the file.

Session text printed on a terminal (the CLI, the package's reprs) must neither steer it
(escape sequences, control characters) nor hide what it holds: the format characters
(Unicode category Cf: zero-width spaces and joiners, BOMs, bidirectional marks, tag
characters) are invisible, so two names that look the same could differ, or a line could
carry text no one sees. :func:`shown_text` writes them all as escapes.
"""

from __future__ import annotations

import codecs
import os
import re

#: every format character (Unicode category Cf) as of Unicode 15, as a regex class's ranges;
#: ``tests/cli/test_format_chars_shown.py`` checks it against the running Python's table
FORMAT_CHARACTERS = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f"
    "\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd"
    "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001"
    "\U000e0020-\U000e007f"
)
#: what a terminal line must not hold raw: control characters (C0, C1, line and paragraph
#: separators) and format characters
_UNSHOWN = re.compile(f"[\x00-\x1f\x7f-\x9f\u2028\u2029{FORMAT_CHARACTERS}]")


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


def shown_text(text: str) -> str:
    """``text`` as one terminal line shows it: :func:`shown_name`, then every control or
    format character as its Python escape (``\\x1b``, ``\\u200b``, ``\\U000e0041``), so
    that it steers nothing and hides nothing; other text is returned as it is."""
    return _UNSHOWN.sub(escaped, shown_name(text))


def escaped(found: re.Match[str]) -> str:
    """A matched character as its Python escape."""
    return found.group().encode("unicode_escape").decode("ascii")
