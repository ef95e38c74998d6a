"""Files that cannot hold a compaction, told from their bytes without parsing them.

Why: ``corpus_compactions`` has rows only for files with a compaction entry, and most
sessions of a corpus never compacted. Searching a file's bytes runs at memory speed, a
few times faster than parsing its lines and many times faster than the summary pass, so
a file whose bytes rule a compaction out is not parsed at all; its (empty) rows are the
ones the pass would give.

The rule is sound, never a guess: an entry is a compaction when its ``type`` reads
``"compaction"`` after parsing, and the parse (orjson, or the loader's careful path for
odd lines) only ever replaces bytes (bad UTF-8, lone surrogates, values nested too deep),
never drops them. So the type's letters are in the file either as they are or written
as JSON escapes, ``\\u0061`` to ``\\u007a``. A file with neither may hold no compaction;
any other file is read by the pass as before.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from .._names import real_name
from ..errors import SessionFormatError
from ..format._reading import open_regular

WORD = b"compaction"
#: a JSON escape that could spell one of the word's letters (all are in U+0061..U+007A)
_ESCAPE = re.compile(rb"\\u00[67]")
#: bytes searched at a time: a file of any size costs this much memory
BLOCK = 1 << 20
#: carried from one block to the next, so that a word across the seam is seen
_SEAM = len(WORD) - 1


def may_hold_compaction(path: str | Path) -> bool:
    """False only when the file's bytes rule out a compaction entry. A file that cannot
    be opened as a regular file counts as one that may (the pass reports it)."""
    try:
        fh = open_regular(real_name(os.fspath(path)), 0)
    except (OSError, SessionFormatError):
        return True
    with fh:
        carried = b""
        while True:
            try:
                block = fh.read(BLOCK)
            except OSError:
                return True
            if not block:
                return False
            data = carried + block if carried else block
            if WORD in data or _ESCAPE.search(data) is not None:
                return True
            carried = data[-_SEAM:]
