"""The file format: session files on disk, line by line, into canonical v3 entries.

This is the bottom layer (beside ``prime_nb.errors``): it knows bytes, lines, the two
dialects ("prime", as the agent writes, and "spec", as the specification names things),
the versions 1-3 and their migration, and a snapshot of what a file held when last read.
It never builds tables or trees; ``prime_nb.session`` does that on top of it.

- ``_reading``: lines of a file into :class:`RawEntry` and :class:`Problem` (untrusted
  input: every bad line is a problem with its line number, never an exception).
- ``_dialect``: the spec dialect's names to the agent's, and back for writing.
- ``_migrating``: version 1 and 2 entries to version 3 (ids derived for v1).
- ``_ondisk``: what a file held when last read (ids, dialect spellings, its identity),
  for writers that check ids against the file as it is.
"""

from ._dialect import Dialect, dialect_of_header
from ._migrating import CURRENT_VERSION, Migrator, migrate
from ._reading import Problem, RawEntry, iter_entries, open_regular, parse_line, scan

__all__ = [
    "CURRENT_VERSION",
    "Dialect",
    "Migrator",
    "Problem",
    "RawEntry",
    "dialect_of_header",
    "iter_entries",
    "migrate",
    "open_regular",
    "parse_line",
    "scan",
]
