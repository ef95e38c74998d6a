"""A line holding entries glued together (``{...}{...}``) is redacted value by value.

Such a line is no JSON value, but each of its entries is (a writer stopped between two
writes). Withheld whole, the copy would lose entries ``prime-nb repair`` can still
recover, and report ``invalid_json`` where the file reports ``glued_entries``. Each
value is redacted in its place; the line stays glued, as written.
"""

from __future__ import annotations

import json
from pathlib import Path

from session_matrix import clean_lines

import prime_nb
from prime_nb.format import glued_spans
from prime_nb.redact import redact
from prime_nb.write import repair_file


def glued_file(path: Path) -> Path:
    """The clean session, u3 (holding a home folder) glued to x1 with a space on line 9."""
    entries = clean_lines()
    entries[8]["message"]["content"] = "look in /home/zoe/notes.txt"
    lines = [json.dumps(entry) for entry in entries]
    lines[8:10] = [lines[8] + " " + lines[9]]
    path.write_text("".join(line + "\n" for line in lines))
    return path


def test_each_glued_value_is_redacted_and_the_line_stays_glued(tmp_path: Path) -> None:
    source = glued_file(tmp_path / "s.jsonl")
    result = redact(source, tmp_path / "r.jsonl", hostnames=[])
    assert result.path is not None
    report = result.report[result.report["line"] == 9]  # line 1: the header's cwd
    assert report["rule"].tolist() == ["home-path"] and report["entry_id"].tolist() == ["u3"]
    old, new = source.read_bytes().split(b"\n"), result.path.read_bytes().split(b"\n")
    assert [n for n, (a, b) in enumerate(zip(old, new, strict=True), 1) if a != b] == [1, 9]
    spans = glued_spans(new[8].decode())
    assert spans is not None
    (_, end, u3), (start, _, x1) = spans
    assert new[8].decode()[end:start] == " "
    assert "/home/zoe" not in u3["message"]["content"] and x1 == clean_lines()[9]
    copy, original = prime_nb.load(result.path), prime_nb.load(source)
    kinds = original.problems[["line", "kind"]].values.tolist()
    assert kinds == [[9, "glued_entries"], [10, "orphan"]]  # a4's parent u3 is dropped
    assert copy.problems[["line", "kind"]].values.tolist() == kinds
    # repaired, the copy holds both entries, redacted
    repaired = repair_file(result.path, tmp_path / "fixed.jsonl").path
    assert repaired is not None
    fixed = prime_nb.load(repaired)
    assert {"u3", "x1"} <= set(fixed.entries.index)
    assert "/home/zoe" not in repaired.read_text()
