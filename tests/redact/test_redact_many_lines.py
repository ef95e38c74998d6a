"""A file of many lines costs redaction nothing per line: what it remembers is capped.

Why: ``redact`` keeps its peak within a few times the longest line, and a session of
many short lines has a short longest line. Two things grew with the file: the spans of
every distinct long text (kept for the second pass without a cap) and the id of every
line's entry (kept for the report whether the line had a replacement or not). The
spans cache is capped as the memo of short strings is (both lowered here, so that a
small file shows the plateau) and only the ids of lines with rows are kept.
"""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest

from prime_nb.redact import _scrub as scrub
from prime_nb.redact import redact

HEAD = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-05T10:00:00Z"}


def _session(path: Path, lines: int) -> Path:
    rows = [json.dumps(HEAD)]
    for i in range(lines):
        text = f"step {i:06d}: the build ran the tests of module {i * 7919 % 100003} and went on"
        if i % 500 == 0:
            text += f" with password=hunter{i}xyzq"
        message = {"role": "user", "content": text, "timestamp": 0}
        rows.append(
            json.dumps({"type": "message", "id": f"e{i}", "parentId": None, "message": message})
        )
    path.write_text("\n".join(rows) + "\n")
    return path


def _peak(path: Path) -> tuple[int, int]:
    tracemalloc.start()
    try:
        done = redact(path, dry_run=True, hostnames=[])
        return tracemalloc.get_traced_memory()[1], len(done.report)
    finally:
        tracemalloc.stop()


def test_twice_the_lines_holds_no_more(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the caps lowered, so that a small file shows the plateau: the spans of texts and the
    # scrubbed short strings (each line's entry id is one)
    monkeypatch.setattr(scrub, "_SHORT_KEPT", 128)
    monkeypatch.setattr(scrub, "_SCRUBBED_KEPT", 128)
    small, big = _session(tmp_path / "a.jsonl", 1_000), _session(tmp_path / "b.jsonl", 2_000)
    _peak(small)  # what is made once (compiled patterns, caches of the rules)
    (peak_small, rows_small), (peak_big, rows_big) = _peak(small), _peak(big)
    assert (rows_small, rows_big) == (2, 4)
    # 1,000 more lines, each a distinct text of about 90 characters: held per line, they
    # were over 100 KB more; two report rows and a line's parse are what may differ
    assert peak_big - peak_small < 40 << 10, (peak_small, peak_big)
