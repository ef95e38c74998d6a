"""The names the loader gives entries it cannot name by their own id, in one place.

Why: the loader names a line without an id ``L<line>`` and a repeated id
``<id>@L<line>`` (``.2``, ``.3``... when an id in the file already spells that), the
upgrade writes the very names into the file, and the writers tell a user who names such
an entry why it cannot be referred to. All three read the rule from here.
"""

from __future__ import annotations

import re
from collections.abc import Container

_NO_ID = re.compile(r"L(\d+)")
_RENAMED = re.compile(r"(.+)@L(\d+)(?:\.\d+)?")


def line_id(line: int) -> str:
    """The name of an entry on ``line`` that has no usable id."""
    return f"L{line}"


def renamed_id(entry_id: str, line: int, taken: Container[str]) -> str:
    """The name of an entry on ``line`` whose id an earlier line uses: not one in ``taken``."""
    renamed = f"{entry_id}@L{line}"
    suffix = 1
    while renamed in taken:  # an id may already spell the new name
        suffix += 1
        renamed = f"{entry_id}@L{line}.{suffix}"
    return renamed


def loader_name_hint(entry_id: str) -> str | None:
    """Why an id the loader showed is not on disk, when it is one the loader made up: the
    agent cannot address such an entry either, so nothing can be attached to it."""
    if match := _NO_ID.fullmatch(entry_id):
        return (
            f"{entry_id} is the loader's name for line {match[1]}, which has no id in the "
            "file: no entry can refer to it; choose another entry"
        )
    if match := _RENAMED.fullmatch(entry_id):
        return (
            f"{entry_id} is the loader's name for line {match[2]}, whose id {match[1]!r} an "
            f"earlier line uses too; on disk {match[1]!r} names that earlier entry, and "
            "this one cannot be referred to; choose another entry"
        )
    return None
