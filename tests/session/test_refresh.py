"""refresh() reads only appended bytes and agrees with a full reload."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
from conftest import header, msg, write_lines

import prime_nb


def line(entry: dict) -> bytes:
    return json.dumps(entry).encode() + b"\n"


def assert_same_as_reload(session: prime_nb.Session) -> None:
    fresh = prime_nb.load(session.file)
    pd.testing.assert_frame_equal(session.entries, fresh.entries)
    pd.testing.assert_frame_equal(session.problems, fresh.problems)
    assert session.leaf_id == fresh.leaf_id


def test_refresh_appends_and_moves_active_leaf(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "s.jsonl",
        [header(), msg("u1", None, "user", "x"), msg("a1", "u1", "assistant", "y", 1)],
    )
    session = prime_nb.load(path)
    _ = session.entries
    assert session.refresh() == 0
    with open(path, "ab") as fh:
        fh.write(line(msg("u2", "u1", "user", "fork", 2)))  # a fork off u1
        fh.write(
            line(
                {
                    "type": "label",
                    "id": "l1",
                    "parentId": "u2",
                    "targetId": "a1",
                    "label": "first try",
                }
            )
        )
    assert session.refresh() == 2
    assert session.leaf_id == "l1"
    assert session.entries.loc["u1", "children"] == 2
    assert not session.entries.loc["a1", "on_active_path"]
    assert session.labels == {"a1": "first try"}
    assert_same_as_reload(session)


def test_torn_tail_is_reread_once_complete(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "s.jsonl", [header(), msg("u1", None, "user", "x")])
    whole = line(msg("a1", "u1", "assistant", "done", 1))
    with open(path, "ab") as fh:
        fh.write(whole[:20])
    session = prime_nb.load(path)
    assert session.problems["kind"].tolist() == ["torn_line"]
    assert session.problems["line"].tolist() == [3]
    with open(path, "ab") as fh:
        fh.write(whole[20:])
    assert session.refresh() == 1
    assert len(session.problems) == 0
    assert session.leaf_id == "a1"
    assert_same_as_reload(session)


def test_unterminated_complete_line_then_more(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "s.jsonl", [header(), msg("u1", None, "user", "x")])
    with open(path, "ab") as fh:
        fh.write(line(msg("a1", "u1", "assistant", "y", 1)).rstrip(b"\n"))
    session = prime_nb.load(path)
    assert session.leaf_id == "a1" and len(session.problems) == 0
    with open(path, "ab") as fh:
        fh.write(b"\n" + line(msg("u2", "a1", "user", "z", 2)))
    assert session.refresh() == 1
    assert_same_as_reload(session)


def test_refresh_resolves_earlier_orphan(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "s.jsonl",
        [header(), msg("u1", None, "user", "x"), msg("k1", "later", "user", "early child", 1)],
    )
    session = prime_nb.load(path)
    assert session.problems["kind"].tolist() == ["orphan"]
    with open(path, "ab") as fh:
        fh.write(line(msg("later", "u1", "assistant", "parent arrives", 2)))
    session.refresh()
    assert len(session.problems) == 0
    assert session.path("k1") == ["u1", "later", "k1"]
    assert_same_as_reload(session)


def test_refresh_after_file_replaced(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "s.jsonl", [header(), msg("u1", None, "user", "x")])
    session = prime_nb.load(path)
    other = write_lines(
        tmp_path / "new.jsonl",
        [header(), msg("v1", None, "user", "new file"), msg("v2", "v1", "assistant", "y", 1)],
    )
    os.replace(other, path)
    session.refresh()
    assert list(session.entries.index) == ["v1", "v2"]


WRITER = """
import json, sys
path, n = sys.argv[1], int(sys.argv[2])
parent = "u0"
for k in range(n):
    entry = {"type": "message", "id": f"w{k:07d}", "parentId": parent,
             "timestamp": "2026-01-05T11:00:00.000Z",
             "message": {"role": "user", "content": "x" * (k % 5000)}}
    data = (json.dumps(entry) + "\\n").encode()
    with open(path, "ab", buffering=0) as fh:
        # two writes per line: a reader can see a torn tail in between
        fh.write(data[: len(data) // 2]); fh.write(data[len(data) // 2 :])
    parent = entry["id"]
"""


def test_refresh_while_another_process_appends(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "s.jsonl", [header(), msg("u0", None, "user", "start")])
    session = prime_nb.load(path)
    n = 400
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(n)])
    seen = 0
    while writer.poll() is None:
        seen += session.refresh()
        assert set(session.problems["kind"]) <= {"torn_line"}
    writer.wait()
    seen += session.refresh()
    assert writer.returncode == 0
    assert seen == n
    assert len(session.problems) == 0
    assert session.leaf_id == f"w{n - 1:07d}"
    assert session.entries.loc[session.leaf_id, "depth"] == n
    assert_same_as_reload(session)
