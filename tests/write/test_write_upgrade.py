"""upgrade_file (the one rewrite) and fork_to_file (a new file holding one branch)."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest
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
    with pytest.raises(prime_nb.SessionFormatError):
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
    with pytest.raises(KeyError):
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
    from prime_nb import datasets
    path = datasets.synthetic_session(
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
