"""Session text cut to a readable length where it is shown: figures, the CLI, reprs.

Why: a session's strings (its name, ids, tool names, models, paths) are untrusted and of
any length; a 1 MB name would make a 1 MB figure title, legend or terminal line. The data
keeps them whole; only what is shown is cut, with "…" where text was left out. A label
that tells things apart (a figure's category, a legend's name) keeps a digest of the
whole text after the cut, so two long names that share their start stay two labels.
"""

from __future__ import annotations

import hashlib

#: characters of a label: an axis category, a legend entry, an id in a table
LABEL = 60
#: characters of a text: a title's session name, a hover's text, a CLI value
TEXT = 200
ELLIPSIS = "…"


def cut(text: str, limit: int = TEXT) -> str:
    """``text``, or its first ``limit - 1`` characters and "…" when it is longer."""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - 1)] + ELLIPSIS


def cut_label(text: str, limit: int = LABEL) -> str:
    """``text`` cut as :func:`cut` does, but ending in "…" and 8 hex digits of a digest of
    the whole text: two labels cut from different texts stay apart."""
    if len(text) <= limit:
        return text
    digest = hashlib.blake2s(text.encode("utf-8", "surrogatepass"), digest_size=4).hexdigest()
    return text[: max(0, limit - 9)] + ELLIPSIS + digest
