"""JSON held in a string held in a string (a tool's output stringified twice): what the
finders find in its escaped literal is searched for in the literal once a form, so that
its spans grow with its records, not with their square."""

from __future__ import annotations

import json
from pathlib import Path

from prime_nb.redact import redact
from prime_nb.redact._embedded import StreamScrubber
from prime_nb.redact._file import _rules

RECORD = {"id": 1, "note": "the deploy failed, I ran it with password=hunter2xyz again"}


def _twice(records: int) -> str:
    return json.dumps(json.dumps([RECORD] * records))


def test_the_spans_of_a_literal_grow_with_its_records() -> None:
    """A value found in every record was searched for once a record, and found in every
    record each time: 100 records gave 30,100 spans, 400 gave 480,400."""
    finder = StreamScrubber(_rules(None, [], []))
    few, many = (len(finder.spans(_twice(n))) for n in (100, 400))
    assert few >= 100
    assert many <= 4 * few + 40, (few, many)


def test_every_record_of_a_literal_is_redacted(tmp_path: Path) -> None:
    message = {"role": "user", "content": _twice(300)}
    entry = {"type": "message", "id": "m", "parentId": None, "message": message}
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps({"type": "session", "id": "s"}) + "\n" + json.dumps(entry) + "\n")
    redact(path, tmp_path / "out.jsonl", hostnames=[])
    out = (tmp_path / "out.jsonl").read_text()
    assert "hunter2xyz" not in out
    assert out.count("[REDACTED") >= 300
