"""upgrade_file (the one rewrite) and fork_to_file (a new file holding one branch)."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest
from conftest import FIXTURES
from write_support import make_session, raw_lines

import prime_nb
from prime_nb import fork_to_file, write

DIALECTS = ["prime", "spec"]


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("version", [1, 2])
def test_upgrade_keeps_ids_and_a_backup(tmp_path: Path, version: int, dialect: str) -> None:
    path = make_session(tmp_path / "s.jsonl", version, dialect)
    original = path.read_bytes()
    before = prime_nb.load(path)
    ids, parents = list(before.entries.index), before.entries["parent_id"].tolist()
    contexts = [m.get("content") for m in before.context()]

    assert write.upgrade_file(path) == path
    backup = path.with_name(f"s.jsonl.v{version}.bak")
    assert backup.read_bytes() == original
    lines = raw_lines(path)
    assert lines[0]["version"] == 3
    assert lines[0]["type"] == ("header" if dialect == "spec" else "session")
    after = prime_nb.load(path)
    assert after.version == 3 and after.dialect == dialect
    assert list(after.entries.index) == ids  # the loader's ids, now written in
    assert after.entries["parent_id"].tolist() == parents
    assert [m.get("content") for m in after.context()] == contexts
    assert len(after.problems) == 0
    assert all(line.get("message", {}).get("role") != "hookMessage" for line in lines)
    # appending works now, and the old bytes of the upgraded file stay
    upgraded = path.read_bytes()
    write.append_label(path, ids[1], "now")
    assert path.read_bytes().startswith(upgraded)
    assert prime_nb.load(path).labels[ids[1]] == "now"


def test_upgrade_version_1_compaction_index(tmp_path: Path) -> None:
    path = make_session(tmp_path / "s.jsonl", 1)
    with open(path, "ab") as fh:
        compaction = {
            "type": "compaction",
            "timestamp": "2026-01-05T11:00:00.000Z",
            "summary": "so far",
            "firstKeptEntryIndex": 3,
            "tokensBefore": 100,
        }
        fh.write(orjson.dumps(compaction) + b"\n")
    before = prime_nb.load(path)
    kept = before.compactions["first_kept_entry_id"].iloc[0]
    assert kept == before.entries.index[2]
    prime_nb.upgrade_file(path, backup=False)
    assert not list(tmp_path.glob("*.bak"))
    line = raw_lines(path)[-1]
    assert "firstKeptEntryIndex" not in line and line["firstKeptEntryId"] == kept
    assert prime_nb.load(path).compactions["first_kept_entry_id"].iloc[0] == kept


def test_upgrade_keeps_junk_and_unchanged_lines_verbatim(tmp_path: Path) -> None:
    path = make_session(tmp_path / "s.jsonl", 2)
    lines = path.read_bytes().split(b"\n")
    lines.insert(3, b"not json at all")
    lines.insert(5, b"")
    path.write_bytes(b"\n".join(lines) + b'{"type":"label","id":"t"')  # and a torn tail
    problems = prime_nb.load(path).problems["kind"].tolist()
    assert problems == ["invalid_json", "blank_line", "torn_line"]
    s = prime_nb.load(path)
    s.upgrade()
    assert s.version == 3
    assert s.problems["kind"].tolist() == ["invalid_json", "invalid_json"]
    data = path.read_bytes()
    assert b"\nnot json at all\n" in data and data.endswith(b'{"type":"label","id":"t"\n')
    # entries that needed no change keep their exact bytes
    assert lines[1] + b"\n" in data and lines[2] + b"\n" in data


def test_upgrade_duplicate_and_missing_ids_get_the_loader_names(tmp_path: Path) -> None:
    path = make_session(tmp_path / "s.jsonl", 2)
    extra = [
        {"type": "message", "id": "u1", "parentId": "a3", "message": {"role": "user"}},
        {"type": "message", "parentId": "a3", "message": {"role": "user", "content": "?"}},
    ]
    with open(path, "ab") as fh:
        fh.write(b"".join(orjson.dumps(e) + b"\n" for e in extra))
    before = prime_nb.load(path)
    ids = list(before.entries.index)
    assert ids[-2:] == ["u1@L13", "L14"]
    write.upgrade_file(path)
    after = prime_nb.load(path)
    assert list(after.entries.index) == ids
    assert len(after.problems) == 0


def test_upgrade_names_a_repeat_as_the_loader_does_when_an_id_spells_that_name(
    tmp_path: Path,
) -> None:
    """``u1@L14`` is taken by the line before, so the loader names the repeat ``u1@L14.2``;
    the upgrade used to write ``u1@L14`` a second time."""
    path = make_session(tmp_path / "s.jsonl", 2)
    extra = [
        {"type": "message", "id": "u1@L14", "parentId": "a3", "message": {"role": "user"}},
        {"type": "message", "id": "u1", "parentId": "a3", "message": {"role": "user"}},
    ]
    with open(path, "ab") as fh:
        fh.write(b"".join(orjson.dumps(e) + b"\n" for e in extra))
    ids = list(prime_nb.load(path).entries.index)
    assert ids[-2:] == ["u1@L14", "u1@L14.2"]
    write.upgrade_file(path)
    after = prime_nb.load(path)
    assert list(after.entries.index) == ids
    assert len(after.problems) == 0


def test_upgrade_leaves_version_3_alone(tmp_path: Path) -> None:
    path = make_session(tmp_path / "s.jsonl", 3)
    stat = path.stat()
    assert write.upgrade_file(path) == path
    assert path.stat().st_ino == stat.st_ino
    assert not list(tmp_path.glob("*.bak"))


def test_upgrade_twice_keeps_both_backups(tmp_path: Path) -> None:
    path = make_session(tmp_path / "s.jsonl", 2)
    write.upgrade_file(path)
    path.write_bytes(make_session(tmp_path / "other.jsonl", 2).read_bytes())
    write.upgrade_file(path)
    assert sorted(p.name for p in tmp_path.glob("*.bak")) == ["s.jsonl.v2.1.bak", "s.jsonl.v2.bak"]


def test_upgrade_refuses_what_is_no_session(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_bytes(b'{"type":"message"}\n')
    with pytest.raises(
        prime_nb.SessionFormatError, match="'message' entry, not the session header"
    ):
        write.upgrade_file(path)
    assert path.read_bytes() == b'{"type":"message"}\n'
    assert [p.name for p in tmp_path.iterdir() if not p.name.startswith(".x.jsonl.lock")] == [
        "x.jsonl"
    ]


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("version", [1, 2, 3])
def test_fork_to_file(tmp_path: Path, version: int, dialect: str) -> None:
    path = make_session(tmp_path / "s.jsonl", version, dialect)
    original = path.read_bytes()
    s = prime_nb.load(path)
    leaf = s.path()[-1] if version == 1 else "a4"
    out = fork_to_file(path, leaf)
    assert path.read_bytes() == original
    assert out.parent == tmp_path and out.name.endswith(".jsonl") and "_" in out.name
    lines = raw_lines(out)
    assert lines[0]["type"] == ("header" if dialect == "spec" else "session")
    assert lines[0]["version"] == 3 and lines[0]["parentSession"] == str(path)
    fork = prime_nb.load(out)
    assert fork.version == 3 and fork.dialect == dialect and len(fork.problems) == 0
    expected = s.path(leaf)
    labels = {k: v for k, v in s.labels.items() if k in expected}
    assert fork.path()[: len(expected)] == expected
    assert fork.labels == labels
    assert len(fork) == len(expected) + len(labels)
    assert [m.get("content") for m in fork.context(leaf)] == [
        m.get("content") for m in s.context(leaf)
    ]


def test_fork_to_file_dest(tmp_path: Path) -> None:
    path = make_session(tmp_path / "s.jsonl")
    out = fork_to_file(path, "t1", tmp_path / "mine.jsonl")
    assert out == tmp_path / "mine.jsonl"
    assert prime_nb.load(out).path() == ["u1", "a1", "u2", "a2", "t1", fork_label(out)]
    with pytest.raises(FileExistsError, match="already exists"):
        fork_to_file(path, "t1", out)
    sub = tmp_path / "forks"
    sub.mkdir()
    inside = fork_to_file(path, "u1", sub)
    assert inside.parent == sub
    assert prime_nb.load(inside).path() == ["u1"]
    with pytest.raises(
        KeyError, match=r"no entry with id 'nope' in .*; see session\.entries\.index"
    ):
        fork_to_file(path, "nope")
    assert sorted(os.listdir(sub)) == [inside.name]  # no temp file left behind


def fork_label(path: Path) -> str:
    last = raw_lines(path)[-1]
    assert last["type"] == "label" and last["targetId"] == "a1"
    return str(last["id"])


def test_upgrade_keeps_lines_the_agent_appends_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lines appended to the old file between our read and our rename reach the new one."""
    path = make_session(tmp_path / "s.jsonl", 2)
    real_rename = os.rename
    late = {"type": "message", "id": "late0001", "parentId": "nm", "message": {"role": "user"}}

    def agent_appends_then_rename(src: str, dst: str) -> None:
        with open(path, "ab") as fh:  # still the old file: the agent's appendFileSync
            fh.write(orjson.dumps(late) + b"\n")
        real_rename(src, dst)

    monkeypatch.setattr(os, "rename", agent_appends_then_rename)
    write.upgrade_file(path)
    monkeypatch.undo()
    s = prime_nb.load(path)
    assert s.version == 3 and s.leaf_id == "late0001" and len(s.problems) == 0
    assert raw_lines(path)[-1] == late


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("version", [1, 2, 3])
def test_on_synthetic_sessions(tmp_path: Path, version: int, dialect: str) -> None:
    """Every entry type of the generator's files survives upgrade, appends and a fork."""
    import sessiongen

    path = sessiongen.synthetic_session(
        tmp_path / "s.jsonl", version=version, dialect=dialect, seed=3
    )
    before = prime_nb.load(path)
    ids = list(before.entries.index)
    s = prime_nb.load(path)
    if version < 3:
        s.upgrade()
        assert list(s.entries.index) == ids and len(s.problems) == 0
    upgraded = path.read_bytes()
    middle = s.path()[len(s.path()) // 2]
    fork = s.append_fork(middle, [{"role": "user", "content": "what if"}])
    s.append_compaction("short", s.path()[1], 1000)
    s.append_label(fork[0], "idea")
    assert path.read_bytes().startswith(upgraded)
    assert len(s.problems) == 0 and s.labels[fork[0]] == "idea"
    out = prime_nb.load(s.fork_to_file(fork[0]))
    kinds = s.entries["type"]
    expected = [i for i in s.path(fork[0]) if kinds[i] != "label"]  # labels written anew
    assert out.path()[: len(expected)] == expected and len(out.problems) == 0
    assert out.labels == {k: v for k, v in s.labels.items() if k in expected}
    assert len(out.context(fork[0])) == len(s.context(fork[0]))


def test_fork_rechains_around_labels(tmp_path: Path) -> None:
    path = make_session(tmp_path / "s.jsonl")
    label = write.append_label(path, "u3", "mid")  # hangs from nm, the active leaf
    after = write.append_message(path, label, {"role": "user", "content": "after the label"})
    compaction = write.append_compaction(path, "sum", label, 10)
    out = fork_to_file(path, compaction)
    fork = prime_nb.load(out)
    assert label not in fork.entries.index and len(fork.problems) == 0
    assert fork.entries.loc[after, "parent_id"] == "nm"
    assert fork.compactions["first_kept_entry_id"].tolist() == [after]
    assert fork.labels == {"a1": "greeting", "u3": "mid"}


# -- agreeing with the agent: v1 compaction indexes, forks the agent takes as they are --

AGENT_DIR = FIXTURES / "agent-written"


def _v1_lines() -> list[bytes]:
    """A v1 file whose lines 2 and 10 hold objects without a type, line 4 a second header."""

    def message(role: str, text: str, minute: int) -> dict:
        content: object = text if role == "user" else [{"type": "text", "text": text}]
        stamp = f"2026-01-05T10:{minute:02d}:00.000Z"
        return {
            "type": "message",
            "timestamp": stamp,
            "message": {"role": role, "content": content},
        }

    objects: list[dict] = [
        {"type": "session", "id": "s1", "timestamp": "2026-01-05T10:00:00.000Z", "cwd": "/x"},
        message("user", "q1", 1),
        {"note": "no type"},
        message("assistant", "a1", 2),
        {"type": "session", "id": "again"},
        message("user", "q2", 3),
        message("assistant", "a2", 4),
    ]
    return [orjson.dumps(o) for o in objects]


def _compaction(index: object) -> bytes:
    return orjson.dumps(
        {
            "type": "compaction",
            "timestamp": "2026-01-05T10:05:00.000Z",
            "summary": "s",
            "tokensBefore": 5,
            "firstKeptEntryIndex": index,
        }
    )


@pytest.mark.parametrize(
    ("index", "kept"),
    [
        (1, ["q1", "a1", "q2", "a2"]),
        (2, ["a1", "q2", "a2"]),  # the typeless line: kept from it, so from a1 on
        (3, ["a1", "q2", "a2"]),
        (4, []),  # the second header: the agent finds no entry there, keeps nothing
        (5, ["q2", "a2"]),
        (6.0, ["a2"]),  # JSON 6.0 is the number 6 to the agent
        (7, []),  # the compaction itself
        (0, []),
        ("3", []),
    ],
)
def test_v1_compaction_index_counts_every_json_object_line(
    tmp_path: Path, index: object, kept: list[str]
) -> None:
    path = tmp_path / "v1.jsonl"
    path.write_bytes(b"\n".join([*_v1_lines(), _compaction(index), b'{"x": 1}']) + b"\n")
    before = prime_nb.load(path)
    # a compaction that keeps from itself is reported (the agent keeps nothing there)
    itself = ["dangling_reference"] if index == 7 else []
    assert before.problems["kind"].tolist() == [
        "missing_type",
        "extra_header",
        *itself,
        "missing_type",
    ]
    context = before.context()
    assert context[0]["retainedMessageCount"] == len(kept)
    assert [_text(m) for m in context[1:]] == kept
    ids = list(before.entries.index)
    contexts = [list(before.context(i)) for i in ids]

    write.upgrade_file(path, backup=False)
    lines = path.read_bytes().splitlines()
    objects = [orjson.loads(line) for line in lines]
    # no line is left without an id but the headers; the typeless ones hang off the chain
    assert [i for i, o in enumerate(objects) if "id" not in o or o.get("type") == "session"] == [
        0,
        4,
    ] and objects[4]["id"] == "again"
    assert objects[2]["parentId"] == objects[1]["id"] == objects[3]["parentId"]
    after = prime_nb.load(path)
    assert list(after.entries.index) == ids
    assert [list(after.context(i)) for i in ids] == contexts
    assert after.problems["kind"].tolist() == before.problems["kind"].tolist()


def _text(message: dict) -> str:
    content = message["content"]
    return content if isinstance(content, str) else content[0]["text"]


def test_fork_header_is_one_the_agent_takes_as_it_is(tmp_path: Path) -> None:
    """The agent rewrites a header with ``parentSession`` and no valid ``rlmDepth``; the
    fork carries the source's depth, as the agent's own fork does."""
    path = make_session(tmp_path / "s.jsonl")
    assert "rlmDepth" not in raw_lines(path)[0]
    header = raw_lines(fork_to_file(path, "a4", tmp_path / "f0.jsonl"))[0]
    assert header["rlmDepth"] == 0 and header["parentSession"] == str(path)
    # a fork of a fork: the depth is the source's, found through its header
    header = raw_lines(fork_to_file(tmp_path / "f0.jsonl", "a4", tmp_path / "f1.jsonl"))[0]
    assert header["rlmDepth"] == 0
    # a sub-agent's session (in a sub-<8 hex> folder) with a parent but no depth: one deeper
    sub = tmp_path / "sub-0123abcd"
    sub.mkdir()
    child = sub / "child.jsonl"
    lines = path.read_bytes().splitlines()
    head = {**orjson.loads(lines[0]), "parentSession": "../s.jsonl", "rlmDepth": 2}
    head["rlmDepth"] = None
    child.write_bytes(b"\n".join([orjson.dumps(head), *lines[1:]]) + b"\n")
    assert raw_lines(fork_to_file(child, "a4", tmp_path / "f2.jsonl"))[0]["rlmDepth"] == 1
    head["rlmDepth"] = 4
    child.write_bytes(b"\n".join([orjson.dumps(head), *lines[1:]]) + b"\n")
    assert raw_lines(fork_to_file(child, "a4", tmp_path / "f3.jsonl"))[0]["rlmDepth"] == 4


@pytest.mark.parametrize("dialect", DIALECTS)
def test_fork_keeps_the_time_each_label_was_set(tmp_path: Path, dialect: str) -> None:
    path = make_session(tmp_path / "s.jsonl", 3, dialect)
    s = prime_nb.load(path)
    s.append_label("u3", "later")
    s.append_label("u2", "off the branch")
    s.append_label("a1", None)
    s.append_label("a1", "again")  # cleared and set anew: its new time, last in order
    s = prime_nb.load(path)
    fork = prime_nb.load(fork_to_file(path, "a4", tmp_path / "f.jsonl"))
    wanted = s.label_table[s.label_table.index.isin(fork.entries.index)]
    assert list(fork.label_table.index) == list(wanted.index) == ["u3", "a1"]
    assert wanted["timestamp"].is_monotonic_increasing
    assert fork.label_table["timestamp"].tolist() == wanted["timestamp"].tolist()
    assert fork.label_table["label"].tolist() == wanted["label"].tolist()


def test_fork_of_the_agents_session_reads_as_the_agent_reads_the_source(tmp_path: Path) -> None:
    """The agent's own fork of feature-tour at 7834fdef (agent-branched-a8) dropped its
    label entries without re-linking two children: the agent's context at the fork's leaf
    holds 3 messages. prime_nb's fork of the same branch is one unbroken chain, whose
    context is the source's (19 messages), with the agent's labels and label times."""
    source = prime_nb.load(AGENT_DIR / "feature-tour.jsonl")
    agents = prime_nb.load(AGENT_DIR / "agent-branched-a8.jsonl")
    assert agents.problems["kind"].tolist() == ["orphan", "orphan"]
    ours = prime_nb.load(fork_to_file(source.file, "7834fdef", tmp_path / "f.jsonl"))
    assert len(ours.problems) == 0
    assert [e for e in ours.entries.index if ours.entries.at[e, "type"] != "label"] == [
        e for e in agents.entries.index if agents.entries.at[e, "type"] != "label"
    ]
    assert list(ours.context("7834fdef")) == list(source.context("7834fdef"))
    assert len(agents.context("7834fdef")) == 3 < len(ours.context("7834fdef")) == 19
    assert ours.labels == agents.labels
    assert ours.label_table["timestamp"].tolist() == agents.label_table["timestamp"].tolist()
    header = raw_lines(ours.file)[0]
    assert header["rlmDepth"] == raw_lines(agents.file)[0]["rlmDepth"] == 0


@pytest.mark.parametrize(("depth", "expected"), [(None, 0), (3, 3), (-1, 0), (True, 0)])
def test_upgrade_gives_a_child_session_its_rlm_depth(
    tmp_path: Path, depth: object, expected: int
) -> None:
    """The agent rewrites a header with ``parentSession`` and no valid ``rlmDepth`` when it
    opens it; the upgraded header has one already (the agent's value for it)."""
    make_session(tmp_path / "parent.jsonl")
    path = make_session(tmp_path / "s.jsonl", 2)
    lines = path.read_bytes().splitlines()
    head = {**orjson.loads(lines[0]), "parentSession": "parent.jsonl"}
    if depth is not None:
        head["rlmDepth"] = depth
    path.write_bytes(b"\n".join([orjson.dumps(head), *lines[1:]]) + b"\n")
    write.upgrade_file(path, backup=False)
    header = raw_lines(path)[0]
    assert header["rlmDepth"] == expected and header["rlmDepth"] is not True
    assert header["parentSession"] == "parent.jsonl" and header["version"] == 3
