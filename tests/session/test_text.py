"""An entry's text: the one way the package cuts a text short and puts it on one line."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from conftest import header, msg, write_lines
from research_sessions import compacted

import prime_nb
from prime_nb.analysis import context_frame
from prime_nb.session import (
    context_message_text,
    entry_text,
    message_text,
    one_line,
    preview,
    to_json,
)
from prime_nb.session._text import PREVIEW_CHARS, clip
from prime_nb.widget._data import CONTEXT_TEXT_CHARS, SessionData


def test_clip_marks_a_cut_with_an_ellipsis_within_the_limit() -> None:
    assert clip("abcdef", 6) == "abcdef"
    assert clip("abcdefg", 6) == "abcde…"
    assert len(clip("x" * 1000, 40)) == 40


def test_one_line_collapses_every_run_of_whitespace_before_the_cut() -> None:
    assert one_line("  a \n\n b\t c  ", 10) == "a b c"
    assert one_line("a\nbcdef", 4) == "a b…"


def test_a_preview_is_the_stripped_text_clipped_keeping_its_lines() -> None:
    body = "\n  " + "y" * PREVIEW_CHARS + "z  \n"
    assert preview(body) == "y" * (PREVIEW_CHARS - 1) + "…"
    assert preview("  two\nlines  ") == "two\nlines"


def test_the_tables_preview_and_the_problems_clip_alike(tmp_path: Path) -> None:
    text = "word " * 200
    odd = msg("a1", "u1", "assistant", "ok", stopReason=["x" * 100])
    path = write_lines(tmp_path / "s.jsonl", [header(), msg("u1", None, "user", text), odd])
    session = prime_nb.load(path)
    assert session.entries["text"].iloc[0] == clip(text.strip(), PREVIEW_CHARS)
    message = session.problems["message"].iloc[0]
    assert message.startswith(f"stopReason is {clip(repr(['x' * 100]), 40)};")


def test_a_context_message_reads_as_its_summary_or_its_message_text(tmp_path: Path) -> None:
    """The widget's context panel and ``analysis.context_frame`` show the same text of
    each context message, a compaction's summary included (one place computes it)."""
    session = prime_nb.load(compacted(tmp_path / "c.jsonl"))
    context = session.context()
    texts = [context_message_text(m) for m in context]
    assert texts[0] == "T" * 40  # the last compaction's summary stands first
    assert texts[1:] == [message_text(m) for m in context[1:]]
    frame = context_frame(session)
    assert frame["text"].tolist() == [preview(t) for t in texts]
    shown = SessionData(session).context(len(session.entries) - 1)["messages"]
    assert [m["text"] for m in shown] == [one_line(t, CONTEXT_TEXT_CHARS) for t in texts]


def test_tool_call_arguments_read_as_json_even_past_64_bits() -> None:
    """A tool call's text shows its arguments as JSON, as the chat messages do
    (``to_json``): an integer orjson cannot write once fell back to Python's repr."""
    call = {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"n": 2**70, "ok": True}}
    message = {"role": "assistant", "content": [call]}
    assert message_text(message) == f'read({{"n":{2**70},"ok":true}})'
    assert message_text(message) == f"read({to_json(call['arguments'])})"


def test_a_tables_preview_is_the_preview_of_the_entrys_text(tmp_path: Path) -> None:
    """The tables cut a content before they strip it (a long tool output is not joined
    whole); an indent longer than a preview once left the row empty ("(no output)"),
    and a cut in a blank stretch lost the text after it."""
    indent = " " * 400 + "\n" * 50
    shapes: list[Any] = [
        indent + "hello",
        [{"type": "text", "text": indent + "out"}],
        [{"type": "text", "text": indent}, {"type": "text", "text": "second"}],
        [{"type": "image", "data": "AA", "mimeType": "image/png"}, {"type": "text", "text": "  x"}],
        [{"type": "text", "text": " a"}, {"type": "text", "text": indent + "b" * 400}],
        "x" * 299 + indent + "y",
        [{"type": "text", "text": "x" * 299 + " " * 5}],
    ]
    lines: list[dict[str, Any]] = [header()]
    for n, content in enumerate(shapes):
        role = "toolResult" if n % 2 else "user"
        lines.append(msg(f"m{n}", lines[-1].get("id"), role, content=content, toolName="bash"))
    session = prime_nb.load(write_lines(tmp_path / "s.jsonl", lines))
    want = [preview(entry_text(session.entry(i))) for i in session.entries.index]
    assert session.entries["text"].tolist() == want
    assert want[:2] == ["hello", "out"]


def test_a_tables_preview_matches_on_random_blank_stretches(tmp_path: Path) -> None:
    """Random contents of text and blank stretches (every kind of whitespace ``strip``
    knows) around the preview's length: the fast path agrees with ``preview``."""
    rng = random.Random(35)
    pieces = ["a", "b c", " ", "\n", "\t", "\u00a0", "\x1c", "\u2028", "\u3000"]

    def text() -> str:
        return "".join(rng.choice(pieces) * rng.choice((1, 5, 150, 299, 301, 700)) for _ in "xyz")

    def content() -> Any:
        if rng.random() < 0.3:
            return text()
        image = {"type": "image", "data": "AA", "mimeType": "image/png"}
        return [
            image if rng.random() < 0.15 else {"type": "text", "text": text()}
            for _ in range(rng.randint(1, 4))
        ]

    lines: list[dict[str, Any]] = [header()]
    for n in range(400):
        role = rng.choice(("user", "toolResult"))
        lines.append(msg(f"m{n}", lines[-1].get("id"), role, content=content(), toolName="t"))
    session = prime_nb.load(write_lines(tmp_path / "s.jsonl", lines))
    want = [preview(entry_text(session.entry(i))) for i in session.entries.index]
    assert session.entries["text"].tolist() == want


def test_preview_is_the_stripped_text_clipped_for_any_blank_stretch() -> None:
    """``preview`` reads no more of a long text than it shows; it still says what
    ``clip(text.strip(), PREVIEW_CHARS)`` says, wherever its cut falls."""
    rng = random.Random(7)
    pieces = ["a", "b c", " ", "\n", "\t", "\u00a0", "\x1c", "\u2028", "\u3000", "\x85"]
    lengths = (1, 5, 150, 299, 300, 301, 302, 700)
    for _ in range(3000):
        n = rng.randint(0, 4)
        text = "".join(rng.choice(pieces) * rng.choice(lengths) for _ in range(n))
        assert preview(text) == clip(text.strip(), PREVIEW_CHARS), repr(text)
