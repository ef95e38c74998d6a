"""A large file whose first bytes say it holds no UTF-8 line (UTF-16 or UTF-32 text, a
compressed archive) is refused from those bytes: the loader, the listing and the writers
read one buffer of it, not the whole file. Read whole, each of its lines only became a
problem on the way to the same error, in time and memory that grew with the file.

The bytes read are counted by the kernel (``rchar`` in ``/proc/self/io``), so the test
checks what was read, not how long it took."""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import prime_nb
from prime_nb.errors import SessionFormatError
from prime_nb.session import list_sessions
from prime_nb.write import append_message

SIZE = 32 << 20
ROWS = "".join(
    json.dumps(entry) + "\n"
    for entry in (
        {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-01-05T10:00:00Z"},
        {"type": "message", "id": "u1", "parentId": None, "message": {"role": "user"}},
    )
)
HEADS = {
    "utf-16": ROWS.encode("utf-16") * 64,
    "utf-16-be": ROWS.encode("utf-16-be") * 64,
    "utf-32-le": ROWS.encode("utf-32-le") * 64,
    "gzip": gzip.compress(ROWS.encode()),
}


def _bytes_read() -> int:
    with open("/proc/self/io", encoding="ascii") as io:
        return int(next(line for line in io if line.startswith("rchar:")).split()[1])


def _load(path: Path) -> Any:
    with pytest.raises(SessionFormatError, match="session"):
        prime_nb.load(path)


def _list(path: Path) -> Any:
    frame = list_sessions(path.parent)
    assert frame["entries"].isna().all()


def _append(path: Path) -> Any:
    with pytest.raises(SessionFormatError, match="session"):
        append_message(path, None, {"role": "user", "content": "hi"})


@pytest.mark.parametrize("shape", sorted(HEADS))
@pytest.mark.parametrize("reader", [_load, _list, _append], ids=["load", "list", "append"])
def test_a_large_file_of_another_shape_is_refused_from_its_first_bytes(
    tmp_path: Path, shape: str, reader: Callable[[Path], Any]
) -> None:
    small = tmp_path / "small" / "s.jsonl"
    small.parent.mkdir()
    small.write_bytes(HEADS[shape])
    reader(small)  # the modules it imports on first use are read before the count
    path = tmp_path / "s.jsonl"
    path.write_bytes(HEADS[shape])
    os.truncate(path, SIZE)  # sparse: costs no disk, reads as NUL bytes
    before = _bytes_read()
    reader(path)
    assert _bytes_read() - before <= 4 << 20  # a read buffer or two, not the file
