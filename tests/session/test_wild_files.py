"""Shapes of real session files that the fixtures never had: the tail of a session with
no header, two entries glued on one line, and fields the agent's own types lack (written
by older releases, other providers, or the tools that embed the agent's session code).

Each file here is small and synthetic, made from ``session_matrix``'s clean session
(lines: 1 header, 2 u1, 3 a1 with tool call k1, 4 t1, 5 a2, 6 u2, 7 a3, 8 compaction c1,
9 u3, 10 x1, 11 a4) in the shape the real file had.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from agent_reading import agent_context_ids, agent_entries
from session_matrix import clean_lines

import prime_nb
from prime_nb.errors import SessionFormatError
from prime_nb.session import ColumnsRead, read_columns


def write(path: Path, lines: list[dict[str, Any] | str]) -> Path:
    path.write_text(
        "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines),
        encoding="utf-8",
    )
    return path


def context_ids(session: prime_nb.Session, leaf: str | None = None) -> list[str]:
    return [m["entry_id"] for m in session.context(leaf)]


# -- a session with no header ----------------------------------------------------------------
def tail_lines() -> list[dict[str, Any]]:
    """The tail of a session, as in the real file: a ``custom`` entry first (its parent is
    in the part cut off), then the clean session's entries, a compaction among them."""
    lines = clean_lines()[1:]
    state = {
        "type": "custom",
        "id": "cs0",
        "parentId": "gone0001",
        "timestamp": "2026-01-05T10:00:30.000Z",
        "customType": "openclaw.session-state",
        "data": {"turn": 4},
    }
    lines[0]["parentId"] = "cs0"
    return [state, *lines]


def test_a_session_without_a_header_loads_with_a_no_header_problem(tmp_path: Path) -> None:
    path = write(tmp_path / "tail.jsonl", tail_lines())
    session = prime_nb.load(path)
    assert len(session) == 11
    assert read_columns(path).header == {}
    assert session.version == 3 and session.id is None
    problems = session.problems
    first = problems.iloc[0]
    assert (first["line"], first["kind"], first["severity"]) == (1, "no_header", "error")
    assert "line 1 is a 'custom' entry" in first["message"]
    # the custom entry's parent was cut off with the head of the file: an orphan
    assert problems["kind"].tolist() == ["no_header", "orphan"]
    # the tree, the tables and the context are the full session's
    whole = prime_nb.load(write(tmp_path / "whole.jsonl", clean_lines()))
    assert session.leaf_id == whole.leaf_id == "a4"
    assert context_ids(session) == context_ids(whole) == ["c1", "u2", "a3", "u3", "a4"]
    assert session.compactions.index.tolist() == ["c1"]
    assert session.custom_entries["custom_type"].tolist() == ["openclaw.session-state"]
    pd.testing.assert_frame_equal(
        session.tool_calls.drop(columns="timestamp"), whole.tool_calls.drop(columns="timestamp")
    )


def test_a_summary_read_of_a_headerless_file_comes_back_from_its_bytes(tmp_path: Path) -> None:
    path = write(tmp_path / "tail.jsonl", tail_lines())
    read = read_columns(path, columns="summary")
    again = ColumnsRead.from_bytes(read.to_bytes(), path)
    assert again.columns.ids == read.columns.ids
    assert again.columns.parent_ids == read.columns.parent_ids
    assert again.problems == read.problems and again.header == {}


def test_a_headerless_file_is_read_on_as_it_grows(tmp_path: Path) -> None:
    lines = tail_lines()
    path = write(tmp_path / "tail.jsonl", lines[:5])
    session = prime_nb.load(path)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write("".join(json.dumps(line) + "\n" for line in lines[5:]))
    session.refresh()
    assert list(session.entries.index) == list(prime_nb.load(path).entries.index)
    assert session.problems["kind"].tolist() == ["no_header", "orphan"]


def test_a_headerless_file_without_ids_reads_as_one_chain(tmp_path: Path) -> None:
    lines = [{k: v for k, v in e.items() if k not in ("id", "parentId")} for e in tail_lines()]
    session = prime_nb.load(write(tmp_path / "v1-tail.jsonl", lines))
    assert session.version == 1
    # its entries get ids from their lines, so the compaction's kept id names none of them
    assert session.problems["kind"].tolist() == ["no_header", "dangling_reference"]
    assert session.entries["depth"].tolist() == list(range(11))


def test_the_writers_refuse_a_headerless_file_and_say_why(tmp_path: Path) -> None:
    path = write(tmp_path / "tail.jsonl", tail_lines())
    before = path.read_bytes()
    session = prime_nb.load(path)
    why = r"tail\.jsonl: line 1 is a 'custom' entry, not the session header .*; load\(\) reads it"
    with pytest.raises(SessionFormatError, match=why):
        session.append_label("u1", "here")
    with pytest.raises(SessionFormatError, match=why):
        prime_nb.write.append_fork(path, "a2", [{"role": "user", "content": "again"}])
    with pytest.raises(SessionFormatError, match=why):
        prime_nb.upgrade_file(path)
    assert path.read_bytes() == before


def test_a_headerless_file_forks_to_a_new_session(tmp_path: Path) -> None:
    path = write(tmp_path / "tail.jsonl", tail_lines())
    fork = prime_nb.fork_to_file(path, "a4", tmp_path / "fork.jsonl")
    forked = prime_nb.load(fork)
    assert forked.problems.empty
    assert forked.header["parent_session"] == str(path)
    assert context_ids(forked) == ["c1", "u2", "a3", "u3", "a4"]


def test_a_file_holding_only_a_header_loads_without_a_problem(tmp_path: Path) -> None:
    session = prime_nb.load(write(tmp_path / "only.jsonl", clean_lines()[:1]))
    assert len(session) == 0 and session.problems.empty
    assert session.leaf_id is None and list(session.context()) == []
    assert session.summary()["entries"] == 0


# -- two entries glued on one line -----------------------------------------------------------
def glued_lines() -> list[dict[str, Any] | str]:
    """The clean session with a3 and the compaction c1 on one line (lines 7-8 glued), as
    a writer that stopped before the newline leaves them: the real file lost its last
    compaction that way."""
    lines: list[dict[str, Any] | str] = list(clean_lines())
    a3, c1 = lines[6], lines[7]
    lines[6:8] = [json.dumps(a3) + json.dumps(c1)]
    return lines


def test_a_glued_line_is_dropped_as_the_agent_drops_it_and_named(tmp_path: Path) -> None:
    path = write(tmp_path / "glued.jsonl", glued_lines())
    session = prime_nb.load(path)
    agent = agent_entries(path)
    assert list(session.entries.index) == [e["id"] for e in agent[1:]]
    assert "a3" not in session.entries.index and "c1" not in session.entries.index
    assert context_ids(session) == agent_context_ids(path) == ["u3", "a4"]
    glued = session.problems[session.problems["kind"] == "glued_entries"]
    assert glued["line"].tolist() == [7] and glued["severity"].tolist() == ["error"]
    message = glued["message"].iloc[0]
    assert message.startswith("2 JSON values on one line")
    assert "a 'message' entry (id 'a3') and a 'compaction' entry (id 'c1')" in message
    assert "prime-nb repair" in message
    # u3 hung from the lost compaction
    assert session.problems["kind"].tolist() == ["glued_entries", "orphan"]


def test_a_line_of_bad_json_stays_invalid_json(tmp_path: Path) -> None:
    lines: list[dict[str, Any] | str] = list(clean_lines())
    lines[6] = json.dumps(lines[6]) + '{"type":'  # glued to a torn one: not two values
    lines.insert(7, "[1][2]")  # two values, no object
    session = prime_nb.load(write(tmp_path / "bad.jsonl", lines))
    assert session.problems["kind"].tolist()[:2] == ["invalid_json", "invalid_json"]


# -- fields the agent's types lack -----------------------------------------------------------
def _injected(lines: list[dict[str, Any]]) -> None:
    lines[4]["message"]["stopReason"] = "injected"


def _no_model_no_cost(lines: list[dict[str, Any]]) -> None:
    message = lines[4]["message"]
    for key in ("api", "provider", "model"):
        message.pop(key, None)
    message["usage"] = {"input": 3, "output": 4, "cacheRead": 0, "cacheWrite": 0}


def _block_fields(lines: list[dict[str, Any]]) -> None:
    message = lines[2]["message"]
    message["responseId"] = "msg_01XYZ"
    thinking = {"type": "thinking", "thinking": "look first", "thinkingSignature": "c2ln"}
    message["content"].insert(0, thinking)
    message["content"][1]["textSignature"] = "msg_abc"
    call = message["content"][2]
    call["partialJson"] = '{"path": "src/a.py"}'
    call["partialArgs"] = '{"path": "src/a.py"}'


def _provenance(lines: list[dict[str, Any]]) -> None:
    lines[1]["message"]["provenance"] = {"source": "telegram", "sender": "someone"}


def _custom_types(lines: list[dict[str, Any]]) -> None:
    meta = {
        "type": "custom",
        "id": "oc1",
        "parentId": "u1",
        "timestamp": "2026-01-05T10:01:30.000Z",
        "customType": "openclaw:session-meta",
        "data": {"channel": "telegram"},
    }
    note = {
        "type": "custom_message",
        "id": "cm1",
        "parentId": "oc1",
        "timestamp": "2026-01-05T10:01:40.000Z",
        "customType": "clawdbot.heartbeat",
        "content": "heartbeat",
        "display": False,
    }
    lines[2]["parentId"] = "cm1"
    lines[2:2] = [meta, note]


FIELDS = {
    "stop-reason-injected": _injected,
    "assistant-without-model-or-cost": _no_model_no_cost,
    "block-fields": _block_fields,
    "user-provenance": _provenance,
    "embedding-tool-custom-types": _custom_types,
}


@pytest.mark.parametrize("case", FIELDS)
def test_fields_seen_in_real_files_load_without_a_problem(case: str, tmp_path: Path) -> None:
    lines = clean_lines()
    FIELDS[case](lines)
    path = write(tmp_path / f"{case}.jsonl", list(lines))
    session = prime_nb.load(path)
    assert session.problems.empty, session.problems
    assert context_ids(session) == agent_context_ids(path)
    for leaf in session.leaves.index:
        for provider in ("openai", "anthropic"):
            session.to_messages(leaf, format=provider)
    entries = session.entries
    if case == "stop-reason-injected":
        assert entries.at["a2", "stop_reason"] == "injected"
        assert not entries.at["a2", "is_error"]
    elif case == "assistant-without-model-or-cost":
        assert pd.isna(entries.at["a2", "model"]) and pd.isna(entries.at["a2", "provider"])
        assert pd.isna(entries.at["a2", "cost"])
        assert entries.at["a2", "total_tokens"] == 7  # the parts' sum, as the agent adds
    elif case == "block-fields":
        assert entries.at["a1", "has_thinking"] and entries.at["a1", "n_tool_calls"] == 1
        assert session.tool_calls.at[0, "arguments"] == {"path": "src/a.py"}
        thinking = session.context("x1")[1]["content"][0]  # a1, on the way to x1
        assert thinking["thinkingSignature"] == "c2ln"
    elif case == "user-provenance":
        assert session.entry("u1")["message"]["provenance"]["source"] == "telegram"
        assert entries.at["u1", "text"] == "hello"
    else:
        assert session.custom_entries["custom_type"].tolist() == ["openclaw:session-meta"]
        assert entries.at["cm1", "custom_type"] == "clawdbot.heartbeat"
        assert "cm1" in context_ids(session, "x1")
