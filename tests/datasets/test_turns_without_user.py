"""Turns of a branch that holds no user message: none, and no crash.

A file that lost a line (glued to the next one, or cut off at its head) can leave a
branch that starts with the assistant's answer: its entries hang from a parent that is
not in the file. Such a branch has no turn; the other branches keep theirs.
"""

from __future__ import annotations

from pathlib import Path

from conftest import header, msg, write_lines

from prime_nb.datasets import from_sessions


def test_a_branch_without_a_user_message_has_no_turn(tmp_path: Path) -> None:
    orphan = msg("a9", "lost", "assistant", "an answer whose question was lost", 3)
    path = write_lines(
        tmp_path / "s.jsonl",
        [
            header(),
            msg("u1", None, "user", "hello", 1),
            msg("a1", "u1", "assistant", "hi", 2),
            orphan,
        ],
    )
    turns = from_sessions([path], "turn", progress=False)
    assert turns.column("entry_id").to_pylist() == ["u1"]
    assert turns.column("end_id").to_pylist() == ["a1"]
