"""An entry a user removed by editing the file in place stays removed, whatever was
read in between.

The writers keep what they appended in a journal, to write it again into a file that
another program renamed over the path without it; an entry missing from the very file
it was written to was removed on purpose. That was told only by the cached reading of
the file, so once it was dropped (``upgrade_file`` drops it, even of a file already
current; reading more than the cache holds drops the oldest) the next append wrote the
removed entry back. A replacement by rename is still written again.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

import prime_nb
from prime_nb.write import append_message

T0 = "2026-01-05T10:00:00Z"
HEADER = {"type": "session", "version": 3, "id": "s1", "timestamp": T0, "cwd": "/w"}
ROOT = {"type": "message", "id": "u1", "parentId": None, "timestamp": T0,
        "message": {"role": "user", "content": "hi"}}  # fmt: skip
TEXT = "".join(json.dumps(e) + "\n" for e in (HEADER, ROOT)).encode()


def _read_others(path: Path) -> None:
    """Append to more files than the writers' cache of readings holds."""
    for n in range(40):
        other = path.with_name(f"other{n}.jsonl")
        other.write_bytes(TEXT)
        append_message(other, "u1", {"role": "user", "content": "x"}, fsync=False)


BETWEEN: dict[str, Callable[[Path], object]] = {
    "upgrade_file of a current file": prime_nb.upgrade_file,
    "appends to many other files": _read_others,
}


@pytest.mark.parametrize("between", list(BETWEEN))
def test_an_entry_removed_in_place_is_not_written_back(tmp_path: Path, between: str) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(TEXT)
    removed = append_message(path, "u1", {"role": "user", "content": "removed"}, fsync=False)
    with path.open("r+b") as fh:  # the user's edit: the same file, without that entry
        fh.truncate(len(TEXT))
    BETWEEN[between](path)
    kept = append_message(path, "u1", {"role": "user", "content": "kept"}, fsync=False)
    ids = list(prime_nb.load(path).entries.index)
    assert ids == ["u1", kept]
    assert removed not in path.read_text()


def test_an_entry_a_replacement_dropped_is_written_again(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(TEXT)
    first = append_message(path, "u1", {"role": "user", "content": "first"}, fsync=False)
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(TEXT)  # another program's copy, read before our append
    os.replace(copy, path)
    prime_nb.upgrade_file(path)
    second = append_message(path, first, {"role": "user", "content": "second"}, fsync=False)
    assert list(prime_nb.load(path).entries.index) == ["u1", first, second]
