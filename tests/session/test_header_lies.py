"""A header that lies about the version of the entries below it is reported.

A version 1 header over entries with ids and parent ids is read as the agent reads it
(version 1: ids replaced, a chain), but the flattened tree must not come silently: the
first such line is a ``bad_version`` warning, once per file, and a refresh that reads
more such lines does not repeat it. The reverse lie (a version 3 header over version 1
entries) already says ``missing_id`` on each line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import prime_nb

T0 = "2026-01-05T10:00:00Z"


def _message(entry_id: str, parent: str | None, role: str = "user") -> dict[str, Any]:
    message = {"role": role, "content": f"text of {entry_id}"}
    return {
        "type": "message",
        "id": entry_id,
        "parentId": parent,
        "timestamp": T0,
        "message": message,
    }


def _write(path: Path, *entries: dict[str, Any], mode: str = "w") -> Path:
    with path.open(mode, encoding="utf-8") as fh:
        fh.writelines(json.dumps(entry) + "\n" for entry in entries)
    return path


def test_a_v1_header_over_entries_with_ids_is_reported_once(tmp_path: Path) -> None:
    header = {"type": "session", "version": 1, "id": "s1", "timestamp": T0, "cwd": "/w"}
    path = _write(
        tmp_path / "lies.jsonl",
        header,
        _message("u1", None),
        _message("a1", "u1", "assistant"),
        _message("u2", "u1"),  # a fork the version 1 reading turns into a chain
    )
    session = prime_nb.load(path)
    problems = session.problems
    assert problems[["line", "kind", "severity"]].values.tolist() == [[2, "bad_version", "warning"]]
    message = problems["message"].iloc[0]
    assert "header says version 1" in message
    assert "set the header's version to 3" in message
    assert len(session.leaves) == 1  # read as the agent reads it: a chain
    _write(path, _message("u3", "u2"), mode="a")
    session.refresh()
    assert list(session.problems["kind"]) == ["bad_version"]


def test_a_v1_file_as_the_agent_writes_it_has_no_problem(tmp_path: Path) -> None:
    header = {"type": "session", "version": 1, "id": "s1", "timestamp": T0, "cwd": "/w"}
    plain = {"type": "message", "timestamp": T0, "message": {"role": "user", "content": "x"}}
    named = {**plain, "id": "only-an-id"}  # an id alone is no later version's entry
    session = prime_nb.load(_write(tmp_path / "v1.jsonl", header, plain, named))
    assert session.problems.empty
