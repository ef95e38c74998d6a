"""Every tree node has a line that says what it is, on every session of the matrix."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest

import prime_nb
from prime_nb.datasets import demo_session_path
from prime_nb.widget._data import SessionData
from prime_nb.widget._labels import entry_labels, first_line, short_count
from tests.session_matrix import LOADED_CASES


@pytest.mark.parametrize("case", LOADED_CASES)
def test_every_entry_gets_a_non_blank_single_line(
    case: str, matrix_session: Callable[[str], prime_nb.Session]
) -> None:
    session = matrix_session(case)
    labels = entry_labels(session)
    assert len(labels) == len(session.entries)
    for label in labels:
        assert isinstance(label, str) and label.strip()
        assert "\n" not in label and len(label) <= 240
    data = SessionData(session)
    assert data.lines(list(range(len(labels)))) == labels
    assert data.lines([-1, len(labels), "x"]) == ["", "", ""]


def test_labels_by_type_on_the_demo() -> None:
    session = prime_nb.load(demo_session_path())
    by_type: dict[str, list[str]] = {}
    for kind, label in zip(session.entries["type"], entry_labels(session), strict=True):
        by_type.setdefault(kind, []).append(label)
    assert by_type["compaction"][0] == "compaction · 10.2k → ~285 tokens"
    assert all(lab.startswith("model → ") for lab in by_type["model_change"])
    assert all(lab.startswith("thinking → ") for lab in by_type["thinking_level_change"])
    assert by_type["git_state"][0] == "git · main @ 6bad6be"
    # named as what it is: the session's state, not a "state" of something else
    assert by_type["session_state"] == ["session state: active"]
    assert by_type["agent_status"][0].startswith("status · [in_progress]")
    assert by_type["future_thing"] == ["future_thing"]
    assert "label cleared" in by_type["label"]
    assert by_type["custom_message"][0] == "test-watcher · pytest: 14 passed in 0.07s"


def test_messages_without_text_say_what_they_hold(tmp_path: Path) -> None:
    from tests.conftest import header, msg, write_lines

    call = {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {}}
    path = write_lines(
        tmp_path / "s.jsonl",
        [
            header(),
            msg("u1", None, "user", content=[]),
            msg("a1", "u1", "assistant", content=[call]),
            msg("t1", "a1", "toolResult", content=[], toolCallId="c1", toolName="bash"),
            msg("a2", "t1", "assistant", content=[{"type": "thinking", "thinking": "hmm"}]),
        ],
    )
    labels = entry_labels(prime_nb.load(path))
    # tool calls and thinking are part of the entry's text (session._text): shown as such
    assert labels == ["(empty message)", "bash({})", "bash · (no output)", "hmm"]


def test_helpers() -> None:
    assert short_count(999) == "999"
    assert short_count(10_240) == "10.2k"
    assert short_count(2_500_000) == "2.5M"
    assert first_line("\n\n  a   b \nc") == "a b"
    assert first_line(None) == ""
    assert first_line("x" * 500, 10) == "x" * 9 + "…"


@pytest.mark.parametrize(
    ("markdown", "plain"),
    [
        ("**set iteration order** first", "set iteration order first"),
        ("| version | 200k rows |", "version · 200k rows"),
        ("|---|---|\n| a | b |", "a · b"),
        ("## Plan\nmore", "Plan"),
        ("- [x] `parse_dates` is *slow*", "parse_dates is slow"),
        (
            "> see [the docs](https://example.org) and ~~old~~ ![alt](x.png)",
            "see the docs and old alt",
        ),
        ("```python\nx = 1\n```", "x = 1"),
        ("1. first step", "first step"),
        (
            "keep snake_case_names and 2*3*4 as they are",
            "keep snake_case_names and 2*3*4 as they are",
        ),
    ],
)
def test_rows_show_plain_text_not_markdown(markdown: str, plain: str) -> None:
    assert first_line(markdown) == plain


def test_the_fast_paths_answer_as_every_pattern_and_splitlines_do() -> None:
    """A label reads its text a line at a time and skips a Markdown pattern whose mark
    the line lacks: on random lines of every mark and line end, the same as splitting
    the whole text and running every pattern."""
    from prime_nb.widget import _labels

    def every_pattern(line: str) -> str:
        if line.lstrip().startswith("|"):
            line = " · ".join(c.strip() for c in line.strip().strip("|").split("|") if c.strip())
        line = _labels._BLOCK.sub("", line, count=1)
        for _, pattern, repl in _labels._INLINE:
            line = pattern.sub(repl, line)
        return line

    rng = random.Random(7)
    marks = [*"ab *_~`[]()!|#>-+1. ", "\n", "\r\n", "\r", "\v", "\x1e", "\x85", "\u2028"]
    for _ in range(5_000):
        text = "".join(rng.choice(marks) for _ in range(rng.randint(0, 24)))
        assert list(_labels._lines(text)) == text.splitlines(), repr(text)
        assert _labels.plain_line(text) == every_pattern(text), repr(text)
