"""Small hostile files must not cost much: tool-call arguments stay on disk until the
tool_calls table asks for them, and every orphan is a problem of the problems table.
(Timings live in benchmarks/bench_hostile.py, not here.)"""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest

import prime_nb


def big_arguments_session(
    path: Path, dialect: str, lines: int = 5, size: int = 400_000
) -> list[dict]:
    """``lines`` assistant lines, each a tool call with about ``size`` bytes of arguments."""
    head = (
        {"type": "session", "version": 3, "id": "h"}
        if dialect == "prime"
        else {"type": "header", "version": 3, "id": "h"}
    )
    out = [head]
    arguments = []
    previous = None
    for i in range(lines):
        args = {"items": [{"k": f"v{j}"} for j in range(size // 14)], "n": i}
        arguments.append(args)
        call = {"type": "toolCall", "id": f"k{i}", "name": "write", "arguments": args}
        if dialect == "prime":
            out.append(
                {
                    "type": "message",
                    "id": f"a{i}",
                    "parentId": previous,
                    "message": {
                        "role": "assistant",
                        "content": [{"type": "text", "text": "t"}, call],
                    },
                }
            )
            previous = f"a{i}"
        else:
            out.append(
                {
                    "type": "message",
                    "id": f"a{i}",
                    "parentId": previous,
                    "timestamp": 1000 + i,
                    "message": {"role": "assistant", "content": [{"type": "text", "text": "t"}]},
                }
            )
            out.append(
                {
                    "type": "toolCall",
                    "id": f"t{i}",
                    "parentId": f"a{i}",
                    "timestamp": 1000 + i,
                    "toolCallId": f"k{i}",
                    "name": "write",
                    "arguments": args,
                }
            )
            previous = f"t{i}"
    path.write_text("".join(json.dumps(x) + "\n" for x in out))
    return arguments


@pytest.mark.parametrize("dialect", ["prime", "spec"])
def test_long_lines_leave_arguments_on_disk(dialect: str, tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    arguments = big_arguments_session(path, dialect)
    session = prime_nb.load(path)
    assert not session._cols.tool_calls.arguments  # none kept: read from disk
    table = session.tool_calls
    assert table["arguments"].tolist() == arguments
    assert table["call_id"].tolist() == [f"k{i}" for i in range(5)]


@pytest.mark.parametrize("dialect", ["prime", "spec"])
def test_short_lines_leave_arguments_on_disk_too(dialect: str, tmp_path: Path) -> None:
    path = tmp_path / "small.jsonl"
    arguments = big_arguments_session(path, dialect, lines=2, size=200)
    session = prime_nb.load(path)
    assert not session._cols.tool_calls.arguments  # none kept: read from disk
    assert session.tool_calls["arguments"].tolist() == arguments


def test_a_loaded_session_does_not_hold_huge_arguments(tmp_path: Path) -> None:
    path = tmp_path / "huge.jsonl"
    big_arguments_session(path, "prime", lines=5, size=1_000_000)  # ~7 MB of arguments
    tracemalloc.start()
    try:
        session = prime_nb.load(path)
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(session) == 5
    assert held < path.stat().st_size / 10, (held, path.stat().st_size)


def test_every_orphan_is_a_problem(tmp_path: Path) -> None:
    lines = [{"type": "session", "version": 3, "id": "o"}]
    lines += [{"type": "custom", "id": f"o{i}", "parentId": f"gone{i}"} for i in range(2000)]
    path = tmp_path / "orphans.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    session = prime_nb.load(path)
    problems = session.problems
    assert len(problems) == 2000 and set(problems["kind"]) == {"orphan"}
    assert problems["line"].tolist() == list(range(2, 2002))
    assert problems.at[7, "message"] == "parent gone7 is not in the file; loaded as a root"
    assert problems.at[7, "entry_id"] == "o7"
