"""A file that grows while it is read: the read stops at the size the file had when it
was opened, so a writer as fast as the reader cannot keep it reading for ever; what
was appended is read by the next refresh."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import header, msg, write_lines

import prime_nb
from prime_nb.session import _read


def test_lines_appended_during_a_read_wait_for_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_lines(tmp_path / "s.jsonl", [header(), msg("u0", None, "user", "hi")])
    appended = b"".join(
        json.dumps(msg(f"g{k}", "u0", "user", "grown", 1)).encode() + b"\n" for k in range(1000)
    )
    real_marks = _read.marks_of
    grown: list[int] = []

    def grow_then_mark(fd: int, end: int) -> Any:
        if not grown:  # the writer appends just after the reader took the file's size
            grown.append(1)
            with open(path, "ab") as fh:
                fh.write(appended)
        return real_marks(fd, end)

    monkeypatch.setattr(_read, "marks_of", grow_then_mark)
    session = prime_nb.load(path)
    monkeypatch.undo()
    assert grown
    assert list(session.entries.index) == ["u0"]
    assert session.refresh() == 1000
    assert len(session) == 1001
