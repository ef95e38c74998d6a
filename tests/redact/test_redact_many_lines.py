"""A file of many lines costs redaction nothing per line: what it remembers is capped.

Why: ``redact`` keeps its peak within a few times the longest line, and a session of
many short lines has a short longest line. Two things grew with the file: the spans of
every distinct long text (kept for the second pass without a cap) and the id of every
line's entry (kept for the report whether the line had a replacement or not); and a
slot per line that only a version 1 file's ids need. The spans cache is capped as the
memo of short strings is (both lowered here, so that a small file shows the plateau),
only the ids of lines with rows are kept, and a later version keeps no slot.
"""

from __future__ import annotations

import json
from pathlib import Path

from fresh_python import run_fresh

HEAD = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-05T10:00:00Z"}


def _session(path: Path, lines: int) -> Path:
    rows = [json.dumps(HEAD)]
    for i in range(lines):
        text = f"step {i:06d}: the build ran the tests of module {i * 7919 % 100003} and went on"
        if i in (0, 500):  # the same two secrets in both files: rows are not lines
            text += f" with password=hunter{i}xyzq"
        message = {"role": "user", "content": text, "timestamp": 0}
        rows.append(
            json.dumps({"type": "message", "id": f"e{i}", "parentId": None, "message": message})
        )
    path.write_text("\n".join(rows) + "\n")
    return path


_MEASURE = """
import sys, tracemalloc
from pathlib import Path
from prime_nb.redact import _scrub as scrub
from prime_nb.redact import redact

# the caps lowered, so that a small file shows the plateau: the spans of texts and the
# scrubbed short strings (each line's entry id is one)
scrub._SHORT_KEPT = scrub._SCRUBBED_KEPT = 128

def peak(path):
    tracemalloc.start()
    try:
        done = redact(Path(path), dry_run=True, hostnames=[])
        return tracemalloc.get_traced_memory()[1], len(done.report)
    finally:
        tracemalloc.stop()

small, big = sys.argv[1:]
# what is made once (compiled patterns, caches of the rules), made before any tracing:
# tracemalloc counts only what is allocated while it runs, and slows all it watches
redact(Path(small), dry_run=True, hostnames=[])
print(*peak(small), *peak(big))
"""


def test_twice_the_lines_holds_no_more(tmp_path: Path) -> None:
    # measured in a fresh interpreter: in a test worker, what earlier tests left in the
    # rules' process-wide memos changes the peaks by more than the margin
    small, big = _session(tmp_path / "a.jsonl", 1_000), _session(tmp_path / "b.jsonl", 5_000)
    peak_small, rows_small, peak_big, rows_big = map(
        int, run_fresh(_MEASURE, str(small), str(big)).split()
    )
    assert (rows_small, rows_big) == (2, 2)
    # 4,000 more lines, each a distinct text of about 90 characters, the same two secrets:
    # 473 KB more with the spans cache uncapped, 55 KB with the scrubbed strings' memo
    # uncapped, 34 KB with a slot kept per line for a version 1 id; about 5 KB as it is
    assert peak_big - peak_small < 20 << 10, (peak_small, peak_big)
