"""refresh() equals a fresh load() even when the file was replaced, rewritten or glued.

Every test compares the refreshed session with a fresh ``load()`` of the same file:
every table, the problems, the tree (path and children of every entry) and the
entries read back from disk (stale byte offsets would show there).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from conftest import header, msg, write_lines

import prime_nb
import sessiongen
from prime_nb.errors import SessionFormatError
from prime_nb.session import _read as reading

TABLES = ("entries", "messages", "tool_calls", "compactions", "leaves", "problems")


def line(entry: dict[str, Any]) -> bytes:
    return json.dumps(entry).encode() + b"\n"


def lines_of(entries: list[dict[str, Any]]) -> bytes:
    return b"".join(line(e) for e in entries)


def rewrite_in_place(path: Path, data: bytes) -> None:
    """Truncate and write: the file keeps its inode, as an inode reused by temp + rename."""
    before = os.stat(path)
    with open(path, "r+b") as fh:
        fh.truncate(0)
        fh.write(data)
    after = os.stat(path)
    assert (after.st_dev, after.st_ino) == (before.st_dev, before.st_ino)


def assert_equals_fresh_load(session: prime_nb.Session) -> None:
    fresh = prime_nb.load(session.file)
    for name in TABLES:
        pd.testing.assert_frame_equal(getattr(session, name), getattr(fresh, name), obj=name)
    assert session.leaf_id == fresh.leaf_id
    assert session.labels == fresh.labels
    assert session.header == fresh.header
    assert sorted(session.graph.edges) == sorted(fresh.graph.edges)
    ids = list(fresh.entries.index)
    for entry_id in ids:
        assert session.path(entry_id) == fresh.path(entry_id)
        assert session.children(entry_id) == fresh.children(entry_id)
    assert session.read_entries(ids) == fresh.read_entries(ids)
    for leaf in fresh.leaves.index:
        assert list(session.context(leaf)) == list(fresh.context(leaf))


def synthetic_lines(seed: int, turns: int = 12, forks: int = 2) -> bytes:
    return lines_of(sessiongen.synthetic_entries(seed=seed, turns=turns, forks=forks))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_recreated_file_with_the_same_inode_and_a_longer_body(tmp_path: Path, seed: int) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(synthetic_lines(seed, turns=12, forks=0))
    session = prime_nb.load(path)
    _ = session.entries
    # the agent's replacement: same session, other content, and longer than before
    rewrite_in_place(path, synthetic_lines(seed + 100, turns=20, forks=3))
    session.refresh()
    assert_equals_fresh_load(session)


def test_replacement_keeping_header_and_last_line_offsets_differing_in_between(
    tmp_path: Path,
) -> None:
    first = [header(), msg("u1", None, "user", "one"), msg("a1", "u1", "assistant", "two", 1)]
    path = write_lines(tmp_path / "s.jsonl", first)
    session = prime_nb.load(path)
    assert session.entry("a1")["message"]["content"][0]["text"] == "two"
    # a1 rewritten longer in place, then more lines: the old end offset now falls inside
    longer = [
        header(),
        msg("u1", None, "user", "one"),
        msg("a1", "u1", "assistant", "two, and a much longer answer now", 1),
        msg("u2", "a1", "user", "three", 2),
    ]
    rewrite_in_place(path, lines_of(longer))
    session.refresh()
    assert_equals_fresh_load(session)
    assert session.entry("a1")["message"]["content"][0]["text"].endswith("longer answer now")


def test_entry_refuses_stale_offsets_of_a_rewritten_file(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "s.jsonl", [header(), msg("u1", None, "user", "one")])
    session = prime_nb.load(path)
    rewrite_in_place(path, lines_of([header(), msg("x1", None, "user", "other text, longer")]))
    with pytest.raises(SessionFormatError, match="replaced on disk since it was loaded"):
        session.entry("u1")
    session.refresh()
    assert_equals_fresh_load(session)


def test_in_place_rewrite_that_ends_up_longer(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    data = synthetic_lines(7)
    path.write_bytes(data)
    session = prime_nb.load(path)
    _ = session.entries, session.graph
    # same first and last bytes, one entry's text changed in the middle, then grown
    entries = sessiongen.synthetic_entries(seed=7, turns=12, forks=2)
    middle = next(
        e
        for e in entries[len(entries) // 3 :]
        if e.get("type") == "message" and isinstance(e["message"].get("content"), str)
    )
    middle["message"]["content"] += " (edited)"
    rewrite_in_place(path, lines_of(entries) + line(msg("zz", None, "user", "new root", 59)))
    session.refresh()
    assert_equals_fresh_load(session)


def test_header_not_yet_complete_leaves_the_session_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(synthetic_lines(4))
    session = prime_nb.load(path)
    before = {name: getattr(session, name).copy() for name in TABLES}
    leaf, n = session.leaf_id, len(session)
    new = synthetic_lines(5, turns=15)
    partial = tmp_path / "new.jsonl"
    partial.write_bytes(new[:30])  # the agent's new file, its header half written
    os.replace(partial, path)
    for _ in range(2):  # fails each time, without touching the session
        with pytest.raises(SessionFormatError, match="no session header"):
            session.refresh()
        assert (session.leaf_id, len(session)) == (leaf, n)
        for name in TABLES:
            pd.testing.assert_frame_equal(getattr(session, name), before[name], obj=name)
    with open(path, "ab") as fh:
        fh.write(new[30:])
    session.refresh()
    assert_equals_fresh_load(session)


def test_header_not_yet_complete_in_place(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "s.jsonl", [header(), msg("u1", None, "user", "x")])
    session = prime_nb.load(path)
    new = lines_of([header(id="sess-2"), msg("v1", None, "user", "y"), msg("v2", "v1", "user")])
    rewrite_in_place(path, new[:10])
    with pytest.raises(SessionFormatError, match="no session header"):
        session.refresh()
    assert session.leaf_id == "u1" and len(session) == 1
    rewrite_in_place(path, new)
    session.refresh()
    assert session.leaf_id == "v2"
    assert_equals_fresh_load(session)


@pytest.mark.parametrize("glued", [b"", b"\n"])
def test_glued_last_line(tmp_path: Path, glued: bytes) -> None:
    path = write_lines(tmp_path / "s.jsonl", [header(), msg("u1", None, "user", "x")])
    with open(path, "ab") as fh:
        fh.write(line(msg("a1", "u1", "assistant", "y", 1)).rstrip(b"\n"))
    session = prime_nb.load(path)
    assert session.leaf_id == "a1" and len(session.problems) == 0
    with open(path, "ab") as fh:  # another line glued onto the last one (or a proper one)
        fh.write(glued + line(msg("u2", "a1", "user", "z", 2)))
    session.refresh()
    assert_equals_fresh_load(session)


def test_refresh_matrix_of_appends_and_replacements(tmp_path: Path) -> None:
    """Every synthetic version and dialect: grown, then replaced by the same session."""
    for version in (1, 2, 3):
        for dialect in ("prime", "spec"):
            entries = sessiongen.synthetic_entries(version=version, dialect=dialect, seed=version)
            path = tmp_path / f"v{version}-{dialect}.jsonl"
            cut = len(entries) // 2
            path.write_bytes(lines_of(entries[:cut]))
            session = prime_nb.load(path)
            _ = session.entries
            with open(path, "ab") as fh:
                fh.write(lines_of(entries[cut:]))
            session.refresh()
            assert_equals_fresh_load(session)
            rewrite_in_place(path, lines_of(entries[:1] + entries[2:]))  # one entry dropped
            session.refresh()
            assert_equals_fresh_load(session)


def test_agent_style_temp_and_rename_that_reuses_the_inode(tmp_path: Path) -> None:
    """The real thing: on ext4, recreating a file twice by temp + rename often hands the
    new file the old inode number (elsewhere this is a plain replacement: same check)."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(synthetic_lines(8, turns=12, forks=0))
    session = prime_nb.load(path)
    _ = session.entries
    inode = path.stat().st_ino
    for attempt in range(40):
        tmp = tmp_path / f".s.jsonl.{attempt % 2}.tmp"
        tmp.write_bytes(synthetic_lines(9 + attempt, turns=20, forks=2))
        os.rename(tmp, path)
        if path.stat().st_ino == inode:
            break
    session.refresh()
    assert_equals_fresh_load(session)


def test_rewrite_between_the_load_and_its_marks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file is rewritten in place after load() read its entries and before it read
    the marks refresh() compares: the marks must not pass the new file off as the one
    read (refresh() took it for an append and never caught up with a fresh load)."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(synthetic_lines(4, turns=12, forks=0))
    real_marks_of = reading.marks_of
    rewritten: list[bool] = []

    def rewrite_first(fd: int, end: int) -> bytes:
        # the first call takes the marks of what is there before the read; the second,
        # after it: the file is rewritten in place in between
        if len(rewritten) == 1:
            rewrite_in_place(path, synthetic_lines(104, turns=20, forks=3))
        rewritten.append(True)
        return real_marks_of(fd, end)

    monkeypatch.setattr(reading, "marks_of", rewrite_first)
    session = prime_nb.load(path)
    assert len(rewritten) >= 2
    monkeypatch.setattr(reading, "marks_of", real_marks_of)
    session.refresh()
    assert_equals_fresh_load(session)


def test_rewrite_between_a_refresh_and_its_marks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same race in refresh(): the appended lines are read, then the file is
    rewritten in place (same size, other bytes) before the marks are taken."""
    entries = sessiongen.synthetic_entries(seed=5, turns=12, forks=0)
    path = tmp_path / "s.jsonl"
    path.write_bytes(lines_of(entries[:10]))
    session = prime_nb.load(path)
    with open(path, "ab") as fh:
        fh.write(lines_of(entries[10:]))
    whole = path.read_bytes()
    # same length, the first and the last user text changed: another file, same size
    other = whole.replace(b'"user"', b'"USER"', 1)[::-1].replace(b'"resu"', b'"RESU"', 1)[::-1]
    assert len(other) == len(whole) and other != whole
    real_scan = reading.scan

    def scan_then_rewrite(*args: Any, **kwargs: Any) -> Any:
        yield from real_scan(*args, **kwargs)
        rewrite_in_place(path, other)

    monkeypatch.setattr(reading, "scan", scan_then_rewrite)
    session.refresh()
    monkeypatch.setattr(reading, "scan", real_scan)
    session.refresh()
    assert_equals_fresh_load(session)
