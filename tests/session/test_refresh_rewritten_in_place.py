"""A file rewritten in place at the same size: refresh reads it again.

An editor's save, or a tool that rewrites one line of a session in place, keeps the
file's inode and size; when the line is in the middle, the first and last bytes that
tell a grown file from a replaced one are unchanged too. Appends always grow a file, so
the same size with a new mtime means bytes already read were rewritten: ``refresh()``
reads the file anew (the result equals a fresh ``load()``), and an entry read before
the refresh is refused rather than read from offsets that may no longer hold it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import header, msg, write_lines

import prime_nb
from prime_nb.errors import SessionFormatError

#: entries enough that the middle is outside the first and last 16 KiB the marks cover
ENTRIES = 800


def _rewrite(path: Path, old: bytes, new: bytes) -> None:
    """Replace ``old`` by ``new`` (the same length) in place, with a later mtime."""
    data = path.read_bytes()
    assert len(old) == len(new) and data.count(old) == 1
    stat = path.stat()
    with open(path, "r+b") as fh:
        fh.write(data.replace(old, new))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))


@pytest.fixture
def session_file(tmp_path: Path) -> Path:
    lines = [header()]
    for k in range(ENTRIES):
        role = "user" if k % 2 == 0 else "assistant"
        lines.append(msg(f"e{k}", f"e{k - 1}" if k else None, role, f"text number {k:04d}"))
    return write_lines(tmp_path / "s.jsonl", lines)


def test_refresh_reads_a_middle_line_rewritten_in_place(session_file: Path) -> None:
    session = prime_nb.load(session_file)
    middle = session.entries["text"].tolist().index("text number 0400")
    _rewrite(session_file, b"text number 0400", b"TEXT NUMBER 0400")
    with pytest.raises(SessionFormatError, match=r"call session\.refresh"):
        session.entry("e400")
    assert session.refresh() == 0
    assert session.entries["text"].iloc[middle] == "TEXT NUMBER 0400"
    fresh = prime_nb.load(session_file)
    assert session.entries["text"].tolist() == fresh.entries["text"].tolist()
    assert session.entry("e400")["message"]["content"] == "TEXT NUMBER 0400"


def test_an_append_is_still_read_as_an_append(session_file: Path) -> None:
    session = prime_nb.load(session_file)
    with open(session_file, "ab") as fh:
        fh.write(b'{"type":"label","id":"l1","parentId":"e799","targetId":"e1","label":"x",')
        fh.write(b'"timestamp":"2026-01-05T10:00:00.000Z"}\n')
    assert session.refresh() == 1
    assert session.entry("e2")["message"]["content"] == "text number 0002"


def test_the_widget_sends_the_tree_again(session_file: Path) -> None:
    from prime_nb.widget._data import SessionData

    data = SessionData(prime_nb.load(session_file))
    assert data.answer({"what": "lines", "indices": [400]})["lines"] == ["text number 0400"]
    _rewrite(session_file, b"text number 0400", b"TEXT NUMBER 0400")
    kind, _ = data.refresh()
    assert kind == "reset"
    assert data.answer({"what": "lines", "indices": [400]})["lines"] == ["TEXT NUMBER 0400"]
    assert data.answer({"what": "search", "query": "TEXT NUMBER 0400"})["indices"] == [400]
