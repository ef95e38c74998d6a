"""Writers never move the agent's active leaf and never write an id twice."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from write_support import make_session

import prime_nb
from prime_nb import write
from prime_nb.format import _ondisk as ondisk
from prime_nb.write import _appending as appending
from prime_nb.write import _building as building


def agent_line(entry_id: str, parent: str, text: str = "agent") -> bytes:
    entry = {
        "type": "message",
        "id": entry_id,
        "parentId": parent,
        "timestamp": "2026-01-05T12:00:00.000Z",
        "message": {"role": "assistant", "content": [{"type": "text", "text": text}]},
    }
    return orjson.dumps(entry) + b"\n"


def replace_with(path: Path, data: bytes) -> None:
    """The agent's way: a new file renamed over the path."""
    tmp = path.with_name(".agent.tmp")
    tmp.write_bytes(data)
    os.rename(tmp, path)


def ids_in(path: Path) -> list[Any]:
    return [orjson.loads(x).get("id") for x in path.read_bytes().splitlines() if x.strip()]


def test_reappend_that_would_move_the_leaf_raises(tmp_path: Path) -> None:
    path = make_session(tmp_path / "s.jsonl")
    original = path.read_bytes()
    mine = write.append_message(path, "a3", {"role": "user", "content": "mine"})
    assert prime_nb.load(path).leaf_id == mine
    # the agent re-creates the file without our entry, then goes on with its own work
    replace_with(path, original + agent_line("agent001", "nm"))
    before = path.read_bytes()
    with pytest.raises(prime_nb.EntryLostError, match=f"({mine})") as caught:
        write.append_label(path, "u1", "x")
    assert "would become the branch the agent resumes, so nothing was written" in str(caught.value)
    assert "moved_leaf='append'" in str(caught.value)
    assert [e["id"] for e in caught.value.entries] == [mine]
    assert caught.value.entries[0]["message"]["content"] == "mine"
    assert path.read_bytes() == before  # the agent's leaf is untouched
    assert prime_nb.load(path).leaf_id == "agent001"
    with pytest.raises(prime_nb.EntryLostError, match=mine):
        write.reconcile(path)  # the default does not decide either
    assert path.read_bytes() == before
    assert write.reconcile(path, moved_leaf="append") == [mine]  # the user decides
    session = prime_nb.load(path)
    assert session.leaf_id == mine and Counter(ids_in(path))[mine] == 1
    assert write.reconcile(path) == []
    write.append_label(path, "u1", "x")
    assert prime_nb.load(path).labels["u1"] == "x"


def test_forget_drops_what_would_move_the_leaf(tmp_path: Path) -> None:
    path = make_session(tmp_path / "s.jsonl")
    original = path.read_bytes()
    chain = write.append_fork(
        path, "a3", [{"role": "user", "content": "one"}, {"role": "user", "content": "two"}]
    )
    label = write.append_label(path, chain[0], "mine")  # names an entry that will be held
    replace_with(path, original + agent_line("agent001", "nm"))
    with pytest.raises(
        prime_nb.EntryLostError,
        match=r"another program replaced the file .* Call prime_nb\.reconcile\(",
    ) as caught:
        write.append_message(path, "agent001", {"role": "user", "content": "next"})
    assert [e["id"] for e in caught.value.entries] == [*chain, label]
    assert write.reconcile(path, moved_leaf="forget") == []
    new = write.append_message(path, "agent001", {"role": "user", "content": "next"})
    session = prime_nb.load(path)
    assert session.leaf_id == new and session.path(new)[-2:] == ["agent001", new]
    assert not set(chain) & set(session.entries.index)


def test_reappend_that_keeps_the_leaf_still_repairs(tmp_path: Path) -> None:
    path = make_session(tmp_path / "s.jsonl")
    original = path.read_bytes()
    first = write.append_message(path, "a3", {"role": "user", "content": "one"})
    second = write.append_message(path, first, {"role": "user", "content": "two"})
    replace_with(path, original)  # read before our appends, renamed after: nothing new
    third = write.append_message(path, second, {"role": "user", "content": "three"})
    session = prime_nb.load(path)
    assert session.path()[-3:] == [first, second, third]
    assert all(n == 1 for n in Counter(ids_in(path)).values())


def test_reconcile_refuses_an_unknown_choice(tmp_path: Path) -> None:
    path = make_session(tmp_path / "s.jsonl")
    with pytest.raises(ValueError, match="moved_leaf must be one of 'raise', 'append', 'forget'"):
        write.reconcile(path, moved_leaf="maybe")  # type: ignore[arg-type]


# -- ids checked against the file as it is at the moment of the write ------------------

JUNK = b"#" * 300 + b"\n"


def planted(entry: dict[str, Any]) -> bytes:
    """A line holding ``entry``, padded to replace JUNK byte for byte."""
    data = orjson.dumps(entry)
    assert len(data) < len(JUNK) - 1
    return data + b" " * (len(JUNK) - 1 - len(data)) + b"\n"


def rewrite_junk_after_reading(monkeypatch: pytest.MonkeyPatch, path: Path, line: bytes) -> None:
    """Right after the writer reads the file, part of it is rewritten in place (the junk
    line becomes an entry): the first and last bytes stay the same, so the reading is
    stale without showing it."""
    real = ondisk.current
    done: list[int] = []

    def current(file: Path, fd: int) -> ondisk.Snapshot:
        snap = real(file, fd)
        if not done:
            data = path.read_bytes()
            at = data.index(JUNK)
            with open(path, "r+b") as fh:
                fh.seek(at)
                fh.write(line)
            done.append(1)
        return snap

    monkeypatch.setattr(appending, "current_snapshot", current)  # where the writer calls it


def with_junk(path: Path) -> Path:
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:3]) + JUNK + b"".join(lines[3:]))
    return path


def drawn_ids(monkeypatch: pytest.MonkeyPatch, ids: list[str]) -> None:
    queue: Iterator[str] = iter(ids)
    monkeypatch.setattr(building.secrets, "token_hex", lambda _n: next(queue))


def test_a_new_id_is_checked_against_the_file_at_write_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = with_junk(make_session(tmp_path / "s.jsonl"))
    other = {
        "type": "message",
        "id": "dup00001",
        "parentId": "u1",
        "timestamp": "2026-01-05T12:00:00.000Z",
        "message": {"role": "user", "content": "planted"},
    }
    rewrite_junk_after_reading(monkeypatch, path, planted(other))
    drawn_ids(monkeypatch, ["dup00001", "dup00001", "fresh001"])
    new = write.append_message(path, "a3", {"role": "user", "content": "mine"})
    assert new == "fresh001"
    counts = Counter(ids_in(path))
    assert counts["dup00001"] == 1 and counts["fresh001"] == 1
    session = prime_nb.load(path)
    assert session.entry("dup00001")["message"]["content"] == "planted"
    assert session.leaf_id == "fresh001"


def test_a_dropped_entry_is_not_written_again_when_the_file_holds_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = with_junk(make_session(tmp_path / "s.jsonl"))
    original = path.read_bytes()
    mine = write.append_message(path, "a3", {"role": "user", "content": "mine"})
    line = path.read_bytes()[len(original) :]
    replace_with(path, original)  # dropped by a replacement...
    rewrite_junk_after_reading(monkeypatch, path, planted(orjson.loads(line)))  # ...and back
    new = write.append_label(path, mine, "kept")
    counts = Counter(ids_in(path))
    assert counts[mine] == 1 and counts[new] == 1
    assert prime_nb.load(path).labels[mine] == "kept"


def test_a_mention_in_text_only_is_no_clash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = make_session(tmp_path / "s.jsonl")
    write.append_message(path, "a3", {"role": "user", "content": '"abcd0001"'})
    drawn_ids(monkeypatch, ["abcd0001"])
    new = write.append_message(path, "a3", {"role": "user", "content": "named in the text above"})
    assert new == "abcd0001" and Counter(ids_in(path))[new] == 1
    assert appending._journals[appending.normalise(path)][-1].landed


def test_a_rewrite_before_the_writers_reading_takes_its_marks_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file is rewritten in place (same size, other ids) after the writers' snapshot
    read it and before it read its marks: the next snapshot must read the file again,
    not take the rewritten file for the one read (its ids would be stale for good)."""
    path = make_session(tmp_path / "s.jsonl")
    data = path.read_bytes()
    other = data.replace(b'"u1"', b'"w1"')
    assert len(other) == len(data) and other != data
    real = ondisk.Snapshot._read_marks
    done: list[int] = []

    def rewrite_first(self: ondisk.Snapshot, fd: int) -> bytes:
        if not done:
            done.append(1)
            with open(path, "r+b") as fh:
                fh.write(other)
        return real(self, fd)

    ondisk.forget(path)
    monkeypatch.setattr(ondisk.Snapshot, "_read_marks", rewrite_first)
    with open(path, "rb") as fh:
        assert "u1" in ondisk.current(path, fh.fileno())
    assert done
    with open(path, "rb") as fh:
        again = ondisk.current(path, fh.fileno())
    assert "w1" in again and "u1" not in again
    ondisk.forget(path)
