"""Symlinks below a corpus folder: those leading out of it are read only when asked
(``follow_symlinks=True``), as ``grep -r`` leaves them; those staying inside, and files
named on their own, are read as given."""

from __future__ import annotations

import subprocess
import warnings
from pathlib import Path

import pytest
from conftest import header, msg, write_lines

from prime_nb.corpus import load_corpus, search
from prime_nb.corpus._listing import listed


def _session(path: Path, session_id: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [header(id=session_id), msg("u1", None, "user", f"needle in {session_id}")]
    write_lines(path, lines)
    return path


@pytest.fixture
def linked(tmp_path: Path) -> Path:
    """``corpus/`` with its own session, a link to it, a link to a session outside and a
    link to a folder outside."""
    folder = tmp_path / "corpus"
    inside = _session(folder / "inside.jsonl", "inside")
    _session(tmp_path / "outside" / "secret.jsonl", "outside-file")
    _session(tmp_path / "elsewhere" / "deep.jsonl", "outside-folder")
    (folder / "again.jsonl").symlink_to(inside)
    (folder / "secret.jsonl").symlink_to(tmp_path / "outside" / "secret.jsonl")
    (folder / "project").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    return folder


def _names(paths: list[str]) -> list[str]:
    return sorted(Path(p).relative_to(Path(p).parents[1]).as_posix() for p in paths)


@pytest.mark.parametrize("pattern", ["**/*.jsonl", "*/*.jsonl", "*.jsonl"])
def test_links_leading_out_are_not_listed_unless_asked(linked: Path, pattern: str) -> None:
    found = listed(linked, pattern, None).paths
    assert all(Path(p).resolve().is_relative_to(linked.resolve()) for p in found)
    assert all(linked in Path(p).parents for p in found)
    every = listed(linked, pattern, None, follow_symlinks=True).paths
    assert set(found) <= set(every)
    assert set(every) - set(found) == {
        p for p in every if not Path(p).resolve().is_relative_to(linked.resolve())
    }


def test_search_reads_only_the_folder_s_own_files(linked: Path) -> None:
    with pytest.warns(UserWarning, match="secret.jsonl: left out, a symlink leading outside"):
        hits = search(linked, "needle", workers=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        followed = search(linked, "needle", workers=1, follow_symlinks=True)
    assert sorted(hits["session_id"]) == ["inside", "inside"]  # inside.jsonl, again.jsonl
    assert sorted(followed["session_id"]) == ["inside", "inside", "outside-file"]
    # a folder in a list is listed the same way; a file named on its own is read
    named = search([linked, linked / "secret.jsonl"], "needle", workers=1)
    assert sorted(named["session_id"]) == ["inside", "inside", "outside-file"]


def test_search_reads_what_grep_r_reads(linked: Path) -> None:
    """Of the links leading out, grep -r reads none; nor does the search."""
    done = subprocess.run(
        ["grep", "-rl", "needle", str(linked)], capture_output=True, text=True, check=False
    )
    grepped = {Path(line).resolve() for line in done.stdout.splitlines()}
    hits = search(linked, "needle", workers=1, pattern="**/*")
    assert {Path(p).resolve() for p in hits["file"]} == grepped


def test_load_corpus_and_the_dask_listing_leave_them_out_too(linked: Path) -> None:
    from prime_nb.corpus._dask import resolve  # here: dask costs every worker's collection

    rows = load_corpus(linked, workers=1, progress=False)
    assert sorted(rows["id"]) == ["inside", "inside"]
    rows = load_corpus(linked, pattern="*/*.jsonl", workers=1, progress=False)
    assert rows.empty
    followed = load_corpus(linked, "**/*", workers=1, progress=False, follow_symlinks=True)
    assert sorted(followed["id"]) == ["inside", "inside", "outside-file"]
    assert {Path(p).name for p in resolve(linked, "*/*.jsonl")} == set()
    assert {Path(p).name for p in resolve(linked, "*/*.jsonl", follow_symlinks=True)} == {
        "deep.jsonl"
    }
    assert {Path(p).name for p in resolve([linked], "*.jsonl")} == {"inside.jsonl", "again.jsonl"}


def test_a_corpus_folder_that_is_itself_a_link_is_read(linked: Path, tmp_path: Path) -> None:
    """The folder given may be a link: what counts is what stays inside its target."""
    alias = tmp_path / "alias"
    alias.symlink_to(linked, target_is_directory=True)
    hits = search(alias, "needle", workers=1)
    assert sorted(hits["session_id"]) == ["inside", "inside"]
