"""The CLI on paths that are no regular file, and on hits that have no role: each command
answers at once in one line that says what the path is, and prints no ``nan``.

Each command runs in a child with a timeout, so a hang (a FIFO waited on, /dev/zero read)
fails the test instead of stopping the suite: the module's commands in one child, one
after another (tests/cli_child.py).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_child import CliChild
from conftest import header, msg, write_lines

TIMEOUT = 60


@pytest.fixture(scope="module")
def cli() -> Iterator[CliChild]:
    child = CliChild(TIMEOUT)
    try:
        yield child
    finally:
        child.close()


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe.jsonl"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("kind", ["a FIFO", "a character device"])
def test_grep_refuses_a_fifo_or_device_at_once(
    cli: CliChild, tmp_path: Path, fifo: Path, kind: str
) -> None:
    path = fifo if kind == "a FIFO" else Path("/dev/zero")
    proc = cli.run("grep", "x", str(path), cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr.splitlines() == [
        f"prime-nb: error: {path}: is {kind}, not a session file or a folder; "
        "pass .jsonl session files or folders of them"
    ]


@pytest.mark.parametrize("kind", ["a FIFO", "a character device"])
def test_redact_says_what_the_path_is(cli: CliChild, tmp_path: Path, fifo: Path, kind: str) -> None:
    path = fifo if kind == "a FIFO" else Path("/dev/zero")
    proc = cli.run("redact", str(path), cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr.splitlines() == [
        f"prime-nb: error: {path}: is {kind}, not a regular file; pass one .jsonl session file"
    ]
    assert "folder" not in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe.jsonl"]  # nothing written


def test_grep_prints_no_nan_for_hits_without_a_role(cli: CliChild, tmp_path: Path) -> None:
    """A label's and a compaction's hits have no role: the column shows ``-``."""
    lines = [
        header(),
        msg("u1", None, "user", "deploy the needle", 1),
        {
            "type": "label",
            "id": "l1",
            "parentId": "u1",
            "timestamp": "2026-01-05T10:02:00.000Z",
            "targetId": "u1",
            "label": "needle label",
        },
        {
            "type": "compaction",
            "id": "c1",
            "parentId": "l1",
            "timestamp": "2026-01-05T10:03:00.000Z",
            "summary": "the needle was deployed",
            "firstKeptEntryId": "u1",
            "tokensBefore": 100,
        },
    ]
    write_lines(tmp_path / "s.jsonl", lines)
    proc = cli.run("grep", "needle", str(tmp_path / "s.jsonl"), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    rows = [line.split(" ", 4)[:4] for line in proc.stdout.splitlines()]
    assert [row[1:] for row in rows] == [
        ["u1", "user", "text:"],
        ["l1", "-", "label:"],
        ["c1", "-", "summary:"],
    ]
    assert "nan" not in proc.stdout.lower().split()
