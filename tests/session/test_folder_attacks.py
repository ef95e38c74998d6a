"""Folders an attacker made: nested past Python's recursion limit, and file names that
hold terminal escape sequences.

A folder nested 1,200 deep made every folder reader (``ls``, ``validate``, ``grep``, the
corpus, ``list_sessions``, ``from_sessions``) raise RecursionError from pathlib's
recursive glob. A file name with an escape sequence went raw into the warnings that
name it (a symlink left out, a file skipped), which Python prints on the terminal."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_in_process import run_cli
from conftest import header, msg, write_lines

from prime_nb.datasets import from_sessions
from prime_nb.session import find_session_files, list_sessions

DEPTH = 1200
#: a window title, a bell and a screen clear, as a file name may hold them
NASTY = "\x1b]0;pwned\x07\x1b[2J"


def _session(path: Path) -> Path:
    written: Path = write_lines(path, [header(), msg("u1", None, "user", "needle")])
    return written


@pytest.fixture(scope="module")
def deep(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """The folders, removed here deepest first: pytest's own clean-up (shutil.rmtree)
    recurses too, and would fail on them in a later run."""
    root = tmp_path_factory.mktemp("deep")
    chain = [root]
    for _ in range(DEPTH):  # os.makedirs recurses too
        chain.append(chain[-1] / "d")
        chain[-1].mkdir()
    path = _session(chain[-1] / "s.jsonl")
    try:
        yield root, path
    finally:
        path.unlink()
        for folder in reversed(chain[1:]):
            folder.rmdir()


def test_a_folder_nested_past_the_recursion_limit_is_listed(deep: tuple[Path, Path]) -> None:
    root, path = deep
    assert find_session_files(root) == [path]
    assert list_sessions(root)["entries"].tolist() == [1]


@pytest.mark.parametrize("command", [["ls"], ["validate"], ["grep", "needle"]])
def test_the_cli_reads_a_folder_nested_past_the_recursion_limit(
    deep: tuple[Path, Path], command: list[str]
) -> None:
    done = run_cli(*command, deep[0])
    assert done.returncode == 0, done.stderr
    assert "d/d/d" in done.stdout and "RecursionError" not in done.stderr


def test_a_pattern_below_the_folder_still_matches_as_glob_does(tmp_path: Path) -> None:
    for name in ("a/s.jsonl", "a/b/t.jsonl", "b/sub/u.jsonl", "sub/v.jsonl", "w.txt"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        _session(tmp_path / name)
    (tmp_path / "link").symlink_to(tmp_path / "a")  # a linked folder is not entered
    for pattern in ("**/*.jsonl", "**/sub/*.jsonl", "*/*.jsonl", "**/*.txt"):
        globbed = sorted(p for p in tmp_path.glob(pattern) if p.is_file())
        assert find_session_files(tmp_path, pattern) == globbed, pattern


def test_warnings_show_a_file_names_escape_sequences_escaped(tmp_path: Path) -> None:
    folder = tmp_path / "f"
    folder.mkdir()
    (folder / f"bad{NASTY}.jsonl").write_text("not a session\n")
    outside = _session(tmp_path / "outside.jsonl")
    (folder / f"link{NASTY}.jsonl").symlink_to(outside)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        list_sessions(folder)
        from_sessions(folder, progress=False)
    said = [str(w.message) for w in caught]
    assert any("left out" in s for s in said) and any("skipped" in s for s in said), said
    for text in said:
        assert not any(c in text for c in "\x1b\x07"), text
        assert r"\x1b]0;pwned\x07" in text, text
