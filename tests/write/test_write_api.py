"""Every write function on both dialects and on v2/v3 files: the new entries load where
expected, every old byte stays as it was, and the lines are in the file's own dialect."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from agent_reading import agent_context_ids
from write_support import VARIANTS, make_session, raw_lines

import prime_nb
from prime_nb import write

ANSWER: dict[str, Any] = {
    "role": "assistant",
    "content": [{"type": "text", "text": "forked answer"}],
}


def _check_new_lines(path: Path, before: bytes, dialect: str, version: int) -> list[dict[str, Any]]:
    """The old bytes are a prefix; every new line is in the file's dialect; returns them."""
    after = path.read_bytes()
    assert after.startswith(before)
    assert after.endswith(b"\n")
    new = [orjson.loads(line) for line in after[len(before) :].split(b"\n")[:-1]]
    for entry in new:
        assert len(entry["id"]) == 8 and int(entry["id"], 16) >= 0
        if dialect == "spec":
            assert isinstance(entry["timestamp"], int)
            assert entry["type"] not in ("branch_summary", "thinking_level_change")
        else:
            assert isinstance(entry["timestamp"], str) and entry["timestamp"].endswith("Z")
            assert entry["type"] != "branchSummary"
        role = entry.get("message", {}).get("role")
        assert role != ("custom" if version < 3 else "hookMessage")
    ids = [e.get("id") for e in raw_lines(path)[1:]]
    assert len(ids) == len(set(ids)), "ids must stay unique in the file"
    return new


@pytest.fixture(params=VARIANTS, ids=[f"v{v}-{d}" for v, d in VARIANTS])
def session_file(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, int, str]:
    version, dialect = request.param
    return make_session(tmp_path / "s.jsonl", version, dialect), version, dialect


def test_append_message_makes_a_fork(session_file: tuple[Path, int, str]) -> None:
    path, version, dialect = session_file
    before = path.read_bytes()
    new_id = prime_nb.append_message(path, "u2", {"role": "user", "content": "other way"})
    (line,) = _check_new_lines(path, before, dialect, version)
    assert line["id"] == new_id and line["parentId"] == "u2"
    s = prime_nb.load(path)
    assert s.children("u2") == ["a2", new_id]
    assert s.leaf_id == new_id  # the fork is now the branch the agent resumes
    assert s.path() == ["u1", "a1", "u2", new_id]
    assert s.entry(new_id)["message"]["content"] == "other way"
    assert len(s.problems) == 0


def test_append_fork_writes_a_chain(session_file: tuple[Path, int, str]) -> None:
    path, version, dialect = session_file
    before = path.read_bytes()
    custom = {"role": "custom", "customType": "note", "content": "c", "display": False}
    messages: list[dict[str, Any]] = [{"role": "user", "content": "again"}, ANSWER, custom]
    ids = prime_nb.append_fork(path, "a1", messages)
    lines = _check_new_lines(path, before, dialect, version)
    assert [line["id"] for line in lines] == ids
    s = prime_nb.load(path)
    assert s.path() == ["u1", "a1", *ids]
    assert s.entry(ids[2])["message"]["role"] == "custom"  # hookMessage on disk for v2
    assert [m["role"] for m in s.context()] == ["user", "assistant", "user", "assistant", "custom"]


def test_spec_tool_call_and_result_use_spec_entries(tmp_path: Path) -> None:
    path = make_session(tmp_path / "s.jsonl", 3, "spec")
    call = {
        "role": "assistant",
        "content": [{"type": "toolCall", "id": "c9", "name": "ls", "arguments": {}}],
    }
    result = {"role": "toolResult", "toolCallId": "c9", "toolName": "ls", "content": []}
    rich = {**call, "usage": {"input": 1, "output": 2, "totalTokens": 3}, "model": "m"}
    before = path.read_bytes()
    ids = prime_nb.append_fork(path, "a3", [call, result, rich])
    lines = _check_new_lines(path, before, "spec", 3)
    assert [line["type"] for line in lines] == ["toolCall", "toolResult", "message"]
    s = prime_nb.load(path)
    assert s.entry(ids[0])["message"]["content"][0]["id"] == "c9"
    assert s.entry(ids[2])["message"]["usage"]["totalTokens"] == 3  # nothing lost
    assert s.tool_calls["call_id"].tolist()[-2:] == ["c9", "c9"]


def test_append_branch_summary(session_file: tuple[Path, int, str]) -> None:
    path, version, dialect = session_file
    before = path.read_bytes()
    new_id = prime_nb.append_branch_summary(path, "a1", "tried listing files", details={"k": 1})
    other = prime_nb.append_branch_summary(path, "a1", "from a3", from_id="a3")
    root = prime_nb.append_branch_summary(path, None, "a fresh start")
    lines = _check_new_lines(path, before, dialect, version)
    assert lines[0]["fromId"] == "a1" and lines[0]["details"] == {"k": 1}
    assert lines[1]["fromId"] == "a3"
    assert lines[2]["fromId"] == "root" and lines[2]["parentId"] is None
    assert lines[0]["type"] == ("branchSummary" if dialect == "spec" else "branch_summary")
    s = prime_nb.load(path)
    assert s.entries.loc[new_id, "type"] == "branch_summary"
    assert s.children("a1")[-2:] == [new_id, other]
    assert s.path(root) == [root]
    assert s.context(new_id)[-1]["summary"] == "tried listing files"


def test_append_compaction(session_file: tuple[Path, int, str]) -> None:
    path, version, dialect = session_file
    before = path.read_bytes()
    new_id = prime_nb.append_compaction(path, "we said hi", "u3", 4321, tokens_after=99)
    side = prime_nb.append_compaction(
        path, "side", "a2", 7, parent_id="t1", details={"readFiles": ["a.txt"]}
    )
    lines = _check_new_lines(path, before, dialect, version)
    assert lines[0]["parentId"] == "nm"  # the active leaf
    assert lines[0]["firstKeptEntryId"] == "u3" and lines[0]["tokensBefore"] == 4321
    assert lines[0]["tokensAfter"] == 99
    assert lines[1]["parentId"] == "t1" and lines[1]["details"] == {"readFiles": ["a.txt"]}
    s = prime_nb.load(path)
    assert s.compactions["first_kept_entry_id"].tolist() == ["u3", "a2"]
    ctx = s.context(new_id)
    assert ctx.compaction_id == new_id
    assert ctx[0]["summary"] == "we said hi"
    assert s.leaf_id == side


def test_append_label_and_name(session_file: tuple[Path, int, str]) -> None:
    path, version, dialect = session_file
    before = path.read_bytes()
    prime_nb.append_label(path, "u2", "important")
    prime_nb.append_label(path, "a1", None)  # clears "greeting"
    prime_nb.append_session_name(path, "renamed")
    lines = _check_new_lines(path, before, dialect, version)
    assert lines[0]["parentId"] == "nm" and lines[1]["parentId"] == lines[0]["id"]
    assert "label" not in lines[1]
    s = prime_nb.load(path)
    assert s.labels == {"u2": "important"}
    assert s.name == "renamed"


def test_numpy_counts_and_entry_wrappers(tmp_path: Path) -> None:
    import numpy as np

    path = make_session(tmp_path / "s.jsonl")
    s = prime_nb.load(path)
    new_id = prime_nb.append_compaction(path, "x", "u1", np.int64(12), parent_id="a1")
    assert s.refresh() == 1 and s.compactions["tokens_before"].tolist() == [12]
    copied = prime_nb.append_message(path, "a3", s.entry("u2"))  # a whole entry works too
    assert prime_nb.load(path).entry(copied)["message"]["content"] == "list files"
    assert new_id


def test_session_methods_refresh(tmp_path: Path) -> None:
    path = make_session(tmp_path / "s.jsonl")
    s = prime_nb.load(path)
    n = len(s)
    fork = s.append_message("u2", {"role": "user", "content": "x"})
    assert len(s) == n + 1 and s.leaf_id == fork
    chain = s.append_fork(fork, [ANSWER])
    assert s.path()[-2:] == [fork, *chain]
    summary = s.append_branch_summary("a1", "s")
    assert s.entries.loc[summary, "type"] == "branch_summary"
    compaction = s.append_compaction("c", "u1", 5, parent_id=summary)
    assert s.leaf_id == compaction
    s.append_label(fork, "mine")
    assert s.labels[fork] == "mine"
    s.set_name("named")
    assert s.name == "named"
    s.append_session_name("again")
    assert s.name == "again"
    out = s.fork_to_file(chain[0], tmp_path / "fork.jsonl")
    forked = prime_nb.load(out)
    assert forked.path()[:-2] == ["u1", "a1", "u2", fork, chain[0]]  # then two labels
    assert forked.labels == {"a1": "greeting", fork: "mine"}
    assert len(s) == n + 7


# -- bad input: a clear exception, and not a byte written ------------------------------


def _unchanged(path: Path, call: Any, error: type[BaseException], match: str) -> None:
    before = path.read_bytes()
    with pytest.raises(error, match=match):
        call()
    assert path.read_bytes() == before


def test_bad_input_is_refused_before_writing(tmp_path: Path) -> None:
    path = make_session(tmp_path / "s.jsonl")
    user = {"role": "user", "content": "x"}
    _unchanged(path, lambda: write.append_message(path, "nope", user), KeyError, "parent id")
    _unchanged(path, lambda: write.append_label(path, "nope", "x"), KeyError, "target")
    _unchanged(path, lambda: write.append_label(path, "u1", 5), ValueError, "label")  # type: ignore[arg-type]
    _unchanged(
        path, lambda: write.append_branch_summary(path, "a1", "s", from_id="zz"), KeyError, "from"
    )
    # the compaction's first kept entry must be on the path to its parent
    _unchanged(
        path,
        lambda: write.append_compaction(path, "s", "a2", 1, parent_id="a4"),
        ValueError,
        "not on the path",
    )
    _unchanged(path, lambda: write.append_compaction(path, "s", "u1", -1), ValueError, "negative")
    _unchanged(path, lambda: write.append_compaction(path, "s", "u1", "3"), ValueError, "integer")  # type: ignore[arg-type]
    for bad in (
        {"content": "no role"},
        {"role": "robot", "content": "x"},
        {"role": "branchSummary", "summary": "x"},
        {"role": "assistant", "content": 42},
        {"role": "user", "content": [{"text": "no type"}]},
        {"role": "toolResult", "content": []},
        "just a string",
    ):
        _unchanged(
            path, lambda b=bad: write.append_message(path, "a1", b), ValueError, "nothing was"
        )
    for content in ({1: "int key"}, {"x": object()}, "\ud800"):
        msg = {"role": "user", "content": [{"type": "text", "text": content}]}
        _unchanged(path, lambda m=msg: write.append_message(path, "a1", m), ValueError, "JSON")
    # a fork is all or nothing: its third message is bad, so none is written
    _unchanged(
        path,
        lambda: write.append_fork(path, "a1", [user, user, {"role": "?"}]),
        ValueError,
        "role",
    )
    _unchanged(path, lambda: write.append_fork(path, "a1", []), ValueError, "empty")
    _unchanged(path, lambda: write.append_session_name(path, "  "), ValueError, "empty")


def test_a_string_is_an_assistant_messages_text_as_a_users(tmp_path: Path) -> None:
    """The agent's assistant content is a list of blocks: a string becomes one text block."""
    path = make_session(tmp_path / "s.jsonl")
    ids = write.append_fork(
        path,
        "a1",
        [
            {"role": "user", "content": "try a generator"},
            {"role": "assistant", "content": "done, with a generator"},
        ],
    )
    session = prime_nb.load(path)
    assert session.entry(ids[0])["message"]["content"] == "try a generator"
    stored = session.entry(ids[1])["message"]["content"]
    assert stored == [{"type": "text", "text": "done, with a generator"}]
    assert session.entries.at[ids[1], "text"] == "done, with a generator"
    assert session.context(ids[1])[-1]["content"] == stored
    assert session.problems.empty


def test_a_fork_becomes_the_leaf_unless_keep_leaf(tmp_path: Path) -> None:
    """The agent resumes from the last entry of the file: a fork appended moves it there,
    and ``keep_leaf=True`` moves it back with a custom entry under the old leaf."""
    path = make_session(tmp_path / "s.jsonl")
    before = prime_nb.load(path)
    old_leaf, old_context = before.leaf_id, agent_context_ids(path)
    assert [m["entry_id"] for m in before.context()] == old_context
    fork = [{"role": "user", "content": "what if"}, {"role": "assistant", "content": "then"}]
    ids = write.append_fork(path, "a1", fork, keep_leaf=True)
    session = prime_nb.load(path)
    marker = session.leaf_id
    assert marker not in ids and len(ids) == 2
    assert session.entries.at[marker, "parent_id"] == old_leaf
    assert session.entries.at[marker, "custom_type"] == "prime_nb.keep_leaf"
    assert session.entry(marker)["data"] == {"fork": ids[0]}
    assert agent_context_ids(path) == old_context  # the agent resumes where it was
    assert [m["entry_id"] for m in session.context()] == old_context
    assert session.entries.at[ids[0], "parent_id"] == "a1" and session.problems.empty
    # without it, the fork is what the agent resumes
    moved = before.append_fork("a1", fork)
    assert prime_nb.load(path).leaf_id == moved[-1]
    assert agent_context_ids(path)[-2:] == moved


def test_entries_without_ids_explain_themselves(tmp_path: Path) -> None:
    path = make_session(tmp_path / "s.jsonl")
    with open(path, "ab") as fh:
        fh.write(b'{"type":"message","parentId":"a3","message":{"role":"user","content":"?"}}\n')
    s = prime_nb.load(path)
    loader_name = s.leaf_id
    assert loader_name is not None and loader_name.startswith("L")
    # upgrade_file leaves a version 3 file as it is: it cannot be the way out (it was hinted)
    with pytest.raises(KeyError, match=f"{loader_name} is the loader's name for line 13, which"):
        write.append_message(path, loader_name, {"role": "user", "content": "x"})
    # a label still hangs from the last entry that has an id
    label = write.append_label(path, "u1", "x")
    assert raw_lines(path)[-1]["parentId"] == "nm"
    assert label


def test_entries_renamed_by_the_loader_explain_themselves(tmp_path: Path) -> None:
    path = make_session(tmp_path / "s.jsonl")
    with open(path, "ab") as fh:
        fh.write(b'{"type":"message","id":"u1","parentId":"a3","message":{"role":"user"}}\n')
    renamed = prime_nb.load(path).leaf_id
    assert renamed == "u1@L13"
    before = path.read_bytes()
    with pytest.raises(KeyError, match=r"line 13, whose id 'u1' an earlier line uses too"):
        write.append_label(path, renamed, "x")
    assert path.read_bytes() == before


@pytest.mark.parametrize("dialect", ["prime", "spec"])
def test_version_1_is_refused_with_upgrade_hint(tmp_path: Path, dialect: str) -> None:
    path = make_session(tmp_path / "s.jsonl", 1, dialect)
    first = prime_nb.load(path).path()[0]
    with pytest.raises(prime_nb.UpgradeRequiredError, match=r"upgrade_file\("):
        write.append_message(path, first, {"role": "user", "content": "x"})
    with pytest.raises(
        prime_nb.UpgradeRequiredError,
        match=r"is a version 1 session: .* Call prime_nb\.upgrade_file\(",
    ):
        write.append_session_name(path, "x")
    assert path.read_bytes() == make_session(tmp_path / "again.jsonl", 1, dialect).read_bytes()


def test_not_a_session_file(tmp_path: Path) -> None:
    user = {"role": "user", "content": "x"}
    with pytest.raises(FileNotFoundError, match="no such session file"):
        write.append_message(tmp_path / "missing.jsonl", None, user)
    with pytest.raises(prime_nb.SessionFormatError, match="folder"):
        write.append_message(tmp_path, None, user)
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    with pytest.raises(prime_nb.SessionFormatError, match="empty"):
        write.append_message(empty, None, user)
    other = tmp_path / "other.jsonl"
    other.write_bytes(b'{"type":"message","id":"x"}\n')
    _unchanged(other, lambda: write.append_message(other, None, user), ValueError, "header")
    notes = tmp_path / "notes.txt"
    notes.write_bytes(b"dear diary\n")
    _unchanged(notes, lambda: write.append_label(notes, "x", "y"), ValueError, "header")


# -- torn tails ------------------------------------------------------------------------


def test_torn_tail_is_reported_and_never_merged(tmp_path: Path) -> None:
    path = make_session(tmp_path / "s.jsonl")
    with open(path, "ab") as fh:
        fh.write(b'{"type":"message","id":"torn1","parentId":"a3","mess')
    before = path.read_bytes()
    assert any(p == "torn_line" for p in prime_nb.load(path).problems["kind"])
    with pytest.warns(prime_nb.TornLineWarning, match="line 13 is incomplete"):
        new_id = write.append_label(path, "u1", "x")
    after = path.read_bytes()
    assert after.startswith(before) and after.endswith(b"\n")
    assert after[len(before) : len(before) + 1] == b"\n"  # a fresh line, not a merge
    s = prime_nb.load(path)
    assert s.labels["u1"] == "x" and s.leaf_id == new_id
    assert s.problems["kind"].tolist() == ["invalid_json"]


def test_complete_last_line_without_newline(tmp_path: Path) -> None:
    path = make_session(tmp_path / "s.jsonl")
    path.write_bytes(path.read_bytes().rstrip(b"\n"))
    before = path.read_bytes()
    write.append_label(path, "nm", "last")  # nm is whole, only its newline is missing
    after = path.read_bytes()
    assert after.startswith(before + b"\n")
    s = prime_nb.load(path)
    assert s.labels == {"a1": "greeting", "nm": "last"} and len(s.problems) == 0


def test_file_rewritten_in_place_is_read_afresh(tmp_path: Path) -> None:
    path = make_session(tmp_path / "s.jsonl")
    first = write.append_message(path, "a3", {"role": "user", "content": "one"})
    other = make_session(tmp_path / "other.jsonl", 3, "spec").read_bytes()
    inode = path.stat().st_ino
    with open(path, "r+b") as fh:  # same inode, other content, longer than before
        fh.write(other.replace(b'"u1"', b'"v1"') + b" " * 400 + b"\n")
        fh.truncate()
    assert path.stat().st_ino == inode
    with pytest.raises(KeyError, match="parent id 'u1'"):
        write.append_message(path, "u1", {"role": "user", "content": "x"})
    new_id = write.append_message(path, "v1", {"role": "user", "content": "x"})
    line = raw_lines_lenient(path)[-1]
    assert line["id"] == new_id and isinstance(line["timestamp"], int)  # spec now
    assert first not in prime_nb.load(path).entries.index


def raw_lines_lenient(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(x) for x in path.read_bytes().split(b"\n") if x.strip()]
