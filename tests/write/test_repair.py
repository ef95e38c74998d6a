"""``repair_file``: a copy with each glued line split, checked against the agent's reading.

The agent drops a line holding two entries glued together (``{...}{...}``: a writer that
stopped between two writes). In the copy, every entry of such a line is a line of its
own, as written, so the agent reads them all; every other byte is as it was, and the
source is never touched.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from agent_reading import agent_context_ids, agent_entries
from session_matrix import clean_lines

import prime_nb
from prime_nb.errors import SessionWriteError
from prime_nb.write import repair_file


def glued_file(path: Path, end: str = "\n") -> Path:
    """The clean session with a3 and the compaction c1 glued on line 7 (the real file lost
    its last compaction so) and, on line 9, u3 glued to x1 with a space between."""
    lines = [json.dumps(entry) for entry in clean_lines()]
    lines[6:8] = [lines[6] + lines[7]]
    lines[7:9] = [lines[7] + " " + lines[8]]
    path.write_bytes("".join(line + end for line in lines).encode())
    return path


def test_the_copy_holds_every_entry_and_the_agent_reads_them(tmp_path: Path) -> None:
    source = glued_file(tmp_path / "s.jsonl")
    before = source.read_bytes()
    assert "c1" not in {e.get("id") for e in agent_entries(source)}
    repair = repair_file(source, tmp_path / "fixed.jsonl")
    assert source.read_bytes() == before
    assert repair.path == tmp_path / "fixed.jsonl"
    assert repair.split == [(7, 2), (8, 2)] and repair.entries == 4
    # each entry as written, one a line: the clean file, byte for byte
    clean = "".join(json.dumps(entry) + "\n" for entry in clean_lines()).encode()
    assert repair.path.read_bytes() == clean
    # the agent reads both entries of each line, and its context at the leaf has them
    ids = [e.get("id") for e in agent_entries(repair.path)[1:]]
    assert {"a3", "c1", "u3", "x1"} <= set(ids)
    assert agent_context_ids(repair.path) == ["c1", "u2", "a3", "u3", "a4"]
    session = prime_nb.load(repair.path)
    assert session.problems.empty
    assert list(session.entries.index) == ids
    assert [m["entry_id"] for m in session.context()] == agent_context_ids(repair.path)


def test_crlf_lines_and_a_glued_last_line_without_newline(tmp_path: Path) -> None:
    source = glued_file(tmp_path / "s.jsonl", end="\r\n")
    data = source.read_bytes()
    last = json.dumps({**clean_lines()[1], "id": "z1"}) + json.dumps(
        {**clean_lines()[1], "id": "z2", "parentId": "z1"}
    )
    source.write_bytes(data + last.encode())
    repair = repair_file(source, tmp_path / "fixed.jsonl")
    assert repair.split[-1] == (10, 2)
    text = repair.path.read_bytes()
    # 11 entries on CRLF lines; the last line, glued and unfinished, still has no end
    assert text.count(b"\r\n") == 11 and text.endswith(b"}")
    assert prime_nb.load(repair.path).entries.index[-2:].tolist() == ["z1", "z2"]


def test_a_file_without_glued_lines_writes_nothing(tmp_path: Path) -> None:
    source = tmp_path / "s.jsonl"
    source.write_text("".join(json.dumps(e) + "\n" for e in clean_lines()) + "{bad\n[1][2]\n")
    repair = repair_file(source, tmp_path / "fixed.jsonl")
    assert repair.path is None and repair.split == []
    assert not (tmp_path / "fixed.jsonl").exists()


def test_never_in_place_and_never_over_a_file_unless_forced(tmp_path: Path) -> None:
    source = glued_file(tmp_path / "s.jsonl")
    before = source.read_bytes()
    for dest in (source, tmp_path / "." / "s.jsonl"):
        with pytest.raises(SessionWriteError, match="is the file being repaired"):
            repair_file(source, dest, force=True)
    os.link(source, tmp_path / "hard.jsonl")
    with pytest.raises(SessionWriteError, match="is the file being repaired"):
        repair_file(source, tmp_path / "hard.jsonl", force=True)
    other = tmp_path / "other.jsonl"
    other.write_text("mine\n")
    with pytest.raises(SessionWriteError, match=r"other\.jsonl: exists; pass --force"):
        repair_file(source, other)
    assert other.read_text() == "mine\n"
    with pytest.raises(SessionWriteError, match="is a folder"):
        repair_file(source, tmp_path, force=True)
    assert repair_file(source, other, force=True).path == other
    assert len(prime_nb.load(other)) == 10
    assert source.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hard.jsonl", "other.jsonl", "s.jsonl"]
