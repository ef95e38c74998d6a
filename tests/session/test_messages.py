"""Session.to_messages: contexts as OpenAI and Anthropic chat messages.

Every output is checked against the SDKs' own typed request models and the rules their
APIs enforce (``tests/chat_checks.py``): over the whole session matrix at every leaf, the
agent-written fixtures at every entry, and hand-made sessions with images, thinking,
errors, unanswered calls and orphan results.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from chat_checks import check, check_anthropic, check_openai
from conftest import FIXTURES, header, msg, write_lines
from session_matrix import LOADED_CASES

import prime_nb
from prime_nb.errors import EntryNotFoundError
from prime_nb.session._messages import context_messages, to_messages
from prime_nb.session._turns import NO_RESULT

OPTIONS = list(itertools.product(("openai", "anthropic"), ("data_url", "drop"), (True, False)))
AGENT_WRITTEN = sorted((FIXTURES / "agent-written").glob("*.jsonl"))
PNG = "iVBORw0KGgo="


def _all_texts(messages: list[dict[str, Any]]) -> str:
    """Every string in the messages, joined (to look for what must or must not be there)."""
    out: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(messages)
    return "\n".join(out)


def _check_context(context: Any) -> None:
    for format, images, thinking in OPTIONS:
        messages = to_messages(context, format, images, thinking)
        check(messages, format)
        text = _all_texts(messages)
        kinds = _types(messages)
        if images == "drop":
            assert not kinds & {"image", "image_url"}
        if not thinking:
            assert "<thinking>\n" not in text
            assert not kinds & {"thinking", "redacted_thinking"}
        # every user prompt the model saw is there, in order
        prompts = [m.get("content") for m in context if m.get("role") == "user"]
        prompts = [p for p in prompts if isinstance(p, str) and p.strip()]
        position = 0
        for prompt in prompts:
            position = text.find(prompt, position)
            assert position >= 0, f"user prompt {prompt[:40]!r} lost"


def _types(value: Any) -> set[str]:
    """Every block ``type`` in the messages, nested ones (tool results) included."""
    if isinstance(value, list):
        return set().union(*(_types(item) for item in value)) if value else set()
    if isinstance(value, dict):
        found = {value["type"]} if isinstance(value.get("type"), str) else set()
        return found.union(*(_types(item) for item in value.values()))
    return set()


# -- the matrix ------------------------------------------------------------------------------
@pytest.mark.parametrize("case", LOADED_CASES)
def test_every_leaf_of_the_matrix_is_a_valid_request(
    case: str, matrix_session: Callable[[str], prime_nb.Session]
) -> None:
    session = matrix_session(case)
    leaves = [None, *session.leaves.index]
    for leaf in leaves:
        _check_context(session.context(leaf))
    assert session.to_messages() == to_messages(session.context())


@pytest.mark.parametrize("path", AGENT_WRITTEN, ids=lambda p: p.name)
def test_every_entry_of_the_agent_written_files(path: Path) -> None:
    session = prime_nb.load(path)
    assert len(session) > 0
    for entry_id in session.entries.index:
        context = session.context(entry_id)
        for format in ("openai", "anthropic"):
            check(session.to_messages(entry_id, format=format), format)
        pairs = context_messages(context, "anthropic")
        ids = {m.get("entry_id") for m in context} | {
            i for m in context for i in m.get("entry_ids", [])
        }
        assert {s for _, sources in pairs for s in sources} <= ids


def test_empty_session_gives_no_messages(tmp_path: Path) -> None:
    session = prime_nb.load(write_lines(tmp_path / "e.jsonl", [header()]))
    assert session.to_messages() == []
    assert session.to_messages(format="anthropic") == []


# -- hand-made sessions ----------------------------------------------------------------------
def _session(tmp_path: Path, *messages: dict[str, Any]) -> prime_nb.Session:
    """A chain of message entries (``msg`` dicts with ids and parents set in order)."""
    lines: list[dict[str, Any]] = [header()]
    parent = None
    for n, entry in enumerate(messages):
        entry = {"id": f"e{n:07d}", "parentId": parent, **entry}
        entry.setdefault("timestamp", f"2026-01-05T10:{n:02d}:00.000Z")
        parent = entry["id"]
        lines.append(entry)
    return prime_nb.load(write_lines(tmp_path / "s.jsonl", lines))


def _m(role: str, content: Any = "", **extra: Any) -> dict[str, Any]:
    entry = msg("x", None, role, **extra)
    if content != "" or role == "user":
        entry["message"]["content"] = content
    return {"type": "message", "message": entry["message"]}


def _call(call_id: Any, name: str = "read", arguments: Any = None) -> dict[str, Any]:
    args = {"path": "a.py"} if arguments is None else arguments
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": args}


def _result(call_id: str, text: str = "ok", **extra: Any) -> dict[str, Any]:
    content = [{"type": "text", "text": text}]
    return _m("toolResult", content, toolCallId=call_id, toolName="read", **extra)


def _image(mime: str = "image/png") -> dict[str, Any]:
    return {"type": "image", "data": PNG, "mimeType": mime}


def test_tool_calls_and_results_are_paired(tmp_path: Path) -> None:
    session = _session(
        tmp_path,
        _m("user", "read two files"),
        _m("assistant", [_call("c1"), _call("c2", arguments={"path": "b.py"})]),
        _result("c2", "B"),
        _result("c1", "A"),
        _m("assistant", [{"type": "text", "text": "done"}]),
    )
    openai = session.to_messages()
    check_openai(openai)
    assert [m["role"] for m in openai] == ["user", "assistant", "tool", "tool", "assistant"]
    call = openai[1]["tool_calls"][1]
    assert call == {
        "id": "c2",
        "type": "function",
        "function": {"name": "read", "arguments": '{"path":"b.py"}'},
    }
    assert openai[1]["content"] is None
    assert [(m["tool_call_id"], m["content"]) for m in openai[2:4]] == [("c2", "B"), ("c1", "A")]
    anthropic = session.to_messages(format="anthropic")
    check_anthropic(anthropic)
    assert [m["role"] for m in anthropic] == ["user", "assistant", "user", "assistant"]
    assert anthropic[1]["content"][0] == {
        "type": "tool_use",
        "id": "c1",
        "name": "read",
        "input": {"path": "a.py"},
    }
    results = anthropic[2]["content"]
    assert [(b["tool_use_id"], b["content"][0]["text"], b["is_error"]) for b in results] == [
        ("c2", "B", False),
        ("c1", "A", False),
    ]


def test_an_unanswered_call_gets_the_agents_stand_in(tmp_path: Path) -> None:
    session = _session(
        tmp_path,
        _m("user", "go"),
        _m("assistant", [_call("c1")]),
        _m("user", "stop, do something else"),
        _m("assistant", [_call("c2")]),
    )
    for format in ("openai", "anthropic"):
        for leaf in session.entries.index:
            check(session.to_messages(leaf, format=format), format)
    openai = session.to_messages()
    assert [m["role"] for m in openai] == ["user", "assistant", "tool", "user", "assistant", "tool"]
    assert openai[2] == {"role": "tool", "tool_call_id": "c1", "content": NO_RESULT}
    assert openai[5]["tool_call_id"] == "c2"  # the call at the leaf is answered too
    anthropic = session.to_messages(format="anthropic")
    stand_in = anthropic[2]["content"][0]
    assert stand_in["tool_use_id"] == "c1" and stand_in["is_error"] is True
    assert anthropic[2]["content"][1] == {"type": "text", "text": "stop, do something else"}


def test_an_orphan_result_is_dropped(tmp_path: Path) -> None:
    session = _session(
        tmp_path,
        _m("user", "hi"),
        _result("nobody-called-me", "lost"),
        _m("assistant", [{"type": "text", "text": "hello"}]),
        _result("late", "also lost"),
    )
    for format in ("openai", "anthropic"):
        messages = session.to_messages(format=format)
        check(messages, format)
        assert "lost" not in _all_texts(messages)
        assert len(messages) == 2


def test_failed_assistant_turns_are_left_out_as_the_agent_does(tmp_path: Path) -> None:
    session = _session(
        tmp_path,
        _m("user", "try"),
        _m("assistant", [{"type": "text", "text": "partial"}, _call("c1")], stopReason="error"),
        _result("c1", "result of a failed turn"),
        _m("assistant", [{"type": "text", "text": "half"}], stopReason="aborted"),
        _m("user", "again"),
        _m("assistant", [_call("c2")]),
        _result("c2", "bad", isError=True),
        _m("assistant", [{"type": "text", "text": "ok now"}]),
    )
    for format in ("openai", "anthropic"):
        messages = session.to_messages(format=format)
        check(messages, format)
        text = _all_texts(messages)
        assert "partial" not in text and "half" not in text and "failed turn" not in text
        assert "bad" in text and "ok now" in text
    anthropic = session.to_messages(format="anthropic")
    assert anthropic[0]["content"] == [
        {"type": "text", "text": "try"},
        {"type": "text", "text": "again"},
    ]
    assert anthropic[2]["content"][0]["is_error"] is True


def test_images_as_data_urls_or_dropped(tmp_path: Path) -> None:
    session = _session(
        tmp_path,
        _m("user", [{"type": "text", "text": "look"}, _image()]),
        _m("assistant", [_call("c1", name="screenshot")]),
        _m("toolResult", [_image("image/jpeg")], toolCallId="c1", toolName="screenshot"),
        _m("assistant", [{"type": "text", "text": "I see"}]),
        _m("user", [_image("image/bmp")]),
    )
    openai = session.to_messages()
    check_openai(openai)
    assert openai[0]["content"][1] == {
        "type": "image_url",
        "image_url": {"url": f"data:image/png;base64,{PNG}"},
    }
    # tool messages hold text only: the image follows them in a user message
    assert [m["role"] for m in openai] == ["user", "assistant", "tool", "user", "assistant", "user"]
    assert openai[2]["content"] == ""
    assert openai[3]["content"][1]["image_url"]["url"] == f"data:image/jpeg;base64,{PNG}"
    anthropic = session.to_messages(format="anthropic")
    check_anthropic(anthropic)
    assert anthropic[0]["content"][1] == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": PNG},
    }
    assert anthropic[2]["content"][0]["content"][0]["source"]["media_type"] == "image/jpeg"
    assert "image/bmp" in anthropic[-1]["content"][0]["text"]  # a type it does not take
    for format in ("openai", "anthropic"):
        dropped = session.to_messages(format=format, images="drop")
        check(dropped, format)
        assert PNG not in _all_texts(dropped)
    # the last user message held only an image: without it, it is gone
    assert session.to_messages(images="drop")[-1]["role"] == "assistant"


def test_thinking_kept_or_dropped(tmp_path: Path) -> None:
    signed = {"type": "thinking", "thinking": "plan A", "thinkingSignature": "sig=="}
    unsigned = {"type": "thinking", "thinking": "plan B"}
    redacted = {"type": "thinking", "thinking": "", "thinkingSignature": "opaque", "redacted": True}
    session = _session(
        tmp_path,
        _m("user", "think"),
        _m("assistant", [signed, unsigned, redacted, {"type": "text", "text": "answer"}]),
        _m("user", "more"),
        _m("assistant", [{"type": "thinking", "thinking": "only thought"}]),
    )
    anthropic = session.to_messages(format="anthropic")
    check_anthropic(anthropic)
    assert anthropic[1]["content"] == [
        {"type": "thinking", "thinking": "plan A", "signature": "sig=="},
        {"type": "text", "text": "<thinking>\nplan B\n</thinking>"},
        {"type": "redacted_thinking", "data": "opaque"},
        {"type": "text", "text": "answer"},
    ]
    openai = session.to_messages()
    check_openai(openai)
    assert openai[1]["content"] == [
        {"type": "text", "text": "<thinking>\nplan A\n</thinking>"},
        {"type": "text", "text": "<thinking>\nplan B\n</thinking>"},
        {"type": "text", "text": "answer"},
    ]
    assert openai[3]["content"] == "<thinking>\nonly thought\n</thinking>"
    for format in ("openai", "anthropic"):
        without = session.to_messages(format=format, thinking=False)
        check(without, format)
        assert "plan" not in _all_texts(without) and "opaque" not in _all_texts(without)
        # an assistant message that held only thinking is gone
        assert "only thought" not in _all_texts(without)
    assert [m["role"] for m in session.to_messages(thinking=False)] == [
        "user",
        "assistant",
        "user",
    ]


def test_summaries_custom_messages_and_bash_runs_are_user_messages(tmp_path: Path) -> None:
    bash = {
        "role": "bashExecution",
        "command": "ls",
        "output": "a.py",
        "exitCode": 2,
        "cancelled": False,
        "truncated": False,
    }
    hidden = {**bash, "command": "cat .env", "output": "SECRET", "excludeFromContext": True}
    session = _session(
        tmp_path,
        _m("user", "start"),
        {"type": "branch_summary", "fromId": "root", "summary": "tried X"},
        {
            "type": "custom_message",
            "customType": "note",
            "content": "from an extension",
            "display": False,
        },
        {"type": "message", "message": bash},
        {"type": "message", "message": hidden},
        {"type": "message", "message": {"role": "someNewRole", "content": "unknown"}},
        _m("assistant", [{"type": "text", "text": "ok"}]),
    )
    openai = session.to_messages()
    check_openai(openai)
    assert [m["role"] for m in openai] == ["user"] * 4 + ["assistant"]
    assert openai[1]["content"].startswith("The following is a summary of a branch")
    assert "<summary>\ntried X</summary>" in openai[1]["content"]
    assert openai[2]["content"] == "from an extension"
    assert openai[3]["content"] == "Ran `ls`\n```\na.py\n```\n\nCommand exited with code 2"
    assert "SECRET" not in _all_texts(openai) and "unknown" not in _all_texts(openai)
    anthropic = session.to_messages(format="anthropic")
    check_anthropic(anthropic)
    assert len(anthropic) == 2 and len(anthropic[0]["content"]) == 4


def test_a_compaction_opens_with_its_summary(tmp_path: Path) -> None:
    session = _session(
        tmp_path,
        _m("user", "old"),
        _m("assistant", [{"type": "text", "text": "old answer"}]),
        _m("user", "kept"),
        {
            "type": "compaction",
            "summary": "we did old things",
            "firstKeptEntryId": "e0000002",
            "tokensBefore": 100,
        },
        _m("assistant", [{"type": "text", "text": "after"}]),
    )
    for format in ("openai", "anthropic"):
        messages = session.to_messages(format=format)
        check(messages, format)
        text = _all_texts(messages)
        assert "old answer" not in text
        first = _all_texts(messages[:1]).replace("\ntext\n", "\n")  # anthropic's block type
        assert first.startswith("user\nThe conversation history before this point was compacted")
        assert "<summary>\nwe did old things\n</summary>" in text and "kept" in text


def test_odd_ids_and_arguments_still_make_a_valid_request(tmp_path: Path) -> None:
    session = _session(
        tmp_path,
        _m("assistant", [{"type": "text", "text": "I speak first"}]),
        _m("user", "hi"),
        _m(
            "assistant",
            [
                _call("fc_1|item/2", arguments='{"path": "x"}'),
                _call("fc_1|item/2", arguments=[1, 2]),
                _call(None, arguments="not json"),
                {"type": "toolCall", "id": "c4", "name": None, "arguments": {"a": 1}},
                "not a block",
                {"type": "text", "text": 42},
                {"type": "text", "text": "   "},
            ],
        ),
        _result("fc_1|item/2", "first"),
        _result("fc_1|item/2", "second"),
        _m("user", 12345),
    )
    for format in ("openai", "anthropic"):
        for leaf in session.entries.index:
            check(session.to_messages(leaf, format=format), format)
    openai = session.to_messages()
    assert openai[0]["role"] == "assistant"  # OpenAI takes an assistant first
    calls = openai[2]["tool_calls"]
    assert [c["id"] for c in calls] == ["fc_1|item/2", "fc_1|item/2_2", "call", "c4"]
    assert [c["function"]["arguments"] for c in calls] == [
        '{"path": "x"}',  # a string is kept as it is
        "[1,2]",
        "not json",
        '{"a":1}',
    ]
    assert [(m["tool_call_id"], m["content"]) for m in openai[3:7]] == [
        ("fc_1|item/2", "first"),
        ("fc_1|item/2_2", "second"),
        ("call", NO_RESULT),
        ("c4", NO_RESULT),
    ]
    anthropic = session.to_messages(format="anthropic")
    assert anthropic[0]["role"] == "user"  # Anthropic needs a user message first
    uses = [b for b in anthropic[3]["content"] if b["type"] == "tool_use"]
    assert [(u["id"], u["input"]) for u in uses] == [
        ("fc_1_item_2", {"path": "x"}),
        ("fc_1_item_2_2", {"value": [1, 2]}),
        ("call", {"value": "not json"}),
        ("c4", {"a": 1}),
    ]
    assert uses[3]["name"] == "unknown_tool"


def test_the_leaf_and_the_options_are_checked(tmp_path: Path) -> None:
    session = _session(tmp_path, _m("user", "a"), _m("user", "b"))
    assert session.to_messages("e0000000") == [{"role": "user", "content": "a"}]
    assert session.to_messages() == [
        {"role": "user", "content": "a"},
        {"role": "user", "content": "b"},
    ]
    with pytest.raises(EntryNotFoundError, match="nope"):
        session.to_messages("nope")
    with pytest.raises(ValueError, match=r"format must be one of \('openai', 'anthropic'\)"):
        session.to_messages(format="gemini")
    with pytest.raises(ValueError, match="images must be one of"):
        session.to_messages(images="url")
