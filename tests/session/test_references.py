"""Links besides the parent that cannot be followed: a compaction's first kept entry that
is not above it (no such entry, itself, a later entry, another branch) and a label's
target that names no entry. Each is a ``dangling_reference`` warning at the line of the
entry that links, counted in the summary as in the table; the file reads as before."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import header, msg, write_lines

import prime_nb


def compaction(entry_id: str, parent: str, kept: Any) -> dict[str, Any]:
    return {
        "type": "compaction",
        "id": entry_id,
        "parentId": parent,
        "timestamp": "2026-01-05T10:05:00.000Z",
        "summary": "s",
        "firstKeptEntryId": kept,
        "tokensBefore": 9,
    }


def label(entry_id: str, parent: str, target: Any, text: Any = "x") -> dict[str, Any]:
    return {"type": "label", "id": entry_id, "parentId": parent, "targetId": target, "label": text}


#: name -> (lines after the header, the problems' (line, kind, a word of the message))
CASES: dict[str, tuple[list[Any], list[tuple[int, str, str]]]] = {
    "kept names no entry": (
        [msg("u1", None, "user"), msg("a1", "u1", "assistant"), compaction("c1", "a1", "gone")],
        [(4, "dangling_reference", "'gone' names no entry")],
    ),
    "kept is the compaction": (
        [msg("u1", None, "user"), compaction("c1", "u1", "c1")],
        [(3, "dangling_reference", "names the compaction itself")],
    ),
    "kept comes later": (
        [msg("u1", None, "user"), compaction("c1", "u1", "u2"), msg("u2", "c1", "user")],
        [(3, "dangling_reference", "'u2' (line 4) is not above")],
    ),
    "kept on another branch": (
        [
            msg("u1", None, "user"),
            msg("x1", "u1", "user"),
            msg("a1", "u1", "assistant"),
            compaction("c1", "a1", "x1"),
        ],
        [(5, "dangling_reference", "'x1' (line 3) is not above")],
    ),
    "label on no entry": (
        [msg("u1", None, "user"), label("l1", "u1", "gone")],
        [(3, "dangling_reference", "'gone' names no entry")],
    ),
    "label target not a string": (
        [msg("u1", None, "user"), label("l1", "u1", 5)],
        [(3, "bad_value", "targetId is 5")],
    ),
    "label not a string": (
        [msg("u1", None, "user"), label("l1", "u1", "u1", ["y"])],
        [(3, "bad_value", "label is ['y']")],
    ),
    "kept above, label on an entry": (
        [
            msg("u1", None, "user"),
            msg("a1", "u1", "assistant"),
            compaction("c1", "a1", "u1"),
            label("l1", "c1", "a1"),
        ],
        [],
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_link_that_cannot_be_followed_is_a_warning_at_its_line(tmp_path: Path, name: str) -> None:
    lines, want = CASES[name]
    session = prime_nb.load(write_lines(tmp_path / "s.jsonl", [header(), *lines]))
    problems = session.problems
    got = list(zip(problems["line"], problems["kind"], problems["message"], strict=True))
    assert [(line, kind) for line, kind, _ in got] == [(line, kind) for line, kind, _ in want]
    for (_, _, message), (_, _, words) in zip(got, want, strict=True):
        assert words in message
    assert set(problems["severity"]) <= {"warning"}
    assert session.summary()["problems"] == len(want)
    assert len(session.entries) == len(lines)
    session.context(session.leaf_id)  # read as before: nothing kept before a compaction


def test_the_agent_written_off_path_compaction_is_reported(fixtures_dir: Path) -> None:
    """A compaction made through the agent's own API, its kept entry on another branch:
    the agent keeps nothing before it (the tests against its reading say so), and the
    problems table says why."""
    session = prime_nb.load(fixtures_dir / "agent-written" / "edge-compaction-offpath.jsonl")
    problems = session.problems
    assert problems["kind"].tolist() == ["dangling_reference"]
    assert "is not above the compaction on its path" in problems["message"].iloc[0]
